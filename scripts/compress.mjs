// Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each HTML, JS, CSS, JSON and wasm file of a
// folder, at the highest levels, for scripts/static-server.mjs to send; prints each file's sizes.
// `node scripts/compress.mjs DIR`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/compress.mjs DIR");
  process.exit(2);
}
let raw = 0;
let br = 0;
let gz = 0;
for (const name of readdirSync(dir).filter((n) => /\.(html|js|css|wasm|json)$/.test(n))) {
  const file = path.join(dir, name);
  const body = readFileSync(file);
  const brotli = zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
  const gzip = zlib.gzipSync(body, { level: 9 });
  writeFileSync(file + ".br", brotli);
  writeFileSync(file + ".gz", gzip);
  raw += body.length;
  br += brotli.length;
  gz += gzip.length;
}
const kb = (n) => (n / 1000).toFixed(1) + " KB";
console.log(`${dir}: ${kb(raw)} raw, ${kb(br)} brotli, ${kb(gz)} gzip (HTML, JS, CSS, JSON and wasm together)`);
