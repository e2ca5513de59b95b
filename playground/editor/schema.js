// The case format's JSON Schemas read for an editor: which schemas hold at a place of a case
// (a path of keys and indexes), the keys an object there may have and the words a value may be,
// each with its description. It reads the subset rules/src/schema/write.rs writes — `$ref` into
// `$defs`, `allOf` with `if`/`then`, `anyOf`, `oneOf` of `const`s, `properties`, `items`,
// `additionalProperties`, `enum`, `examples`, `type` — and judges an `if` on the document's value
// as far as it is written (a case half typed is read as far as it goes).

/// The schema a local `$ref` (`#/$defs/team_case`) names, or none.
function resolve(root, ref) {
  if (!ref.startsWith("#/")) return undefined;
  let at = root;
  for (const raw of ref.slice(2).split("/")) {
    at = at?.[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return at;
}

/// Whether `value` is of the JSON type `type` (`integer` a whole number).
function isType(type, value) {
  switch (type) {
    case "null": return value === null;
    case "array": return Array.isArray(value);
    case "object": return value !== null && typeof value === "object" && !Array.isArray(value);
    case "integer": return Number.isInteger(value);
    case "number": return typeof value === "number";
    default: return typeof value === type;
  }
}

/// Whether `value` meets an `if` schema: its `properties`' `const`, `enum` and `type`, and its
/// `required` keys. What is not yet written (undefined) meets nothing that needs it.
export function meets(schema, value) {
  if (schema.type !== undefined) {
    const types = [schema.type].flat();
    if (value === undefined || !types.some((t) => isType(t, value))) return false;
  }
  if ("const" in schema && value !== schema.const) return false;
  if (schema.enum && !schema.enum.includes(value)) return false;
  const object = isType("object", value) ? value : undefined;
  for (const key of schema.required ?? []) {
    if (!object || !(key in object)) return false;
  }
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (object && key in object && !meets(sub, object[key])) return false;
  }
  return true;
}

/// Every schema that holds for `value` under `schema`: itself, what it refers to, its `allOf`
/// members (a `then` where its `if` is met), and each `anyOf`/`oneOf` member whose type fits.
export function expand(root, schema, value) {
  const out = [];
  const seen = new Set();
  const visit = (s) => {
    if (!s || typeof s !== "object" || seen.has(s)) return;
    seen.add(s);
    if (s.$ref) visit(resolve(root, s.$ref));
    out.push(s);
    for (const member of s.allOf ?? []) {
      if (member.if) {
        if (meets(member.if, value)) visit(member.then);
      } else {
        visit(member);
      }
    }
    for (const member of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
      if (member.type === undefined || value === undefined || [member.type].flat().some((t) => isType(t, value))) visit(member);
    }
  };
  visit(schema);
  return out;
}

/// The schemas that hold at `path` (keys and indexes) of `value`, from `schema` at its top.
export function schemasAt(root, schema, value, path) {
  let here = expand(root, schema, value);
  let at = value;
  for (const key of path) {
    const next = at?.[key];
    const children = [];
    for (const s of here) {
      if (typeof key === "number") {
        if (s.items) children.push(s.items);
      } else if (s.properties && key in s.properties) {
        children.push(s.properties[key]);
      } else if (s.additionalProperties && typeof s.additionalProperties === "object") {
        children.push(s.additionalProperties);
      }
    }
    here = children.flatMap((c) => expand(root, c, next));
    at = next;
  }
  return here;
}

/// The keys an object may have where `schemas` hold, each `{ key, doc, type, min, required }`
/// (`min` the least a number may be), in the order the schemas list them.
export function keysOf(schemas) {
  const keys = new Map();
  for (const s of schemas) {
    for (const [key, sub] of Object.entries(s.properties ?? {})) {
      const known = keys.get(key);
      const doc = sub.description ?? known?.doc ?? "";
      const type = typeOf([sub]) ?? known?.type;
      const min = sub.minimum ?? known?.min;
      keys.set(key, { key, doc, type, min, required: known?.required || (s.required ?? []).includes(key) });
    }
  }
  return [...keys.values()];
}

/// The first JSON type other than null that `schemas` give.
export function typeOf(schemas) {
  for (const s of schemas) {
    for (const t of [s.type ?? []].flat()) if (t !== "null") return t;
    if (s.oneOf?.some((o) => typeof o.const === "string") || s.enum?.some((w) => typeof w === "string")) return "string";
  }
  return undefined;
}

/// The values a value may be where `schemas` hold, each `{ value, doc }`: the words of `oneOf`
/// (with their docs), `enum`, `const` and `examples`, and `true`/`false` for a boolean.
export function valuesOf(schemas) {
  const values = new Map();
  const add = (value, doc = "") => {
    if (value === null || values.has(JSON.stringify(value))) return;
    values.set(JSON.stringify(value), { value, doc });
  };
  for (const s of schemas) {
    for (const o of s.oneOf ?? []) if ("const" in o) add(o.const, o.description);
    for (const w of s.enum ?? []) add(w);
    if ("const" in s) add(s.const, s.description);
    for (const w of s.examples ?? []) add(w);
    if ([s.type].flat().includes("boolean")) {
      add(true);
      add(false);
    }
  }
  return [...values.values()];
}

/// The doc of the value at `path`: the first description the schemas there give, and their title
/// (the kind of word) when they have one.
export function docAt(root, schema, value, path) {
  const schemas = schemasAt(root, schema, value, path);
  const doc = schemas.map((s) => s.description).find((d) => d);
  const words = valuesOf(schemas).map((v) => JSON.stringify(v.value));
  const type = typeOf(schemas);
  return { doc: doc ?? "", words, type };
}
