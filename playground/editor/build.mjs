// Bundles the case editor (CodeMirror 6 and the case format's schemas) into one minified ES
// module with esbuild (pinned in wasm/'s lockfile). `node playground/editor/build.mjs SCHEMAS OUT`:
// SCHEMAS the folder of `<area>.json` schemas (rules/examples/schemas.rs), OUT the file written.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const require = createRequire(path.join(root, "wasm/package.json"));
const esbuild = require("esbuild");
const [schemaDir, out] = process.argv.slice(2);
if (!schemaDir || !out) {
  console.error("usage: node playground/editor/build.mjs SCHEMAS OUT");
  process.exit(2);
}
const areas = ["progress", "delegation", "subagents", "permission", "team"];
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
  entryPoints: [path.join(here, "editor.js")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  outfile: out,
  nodePaths: [path.join(root, "wasm/node_modules")],
  plugins: [schemas],
  logLevel: "warning",
  legalComments: "none",
});
