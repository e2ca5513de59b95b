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
  { when: "Think first.", reply: { sse: ['{"choices":[{"delta":{"reasoning_content":"Let me see."}}]}', '{"choices":[{"delta":{"content":"Thought."}}]}', "[DONE]"] } },
  // An editor's session: an attached file, the editor's own buffer, a question on its call's card,
  // a refused call, a plan approved, a session kept and loaded again after a restart.
  { when: "LINKED-TEXT", reply: { says: "Seen the link." } },
  { when: "Mind the buffer.", reply: { calls: ["read", { path: "draft.txt" }] } },
  { when: "unsaved words", reply: { calls: ["write", { path: "draft.txt", content: "saved\n" }] } },
  { when: "wrote draft.txt", reply: { says: "Buffer done." } },
  { when: "Refuse this.", reply: { calls: ["write", { path: "blocked.txt", content: "x\n" }] } },
  { when: "Plan mode changes nothing", reply: { calls: ["plan_write", { title: "Ship it", steps: ["Build", "Test"] }] } },
  { when: "The plan has 2 steps", reply: { calls: ["plan_submit", {}] } },
  { when: "approved the plan", reply: { says: "On it." } },
  { when: "Remember me.", reply: { says: "Remembered." } },
  // The opted-in client's session: a subagent, its finding, its write asked of the person.
  { who: "You are the main agent", when: "Build it.", reply: { calls: ["team_add", { name: "api", role: "the API", task: "Write the API.", goal: "a service" }] } },
  { who: "You are the main agent", when: "Added api", reply: { says: "api is on it." } },
  { who: 'You are "api"', when: "Write the API.", reply: { calls: ["team_findings", { action: "write", text: "Login is POST /session." }] } },
  { who: 'You are "api"', when: "Noted (finding 1)", reply: { calls: ["write", { path: "api.txt", content: "api\n" }] } },
  { who: 'You are "api"', when: "wrote api.txt", reply: { says: "API done." } },
  { who: "You are the main agent", when: "API done.", reply: { says: "api reported." } },
];
writeFileSync(path.join(dir, "script.json"), JSON.stringify(script));
const server = spawn(fakeServer, [path.join(dir, "script.json")], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  server.stdout.once("data", (d) => resolve(String(d).trim()));
  server.once("exit", (c) => reject(new Error(`fake-server exited ${c}`)));
});

