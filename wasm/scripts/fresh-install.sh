#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, installed into a fresh folder, imported there (and
# required from CommonJS), and run on a case file it has never seen.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tarball=$(cd pkg && npm pack --silent --pack-destination "$dir")
cd "$dir"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund "./$tarball" >/dev/null
cat > unseen.mjs <<'JS'
import { runFile, specVersion } from "lembas-rules";
const file = { area: "progress", cases: [
  { progress: { phase: "compacting", since: 0 }, now: 3_725_000, expect: { text: "Compacting the conversation", line: "Compacting the conversation · 1h 02m" } },
  { progress: { phase: "queued", since: 10, ahead: 1 }, now: 10, expect: { text: "Queued: 1 ahead", line: "Queued: 1 ahead · 0s" } },
] };
const r = runFile(file);
console.log(`fresh install (spec ${specVersion()}): ${r.passed} passed, ${r.failed} failed`);
process.exit(r.failed === 0 && r.passed === 2 ? 0 : 1);
JS
node unseen.mjs
cat > required.cjs <<'JS'
// CommonJS: Node (20.19 and later) requires the ES module as it is.
const { runFile } = require("lembas-rules");
const r = runFile({ area: "progress", cases: [{ progress: { phase: "thinking", since: 0 }, now: 61_000, expect: { text: "Thinking", line: "Thinking · 1m 01s" } }] });
console.log(`fresh install, required: ${r.passed} passed, ${r.failed} failed`);
process.exit(r.failed === 0 && r.passed === 1 ? 0 : 1);
JS
node required.cjs
cat > schemas.mjs <<'JS'
// The case format's JSON Schemas, by the package's own paths.
import team from "lembas-rules/schemas/team.json" with { type: "json" };
import file from "lembas-rules/schemas/case-file.json" with { type: "json" };
const ok = team.$defs.team_case.properties.steps.type === "array" && Object.keys(file.$defs).length === 5;
console.log(`fresh install, schemas: ${ok ? "team.json and case-file.json imported" : "missing"}`);
process.exit(ok ? 0 : 1);
JS
node schemas.mjs
