// The size of the package's .wasm against its budget: at most 300 KB, and 120 KB gzipped.
// `--report` prints the figures; without it, a .wasm over the budget fails.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
const file = new URL("../pkg/lembas_wasm_bg.wasm", import.meta.url);
const bytes = readFileSync(file);
const gz = gzipSync(bytes, { level: 9 }).length;
const kb = (n) => (n / 1000).toFixed(1);
const over = bytes.length > 300_000 || gz > 120_000;
console.log(`lembas_wasm_bg.wasm: ${kb(bytes.length)} KB, ${kb(gz)} KB gzipped (budget 300 KB, 120 KB gzipped)${over ? " — over the budget" : ""}`);
if (over && !process.argv.includes("--report")) process.exit(1);
