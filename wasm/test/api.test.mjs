// The package's names from one list: what `index.d.ts` declares, what the package exports and
// makes on `Team`'s and `Pacer`'s prototypes at run time, and the core's own lists
// (`lembas_rules::api::FUNCTIONS`, `teamMethods`) are the same names, and the package's README
// names each of them (the team tools but one by example) and no other. A name missing from any
// side fails the test, which says which names and where.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import ts from "typescript";
import * as L from "../pkg/node.js";
import { call } from "../pkg/lembas_wasm.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const declarations = path.resolve(here, "../js/index.d.ts");
const readme = path.resolve(here, "../js/README.md");

/** What `index.d.ts` declares as values: its functions, its classes with their members, and whether it has a default export. */
function declared(text) {
  const file = ts.createSourceFile("index.d.ts", text, ts.ScriptTarget.ES2022, true);
  const has = (node, kind) => (node.modifiers ?? []).some((m) => m.kind === kind);
  const functions = new Set();
  const classes = new Map();
  let hasDefault = false;
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && has(statement, ts.SyntaxKind.ExportKeyword)) {
      functions.add(statement.name.text);
    } else if (ts.isClassDeclaration(statement) && has(statement, ts.SyntaxKind.ExportKeyword)) {
      const members = { instance: new Set(), static: new Set() };
      for (const m of statement.members) {
        if (ts.isConstructorDeclaration(m) || !m.name) continue;
        members[has(m, ts.SyntaxKind.StaticKeyword) ? "static" : "instance"].add(m.name.getText(file));
      }
      classes.set(statement.name.text, members);
    } else if (ts.isExportAssignment(statement)) {
      hasDefault = true;
    }
  }
  return { functions, classes, hasDefault };
}

/** The names on one side and not on the other, each side named; empty when they are the same. */
function differences(sides) {
  const entries = Object.entries(sides).map(([where, names]) => [where, new Set(names)]);
  const all = new Set(entries.flatMap(([, names]) => [...names]));
  const out = [];
  for (const name of [...all].sort()) {
    const missing = entries.filter(([, names]) => !names.has(name)).map(([where]) => where);
    if (missing.length > 0) out.push(`${name}: missing from ${missing.join(", ")}`);
  }
  return out;
}

/** A class's own names at run time: its prototype's methods, and its static ones. */
function runtime(cls) {
  const instance = Object.getOwnPropertyNames(cls.prototype).filter((n) => n !== "constructor");
  const statics = Object.getOwnPropertyNames(cls).filter((n) => !["length", "name", "prototype"].includes(n));
  return { instance, statics };
}

const typed = declared(readFileSync(declarations, "utf8"));
const core = (name) => JSON.parse(call(name, "[]"));
// The loaders are the package's own JavaScript, not the core's.
const loaders = ["init", "initSync"];

test("the check finds a name missing from either side", () => {
  assert.deepEqual(differences({ a: ["x", "y"], b: ["y"] }), ["x: missing from b"]);
  assert.deepEqual(differences({ a: ["y"], b: ["y", "z"] }), ["z: missing from a"]);
  assert.deepEqual(differences({ a: ["y"], b: ["y"] }), []);
  const parsed = declared("export function f(): void;\nexport class C { constructor(); m(): void; p: number; static s(): C; }\nfunction hidden(): void;\nexport default f;");
  assert.deepEqual([...parsed.functions], ["f"]);
  assert.deepEqual([...parsed.classes.get("C").instance], ["m", "p"]);
  assert.deepEqual([...parsed.classes.get("C").static], ["s"]);
  assert.equal(parsed.hasDefault, true);
});

test("index.d.ts types every function of the core's list and the package exports each, nothing else", () => {
  const functions = core("functions");
  assert.ok(functions.length >= 15, `${functions}`);
  assert.deepEqual(differences({ "the core's list": [...functions, ...loaders], "index.d.ts": typed.functions }), []);
  const exported = Object.keys(L).filter((n) => n !== "default");
  assert.deepEqual(differences({ "the package's exports": exported, "index.d.ts": [...typed.functions, ...typed.classes.keys()] }), []);
  assert.equal("default" in L, typed.hasDefault, "the default export");
  for (const name of functions) assert.equal(typeof L[name], "function", name);
});

test("Team's methods are the core's team methods, typed in index.d.ts one for one", () => {
  new L.Team(); // the methods are made when the first team is
  const team = runtime(L.Team);
  const methods = core("teamMethods");
  assert.ok(methods.includes("prompt") && methods.includes("setAgents") && methods.includes("teamAdd"), `${methods}`);
  const types = typed.classes.get("Team");
  assert.deepEqual(differences({ "the core's teamMethods and toJSON": [...methods, "toJSON"], "Team.prototype": team.instance, "index.d.ts": types.instance }), []);
  assert.deepEqual(differences({ "Team's statics": team.statics, "index.d.ts": types.static }), []);
});

test("Pacer's methods are typed in index.d.ts one for one", () => {
  const pacer = runtime(L.Pacer);
  const types = typed.classes.get("Pacer");
  assert.deepEqual(differences({ "Pacer.prototype": pacer.instance, "index.d.ts": types.instance }), []);
  assert.deepEqual(differences({ "Pacer's statics": pacer.statics, "index.d.ts": types.static }), []);
});

test("the package's README names every function and method, and only real ones", () => {
  const text = readFileSync(readme, "utf8");
  const api = text.slice(text.indexOf("## The API"), text.indexOf("## Errors"));
  assert.ok(api.length > 100, "the README has no API section");
  // A name as the README writes a call (`evaluate(request, context)`, `new Team({ … })`,
  // `Team.fromJSON(state)`) or a class (`class Pacer`).
  const called = [...api.matchAll(/`(?:new |Team\.)?([A-Za-z]+)\(/g)].map((m) => m[1]);
  const classes = [...api.matchAll(/`class ([A-Za-z]+)/g)].map((m) => m[1]);
  const named = new Set([...called, ...classes]);
  new L.Team();
  const team = runtime(L.Team);
  const pacer = runtime(L.Pacer);
  const known = new Set([...core("functions"), ...loaders, ...team.instance, ...team.statics, ...pacer.instance, "Team", "Pacer"]);
  // Every name but the team tools' methods, which the README gives by one example, and the loaders.
  const required = [...known].filter((n) => (!/^team[A-Z]/.test(n) || n === "teamAdd") && !loaders.includes(n));
  const unknown = [...named].filter((n) => !known.has(n));
  assert.deepEqual(unknown, [], "the README names what the package does not have");
  assert.deepEqual(required.filter((n) => !named.has(n)), [], "the README leaves these out");
});
