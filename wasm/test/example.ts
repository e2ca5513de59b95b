// A typed use of the package, checked by `tsc --noEmit --strict` in the tests.
import init, { progressLine, evaluate, whoDecides, Team, Pacer, runFile, type Progress, type Decision, type Paced, type TeamState } from "lembas-rules";

export async function main(): Promise<string> {
  await init();
  const p: Progress = { phase: "running_tool", since: Date.now(), tool: "bash", what: "npm test" };
  const line: string = progressLine(p, Date.now());
  const d: Decision = evaluate({ tool: "bash", line: "git push origin main" }, { mode: "edit" });
  if (d.decidedBy.by === "rule") console.log(d.decidedBy.pattern);
  const v = whoDecides({ tool: "edit", path: "src/a.ts" }, { mainMode: "edit", mode: "manual", request: ["write"] });
  const team = new Team({ min: 1, max: 4 });
  const added = team.teamAdd("lead", { name: "api", role: "the API", task: "Write it.", goal: "a service" });
  const refused: boolean = added.refused;
  const none: null = team.setAgents(1, 3);
  const prompted: Record<string, string[]> = team.prompt("Go on.", Date.now()).started;
  team.setModel("m-large");
  const saved: TeamState = team.toJSON();
  const again: Team = Team.fromJSON(JSON.parse(JSON.stringify(saved)) as TeamState);
  const pacer = new Pacer();
  const paced: Paced = pacer.push(p, Date.now());
  if (paced.do === "later") console.log(paced.due);
  const r = runFile({ area: "progress", cases: [] });
  return `${line} ${v.answer} ${added.result ?? ""} ${refused} ${none} ${Object.keys(prompted)} ${again.tree().openSlots} ${r.passed}`;
}
