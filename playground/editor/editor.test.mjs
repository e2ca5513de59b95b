// The case editor's completion and its reading of the runner's paths, in Node: editor.js bundled
// with the schemas `lembas conformance --schema` prints, completions applied to a document as the
// editor applies them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundle } from "./build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const lembas = process.env.LEMBAS_BIN ?? path.join(root, "target/debug/lembas");
const dir = mkdtempSync(path.join(tmpdir(), "lembas-editor-"));
mkdirSync(path.join(dir, "schemas"));
for (const area of ["progress", "delegation", "subagents", "permission", "team"]) {
  writeFileSync(path.join(dir, "schemas", `${area}.json`), execFileSync(lembas, ["conformance", "--schema", area]));
}
// The editor and the CodeMirror the test drives it with, bundled together: one copy of each.
const entry = path.join(dir, "entry.mjs");
writeFileSync(entry, [
  `export * from ${JSON.stringify(path.join(root, "playground/editor/editor.js"))};`,
  'export { EditorState } from "@codemirror/state";',
  'export { json } from "@codemirror/lang-json";',
  'export { CompletionContext } from "@codemirror/autocomplete";',
].join("\n"));
await bundle(path.join(dir, "schemas"), path.join(dir, "editor.mjs"), { node: true, entry });
const editor = await import(pathToFileURL(path.join(dir, "editor.mjs")));
const { EditorState, json, CompletionContext } = editor;

/// What completion offers where `|` stands in `text`, and a way to pick one as the editor does.
function at(area, marked) {
  const pos = marked.indexOf("|");
  let state = EditorState.create({ doc: marked.replace("|", ""), extensions: [json()] });
  const result = editor.completeFrom(area)(new CompletionContext(state, pos, true));
  const labels = (result?.options ?? []).map((o) => o.displayLabel ?? o.label);
  const pick = (label) => {
    const option = result.options.find((o) => (o.displayLabel ?? o.label) === label);
    assert.ok(option, `${label} is not offered: ${labels.join(", ")}`);
    const view = { get state() { return state; }, dispatch(spec) { state = state.update(spec).state; } };
    option.apply(view, option, result.from, result.to ?? pos);
    return state.doc.toString();
  };
  return { labels, pick };
}

test("a value is offered after a colon and a space, before it is written", () => {
  assert.deepEqual(at("permission", '{"request": {"tool": "bash"}, "context": {"mode": |}}').labels, ["auto", "edit", "manual", "plan"]);
});

test("an item after another in a list comes with its comma", () => {
  const written = at("team", '{"start": {"min": 1, "max": 2}, "steps": [{"op": "state", "expect": {}} |]}').pick("{ }");
  assert.doesNotThrow(() => JSON.parse(written), written);
  const kinds = at("delegation", '{"op": "call", "request": ["read" |]}').pick('write');
  assert.deepEqual(JSON.parse(kinds).request, ["read", "write"]);
});

test("a count is written with its least value (a setting's max is at least 1)", () => {
  const written = at("team", '{"start": {"min": 1, |}}').pick("max");
  assert.equal(JSON.parse(written).start.max, 1);
});

test("a runner's path is read against the document: a key may hold dots", () => {
  const doc = { models: { "lab/qwen2.5-7b": { capacity: { parallel: 0 } } } };
  assert.deepEqual(editor.splitPathIn(doc, "models.lab/qwen2.5-7b.capacity.parallel"), ["models", "lab/qwen2.5-7b", "capacity", "parallel"]);
  assert.deepEqual(editor.splitPathIn({ steps: [{}] }, "steps[0].args.name"), ["steps", 0, "args", "name"]);
});

test("an odd document offers what it can and never throws", () => {
  const deep = "[".repeat(6000) + "|" + "]".repeat(6000);
  assert.doesNotThrow(() => at("team", deep));
  // A key __proto__ is a key: the step's op is still to be written.
  assert.ok(at("team", '{"steps": [{"__proto__": {"op": "call"}, |}]}').labels.includes("op"));
});
