// `lembas acp` driven by the TypeScript SDK of the Agent Client Protocol
// (`@agentclientprotocol/sdk`, pinned in wasm/package-lock.json), as an editor would: the SDK's
// client spawns `lembas acp` and speaks ACP over its stdio, against the scripted
// OpenAI-compatible server on 127.0.0.1 (`cargo run -p lembas-harness --example fake-server`).
// Run by `make test` after the harness is built. Prints "ok …" or "FAIL …" a check; exit 1 on a
// failure.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(path.join(root, "wasm/package.json"));
const acp = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);
const lembas = path.join(root, "target/debug/lembas");
const fakeServer = path.join(root, "target/debug/examples/fake-server");

let failed = 0;
function check(cond, what) {
  console.log(`${cond ? "ok" : "FAIL"} ${what}`);
  if (!cond) failed++;
}

// The script: two prompts on one conversation (the second must have seen the first's reply), a
// write asked in manual mode, a second write that the approval covers, a turn held until cancelled.
const dir = mkdtempSync(path.join(tmpdir(), "lembas-acp-sdk-"));
const script = [
  { when: "First.", reply: { says: "One." } },
  { when: "Second.", seen: "One.", reply: { says: "Two." } },
  { when: "Write it.", reply: { calls: ["write", { path: "notes.txt", content: "one\n" }] } },
  { when: "wrote notes.txt", reply: { says: "Written." } },
  { when: "Again.", reply: { calls: ["write", { path: "more.txt", content: "two\n" }] } },
  { when: "wrote more.txt", reply: { says: "Again written." } },
  { when: "Hold on.", reply: { holds: "Thinking" } },
];
writeFileSync(path.join(dir, "script.json"), JSON.stringify(script));
const server = spawn(fakeServer, [path.join(dir, "script.json")], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  server.stdout.once("data", (d) => resolve(String(d).trim()));
  server.once("exit", (c) => reject(new Error(`fake-server exited ${c}`)));
});

const project = mkdtempSync(path.join(tmpdir(), "lembas-acp-project-"));
const agent = spawn(lembas, ["acp", "--base-url", url, "--model", "m"], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const updates = [];
const asked = [];
const other = [];
const client = acp
  .client({ name: "lembas-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onNotification("*", ({ method }) => {
    other.push(method);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params: request }) => {
    asked.push(request);
    const always = request.options.find((o) => o.kind === "allow_always");
    return { outcome: { outcome: "selected", optionId: always.optionId } };
  });

const chunks = () =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

try {
  await client.connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION ?? 1, clientCapabilities: {} });
    check(init.agentInfo?.name === "lembas", `initialize names lembas (${JSON.stringify(init.agentInfo)})`);
    check(!("_meta" in init) || !init._meta?.lembas, "a client that did not opt in gets plain ACP (no _meta.lembas)");
    const session = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    const id = session.sessionId;
    check(session.modes?.currentModeId === "edit" && session.modes.availableModes.length === 4, `four modes, edit now (${JSON.stringify(session.modes)})`);
    const prompt = (text) => ctx.request(acp.methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text }] });

    const first = await prompt("First.");
    check(first.stopReason === "end_turn", `a turn ends: ${first.stopReason}`);
    await prompt("Second.");
    check(chunks().includes("One.") && chunks().includes("Two."), `the second turn is on the first's conversation: "${chunks()}"`);

    await ctx.request(acp.methods.agent.session.setMode, { sessionId: id, modeId: "manual" });
    await prompt("Write it.");
    await prompt("Again.");
    check(asked.length === 1, `asked once, then remembered (${asked.length} questions)`);
    check(readFileSync(path.join(project, "notes.txt"), "utf8") === "one\n" && readFileSync(path.join(project, "more.txt"), "utf8") === "two\n", "both writes ran");
    const calls = updates.filter((u) => u.sessionUpdate === "tool_call");
    const done = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    check(calls.length === 2 && calls.every((c) => c.kind === "edit") && done.length === 2, `tool calls and their updates (${calls.length}, ${done.length})`);

    const held = prompt("Hold on.");
    await new Promise((r) => setTimeout(r, 500));
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId: id });
    const cancelled = await held;
    check(cancelled.stopReason === "cancelled", `a cancelled turn says so: ${cancelled.stopReason}`);

    let code = null;
    try {
      await ctx.request(acp.methods.agent.session.prompt, { sessionId: "nobody", prompt: [{ type: "text", text: "Hello?" }] });
    } catch (e) {
      code = e.code;
    }
    check(code === -32602, `a session that is not one: ${code}`);
    check(other.every((method) => !String(method).startsWith("_lembas")), `no _lembas notification to a plain client (${other.join(", ")})`);
  });
} catch (e) {
  check(false, `the session: ${e && (e.stack || e.message || JSON.stringify(e))}`);
} finally {
  agent.kill();
  server.kill();
}
console.log(`acp client (TypeScript SDK): ${failed === 0 ? "every check passed" : `${failed} failed`}`);
process.exit(failed === 0 ? 0 : 1);