const project = mkdtempSync(path.join(tmpdir(), "lembas-acp-project-"));
// Its sessions kept in this run's own state folder, never the person's.
const state = { ...process.env, XDG_STATE_HOME: path.join(dir, "state") };
const agent = spawn(lembas, ["acp", "--base-url", url, "--model", "m"], { stdio: ["pipe", "pipe", "inherit"], env: state });
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
    check(JSON.stringify(asked[0]?.options.map((o) => [o.optionId, o.kind])) === JSON.stringify([["once", "allow_once"], ["session", "allow_always"], ["project", "allow_always"], ["deny", "reject_once"]]), `the options acp.md names: ${JSON.stringify(asked[0]?.options)}`);
    check(readFileSync(path.join(project, "notes.txt"), "utf8") === "one\n" && readFileSync(path.join(project, "more.txt"), "utf8") === "two\n", "both writes ran");
    const calls = updates.filter((u) => u.sessionUpdate === "tool_call");
    const done = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    check(calls.length === 2 && calls.every((c) => c.kind === "edit") && done.length === 2, `tool calls and their updates (${calls.length}, ${done.length})`);
    const diff = done[0].content?.find((c) => c.type === "diff");
    check(diff && diff.path.endsWith("notes.txt") && diff.newText === "one\n" && (diff.oldText ?? null) === null, `a write's update carries its diff: ${JSON.stringify(diff)}`);
    await prompt("Think first.");
    const thought = updates.filter((u) => u.sessionUpdate === "agent_thought_chunk").map((u) => u.content.text).join("");
    check(thought === "Let me see.", `reasoning streams as agent_thought_chunk: "${thought}"`);

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
}
// An editor's session, as Zed holds one: the editor's files offered, a file attached, a question
// on its call's card with the change, a refused call, a plan approved; then lembas started again
// and the session listed and loaded.
{
  const project3 = mkdtempSync(path.join(tmpdir(), "lembas-acp-editor-"));
  writeFileSync(path.join(project3, "linked.txt"), "LINKED-TEXT\n");
  writeFileSync(path.join(project3, "draft.txt"), "disk words\n");
  const agent3 = spawn(lembas, ["acp", "--base-url", url, "--model", "m"], { stdio: ["pipe", "pipe", "inherit"], env: state });
  const log = [];
  const updates3 = [];
  const writes = [];
  const editor = acp
    .client({ name: "lembas-test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates3.push(params.update);
      if (params.update.sessionUpdate === "tool_call") log.push(["card", params.update.toolCallId]);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params: request }) => {
      log.push(["asked", request.toolCall.toolCallId, request]);
      const once = request.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: once.optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({
      content: params.path.endsWith("draft.txt") ? "unsaved words\n" : readFileSync(params.path, "utf8"),
    }))
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.push([path.basename(params.path), params.content]);
      return {};
    });
  let id3 = null;
  try {
    await editor.connectWith(acp.ndJsonStream(Writable.toWeb(agent3.stdin), Readable.toWeb(agent3.stdout)), async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      });
      check(init.agentCapabilities?.loadSession === true && init.agentCapabilities?.promptCapabilities?.embeddedContext === true, `loadSession and embeddedContext: ${JSON.stringify(init.agentCapabilities)}`);
      const session = await ctx.request(acp.methods.agent.session.new, { cwd: project3, mcpServers: [] });
      id3 = session.sessionId;
      check(session.modes.availableModes.every((m) => m.description), "every mode has a description");
      const say = (prompt) => ctx.request(acp.methods.agent.session.prompt, { sessionId: id3, prompt });
      await say([{ type: "text", text: "Look at the link." }, { type: "resource_link", name: "linked.txt", uri: `file://${path.join(project3, "linked.txt")}` }]);
      const said = () => updates3.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
      check(said().includes("Seen the link."), `an attached file reaches the model: "${said()}"`);
      check(updates3.some((u) => u.sessionUpdate === "available_commands_update" && u.availableCommands.some((c) => c.name === "mode")), "the / menu");

      await ctx.request(acp.methods.agent.session.setMode, { sessionId: id3, modeId: "manual" });
      await say([{ type: "text", text: "Mind the buffer." }]);
      check(said().includes("Buffer done."), `the read got the editor's buffer: "${said()}"`);
      const asked = log.find((e) => e[0] === "asked");
      const card = log.findIndex((e) => e[0] === "card" && e[1] === asked?.[1]);
      check(asked && card >= 0 && card < log.indexOf(asked), `the question is on its call's card, which came first: ${JSON.stringify(log.map((e) => e.slice(0, 2)))}`);
      const diff = asked?.[2].toolCall.content?.find((c) => c.type === "diff");
      check(diff?.newText === "saved\n" && diff?.oldText === "unsaved words\n" && asked?.[2].toolCall.title === "Write draft.txt", `the question shows the change: ${JSON.stringify(asked?.[2].toolCall)}`);
      check(JSON.stringify(writes) === JSON.stringify([["draft.txt", "saved\n"]]) && readFileSync(path.join(project3, "draft.txt"), "utf8") === "disk words\n", `the write went through the editor: ${JSON.stringify(writes)}`);

      await ctx.request(acp.methods.agent.session.setMode, { sessionId: id3, modeId: "plan" });
      await say([{ type: "text", text: "Refuse this." }]);
      const failed = updates3.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
      check(failed && JSON.stringify(failed.content).includes("Plan mode changes nothing"), `a refused call ends failed: ${JSON.stringify(failed)}`);
      const plan = updates3.find((u) => u.sessionUpdate === "plan");
      check(JSON.stringify(plan?.entries.map((e) => e.content)) === '["Build","Test"]', `the plan: ${JSON.stringify(plan)}`);
      const submitted = log.filter((e) => e[0] === "asked")[1]?.[2];
      check(submitted && submitted.options.every((o) => o.kind !== "allow_always") && JSON.stringify(submitted.toolCall.content).includes("Test"), `plan_submit asks, showing the plan: ${JSON.stringify(submitted?.toolCall)}`);
      const mode = updates3.find((u) => u.sessionUpdate === "current_mode_update");
      check(mode?.currentModeId === "manual", `approved, the mode before plan again: ${JSON.stringify(mode)}`);
      await say([{ type: "text", text: "Remember me." }]);
    });
  } catch (e) {
    check(false, `the editor's session: ${e && (e.stack || e.message || JSON.stringify(e))}`);
  } finally {
    agent3.kill();
  }
  // lembas again, as after the editor restarts.
  const agent4 = spawn(lembas, ["acp", "--base-url", url, "--model", "m"], { stdio: ["pipe", "pipe", "inherit"], env: state });
  const replayed = [];
  const again = acp.client({ name: "lembas-test-again" }).onNotification(acp.methods.client.session.update, ({ params }) => {
    replayed.push(params.update);
  });
  try {
    await again.connectWith(acp.ndJsonStream(Writable.toWeb(agent4.stdin), Readable.toWeb(agent4.stdout)), async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const list = await ctx.request(acp.methods.agent.session.list, { cwd: project3 });
      const kept = list.sessions.find((s) => s.sessionId === id3);
      check(kept && kept.title === "Look at the link." && kept.updatedAt, `session/list finds it: ${JSON.stringify(list.sessions)}`);
      const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId: id3, cwd: project3, mcpServers: [] });
      check(loaded.modes?.currentModeId === "manual", `loaded in the mode it was left in: ${JSON.stringify(loaded.modes)}`);
      const user = replayed.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
      check(user.includes("Remember me.") && replayed.some((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text === "Remembered."), `session/load replays the conversation: ${JSON.stringify(user)}`);
    });
  } catch (e) {
    check(false, `the session loaded again: ${e && (e.stack || e.message || JSON.stringify(e))}`);
  } finally {
    agent4.kill();
  }
}
// A client that opts in to the spec's extension (`_meta.lembas` in `initialize`).
{
  const agent2 = spawn(lembas, ["acp", "--base-url", url, "--model", "m"], { stdio: ["pipe", "pipe", "inherit"], env: state });
  const events = [];
  const asked2 = [];
  const project2 = mkdtempSync(path.join(tmpdir(), "lembas-acp-tree-"));
  const opted = acp
    .client({ name: "lembas-test-lembas" })
    .onNotification(acp.methods.client.session.update, () => {})
    .onNotification("_lembas/event", (p) => p, ({ params }) => {
      events.push(params.event);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asked2.push(params);
      const once = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: once.optionId } };
    });
  try {
    await opted.connectWith(acp.ndJsonStream(Writable.toWeb(agent2.stdin), Readable.toWeb(agent2.stdout)), async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 3 } } } });
      const caps = init._meta?.lembas?.capabilities ?? [];
      check(["progress", "tree", "agents"].every((c) => caps.includes(c)), `the extension's capabilities: ${JSON.stringify(caps)}`);
      let badSaid = null;
      try {
        await ctx.request(acp.methods.agent.session.new, { cwd: project2, mcpServers: [], _meta: { lembas: { said: "not a list" } } });
      } catch (e) {
        badSaid = e.code;
      }
      check(badSaid === -32602, `said that is not a list of strings: ${badSaid}`);
      const s = await ctx.request(acp.methods.agent.session.new, { cwd: project2, mcpServers: [], _meta: { lembas: { agents: { min: 1, max: 3 }, said: ["Use the main model only."] } } });
      const sid = s.sessionId;
      await ctx.request(acp.methods.agent.session.setMode, { sessionId: sid, modeId: "manual" });
      const done = await ctx.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "Build it." }], _meta: { lembas: { agents: { min: 1, max: 3 } } } });
      check(done.stopReason === "end_turn", `the turn with a subagent ends: ${done.stopReason}`);
      const sub = asked2.find((q) => q._meta?.lembas?.subagent);
      check(sub && sub._meta.lembas.subagent.id === "s1" && sub._meta.lembas.subagent.name === "api" && sub._meta.lembas.subagent.position === "the API", `the subagent's call asked of the person names it: ${JSON.stringify(asked2.map((q) => q._meta))}`);
      check(readFileSync(path.join(project2, "api.txt"), "utf8") === "api\n", "the subagent's write ran once allowed");
      check(events.some((e) => e.type === "phase" && e.agent === "s1") && events.some((e) => e.type === "phase" && !("agent" in e)), `phase events, a subagent's by its id, the main agent's without: ${events.filter((e) => e.type === "phase").length}`);
      const lastTeam = events.filter((e) => e.type === "team").pop();
      check(lastTeam && lastTeam.tree.agents.some((a) => a.id === "s1" && a.name === "api"), `the team event carries the tree: ${JSON.stringify(lastTeam?.tree?.agents?.map((a) => [a.id, a.state]))}`);
      const view = await ctx.request("_lembas/team", { sessionId: sid });
      check(view.tree.max === 3 && view.tree.agents.map((a) => [a.id, a.name, a.parent]).join("|") === "lead,lead,|s1,api,lead", `_lembas/team's tree: ${JSON.stringify(view.tree.agents.map((a) => [a.id, a.name, a.parent]))}`);
      check(view.room.some((m) => m.from === "api" && m.kind === "report" && m.report === true), `_lembas/team's room: ${JSON.stringify(view.room.map((m) => [m.from, m.kind]))}`);
      const findings = await ctx.request("_lembas/team/findings", { sessionId: sid, id: "s1" });
      check(findings.id === "s1" && findings.findings[0]?.n === 1 && findings.findings[0].text === "Login is POST /session.", `_lembas/team/findings: ${JSON.stringify(findings)}`);
      const transcript = await ctx.request("_lembas/team/transcript", { sessionId: sid, id: "s1" });
      check(transcript.turns[0]?.role === "user" && JSON.stringify(transcript.turns).includes("Write the API."), `_lembas/team/transcript: ${JSON.stringify(transcript.turns?.[0])}`);
      const status = await ctx.request("_lembas/session/status", { sessionId: sid });
      check(status.tree?.agents.length === 2 && "progress" in status && status.busy === false, `_lembas/session/status: ${JSON.stringify({ busy: status.busy, agents: status.tree?.agents.length })}`);
      const stopped = await ctx.request("_lembas/team/stop", { sessionId: sid, id: "s1" });
      check(JSON.stringify(stopped.stopped) === '["s1"]', `_lembas/team/stop: ${JSON.stringify(stopped)}`);
      let again = null;
      try {
        await ctx.request("_lembas/team/stop", { sessionId: sid, id: "s1" });
      } catch (e) {
        again = e.code;
      }
      check(again === -32602, `stopping one that is not live: ${again}`);
      const configured = await ctx.request("_lembas/configure", { sessionId: sid, agents: { min: 1, max: 2 } });
      check(configured.model === "m", `_lembas/configure: ${JSON.stringify(configured)}`);
      let bad = null;
      try {
        await ctx.request("_lembas/configure", { sessionId: sid, agents: { min: 3, max: 2 } });
      } catch (e) {
        bad = e.code;
      }
      check(bad === -32602, `an impossible setting: ${bad}`);
    });
  } catch (e) {
    check(false, `the opted-in session: ${e && (e.stack || e.message || JSON.stringify(e))}`);
  } finally {
    agent2.kill();
  }
}
server.kill();
console.log(`acp client (TypeScript SDK): ${failed === 0 ? "every check passed" : `${failed} failed`}`);
process.exit(failed === 0 ? 0 : 1);
