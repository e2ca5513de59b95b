// Gives each asset of a built folder a name holding its content's hash (`style.3f9a0c12d4.css`),
// so that a server may tell browsers to keep it for good (scripts/static-server.mjs: `immutable`),
// and rewrites the references to it: the wasm in the JS glue, then every asset in the HTML.
// Only the HTML keeps its name; a repeat visit asks for it alone. `node scripts/fingerprint.mjs DIR`.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/fingerprint.mjs DIR");
  process.exit(2);
}

/// The name `file` gets: its stem, ten hex digits of its content's SHA-256, its extension.
function hashed(file) {
  const body = readFileSync(path.join(dir, file));
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
  const ext = path.extname(file);
  return `${file.slice(0, -ext.length)}.${hash}${ext}`;
}

/// Renames `file` to its hashed name, and writes that name for each of its references in the
/// files `in` (a reference is the name between quotes, or after `href=`/`src=`).
function fingerprint(file, referencedIn) {
  const name = hashed(file);
  renameSync(path.join(dir, file), path.join(dir, name));
  for (const other of referencedIn) {
    const at = path.join(dir, other);
    const text = readFileSync(at, "utf8");
    const quoted = new RegExp(`(["'(/])${file.replace(/[.]/g, "\\.")}(["')])`, "g");
    const rewritten = text.replace(quoted, `$1${name}$2`);
    if (rewritten === text) {
      console.error(`fingerprint: ${other} names no ${file}`);
      process.exit(1);
    }
    writeFileSync(at, rewritten);
  }
  return name;
}

const files = readdirSync(dir);
const wasm = files.find((f) => f.endsWith(".wasm"));
// The JS glue: the script that loads the wasm.
const glue = files.find((f) => f.endsWith(".js") && wasm && readFileSync(path.join(dir, f), "utf8").includes(wasm));
if (!glue || !wasm || !files.includes("index.html")) {
  console.error(`fingerprint: ${dir} has no index.html, JS glue and .wasm`);
  process.exit(1);
}
const names = {};
// The wasm first: its name goes into the glue, which is hashed after it.
names[wasm] = fingerprint(wasm, [glue, "index.html"]);
for (const file of files.filter((f) => /\.(css|json|js)$/.test(f) && f !== glue)) {
  names[file] = fingerprint(file, ["index.html"]);
}
names[glue] = fingerprint(glue, ["index.html"]);
console.log(`${dir}: ${Object.values(names).join(", ")}`);
