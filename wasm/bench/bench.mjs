// µs per call through the npm package in Node, and the same calls natively in the same run (the
// `api_bench` example of lembas-rules: text in, text out, as the package's wasm does), with their
// ratios, then each figure of issue 23 beside its budget: `make npm && node wasm/bench/bench.mjs`.
// Medians of nine rounds (these machines are noisy). It builds what it compares against: the
// `api_bench` example and the `lembas` binary (release), and the allocation test (debug).
import { readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as L from "../pkg/node.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const caseFiles = readdirSync(path.join(root, "conformance"))
  .filter((f) => f.endsWith(".json"))
  .sort();
const files = caseFiles.map((f) => [JSON.parse(readFileSync(path.join(root, "conformance", f), "utf8")), f.replace(/\.json$/, "")]);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/// The median over nine rounds of µs per call of `f`, called `n` times a round, after a second
/// of calls: V8 runs a `.wasm` first as baseline code and compiles its hot functions optimised
/// while it runs (for `evaluate`, the first 4,000–8,000 calls took 17–37 µs each where the
/// optimised code takes 5–6), so rounds begun before that measured when the tier-up came, not
/// the package.
function rounds(f, n) {
  const warm = process.hrtime.bigint() + 1_000_000_000n;
  for (let i = 0; i < 200 || process.hrtime.bigint() < warm; i++) f();
  const out = [];
  for (let r = 0; r < 9; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) f();
    out.push(Number(process.hrtime.bigint() - t0) / 1000 / n);
  }
  return median(out);
}

function bench(name, f, n) {
  const us = rounds(f, n);
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
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const native = JSON.parse(
  run("cargo", ["run", "-q", "--release", "-p", "lembas-rules", "--features", "wasm", "--example", "api_bench", "--", path.join(root, "conformance")]),
);
console.log("\nnatively (µs), and Node's ÷ native:");
const ratio = (name, ours, theirs) => console.log(`${name.padEnd(44)} ${theirs.toFixed(2).padStart(9)} µs  ${(ours / theirs).toFixed(1).padStart(5)}×`);
for (const k of ["evaluate", "whoDecides", "progressLine", "specVersion"]) ratio(k, node[k], native[k]);
ratio("runFile vs the runner natively", node.runFile, native["runFile (the runner)"]);
ratio("runFile vs the same API call natively", node.runFile, native["runFile (the API, text in and out)"]);

// The `lembas conformance` binary on the same files: a whole process each round, as a person
// runs it (its start and its reading of the files included).
run("cargo", ["build", "-q", "--release", "-p", "lembas-harness", "--bin", "lembas"]);
const lembas = path.join(root, "target/release/lembas");
const filePaths = caseFiles.map((f) => path.join(root, "conformance", f));
const binary = rounds(() => {
  try {
    run(lembas, ["conformance", ...filePaths]);
  } catch {
    // A failing case exits non-zero; its time counts all the same.
  }
}, 3);
console.log(`${"the lembas conformance binary, every case file".padEnd(44)} ${binary.toFixed(2).padStart(9)} µs`);

// One evaluate's allocations, as the allocation test counts them.
const test = run("cargo", ["test", "-q", "-p", "lembas-rules", "--test", "allocations", "--", "--nocapture"]);
const allocations = Number(/(\d+) allocations/.exec(test)?.[1] ?? NaN);

const wasm = readFileSync(path.join(root, "wasm/pkg/lembas_wasm_bg.wasm"));
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const us = (n) => `${n.toFixed(2)} µs`;
const times = (n) => `${n.toFixed(2)}×`;

// Each figure of issue 23 with its budget and, where there is one, the native figure of this run.
const figures = [
  ["evaluate through the package", node.evaluate, 6, us, `native ${us(native.evaluate)} through the API, ${us(native["evaluate (the rules)"])} the rules alone`],
  ["evaluate natively (the rules alone)", native["evaluate (the rules)"], 1.2, us, "make bench's figure is criterion's of the same call"],
  ["runFile ÷ the lembas conformance binary", node.runFile / binary, 1.8, times, `${us(node.runFile)} ÷ ${us(binary)}`],
  ["runFile ÷ the native runner, parsed cases", node.runFile / native["runFile (the runner)"], 2.0, times, `${us(node.runFile)} ÷ ${us(native["runFile (the runner)"])}`],
  ["allocations of one evaluate of git push", allocations, 20, String, "counted natively by rules/tests/allocations.rs"],
  [".wasm", wasm.length, 480_000, kb, ""],
  [".wasm gzipped", gzipSync(wasm, { level: 9 }).length, 200_000, kb, ""],
];
console.log("\nfigure                                       median         budget      holds");
for (const [name, value, budget, show, beside] of figures) {
  const holds = value <= budget ? "yes" : "NO";
  console.log(`${name.padEnd(44)} ${show(value).padStart(12)}  ≤ ${show(budget).padEnd(10)} ${holds.padEnd(4)} ${beside}`);
}
