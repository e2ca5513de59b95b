// lembas-rules — types of every input and output (agent-harness spec 3.4.0).

export type Mode = "auto" | "edit" | "manual" | "plan";
export type RiskClass = "read" | "write" | "execute" | "interact";
export type RequestKind = "read" | "write" | "execute";
export type Action = "allow" | "ask" | "deny";

// ── progress (progress.md) ──
type Since = { since: number };
export type Progress =
  | ({ phase: "queued"; ahead?: number } & Since)
  | ({ phase: "waiting_for_model"; model: string; reason: "busy" | "slots" | "group" } & Since)
  | ({ phase: "loading_model"; model: string } & Since)
  | ({ phase: "reading_prompt"; done?: number; total?: number } & Since)
  | ({ phase: "thinking" } & Since)
  | ({ phase: "writing"; rate?: number } & Since)
  | ({ phase: "running_tool"; tool: string; what?: string } & Since)
  | ({ phase: "waiting_for_person"; what: "approval" | "question" | "plan"; tool?: string } & Since)
  | ({ phase: "waiting_for_subagents"; running: number } & Since)
  | ({ phase: "compacting" } & Since)
  | ({ phase: "retrying"; reason: string; in: number; attempt?: number } & Since)
  | ({ phase: "stopped"; reason?: "person" | "steps" | "budget" } & Since)
  | ({ phase: "failed"; reason: string } & Since);
export type Phase = Progress["phase"];

export function progressText(progress: Progress, now: number): string;
export function progressLine(progress: Progress, now: number): string;
export function samePhase(a: Progress, b: Progress): boolean;
export function shortWhat(text: string): string | null;

export type Paced = { do: "send"; progress: Progress | null } | { do: "later"; due: number } | { do: "unchanged" };
export class Pacer {
  constructor();
  push(progress: Progress | null, now: number): Paced;
  poll(now: number): Paced | null;
  flush(now: number): Paced | null;
  due(): number | null;
}

// ── permissions (permission/*.json) ──
export type PermissionRequest = {
  tool: string;
  line?: string;
  path?: string;
  /** Only for a tool the spec has no file for. */
  class?: RiskClass;
  permission?: string;
};
export type Rule = { permission: string; pattern: string; action: Action };
/** An "always allow" answer: it holds in `mode` (the context's when not given) and looser modes, never in plan mode or unattended. */
export type Approval = { permission: string; pattern: string; mode?: Mode };
/** A rule an approval adds: an allow, given in the context's mode. */
export type ApprovedRule = { permission: string; pattern: string; action: "allow"; mode: Mode };
export type PermissionContext = {
  mode: Mode;
  root?: string;
  home?: string;
  defaults?: boolean;
  rules?: Rule[];
  approvals?: Approval[];
  unattended?: boolean;
};
export type DecidedBy =
  | { by: "hardline"; entry: string; part: string }
  | { by: "rule"; source: "defaults" | "session" | "approval" | "grant"; permission: string; pattern: string; action: Action }
  | { by: "mode"; mode: Mode; class: RiskClass }
  | { by: "outside_root"; path: string }
  | { by: "unattended" }
  | { by: "opaque"; construct: string }
  | { by: "unknown_target"; entry: string; part: string }
  | { by: "network"; part: string };
export type Decision = { action: Action; reason: string; decidedBy: DecidedBy };
export function evaluate(request: PermissionRequest, context: PermissionContext): Decision;
export function approve(request: PermissionRequest, context: PermissionContext): { rules: ApprovedRule[] } | { refused: string };

// ── delegation (subagents.md §7) ──
export type Grant = { tool: string; pattern: string; permission?: string };
export type WhoDecidesOptions = {
  mainMode: Mode;
  mode: Mode;
  request?: RequestKind[];
  grants?: Grant[];
  unattended?: boolean;
  rules?: Rule[];
  approvals?: Approval[];
  root?: string;
};
export type Verdict = {
  answer: "run" | "person" | "refused";
  text?: string;
  own: Decision;
  main?: Decision;
};
export function whoDecides(request: PermissionRequest, options: WhoDecidesOptions): Verdict;
export function checkMode(parentMode: Mode, mode?: Mode | null, request?: string[] | null): { mode: Mode; request: RequestKind[] } | { refused: string };
export function requestRefusal(tool: string, request: RequestKind[]): string | null;
export function tighten(mainMode: Mode, agents: { name: string; parent: string; mode: Mode }[]): Record<string, Mode>;

