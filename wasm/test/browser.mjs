// The web build in a real browser: headless Chromium (Debian's, driven by playwright-core; nothing
// downloads a browser) loads a page served on 127.0.0.1 that imports the package's web entry,
// runs every conformance case file, and reports; each case's result must be byte for byte the
// native runner's (`lembas conformance --json`). Exit 1 on any failure.
import { readdir } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../../scripts/static-server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const files = (await readdir(path.join(root, "conformance"))).filter((f) => f.endsWith(".json")).sort();
const lembas = process.env.LEMBAS_BIN ?? path.join(root, "target/debug/lembas");
// The native runner's results, each case as the package writes it (without the line's file, area, index).
const native = {};
for (const f of files) {
  native[f] = execFileSync(lembas, ["conformance", "--json", path.join(root, "conformance", f)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 })
    .trim()
    .split("\n")
    .map((l) => {
      const { file: _f, area: _a, index: _i, ...rest } = JSON.parse(l);
      return JSON.stringify(rest);
    });
}

const page = `<!doctype html><meta charset="utf-8"><title>lembas-rules in the browser</title>
<script type="module">
import init, { runFile, specVersion } from "/wasm/pkg/index.js";
try {
  await init();
  let passed = 0, failed = 0, failures = [], results = {};
  for (const f of ${JSON.stringify(files)}) {
    const file = await (await fetch("/conformance/" + f)).json();
    const r = runFile(file, f.replace(/\\.json$/, ""));
    passed += r.passed; failed += r.failed;
    r.results.forEach((x, i) => { if (!x.pass) failures.push(f + " #" + i + ": " + x.about); });
    results[f] = r.results.map((x) => JSON.stringify(x));
  }
  window.__result = { passed, failed, failures, results, spec: specVersion() };
} catch (e) { window.__result = { error: String(e && e.stack || e) }; }
</script>`;

const server = await serve(root, { routes: { "/": page } });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});
let code = 1;
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(String(e)));
  await tab.goto(server.url);
  await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 60_000 });
  const r = await tab.evaluate(() => window.__result);
  if (r.error || errors.length) {
    console.error("browser:", r.error ?? errors.join("\n"));
  } else {
    for (const f of r.failures) console.error("FAIL", f);
    let differ = 0;
    for (const f of files) {
      const ours = r.results[f] ?? [];
      if (ours.length !== native[f].length) {
        console.error(`DIFFERS ${f}: ${ours.length} results in Chromium, ${native[f].length} natively`);
        differ++;
        continue;
      }
      ours.forEach((x, i) => {
        if (x !== native[f][i]) {
          console.error(`DIFFERS ${f} case ${i}:\n  Chromium ${x}\n  native   ${native[f][i]}`);
          differ++;
        }
      });
    }
    console.log(`browser (Chromium, spec ${r.spec}): ${r.passed} passed, ${r.failed} failed, ${differ} differing from the native runner`);
    code = r.failed === 0 && r.passed > 0 && differ === 0 ? 0 : 1;
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(code);
