// Writes the playground's built-in case files as one JSON file, `[[name, text], …]`, each file's
// text as it is in conformance/ (sorted by name): the page fetches it beside its .wasm, and
// brotli shrinks it far more than anything the .wasm could carry.
// `node scripts/bundle-cases.mjs conformance playground/dist/cases.json`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node scripts/bundle-cases.mjs DIR OUT");
  process.exit(2);
}
const files = readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
const bundle = files.map((n) => [path.basename(n, ".json"), readFileSync(path.join(dir, n), "utf8")]);
writeFileSync(out, JSON.stringify(bundle));
console.log(`${out}: ${files.length} case files`);
