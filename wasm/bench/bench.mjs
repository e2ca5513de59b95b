// µs per call through the npm package in Node, and the same calls natively in the same run (the
// `api_bench` example of lembas-rules: text in, text out, as the package's wasm does), with their
// ratios: `make npm && node wasm/bench/bench.mjs`. Medians of nine rounds (these machines are noisy).
import { readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as L from "../pkg/node.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const files = readdirSync(path.join(root, "conformance"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => [JSON.parse(readFileSync(path.join(root, "conformance", f), "utf8")), f.replace(/\.json$/, "")]);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function bench(name, f, n) {
  for (let i = 0; i < Math.min(n, 200); i++) f();
  const rounds = [];
  for (let r = 0; r < 9; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f();
    rounds.push(Number(process.hrtime.bigint() - t0) / 1000 / n);
  }
  const us = median(rounds);
  console.log(`${name.padEnd(44)} ${us.toFixed(2).padStart(9)} µs`);
  return us;
}

const push = { tool: "bash", line: "git push origin main" };
const node = {
  evaluate: bench("evaluate git push (edit)", () => L.evaluate(push, { mode: "edit" }), 2000),
  whoDecides: bench("whoDecides git push (granted)", () => L.whoDecides(push, { mainMode: "auto", mode: "edit", request: ["execute"], grants: [{ tool: "bash", pattern: "git push *" }] }), 2000),
};
const p = { phase: "running_tool", since: 1762790400000, tool: "bash", what: "bun test" };
node.progressLine = bench("progressLine (running_tool)", () => L.progressLine(p, 1762790461000), 5000);
node.specVersion = bench("specVersion (the boundary alone)", () => L.specVersion(), 5000);
node.runFile = bench("runFile, every case file", () => files.forEach(([f, n]) => L.runFile(f, n)), 20);

// The same calls natively, in this run.
const native = JSON.parse(
  execFileSync("cargo", ["run", "-q", "--release", "-p", "lembas-rules", "--features", "wasm", "--example", "api_bench", "--", path.join(root, "conformance")], {
    cwd: root,
    encoding: "utf8",
  }),
);
console.log("\nnatively (µs), and Node's ÷ native:");
const ratio = (name, ours, theirs) => console.log(`${name.padEnd(44)} ${theirs.toFixed(2).padStart(9)} µs  ${(ours / theirs).toFixed(1).padStart(5)}×`);
for (const k of ["evaluate", "whoDecides", "progressLine", "specVersion"]) ratio(k, node[k], native[k]);
ratio("runFile vs the runner natively", node.runFile, native["runFile (the runner)"]);
ratio("runFile vs the same API call natively", node.runFile, native["runFile (the API, text in and out)"]);
