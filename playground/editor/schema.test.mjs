// The editor's reading of the case format's schemas, against the schemas `lembas conformance
// --schema` prints: the keys and words offered at a place of a case follow what it already says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { keysOf, schemasAt, valuesOf, docAt } from "./schema.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const lembas = process.env.LEMBAS_BIN ?? path.join(root, "target/debug/lembas");
const schema = (area) => JSON.parse(execFileSync(lembas, ["conformance", "--schema", area]));
const caseOf = (file, area) => file.$defs[`${area}_case`];

test("a team step's keys follow its op, and its op's words come with their docs", () => {
  const file = schema("team");
  const team = caseOf(file, "team");
  const doc = { start: { min: 1, max: 2 }, steps: [{}] };
  const bare = keysOf(schemasAt(file, team, doc, ["steps", 0])).map((k) => k.key);
  assert.deepEqual(bare.sort(), ["about", "now", "op"]);
  const ops = valuesOf(schemasAt(file, team, doc, ["steps", 0, "op"]));
  assert.ok(ops.some((o) => o.value === "end_turn" && /turn ends/.test(o.doc)), JSON.stringify(ops));
  doc.steps[0] = { op: "end_turn" };
  const keys = keysOf(schemasAt(file, team, doc, ["steps", 0])).map((k) => k.key);
  for (const k of ["by", "reply", "reason", "expect"]) assert.ok(keys.includes(k), keys.join(" "));
  assert.ok(!keys.includes("tool"));
  doc.steps[0] = { op: "call", tool: "team_add" };
  const args = keysOf(schemasAt(file, team, doc, ["steps", 0, "args"])).map((k) => k.key);
  for (const k of ["name", "role", "task", "goal"]) assert.ok(args.includes(k), args.join(" "));
});

test("a permission case's words: modes, actions, tools; a hover's doc", () => {
  const file = schema("permission");
  const perm = caseOf(file, "permission");
  const doc = { request: { tool: "bash" }, context: {} };
  const modes = valuesOf(schemasAt(file, perm, doc, ["context", "mode"])).map((v) => v.value);
  assert.deepEqual(modes, ["auto", "edit", "manual", "plan"]);
  const tools = valuesOf(schemasAt(file, perm, doc, ["request", "tool"])).map((v) => v.value);
  assert.ok(tools.includes("bash") && tools.includes("read"));
  const approve = { op: "approve", request: { tool: "bash" }, context: { mode: "edit" } };
  assert.ok(keysOf(schemasAt(file, perm, approve, [])).some((k) => k.key === "then"));
  assert.ok(!keysOf(schemasAt(file, perm, { request: {}, context: {} }, [])).some((k) => k.key === "then"));
  assert.match(docAt(file, perm, doc, ["request", "line"]).doc, /command line/);
});

test("a count's least value comes with its key (a setting's max is at least 1)", () => {
  const file = schema("team");
  const keys = keysOf(schemasAt(file, caseOf(file, "team"), { start: {} }, ["start"]));
  assert.equal(keys.find((k) => k.key === "max").min, 1);
  assert.equal(keys.find((k) => k.key === "subagents").min, undefined);
});
