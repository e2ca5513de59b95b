// The playground's case editor: CodeMirror 6 with the case format's JSON Schemas (written by the
// rules, rules/src/schema) driving completion of keys and values, hover docs and the places of
// problems; JSON's own editing (brackets closed, indentation, search, undo kept per case). The
// page (Rust, playground/src/editor_js.rs) owns the text and the verdict: it hears every change,
// and tells the editor its problems and the first difference, each marked where it is written.
//
// `mount(parent, options)` → a handle; options: `doc`, `area`, `key` (the case's: its undo history
// is kept under it while the page lives), `label`, `describedBy`, `onChange(text)`, `onRun()`,
// `onSave()`.
import { EditorState, StateEffect, StateField, Annotation } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLineGutter, drawSelection, Decoration, hoverTooltip } from "@codemirror/view";
import { history, historyField, defaultKeymap, historyKeymap, indentWithTab } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { syntaxTree, ensureSyntaxTree, bracketMatching, indentOnInput, syntaxHighlighting, HighlightStyle } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { search, searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import schemas from "lembas:schemas";
import { schemasAt, keysOf, valuesOf, docAt } from "./schema.js";

/// A change the page made (Format, Revert): not told back to it.
const fromPage = Annotation.define();

/// How deep `valueOf` reads: a document nested deeper is read as far as that.
const DEPTH = 256;

/// The value a syntax node holds, read as far as it is written (and `DEPTH` levels deep).
function valueOf(node, state, depth = 0) {
  if (!node || depth > DEPTH) return undefined;
  const text = state.sliceDoc(node.from, node.to);
  switch (node.name) {
    case "String":
    case "PropertyName":
      try {
        return JSON.parse(text);
      } catch {
        return text.replace(/^"|"$/g, "");
      }
    case "Number": return Number(text);
    case "True": return true;
    case "False": return false;
    case "Null": return null;
    case "Object": {
      const out = {};
      for (let p = node.firstChild; p; p = p.nextSibling) {
        if (p.name !== "Property") continue;
        const name = p.getChild("PropertyName");
        if (!name) continue;
        // Defined, not assigned: a key `__proto__` is a key like another.
        Object.defineProperty(out, String(valueOf(name, state)), { value: valueOf(propertyValue(p), state, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case "Array": return items(node).map((n) => valueOf(n, state, depth + 1));
    case "JsonText": return valueOf(node.firstChild, state, depth);
    default: return undefined;
  }
}

/// Whether a value is written whole: a string with its closing quote, a container with its
/// closing bracket, any other value as it is.
function isWhole(node, state) {
  const text = state.sliceDoc(node.from, node.to);
  if (node.name === "String") return text.length >= 2 && text.endsWith('"') && !text.endsWith('\\"');
  if (node.name === "Object") return text.endsWith("}");
  if (node.name === "Array") return text.endsWith("]");
  return true;
}

const isValue = (n) => ["String", "Number", "True", "False", "Null", "Object", "Array"].includes(n.name);

/// A property's value node (after its colon).
function propertyValue(property) {
  let seenColon = false;
  for (let c = property.firstChild; c; c = c.nextSibling) {
    if (c.name === ":") seenColon = true;
    else if (seenColon && isValue(c)) return c;
  }
  return undefined;
}

/// An array's item nodes.
const items = (array) => {
  const out = [];
  for (let c = array.firstChild; c; c = c.nextSibling) if (isValue(c)) out.push(c);
  return out;
};

/// The path (keys and indexes) of the value `node` is, from the top.
function pathOf(node, state) {
  const path = [];
  for (let at = node; at.parent; at = at.parent) {
    const parent = at.parent;
    if (parent.name === "Property" && at.name !== "PropertyName") {
      path.unshift(valueOf(parent.getChild("PropertyName"), state));
    } else if (parent.name === "Array") {
      const index = items(parent).findIndex((n) => n.from === at.from);
      path.unshift(index < 0 ? items(parent).filter((n) => n.to <= at.from).length : index);
    }
  }
  return path;
}

/// The whole document's syntax tree: parsed to its end (a long case opened is parsed only as far
/// as the screen shows until the editor has time), within a fifth of a second.
function wholeTree(state) {
  return ensureSyntaxTree(state, state.doc.length, 200) ?? syntaxTree(state);
}

/// The node a path names, or the nearest written one above it.
function nodeAt(state, path) {
  let node = wholeTree(state).topNode.firstChild;
  let property;
  for (const key of path) {
    if (!node) break;
    let next;
    if (typeof key === "number" && node.name === "Array") next = items(node)[key];
    if (typeof key === "string" && node.name === "Object") {
      for (let p = node.firstChild; p; p = p.nextSibling) {
        if (p.name === "Property" && valueOf(p.getChild("PropertyName"), state) === key) {
          property = p;
          next = propertyValue(p);
        }
      }
    }
    if (!next) return { node, property, whole: false };
    node = next;
  }
  return { node, property, whole: true };
}

/// A runner's path read against the document it is about: `models.lab/qwen2.5-7b.capacity` →
/// ["models", "lab/qwen2.5-7b", "capacity"] when the document has that key (a key may hold dots
/// and brackets); past what the document holds, read as `splitPath` reads it.
export function splitPathIn(doc, path) {
  const out = [];
  let at = doc;
  let rest = path;
  while (rest) {
    const index = /^\[(\d+)\]/.exec(rest);
    if (index && Array.isArray(at)) {
      out.push(Number(index[1]));
      at = at[Number(index[1])];
      rest = rest.slice(index[0].length).replace(/^\./, "");
      continue;
    }
    const keys = at && typeof at === "object" && !Array.isArray(at) ? Object.keys(at) : [];
    const key = keys
      .filter((k) => rest === k || rest.startsWith(k + ".") || rest.startsWith(k + "["))
      .sort((a, b) => b.length - a.length)[0];
    if (key === undefined) return [...out, ...splitPath(rest)];
    out.push(key);
    at = at[key];
    rest = rest.slice(key.length).replace(/^\./, "");
  }
  return out;
}

/// `steps[2].args.name` → ["steps", 2, "args", "name"].
export function splitPath(path) {
  const out = [];
  for (const part of path.split(".")) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const i of m[2].matchAll(/\[(\d+)\]/g)) out.push(Number(i[1]));
  }
  return out;
}

/// The agents a team case names: the main agent and every subagent its team_add calls add.
function agentsOf(doc) {
  const names = ["lead"];
  for (const step of Array.isArray(doc?.steps) ? doc.steps : []) {
    if (step?.tool === "team_add" && typeof step?.args?.name === "string") names.push(step.args.name);
  }
  return [...new Set(names)];
}

/// The text a key's completion writes, `"key": ` and an empty value of its type, and where the
/// cursor goes in it (inside the quotes or brackets, or after a number or `false`).
function keyText(key, type, min) {
  const number = String(min > 0 ? min : 0);
  const empty = { string: '""', object: "{}", array: "[]", integer: number, number, boolean: "false" }[type] ?? '""';
  const prefix = `${JSON.stringify(key)}: `;
  return { text: prefix + empty, caret: prefix.length + (["\"\"", "{}", "[]"].includes(empty) ? 1 : empty.length) };
}

/// Completion of keys and values from the area's schema and the case's own words.
export function completeFrom(area) {
  // A document the reading cannot follow offers nothing, and completion goes on working.
  return (context) => {
    try {
      return complete(area, context);
    } catch {
      return null;
    }
  };
}

function complete(area, context) {
  {
    const file = schemas[area];
    if (!file) return null;
    const top = file.$defs[`${area}_case`];
    const { state } = context;
    const tree = wholeTree(state);
    let node = tree.resolveInner(context.pos, -1);
    const doc = valueOf(tree.topNode, state);
    const typed = context.matchBefore(/"?[\w-]*"?$/);
    // Where a key goes: in a key being typed, or between an object's brackets and commas.
    let object;
    let from = context.pos;
    let to = context.pos;
    if (node.name === "PropertyName") {
      object = node.parent?.parent;
      from = node.from;
      to = node.to;
    } else if (node.name === "Object" || ((node.name === "{" || node.name === ",") && node.parent?.name === "Object")) {
      object = node.name === "Object" ? node : node.parent;
    } else if (node.name === "⚠" && node.parent?.name === "Object") {
      object = node.parent;
      from = node.from;
    } else if (context.explicit && isValue(node) && context.pos === node.to && node.parent?.name === "Property" && isWhole(node, state)) {
      // Right after a property's whole value: the object's next key (with its comma).
      object = node.parent.parent;
    }
    if (object && (context.explicit || typed)) {
      const path = pathOf(object, state);
      const have = valueOf(object, state) ?? {};
      const here = node.name === "PropertyName" ? valueOf(node, state) : undefined;
      const keys = keysOf(schemasAt(file, top, doc, path)).filter((k) => !(k.key in have) || k.key === here);
      if (!keys.length) return null;
      return {
        from,
        to,
        filter: true,
        options: keys.map((k) => ({
          label: JSON.stringify(k.key),
          displayLabel: k.key,
          detail: k.required ? `${k.type ?? ""} · required` : k.type,
          info: k.doc,
          type: "property",
          boost: k.required ? 1 : 0,
          apply: (view, _completion, start, end) => applyKey(view, k, start, end),
        })),
      };
    }
    // Where a value goes: in a string being typed, after a colon, or in an array.
    let place;
    let inString;
    if (isValue(node) && node.name !== "Object" && node.name !== "Array") {
      place = node;
      from = node.from;
      to = node.to;
      if (node.name === "String" && context.pos > node.from && (context.pos < node.to || !isWhole(node, state))) {
        inString = { to: node.to };
        from = node.from + 1;
        to = context.pos;
      }
    } else if (node.name === ":" && node.parent?.name === "Property") {
      place = node.parent;
    } else if (node.name === "Property" && node.getChild(":") && context.pos >= node.getChild(":").to && !propertyValue(node)) {
      // After a colon and a space, before the value is written.
      place = node;
    } else if ((node.name === "[" || node.name === "," || node.name === "Array") && (node.name === "Array" ? node : node.parent)?.name === "Array") {
      place = undefined;
      const array = node.name === "Array" ? node : node.parent;
      const path = [...pathOf(array, state), items(array).filter((n) => n.to <= context.pos).length];
      // After an item with no comma yet: the item comes with its comma.
      const lead = /[[,]$/.test(state.sliceDoc(array.from, context.pos).trimEnd()) ? "" : ", ";
      return valueOptions(file, top, doc, path, from, to, undefined, lead);
    }
    if (!place || (!context.explicit && !typed)) return null;
    const path = place.name === "Property" ? [...pathOf(place, state), valueOf(place.getChild("PropertyName"), state)] : pathOf(place, state);
    return valueOptions(file, top, doc, path, from, to, inString);
  }
}

/// The values offered at `path`: the schema's words, the case's agents for `by` and `name`, and
/// `{ }` or `[ ]` where an object or an array goes.
function valueOptions(file, top, doc, path, from, to, inString, lead = "") {
  const schemasHere = schemasAt(file, top, doc, path);
  // In a string being typed, the words are matched against what is typed inside its quotes,
  // and the whole string is written again.
  const word = (value, extra) => ({
    label: inString ? String(value) : JSON.stringify(value),
    displayLabel: String(value),
    ...extra,
    apply: (view, _c, start, end) => {
      const [at, till] = inString ? [start - 1, Math.max(end, inString.to)] : [start, end];
      const text = lead + JSON.stringify(value);
      view.dispatch({ changes: { from: at, to: till, insert: text }, selection: { anchor: at + text.length }, userEvent: "input.complete" });
    },
  });
  const options = valuesOf(schemasHere).map((v) => word(v.value, { info: v.doc || undefined, type: "keyword" }));
  const last = path[path.length - 1];
  if ((last === "by" || last === "name") && path[0] === "steps" && path.length === 3) {
    for (const name of agentsOf(doc)) options.push(word(name, { detail: "agent", type: "variable" }));
  }
  const types = new Set(schemasHere.flatMap((s) => [s.type ?? []].flat()));
  if (types.has("object") && !options.length) options.push({ label: "{ }", type: "keyword", apply: (view, _c, start, end) => insertAt(view, start, end, lead + "{}", lead.length + 1) });
  if (types.has("array") && !options.length) options.push({ label: "[ ]", type: "keyword", apply: (view, _c, start, end) => insertAt(view, start, end, lead + "[]", lead.length + 1) });
  return options.length ? { from, to, options, filter: true } : null;
}

function insertAt(view, from, to, text, caret) {
  view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + caret }, userEvent: "input.complete" });
}

/// Writes a key and an empty value, with the comma it needs before it or after it.
function applyKey(view, key, from, to) {
  const { text, caret } = keyText(key.key, key.type, key.min);
  const doc = view.state.doc.toString();
  const before = doc.slice(0, from).trimEnd();
  const after = doc.slice(to).trimStart();
  // A key typed inside quotes that completion replaces: its colon and value already there stay.
  const hasValue = /^:/.test(after);
  const lead = /[{,[]$/.test(before) || before === "" ? "" : ", ";
  if (hasValue) {
    const name = JSON.stringify(key.key);
    view.dispatch({ changes: { from, to, insert: name }, selection: { anchor: from + name.length }, userEvent: "input.complete" });
    return;
  }
  const trail = /^"/.test(after) ? ", " : "";
  view.dispatch({ changes: { from, to, insert: lead + text + trail }, selection: { anchor: from + lead.length + caret }, userEvent: "input.complete" });
}

/// The doc of the key or value under the pointer.
function hoverFrom(area) {
  return hoverTooltip((view, pos, side) => {
    try {
      return hoverAt(area, view, pos, side);
    } catch {
      return null;
    }
  });
}

function hoverAt(area, view, pos, side) {
  {
    const file = schemas[area];
    if (!file) return null;
    const { state } = view;
    const tree = syntaxTree(state);
    let node = tree.resolveInner(pos, side);
    if (node.name !== "PropertyName" && !isValue(node)) return null;
    const property = node.name === "PropertyName" ? node.parent : null;
    const path = property ? [...pathOf(property, state), valueOf(node, state)] : pathOf(node, state);
    const doc = valueOf(tree.topNode, state);
    const about = docAt(file, file.$defs[`${area}_case`], doc, path);
    if (!about.doc && !about.words.length) return null;
    return {
      pos: node.from,
      end: node.to,
      above: true,
      create() {
        const dom = document.createElement("div");
        dom.className = "cm-case-doc";
        const head = document.createElement("b");
        head.textContent = path.length ? String(path[path.length - 1]) : area;
        dom.append(head, about.type ? ` (${about.type})` : "");
        if (about.doc) dom.append(document.createElement("br"), about.doc);
        if (about.words.length) dom.append(document.createElement("br"), `One of: ${about.words.slice(0, 24).join(", ")}`);
        return { dom };
      },
    };
  }
}

/// The first difference, marked where it is written.
const markDifference = StateEffect.define();
const differenceField = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) if (e.is(markDifference)) marks = e.value;
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/// Where a problem is: a JSON error at its line and column, a field's error on the field (its
/// key, or the object that lacks it).
function rangeOf(state, problem) {
  if (problem.line) {
    const line = state.doc.line(Math.min(Math.max(problem.line, 1), state.doc.lines));
    const from = Math.min(line.from + Math.max(problem.column - 1, 0), line.to);
    // At a line's end (a comma missing after its value): the value's last character.
    if (from === line.to && from > line.from) return { from: from - 1, to: from };
    return { from, to: Math.min(from + 1, state.doc.length) };
  }
  const doc = valueOf(wholeTree(state).topNode, state);
  const { node, property, whole } = nodeAt(state, splitPathIn(doc, problem.path ?? ""));
  if (whole && property) {
    const name = property.getChild("PropertyName");
    return { from: name.from, to: node?.to ?? name.to };
  }
  if (node) return { from: node.from, to: Math.min(node.from + 1, node.to) };
  return { from: 0, to: Math.min(1, state.doc.length) };
}

const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--key)" },
  { tag: tags.string, color: "var(--str)" },
  { tag: tags.number, color: "var(--num)" },
  { tag: [tags.bool, tags.null], color: "var(--num)", fontWeight: "600" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--fg)", backgroundColor: "var(--bg)", border: "1px solid #8886", borderRadius: ".3rem", fontSize: ".9rem" },
  ".cm-content": { fontFamily: "ui-monospace, monospace", caretColor: "var(--fg)" },
  ".cm-scroller": { fontFamily: "ui-monospace, monospace", minHeight: "12rem", maxHeight: "70vh" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid #8884" },
  "&.cm-focused": { outline: "2px solid var(--link)" },
  ".cm-difference": { backgroundColor: "var(--diff-bg)", outline: "1px dashed var(--fail)" },
  ".cm-tooltip": { backgroundColor: "var(--bg)", color: "var(--fg)", border: "1px solid #8888" },
  ".cm-case-doc": { maxWidth: "28rem", padding: ".3rem .5rem" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--link)", color: "var(--bg)" },
});

/// The undo history of each case opened while the page lives, by the page's key for it.
const kept = new Map();

export function mount(parent, options) {
  const { doc = "", area = "progress", key = "", label = "The case, as JSON", describedBy, onChange = () => {}, onRun = () => {}, onSave = () => {} } = options;
  const run = () => {
    onRun();
    return true;
  };
  const save = () => {
    onSave();
    return true;
  };
  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightSelectionMatches(),
    search({ top: true }),
    json(),
    syntaxHighlighting(highlight),
    autocompletion({ override: [completeFrom(area)], activateOnTyping: true, icons: false }),
    hoverFrom(area),
    lintGutter(),
    differenceField,
    theme,
    EditorView.lineWrapping,
    keymap.of([
      { key: "Mod-Enter", run, preventDefault: true },
      { key: "Mod-s", run: save, preventDefault: true },
      ...closeBracketsKeymap,
      ...completionKeymap,
      ...searchKeymap,
      ...historyKeymap,
      indentWithTab,
      ...defaultKeymap,
    ]),
    EditorView.contentAttributes.of({ id: "case-editor", "aria-label": label, "data-testid": "case-editor", ...(describedBy ? { "aria-describedby": describedBy } : {}) }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged && !update.transactions.some((t) => t.annotation(fromPage))) onChange(update.state.doc.toString());
    }),
  ];
  const before = kept.get(key);
  const state = before && before.doc === doc
    ? EditorState.fromJSON(before, { extensions }, { history: historyField })
    : EditorState.create({ doc, extensions });
  const view = new EditorView({ state, parent });
  const setProblems = (problems) => {
    const diagnostics = problems.map((p) => ({ ...rangeOf(view.state, p), severity: "error", message: p.message, source: p.line ? "JSON" : "the runner" }));
    view.dispatch(setDiagnostics(view.state, diagnostics));
  };
  const handle = {
    /// The text, replaced by the page (Format, Revert): one undoable change.
    setDoc(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: fromPage.of(true) });
    },
    getDoc: () => view.state.doc.toString(),
    /// The problems to mark: `{ line, column, message }` (JSON) or `{ path, message }` (a field).
    setProblems,
    /// The first difference's path marked (none: no mark); `go` true moves the cursor there too,
    /// "show" scrolls it into view.
    markDifference(path, go) {
      if (!path) {
        view.dispatch({ effects: markDifference.of(Decoration.none) });
        return;
      }
      const { from, to } = rangeOf(view.state, { path });
      const mark = Decoration.mark({ class: "cm-difference" }).range(from, Math.max(to, from + 1));
      const effects = [markDifference.of(Decoration.set([mark]))];
      // `go`: the cursor moved there and the keyboard given to the editor; "show": only
      // scrolled into view (a failing case opens at its first difference, not its last lines).
      if (go === true) {
        effects.push(EditorView.scrollIntoView(from, { y: "center" }));
        view.dispatch({ effects, selection: { anchor: from } });
        view.focus();
      } else if (go === "show") {
        effects.push(EditorView.scrollIntoView(from, { y: "center" }));
        view.dispatch({ effects });
      } else {
        view.dispatch({ effects });
      }
    },
    /// The cursor put at a line's start, scrolled into view.
    goToLine(n) {
      const line = view.state.doc.line(Math.min(Math.max(n, 1), view.state.doc.lines));
      view.dispatch({ selection: { anchor: line.from }, effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
      view.focus();
    },
    focus: () => view.focus(),
    /// The editor gone; its undo history kept under its key.
    destroy() {
      if (key) kept.set(key, { ...view.state.toJSON({ history: historyField }) });
      view.destroy();
      delete parent.lembasEditor;
    },
  };
  // For tools and tests: the editor's element holds its handle.
  parent.lembasEditor = handle;
  return handle;
}
