// The npm package in Node: every conformance case through the package, the same results as the
// native runner, the API function by function, and malformed input that throws and leaves the
// instance usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import * as L from "../pkg/node.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const caseDir = path.join(root, "conformance");
const lembas = process.env.LEMBAS_BIN ?? path.join(root, "target/debug/lembas");
const files = readdirSync(caseDir).filter((f) => f.endsWith(".json")).sort();

test("every conformance case passes in Node, with the native runner's results", () => {
  let total = 0;
  for (const f of files) {
    const file = JSON.parse(readFileSync(path.join(caseDir, f), "utf8"));
    const stem = f.replace(/\.json$/, "");
    const r = L.runFile(file, stem);
    assert.equal(r.failed, 0, `${f}: ${JSON.stringify(r.results.filter((x) => !x.pass)[0])}`);
    total += r.passed;
    const native = execFileSync(lembas, ["conformance", "--json", path.join(caseDir, f)], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(native.length, r.results.length, f);
    native.forEach((n, i) => {
      const { file: _f, area: _a, index: _i, ...rest } = n;
      assert.equal(JSON.stringify(rest), JSON.stringify(r.results[i]), `${f} case ${i}`);
    });
  }
  assert.ok(total >= 300, `only ${total} cases`);
});

test("runCase gives what runFile gives", () => {
  const file = JSON.parse(readFileSync(path.join(caseDir, "progress.json"), "utf8"));
  assert.deepEqual(L.runCase("progress", file.cases[0]), L.runFile(file, "progress").results[0]);
  assert.deepEqual(L.areas(), ["progress", "delegation", "subagents", "permission", "team"]);
});

test("progress: text, line, same phase, what, the pacer", () => {
  const p = { phase: "running_tool", since: 1000, tool: "bash", what: "bun test" };
  assert.equal(L.progressText(p, 62000), "Running bash: bun test");
  assert.equal(L.progressLine(p, 62000), "Running bash: bun test · 1m 01s");
  assert.equal(L.samePhase(p, { ...p, since: 5 }), true);
  assert.equal(L.samePhase(p, { ...p, what: "ls" }), false);
  assert.equal(L.shortWhat("a\nb"), "a");
  assert.equal(L.shortWhat(" "), null);
  const pacer = new L.Pacer();
  const r = (done) => ({ phase: "reading_prompt", since: 0, done, total: 10 });
  assert.deepEqual(pacer.push(r(1), 0), { do: "send", progress: r(1) });
  assert.deepEqual(pacer.push(r(2), 100), { do: "later", due: 250 });
  assert.equal(pacer.due(), 250);
  assert.equal(pacer.poll(200), null);
  assert.deepEqual(pacer.poll(250), { do: "send", progress: r(2) });
  assert.deepEqual(pacer.push(null, 260), { do: "send", progress: null });
  assert.equal(pacer.flush(300), null);
});

test("permissions and delegation", () => {
  const d = L.evaluate({ tool: "bash", line: "git push origin main" }, { mode: "edit" });
  assert.equal(d.action, "ask");
  assert.deepEqual(d.decidedBy, { by: "mode", mode: "edit", class: "execute" });
  assert.equal(L.evaluate({ tool: "bash", line: "sudo rm -rf /" }, { mode: "auto" }).decidedBy.by, "hardline");
  assert.deepEqual(L.approve({ tool: "bash", line: "git push origin main" }, { mode: "edit" }), {
    rules: [{ permission: "bash", pattern: "git push *", action: "allow", mode: "edit" }],
  });
  // An approval holds in its own mode and looser ones, never in plan mode; never one that runs code.
  const approvals = [{ permission: "bash", pattern: "git push *", mode: "edit" }];
  assert.equal(L.evaluate({ tool: "bash", line: "git push origin dev" }, { mode: "edit", approvals }).action, "allow");
  assert.equal(L.evaluate({ tool: "bash", line: "git push origin dev" }, { mode: "plan", approvals }).action, "deny");
  assert.equal(L.evaluate({ tool: "bash", line: "git push --receive-pack=id origin" }, { mode: "edit", approvals }).action, "ask");
  assert.deepEqual(L.evaluate({ tool: "bash", line: "echo x >/dev/tcp/127.0.0.1/9" }, { mode: "edit" }).decidedBy, { by: "network", part: "> /dev/tcp/127.0.0.1/9" });
  assert.match(L.approve({ tool: "bash", line: "find . -exec id ;" }, { mode: "edit" }).refused, /never covers an option that runs code/);
  const v = L.whoDecides({ tool: "edit", path: "src/a.ts" }, { mainMode: "edit", mode: "manual", request: ["write"] });
  assert.equal(v.answer, "refused");
  assert.match(v.text, /team_request/);
  assert.equal(L.whoDecides({ tool: "bash", line: "git push origin main" }, { mainMode: "auto", mode: "edit", grants: [{ tool: "bash", pattern: "git push *" }] }).answer, "run");
  assert.deepEqual(L.checkMode("edit", "manual", ["write"]), { mode: "manual", request: ["write"] });
  assert.deepEqual(L.checkMode("manual", "edit"), { refused: "A subagent's mode cannot be looser than its parent's (manual)." });
  assert.equal(L.requestRefusal("bash", ["write"]), "You may not ask for bash: your request options are write.");
  assert.equal(L.requestRefusal("bash", ["execute"]), null);
  assert.deepEqual(L.tighten("manual", [{ name: "a", parent: "lead", mode: "auto" }]), { a: "manual" });
});

test("subagent models and the offer", () => {
  const models = { "a/x": { id: "x", name: "X One", capacity: { parallel: 1 } }, "b/y": { id: "y", name: "Y", capacity: {} } };
  assert.deepEqual(L.subagentModel({ session: "a/x", models, said: ["use y."], model: "b/y" }), { model: "b/y" });
  assert.ok("refused" in L.subagentModel({ session: "a/x", models, said: [] }));
  assert.deepEqual(L.offer({ session: "b/y", models }), { offered: true, own: true, note: null });
});

test("the team: tools as methods, the tree, reading, a subagent's life, saving and restoring", () => {
  const team = new L.Team({ min: 2, max: 4, now: 1000 });
  assert.equal(team.tree().openSlots, 1);
  const a = team.teamAdd("lead", { name: "api", role: "the API", task: "Write it.", goal: "a service" });
  assert.equal(a.result, "Added api (s1): it starts now. The team is 2 of 4 agents.");
  assert.deepEqual(a.started, { api: ["Write it."] });
  assert.deepEqual(team.offered("api").tools, ["team_findings", "team_finish", "team_read", "team_send", "team_whoami"]);
  const s = team.call("api", "team_send", { to: ["parent"], message: "Started." });
  assert.deepEqual(s.delivered, { lead: ["[Team message from api to lead:]\nStarted."] });
  assert.equal(team.setContext("api", 900, 1000), true);
  const full = team.contextFull("api");
  assert.match(full.text, /your context is full/);
  const e = team.endTurn("api", "Left: tests.");
  assert.match(e.delivered.lead[0], /ran out of context/);
  assert.equal(team.tree().ended[0].state, "out_of_context");
  assert.match(team.read("lead"), /Ended:/);
  assert.match(team.whoami("lead"), /^You are lead \(lead\): the main agent\./);
  assert.equal(team.setMainMode("manual"), null);
  const back = L.Team.fromJSON(team.toJSON());
  assert.deepEqual(back.tree(), team.tree());
  const b = back.teamAdd("lead", { name: "b", role: "r", task: "t" });
  assert.match(b.result, /^Added b \(s2\)/);
  assert.deepEqual(back.personStop("b").stopped, ["s2"]);
  assert.deepEqual(back.delivered(), {});
  assert.deepEqual(back.state(), { lead: "working" });
  assert.equal(back.started("api"), full.text);
  assert.equal(back.setCapacity({ parallel: 2 }), null);
});

test("the person's side of a team: a prompt, the Subagents setting, the main agent's model", () => {
  const team = new L.Team({ min: 1, max: 4, model: "m" });
  // The main agent works: the prompt waits for its turn to end, then starts the next one.
  assert.deepEqual(team.prompt("Go on."), { delivered: {}, started: {} });
  assert.deepEqual(team.endTurn("lead", "Done."), { delivered: {}, started: { lead: ["Go on."] } });
  team.endTurn("lead", "ok");
  // A changed setting is no answer of its own; the main agent is told it with its next prompt.
  assert.equal(team.setAgents(2, 3), null);
  assert.equal(team.tree().openSlots, 1);
  const told = team.prompt("Split the work.", 10);
  assert.deepEqual(told.delivered, {});
  assert.match(told.started.lead[0], /^The team may have 2 to 3 agents, you included\.\n\n[^]*\n\nSplit the work\.$/);
  team.endTurn("lead", "ok");
  assert.deepEqual(team.prompt("Again.").started, { lead: ["Again."] });
  // A setting no team can have throws, naming it, and the team is as it was.
  assert.throws(() => team.setAgents(3, 2), (e) => e instanceof Error && typeof e.code === "string" && /min|max/.test(e.message));
  assert.equal(team.tree().max, 3);
  assert.equal(team.setModel("n"), null);
  assert.equal(team.tree().agents[0].model, "n");
  // Each is a step a saved team keeps.
  const ops = team.toJSON().steps.map((s) => s.op);
  assert.deepEqual(ops.filter((op) => ["prompt", "agents", "model"].includes(op)), ["prompt", "agents", "prompt", "prompt", "model"]);
  assert.deepEqual(L.Team.fromJSON(team.toJSON()).tree(), team.tree());
});

test("a saved team is a team case without its expects, and a team case loads as a saved team", () => {
  const team = new L.Team({ max: 3, now: 5 });
  team.teamAdd("lead", { name: "api", role: "r", task: "t", goal: "g" }, 10);
  team.endTurn("api", "Done.", "steps");
  team.tree();
  assert.deepEqual(team.toJSON(), {
    start: { max: 3, now: 5 },
    steps: [
      { op: "call", by: "lead", tool: "team_add", args: { name: "api", role: "r", task: "t", goal: "g" }, now: 10 },
      { op: "end_turn", by: "api", reply: "Done.", reason: "steps" },
    ],
  });
  const file = JSON.parse(readFileSync(path.join(caseDir, "team.json"), "utf8"));
  const c = file.cases.find((x) => x.steps.some((s) => s.op === "call"));
  const loaded = L.Team.fromJSON({ about: c.about, start: c.start, steps: c.steps });
  const saved = loaded.toJSON().steps;
  assert.ok(saved.length > 0 && saved.every((s) => !("expect" in s)), JSON.stringify(saved));
  assert.deepEqual(saved[0], (({ expect, about, ...rest }) => rest)(c.steps.find((s) => s.op === "call")));
  assert.throws(() => team.fly(), TypeError);
});

test("an argument left out is null, a property set to undefined is absent", () => {
  assert.equal(L.progressText({ phase: "queued", since: 0, ahead: undefined }, 0), L.progressText({ phase: "queued", since: 0 }, 0));
  assert.deepEqual(L.checkMode("edit", undefined), L.checkMode("edit"));
  assert.deepEqual(L.checkMode("edit", undefined), { mode: "edit", request: [] });
});

test("versions", () => {
  assert.equal(L.specVersion(), "3.4.0");
  assert.match(L.version(), /^\d+\.\d+\.\d+$/);
});

const circular = {};
circular.self = circular;
let deep = {};
for (let i = 0; i < 200; i++) deep = { x: deep };
const malformed = [
  ["progressText: unknown phase", () => L.progressText({ phase: "sleeping", since: 0 }, 0), /progress\.phase: unknown phase "sleeping"/],
  ["progressText: since a string", () => L.progressText({ phase: "queued", since: "x" }, 0), /progress\.since: expected an integer/],
  ["progressText: since missing", () => L.progressText({ phase: "queued" }, 0), /progress\.since: missing/],
  ["progressText: since fractional", () => L.progressText({ phase: "queued", since: 1.5 }, 0), /progress\.since: expected an integer/],
  ["progressText: not an object", () => L.progressText("queued", 0), /progress: expected an object/],
  ["progressText: null", () => L.progressText(null, 0), /progress: expected an object/],
  ["progressText: model missing", () => L.progressText({ phase: "loading_model", since: 0 }, 0), /progress\.model: missing/],
  ["progressText: bad reason", () => L.progressText({ phase: "waiting_for_model", since: 0, model: "m", reason: "x" }, 0), /progress\.reason: unknown reason "x"/],
  ["progressText: negative ahead", () => L.progressText({ phase: "queued", since: 0, ahead: -1 }, 0), /progress\.ahead: -1 is below 0/],
  ["progressText: a field not its phase's", () => L.progressText({ phase: "thinking", since: 0, tool: "x" }, 0), /progress\.tool: not a field here/],
  ["progressLine: now missing", () => L.progressLine({ phase: "queued", since: 0 }), /now: expected an integer/],
  ["progressLine: now a string", () => L.progressLine({ phase: "queued", since: 0 }, "soon"), /now: expected an integer/],
  ["samePhase: b bad", () => L.samePhase({ phase: "queued", since: 0 }, { phase: 3, since: 0 }), /b\.phase: expected a string/],
  ["shortWhat: a number", () => L.shortWhat(5), /text: expected a string/],
  ["pacer: bad progress", () => new L.Pacer().push({ phase: "x", since: 0 }, 0), /progress\.phase: unknown phase "x"/],
  ["pacer: now missing", () => new L.Pacer().push(null), /now: expected an integer/],
  ["evaluate: no tool", () => L.evaluate({ line: "ls" }, { mode: "edit" }), /request\.tool: missing/],
  ["evaluate: bash without a line", () => L.evaluate({ tool: "bash" }, { mode: "edit" }), /request\.line: missing/],
  ["evaluate: unknown tool without class", () => L.evaluate({ tool: "mcp_x" }, { mode: "edit" }), /request\.tool: unknown tool/],
  ["evaluate: unknown mode", () => L.evaluate({ tool: "read", path: "a" }, { mode: "yolo" }), /context\.mode: unknown mode "yolo"/],
  ["evaluate: relative root", () => L.evaluate({ tool: "read", path: "a" }, { mode: "edit", root: "proj" }), /context\.root: "proj" is not an absolute path/],
  ["evaluate: a rule without action", () => L.evaluate({ tool: "read", path: "a" }, { mode: "edit", rules: [{ permission: "read", pattern: "*" }] }), /context\.rules\[0\]\.action: missing/],
  ["evaluate: rules not an array", () => L.evaluate({ tool: "read", path: "a" }, { mode: "edit", rules: {} }), /context\.rules: expected an array of rules/],
  ["evaluate: a misspelt field", () => L.evaluate({ tool: "read", pth: "a" }, { mode: "edit" }), /request\.pth: not a field here/],
  ["evaluate: line and path", () => L.evaluate({ tool: "read", line: "x", path: "a" }, { mode: "edit" }), /request\.path: a call has a line or a path, not both/],
  ["evaluate: wrong class", () => L.evaluate({ tool: "bash", line: "ls", class: "read" }, { mode: "edit" }), /request\.class: bash is execute, not read/],
  ["approve: an approval that denies", () => L.evaluate({ tool: "read", path: "a" }, { mode: "edit", approvals: [{ permission: "read", pattern: "*", action: "deny" }] }), /context\.approvals\[0\]\.action/],
  ["whoDecides: no mainMode", () => L.whoDecides({ tool: "read", path: "a" }, { mode: "edit" }), /options\.mainMode: missing/],
  ["whoDecides: a bad request kind", () => L.whoDecides({ tool: "read", path: "a" }, { mainMode: "edit", mode: "edit", request: ["fly"] }), /^options\.request\[0\]: unknown risk class "fly"$/],
  ["whoDecides: a request kind not a word", () => L.whoDecides({ tool: "read", path: "a" }, { mainMode: "edit", mode: "edit", request: ["read", 7] }), /^options\.request\[1\]: expected a risk class/],
  ["whoDecides: a grant without pattern", () => L.whoDecides({ tool: "read", path: "a" }, { mainMode: "edit", mode: "edit", grants: [{ tool: "read" }] }), /options\.grants\[0\]\.pattern: missing/],
  ["checkMode: no parent mode", () => L.checkMode(undefined, "edit"), /parentMode: expected a mode/],
  ["checkMode: request not a list", () => L.checkMode("edit", "plan", "write"), /request: expected an array of strings/],
  ["requestRefusal: tool a number", () => L.requestRefusal(3, []), /tool: expected a string/],
  ["tighten: unknown parent", () => L.tighten("edit", [{ name: "a", parent: "zed", mode: "edit" }]), /agents\[0\]\.parent: unknown agent "zed"/],
  ["tighten: not a list", () => L.tighten("edit", {}), /agents: expected an array/],
  ["subagentModel: session not in models", () => L.subagentModel({ session: "z", models: {} }), /session: unknown model \(not in models\) "z"/],
  ["subagentModel: parallel 0", () => L.subagentModel({ session: "a", models: { a: { capacity: { parallel: 0 } } } }), /models\.a\.capacity\.parallel: 0 requests at once serves nobody/],
  ["offer: models missing", () => L.offer({ session: "a" }), /models: missing/],
  ["runCase: unknown area", () => { const r = L.runCase("nope", {}); if (!r.pass) { const e = new Error(r.message); e.code = "case"; throw e; } }, /area: unknown area "nope"/],
  ["runFile: no cases", () => L.runFile({ area: "progress" }), /cases: missing/],
  ["runFile: no area", () => L.runFile({ cases: [] }), /area: missing/],
  ["Team: unknown mode", () => new L.Team({ mode: "yolo" }), /options\.mode: unknown mode "yolo"/],
  ["Team: a misspelt option", () => new L.Team({ maxx: 3 }), /options\.maxx: not a field here/],
  ["Team: an unknown caller", () => new L.Team({}).call("zed", "team_read", {}), /by: unknown agent "zed"/],
  ["Team: add without a name", () => new L.Team({}).teamAdd("lead", { role: "r", task: "t", goal: "g" }), /args\.name: missing/],
  ["Team: bad saved state", () => L.Team.fromJSON({ agents: 3 }), /team: not a saved team/],
  ["circular arguments", () => L.evaluate(circular, { mode: "edit" }), /arguments: cannot be sent/],
  ["a BigInt", () => L.progressLine({ phase: "queued", since: 1n }, 0), /arguments: cannot be sent/],
  ["JSON too deep", () => L.evaluate(deep, { mode: "edit" }), /arguments: not JSON/],
  ["a huge string", () => L.progressText({ phase: "sleeping".repeat(100000), since: 0 }, 0), /unknown phase/],
];

test(`${malformed.length} malformed inputs each throw an Error with a code naming the field, and the next call works`, () => {
  assert.ok(malformed.length >= 40);
  for (const [about, f, message] of malformed) {
    let thrown;
    try {
      f();
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof Error, `${about}: no Error thrown (${thrown})`);
    assert.equal(typeof thrown.code, "string", `${about}: no code`);
    assert.match(thrown.message, message, about);
    assert.equal(L.progressText({ phase: "thinking", since: 0 }, 0), "Thinking", `${about}: the instance broke`);
  }
});
