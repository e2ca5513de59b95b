// The case format's JSON Schemas the package ships (lembas-rules/schemas/…): one per area and
// one for any case file, each what `lembas conformance --schema` prints, by the package's paths.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const lembas = process.env.LEMBAS_BIN ?? path.join(root, "target/debug/lembas");
const pkg = JSON.parse(readFileSync(path.join(root, "wasm/pkg/package.json"), "utf8"));
const shipped = (name) => JSON.parse(readFileSync(path.join(root, "wasm/pkg/schemas", name), "utf8"));
const printed = (area) => JSON.parse(execFileSync(lembas, ["conformance", "--schema", area]));

test("each area's schema is shipped as lembas conformance --schema prints it", () => {
  for (const area of ["progress", "delegation", "subagents", "permission", "team"]) {
    const schema = shipped(`${area}.json`);
    assert.deepEqual(schema, printed(area), area);
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.ok(schema.$defs[`${area}_case`], area);
  }
  assert.deepEqual(shipped("case-file.json"), printed("file"));
});

test("the package exports the schemas and lists them in its files", () => {
  assert.equal(pkg.exports["./schemas/*"], "./schemas/*");
  assert.ok(pkg.files.includes("schemas/"));
});

test("a field's doc and its words come with the schema (an editor's hover and completion)", () => {
  const team = shipped("team.json").$defs.team_case;
  const step = team.properties.steps.items;
  const ops = step.properties.op.oneOf.map((o) => o.const);
  assert.ok(ops.includes("call") && ops.includes("end_turn"), ops.join(" "));
  assert.ok(step.properties.op.oneOf.every((o) => o.description.length > 5));
  const call = step.allOf.find((b) => b.if.properties.op.const === "call").then;
  assert.ok(call.properties.tool.examples.includes("team_add"));
  const permission = shipped("permission.json").$defs.permission_case;
  assert.deepEqual(permission.properties.context.properties.mode.enum, ["auto", "edit", "manual", "plan"]);
  assert.match(permission.properties.request.properties.line.description, /command line/);
});
