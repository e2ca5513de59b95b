// Two or more builds of the package side by side in one Node process, their rounds interleaved
// so that a noisy machine slows them alike: `node wasm/bench/compare.mjs DIR DIR…`, each DIR a
// copy of wasm/pkg (e.g. `make npm NPM_RUSTFLAGS="…"` then `cp -r wasm/pkg /tmp/variant`).
// Prints the median µs of nine rounds of each call for each build and the second's ratio to the
// first: how the build variants of docs/figures.md were judged.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
const dirs = process.argv.slice(2).map((d) => path.resolve(d));
if (dirs.length === 0) {
  console.error("usage: node wasm/bench/compare.mjs PACKAGE_DIR [PACKAGE_DIR…]");
  process.exit(2);
}
const pk = [];
for (const d of dirs) pk.push(await import(path.join(d, "node.js")));
const conf = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../conformance");
const files = readdirSync(conf).filter((f) => f.endsWith(".json")).sort().map((f) => [JSON.parse(readFileSync(conf + "/" + f, "utf8")), f.replace(/\.json$/, "")]);
const push = { tool: "bash", line: "git push origin main" };
const tests = {
  evaluate: [(L) => L.evaluate(push, { mode: "edit" }), 3000],
  compound: [(L) => L.evaluate({ tool: "bash", line: "cat src/*.rs | grep -n foo > /tmp/out.txt && ls -la" }, { mode: "edit" }), 2000],
  whoDecides: [(L) => L.whoDecides(push, { mainMode: "auto", mode: "edit", request: ["execute"], grants: [{ tool: "bash", pattern: "git push *" }] }), 2000],
  runFile: [(L) => files.forEach(([f, n]) => L.runFile(f, n)), 3],
};
const res = {}; for (const k in tests) res[k] = dirs.map(() => []);
for (const k in tests) { const [f, n] = tests[k]; pk.forEach((L) => { for (let i = 0; i < Math.min(n, 300); i++) f(L); }); }
for (let r = 0; r < 9; r++) for (const k in tests) { const [f, n] = tests[k]; pk.forEach((L, j) => { const t0 = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(L); res[k][j].push(Number(process.hrtime.bigint() - t0) / 1000 / n); }); }
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const k in tests) console.log(k.padEnd(12), dirs.map((d, j) => `${d.split("/").pop()}=${med(res[k][j]).toFixed(2)}`).join("  "), dirs.length > 1 ? `ratio ${(med(res[k][1]) / med(res[k][0])).toFixed(3)}` : "");