// ── subagents (subagents.md §2–§4) ──
export type Capacity = { group?: string; parallel?: number };
export type ModelInfo = { id?: string; name?: string; capacity?: Capacity };
export function subagentModel(options: { session: string; models: Record<string, ModelInfo>; said?: string[]; other?: string[]; model?: string }): { model: string } | { refused: string };
export function offer(options: { session: string; models: Record<string, ModelInfo>; subagents?: boolean }): { offered: boolean; own: boolean; note: string | null };

// ── the team (subagents.md §5–§13) ──
export type AgentState = "working" | "waiting" | "finished" | "idle" | "paused" | "done" | "out_of_context" | "stopped";
export type TeamOptions = { min?: number; max?: number; subagents?: boolean; capacity?: Capacity; mode?: Mode; now?: number; model?: string };
export type Delivered = Record<string, string[]>;
export type TreeAgent = {
  id: string;
  name: string;
  position: string;
  parent: string | null;
  state: AgentState;
  model: string;
  mode: Mode;
  request: RequestKind[];
  manager: boolean;
  task?: string;
  context?: { used: number; window: number };
  progress: Progress | null;
  findings: number;
  messages: number;
  ended?: number;
};
export type TreeInfo = { min: number; max: number; size: number; openSlots: number; agents: TreeAgent[]; ended: TreeAgent[] };
/** A tool call's answer; `refused` when the tool refused it (`result` is then the refusal); `room` only for team_read: the messages it showed. */
export type CallAnswer = { result: string | null; refused: boolean; room?: { n: number; from: string; to: string }[]; delivered: Delivered; started: Delivered };
/** A step as a team case writes it (conformance/README.md): `{ op, …its fields, now? }`. */
export type TeamStep = { op: string; now?: number; [field: string]: unknown };
/** A saved team: a team case without its expects — the options it was made with and every step that changed it, in order (`Team.fromJSON` does them again; a team case loads too). */
export type TeamState = { start: TeamOptions; steps: TeamStep[] };
type ToolMethod = (by: string, args?: Record<string, unknown>, now?: number) => CallAnswer;
export class Team {
  constructor(options?: TeamOptions);
  static fromJSON(state: TeamState): Team;
  call(by: string, tool: string, args?: Record<string, unknown>, now?: number): CallAnswer;
  tree(): TreeInfo;
  read(by: string, since?: number): string;
  whoami(by: string): string;
  offered(by: string): { tools: string[]; setting: boolean };
  /** True once the agent's context has reached pause_at of its window. */
  setContext(by: string, used: number, window: number): boolean;
  contextFull(by: string, now?: number): { text: string | null; delivered: Delivered; started: Delivered };
  endTurn(by: string, reply?: string, reason?: string | null, now?: number): { delivered: Delivered; started: Delivered };
  setMainMode(mode: Mode): null;
  personStop(name: string, now?: number): { stopped: string[]; delivered: Delivered; started: Delivered };
  /** What the agent's latest turn was started with. */
  started(by: string): string | null;
  /** Every live agent's state, by name. */
  state(): Record<string, AgentState>;
  /** The session model's capacity changes (turns waiting for a slot start when one frees). */
  setCapacity(capacity: Capacity): null;
  delivered(): Delivered;
  /** The person's prompt: the main agent's next turn starts with it (after the session notes when the Subagents setting changed) — now if it rests, else when it can. */
  prompt(text: string, now?: number): { delivered: Delivered; started: Delivered };
  /** The person changes the Subagents setting between turns (team.md §2: 1 ≤ min ≤ max, else it throws); the main agent is told with its next prompt. */
  setAgents(min: number, max: number): null;
  /** The person picks another model for the main agent: the session's model from now on; subagents at work keep theirs. */
  setModel(model: string): null;
  toJSON(): TeamState;
  teamAdd: ToolMethod;
  teamSend: ToolMethod;
  teamRead: ToolMethod;
  teamStop: ToolMethod;
  teamWhoami: ToolMethod;
  teamFindings: ToolMethod;
  teamFinish: ToolMethod;
  teamRequest: ToolMethod;
  teamDecide: ToolMethod;
  teamAssign: ToolMethod;
  teamReplace: ToolMethod;
}

// ── conformance ──
export type CaseResult = { pass: boolean; about?: string; expected: unknown; actual: unknown; message?: string };
export type FileResult = { area: string; passed: number; failed: number; results: CaseResult[] };
export type CaseFile = { area?: string; about?: string; cases: unknown[] };
export function areas(): string[];
export function runCase(area: string, testCase: unknown): CaseResult;
export function runFile(file: CaseFile, name?: string): FileResult;
export function version(): string;
export function specVersion(): string;

// ── loading the .wasm (the web entry; Node's loads it at import) ──
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;
export function init(options?: { module_or_path: InitInput | Promise<InitInput> }): Promise<void>;
export function initSync(options: { module: BufferSource | WebAssembly.Module }): void;
export default init;
