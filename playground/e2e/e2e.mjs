// The playground end to end in headless Chromium (Debian's, driven by playwright-core; nothing
// downloads a browser), against playground/dist served on 127.0.0.1. Each step saves a
// screenshot under the folder printed at the start.
import { mkdir } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "../../scripts/static-server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { chromium } = createRequire(path.join(root, "wasm/package.json"))("playwright-core");
const dist = path.join(root, "playground/dist");
const shots = path.join(root, "target/playground-screenshots");
await mkdir(shots, { recursive: true });
console.log(`playground e2e: screenshots in ${shots}`);

const native = execFileSync(path.join(root, "target/debug/lembas"), ["conformance", path.join(root, "conformance")], { encoding: "utf8" }).trim().split("\n").pop();
const total = Number(native.split(" ")[0]);

const server = await serve(dist);
const base = server.url;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});
let passed = 0;
let failed = 0;
async function step(name, f) {
  try {
    await f();
    passed++;
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.message}`);
  }
  await page.screenshot({ path: path.join(shots, `${passed + failed}-${name.replace(/[^a-z0-9]+/gi, "-")}.png`) }).catch(() => {});
}
function expect(cond, what) {
  if (!cond) throw new Error(what);
}

const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
// "Remove my files" asks first: the e2e answers yes, and checks the question says how many.
const questions = [];
page.on("dialog", (d) => {
  questions.push(d.message());
  d.accept();
});
const errors = [];
page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
page.on("pageerror", (e) => errors.push(String(e)));
const summary = page.getByTestId("summary");

await step("loads and shows every case passing", async () => {
  const t0 = Date.now();
  await page.goto(base);
  await summary.waitFor({ timeout: 30_000 });
  const ms = Date.now() - t0;
  console.log(`  navigation to a rendered summary: ${ms} ms`);
  const text = await summary.textContent();
  expect(text === `${total} passed, 0 failed`, `summary "${text}", native "${native}"`);
  expect(errors.length === 0, `console errors: ${errors.join("; ")}`);
});

await step("editing a case's expect makes it fail, restoring it makes it pass", async () => {
  await page.locator("table.cases a").first().click();
  const editor = page.getByTestId("case-editor");
  const verdict = page.getByTestId("verdict");
  const original = await editor.inputValue();
  expect((await verdict.textContent()) === "pass", "the case did not pass first");
  const changed = JSON.parse(original);
  changed.expect = { ...changed.expect, wrong: "on purpose" };
  await editor.fill(JSON.stringify(changed, null, 2));
  await page.waitForFunction(() => document.querySelector('[data-testid="verdict"]')?.textContent === "fail");
  await editor.fill(original);
  await page.waitForFunction(() => document.querySelector('[data-testid="verdict"]')?.textContent === "pass");
  await editor.fill("{ not json");
  await page.getByText("Not JSON: line 1, column").waitFor();
});

await step("a delegation case in the editor says why, in both modes", async () => {
  await page.getByRole("tab", { name: "Cases" }).click();
  await page.locator("table.cases tr", { hasText: "delegation" }).locator("a").first().click();
  const editor = page.getByTestId("case-editor");
  const mine = { about: "why", op: "call", main_mode: "edit", mode: "manual", request: ["write"], call: { tool: "edit", path: "src/a.ts" }, expect: { answer: "refused" } };
  await editor.fill(JSON.stringify(mine, null, 2));
  await page.waitForFunction(() => document.querySelector('[data-testid="why"]')?.textContent.includes("main agent's mode"));
  const why = await page.getByTestId("why").textContent();
  expect(why.includes("In the subagent's mode: ask") && why.includes("In the main agent's mode: allow"), `why: ${why}`);
  expect(why.includes("decided by"), `why: ${why}`);
});

await step("a pasted case file runs", async () => {
  await page.getByRole("tab", { name: "Cases" }).click();
  const file = { area: "progress", cases: [
    { about: "pasted: compacting", progress: { phase: "compacting", since: 0 }, now: 3_725_000, expect: { text: "Compacting the conversation", line: "Compacting the conversation · 1h 02m" } },
    { about: "pasted: wrong on purpose", progress: { phase: "thinking", since: 0 }, now: 0, expect: { text: "Thinking", line: "Thinking · 9s" } },
  ] };
  // Pasted as a person pastes — the text lands at once, nothing else is done — it runs, is said
  // and leaves the box empty.
  await page.getByTestId("paste").focus();
  await page.keyboard.insertText(JSON.stringify(file));
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total + 1} passed, 1 failed`);
  const said = await page.getByTestId("paste-status").textContent();
  expect(said.startsWith("Added 2 cases of progress"), `status: "${said}"`);
  expect((await page.getByTestId("paste").inputValue()) === "", "the box keeps the pasted text");
});

