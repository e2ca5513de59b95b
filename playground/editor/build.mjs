// Bundles the case editor (CodeMirror 6 and the case format's schemas) into one ES module with
// esbuild (pinned in wasm/'s lockfile): minified for the browser, or for Node (the editor's
// tests). `node playground/editor/build.mjs SCHEMAS OUT`: SCHEMAS the folder of `<area>.json`
// schemas (rules/examples/schemas.rs), OUT the file written.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const areas = ["progress", "delegation", "subagents", "permission", "team"];

/// Writes the bundle to `out`, its schemas read from `schemaDir`; `node`: for Node, not minified;
/// `entry`: another module to bundle (a test's, which imports the editor and CodeMirror: one copy
/// of each in the bundle).
export async function bundle(schemaDir, out, { node = false, entry = path.join(here, "editor.js") } = {}) {
  const esbuild = createRequire(path.join(root, "wasm/package.json"))("esbuild");
  // `lembas:schemas`: every area's schema, by area.
  const schemas = {
    name: "lembas-schemas",
    setup(build) {
      build.onResolve({ filter: /^lembas:schemas$/ }, () => ({ path: "schemas", namespace: "lembas" }));
      build.onLoad({ filter: /.*/, namespace: "lembas" }, () => {
        const all = Object.fromEntries(areas.map((a) => [a, JSON.parse(readFileSync(path.join(schemaDir, `${a}.json`), "utf8"))]));
        return { contents: `export default ${JSON.stringify(all)};`, loader: "js" };
      });
    },
  };
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: !node,
    format: "esm",
    platform: node ? "node" : "browser",
    target: "es2020",
    outfile: out,
    nodePaths: [path.join(root, "wasm/node_modules")],
    plugins: [schemas],
    logLevel: "warning",
    legalComments: "none",
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [schemaDir, out] = process.argv.slice(2);
  if (!schemaDir || !out) {
    console.error("usage: node playground/editor/build.mjs SCHEMAS OUT");
    process.exit(2);
  }
  await bundle(schemaDir, out);
}
