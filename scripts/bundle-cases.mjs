// Writes the playground's built-in case files as one JSON file, `[[name, file], …]`, each file
// written into it as its text is in conformance/ (sorted by name; not parsed and written again,
// so its keys, numbers and any repeated key reach the page's strict reader as they are): the
// page fetches it beside its .wasm and reads it in one go, and brotli shrinks it far more than
// anything the .wasm could carry.
// `node scripts/bundle-cases.mjs conformance playground/dist/cases.json`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node scripts/bundle-cases.mjs DIR OUT");
  process.exit(2);
}
const files = readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
const pairs = files.map((n) => {
  const text = readFileSync(path.join(dir, n), "utf8");
  try {
    JSON.parse(text);
  } catch (e) {
    console.error(`${path.join(dir, n)}: not JSON (${e.message})`);
    process.exit(1);
  }
  return `[${JSON.stringify(path.basename(n, ".json"))},${text.trim()}]`;
});
writeFileSync(out, `[${pairs.join(",\n")}]\n`);
console.log(`${out}: ${files.length} case files`);