await step("the pasted file is kept across a reload", async () => {
  await page.reload();
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total + 1} passed, 1 failed`);
  await page.getByRole("button", { name: "Remove my files" }).click();
  expect(questions.at(-1)?.startsWith("Remove the 1 file you added?"), `the question: ${questions.at(-1)}`);
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total} passed, 0 failed`);
});

await step("an opened file runs; a link carries a case, and an old spec's link says so", async () => {
  const file = { area: "subagents", cases: [
    { about: "opened: offer", op: "offer", session: "a/x", models: { "a/x": { id: "x", name: "X", capacity: {} } }, expect: { offered: true, own: true, note: null } },
  ] };
  await page.getByTestId("open-file").setInputFiles({ name: "mine.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total + 1} passed, 0 failed`);
  await page.getByRole("button", { name: "Remove my files" }).click();
  // A file without `area` takes its name's (conformance/delegation.json has none), not the
  // area picked beside the paste box.
  const delegation = readFileSync(path.join(root, "conformance/delegation.json"));
  const cases = JSON.parse(delegation).cases.length;
  expect(!("area" in JSON.parse(delegation)), "delegation.json has an area now: pick another file");
  await page.getByTestId("paste-area").selectOption("progress");
  await page.getByTestId("open-file").setInputFiles({ name: "delegation.json", mimeType: "application/json", buffer: delegation });
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total + cases} passed, 0 failed`);
  await page.getByRole("button", { name: "Remove my files" }).click();
  await page.getByTestId("paste-area").selectOption("");
  await page.locator("table.cases a").nth(3).click();
  const href = await page.getByTestId("case-link").getAttribute("href");
  expect(href.startsWith("#v=2&spec=3.4.0&area="), `link ${href}`);
  await page.goto(base);
  await page.goto(base + href);
  await page.waitForLoadState("load");
  await page.getByTestId("verdict").waitFor();
  expect((await page.getByTestId("verdict").textContent()) === "pass", "the linked case does not pass");
  // A link to an unchanged built-in case opens it: nothing is added, on a reload either.
  await page.getByRole("tab", { name: "Cases" }).click();
  expect((await summary.textContent()) === `${total} passed, 0 failed`, `after the link: ${await summary.textContent()}`);
  await page.reload();
  await summary.waitFor();
  expect((await summary.textContent()) === `${total} passed, 0 failed`, `after a reload: ${await summary.textContent()}`);
  await page.goto(base + href.replace("spec=3.4.0", "spec=3.3.0"));
  await page.waitForLoadState("load");
  await page.getByTestId("notice").filter({ hasText: "3.3.0" }).waitFor({ timeout: 10_000 });
  const notice = await page.getByTestId("notice").textContent();
  expect(notice.includes("made for spec 3.3.0"), `notice "${notice}"`);
  await page.goto(base);
  await summary.waitFor();
});

await step("the progress line's elapsed time moves", async () => {
  await page.getByRole("tab", { name: "Progress" }).click();
  const line = page.getByTestId("progress-line");
  const first = await line.textContent();
  expect(/^Running bash: cargo test · \d+s$/.test(first), `line "${first}"`);
  await page.waitForTimeout(2100);
  const later = await line.textContent();
  expect(later !== first, `still "${first}"`);
});

await step("every phase's template draws a line, and the picker follows the JSON", async () => {
  const picker = page.getByTestId("progress-phase");
  const line = page.getByTestId("progress-line");
  const phases = await picker.locator("option").evaluateAll((os) => os.map((o) => o.value));
  expect(phases.length === 13, `phases: ${phases}`);
  for (const phase of phases) {
    await picker.selectOption(phase);
    const text = await line.textContent();
    expect(!/missing|expected|unknown|not a field/.test(text), `${phase}: "${text}"`);
  }
  await page.getByLabel("The progress object (progress.md §1), as JSON").fill(JSON.stringify({ phase: "thinking", since: Date.now() }));
  expect((await picker.inputValue()) === "thinking", `picker: ${await picker.inputValue()}`);
  expect((await line.textContent()).startsWith("Thinking"), `line: ${await line.textContent()}`);
});

let session = null;
await step("tree calls from the forms draw the tree, the room and an end", async () => {
  await page.getByRole("tab", { name: "Tree" }).click();
  await page.getByTestId("tree-start").click();
  await page.getByTestId("tree-call").click();
  await page.locator('[data-field="name"]').fill("web");
  await page.locator('[data-field="role"]').fill("the web");
  await page.locator('[data-field="task"]').fill("Write the web.");
  const args = await page.getByTestId("tree-args").inputValue();
  expect(JSON.parse(args).name === "web", `the form writes the arguments: ${args}`);
  await page.getByTestId("tree-call").click();
  await page.getByTestId("tree-tool").selectOption("team_send");
  await page.getByTestId("tree-args").fill(JSON.stringify({ to: ["api"], message: "Use JSON." }));
  await page.getByTestId("tree-call").click();
  const tree = await page.getByTestId("tree").textContent();
  expect(tree.includes("Team (3 of 4 agents):"), `tree: ${tree}`);
  const web = page.locator('[data-testid="tree"] li[data-agent="web"]');
  expect((await web.locator(".position").textContent()) === "the web", `web's row: ${await web.textContent()}`);
  const read = await page.getByTestId("team-read").textContent();
  expect(read.includes("- api (s1) — the API") && read.includes("- web (s2) — the web"), `team_read: ${read}`);
  expect(read.includes("#1 lead → api: Use JSON."), `room: ${read}`);
  await page.getByTestId("tree-by").selectOption("web");
  await page.getByTestId("tree-person-stop").click();
  const ended = page.locator('[data-testid="tree"] li.ended[data-agent="web"]');
  expect((await ended.count()) === 1, "web is drawn among the ended");
  expect((await ended.locator(".state").textContent()) === "stopped", `web ended: ${await ended.textContent()}`);
  // The main agent is not stopped by the person: said, and nothing recorded.
  await page.getByTestId("tree-by").selectOption("lead");
  const before = await page.locator('[data-testid="tree-steps"] li').count();
  await page.getByTestId("tree-person-stop").click();
  expect((await page.locator('[data-testid="tree-steps"] li').count()) === before, "a stop of the main agent was recorded");
  expect((await page.locator("section.tree-view .error").textContent()).includes("not the main agent"), "the stop of the main agent is not said");
  // A refused call is shown as a refusal.
  await page.getByTestId("tree-tool").selectOption("team_add");
  await page.getByTestId("tree-args").fill(JSON.stringify({ name: "Bad Name", role: "r", task: "t" }));
  await page.getByTestId("tree-call").click();
  const last = page.locator('[data-testid="tree-steps"] li').last();
  expect((await last.getAttribute("class")) === "refused" && (await last.textContent()).includes("refused: "), `the refusal: ${await last.textContent()}`);
  // The form: required fields first, each field's help in view.
  const firstField = await page.locator("fieldset.tool-form label").first().textContent();
  expect(firstField.includes("*") && (await page.locator("fieldset.tool-form .help").count()) > 0, `the form: ${firstField}`);
  const exported = JSON.parse(await page.getByTestId("tree-export").inputValue());
  expect(exported.steps.length === 5 && exported.steps[3].op === "person_stop", `export: ${JSON.stringify(exported.steps.map((s) => s.op))}`);
  session = exported;
  // A setting no team can have is said; a max above the cap is read as the cap, and shown so.
  const [minInput, maxInput] = [page.locator("section.tree-view input[type=number]").first(), page.locator("section.tree-view input[type=number]").nth(1)];
  await minInput.fill("5");
  await maxInput.fill("2");
  await page.getByTestId("tree-start").click();
  expect((await page.locator("section.tree-view .error").textContent()).includes("min: 5 is more than max 2"), `min above max: ${await page.locator("section.tree-view .error").textContent()}`);
  await minInput.fill("1");
  await maxInput.fill("1000");
  await page.getByTestId("tree-start").click();
  expect((await maxInput.inputValue()) === "32" && (await page.locator("section.tree-view .error").textContent()).includes("read as 1 to 32"), `max 1000: ${await maxInput.inputValue()}`);
  await maxInput.fill("4");
  // A team whose min is above 1 draws its open slots in team_read's words.
  await page.locator("section.tree-view input[type=number]").first().fill("3");
  await page.getByTestId("tree-start").click();
  const slot = await page.locator('[data-testid="tree"] li.slot').textContent();
  expect(slot.startsWith("Open slots: 2"), `slots: ${slot}`);
});

await step("the exported session is a team case that passes", async () => {
  await page.getByRole("tab", { name: "Cases" }).click();
  // The export as it is: a team case, known by its steps.
  await page.getByTestId("paste").fill(JSON.stringify(session));
  await page.getByTestId("paste").dispatchEvent("change");
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total + 1} passed, 0 failed`);
  await page.getByRole("button", { name: "Remove my files" }).click();
  await page.waitForFunction((t) => document.querySelector('[data-testid="summary"]')?.textContent === t, `${total} passed, 0 failed`);
});

await step("the delegation view answers a call", async () => {
  await page.getByRole("tab", { name: "Delegation" }).click();
  const answer = page.getByTestId("delegation-answer");
  expect((await answer.textContent()) === "person", `bash git push in an edit tree: "${await answer.textContent()}"`);
  await page.locator("section.delegation select").nth(2).selectOption("edit");
  await page.getByTestId("delegation-call").fill("src/a.ts");
  await page.waitForFunction(() => document.querySelector('[data-testid="delegation-answer"]')?.textContent === "refused");
  const text = await page.getByTestId("delegation-text").textContent();
  expect(text.includes("team_request"), `text "${text}"`);
});

await step("switching tabs keeps the work: an edit, a filter, a Tree session", async () => {
  await page.goto(base);
  await summary.waitFor();
  await page.getByPlaceholder("about…").fill("compact");
  const shown = await page.locator("table.cases tbody tr").count();
  await page.locator("table.cases a").first().click();
  const editor = page.getByTestId("case-editor");
  await editor.fill((await editor.inputValue()) + " ");
  const edited = await editor.inputValue();
  await page.getByRole("tab", { name: "Tree" }).click();
  await page.getByTestId("tree-start").click();
  await page.getByTestId("tree-call").click();
  const steps = await page.locator('[data-testid="tree-steps"] li').count();
  await page.getByRole("tab", { name: "Progress" }).click();
  await page.getByRole("tab", { name: "Editor" }).click();
  expect((await editor.inputValue()) === edited, "the edit was lost");
  await page.getByRole("tab", { name: "Tree" }).click();
  expect((await page.locator('[data-testid="tree-steps"] li').count()) === steps && steps > 0, "the Tree session was lost");
  await page.getByRole("tab", { name: "Cases" }).click();
  expect((await page.getByPlaceholder("about…").inputValue()) === "compact" && (await page.locator("table.cases tbody tr").count()) === shown, "the filter was lost");
});

await step("the tabs work from the keyboard, and an opened case takes the keyboard", async () => {
  await page.goto(base);
  await summary.waitFor();
  await page.getByRole("tab", { name: "Cases" }).focus();
  // The focus moves once the page has drawn the selected tab: waited for, not raced.
  const focusOn = async (id, after) => {
    try {
      await page.waitForFunction((x) => document.activeElement?.id === x, id, { timeout: 5000 });
    } catch {
      throw new Error(`${after}: the focus is on "${await page.evaluate(() => document.activeElement?.id ?? "")}", not "${id}"`);
    }
  };
  await page.keyboard.press("ArrowRight");
  await focusOn("tab-editor", "after ArrowRight");
  expect((await page.getByRole("tab", { name: "Editor" }).getAttribute("aria-selected")) === "true", "Editor is not selected");
  expect((await page.getByRole("tabpanel").getAttribute("aria-labelledby")) === "tab-editor", "the panel shown is not the Editor's");
  await page.keyboard.press("End");
  await focusOn("tab-delegation", "after End");
  await page.keyboard.press("ArrowRight");
  await focusOn("tab-cases", "after ArrowRight from the last");
  await page.keyboard.press("Tab");
  await page.locator("table.cases a").first().click();
  await page.waitForFunction(() => document.activeElement?.id === "case-editor", null, { timeout: 5000 });
});

await step("at a phone's width (390 px) no tab scrolls sideways", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(base);
  await summary.waitFor();
  const wide = [];
  for (const tab of ["Cases", "Progress", "Delegation", "Tree"]) {
    await page.getByRole("tab", { name: tab }).click();
    if (tab === "Tree") await page.getByTestId("tree-start").click();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > 391) wide.push(`${tab}: ${width} px`);
  }
  await page.getByRole("tab", { name: "Cases" }).click();
  await page.locator("table.cases a").first().click();
  const editor = await page.evaluate(() => document.documentElement.scrollWidth);
  if (editor > 391) wide.push(`Editor: ${editor} px`);
  expect(wide.length === 0, wide.join(", "));
  await page.setViewportSize({ width: 1200, height: 900 });
});

await step("axe-core finds no critical or serious violation on any tab, light and dark", async () => {
  const axe = createRequire(path.join(root, "wasm/package.json")).resolve("axe-core/axe.min.js");
  const found = [];
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    await page.goto(base);
    await summary.waitFor();
    for (const tab of ["Cases", "Editor", "Progress", "Delegation", "Tree"]) {
      if (tab === "Editor") {
        await page.getByRole("tab", { name: "Cases" }).click();
        await page.locator("table.cases a").first().click();
      } else {
        await page.getByRole("tab", { name: tab }).click();
      }
      if (tab === "Tree") await page.getByTestId("tree-start").click();
      await page.addScriptTag({ path: axe });
      const bad = await page.evaluate(async () =>
        (await window.axe.run(document, { resultTypes: ["violations"] })).violations
          .filter((v) => v.impact === "critical" || v.impact === "serious")
          .map((v) => `${v.impact} ${v.id} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`),
      );
      found.push(...bad.map((b) => `${colorScheme} ${tab}: ${b}`));
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  expect(found.length === 0, found.join("; "));
});

await browser.close();
server.close();
console.log(`playground e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
