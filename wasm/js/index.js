// lembas-rules: the rules of agent-harness spec 3.4.0, for browsers and Node.
// Every function here hands its arguments to the wasm core as JSON and reads its answer back:
// no rule is decided in JavaScript.
import glueInit, {
  initSync as glueInitSync,
  call as wasmCall,
  Pacer as WasmPacer,
  Team as WasmTeam,
} from "./lembas_wasm.js";

/** Loads the .wasm: `init()` (next to this file), `init({ module_or_path })` (a URL, a Response, bytes or a WebAssembly.Module). */
export async function init(options) {
  await glueInit(options);
}

/** Loads the .wasm from bytes or a WebAssembly.Module already at hand: `initSync({ module })`. */
export function initSync(options) {
  glueInitSync(options);
}

export default init;

// Plain JSON.stringify (a replacer function would be called for every value: half as slow again
// on a case file): an argument left out is null, a property set to undefined is absent.
function encode(args) {
  try {
    return JSON.stringify(args);
  } catch (e) {
    const err = new Error(`arguments: cannot be sent to the rules (${e && e.message})`);
    err.code = "not_json";
    throw err;
  }
}

function notReady(e) {
  if (e instanceof Error && "code" in e) return e;
  const err = new Error(`lembas-rules is not initialised: call init() or initSync() first (${e && e.message})`);
  err.code = "not_initialised";
  return err;
}

function run(f) {
  let text;
  try {
    text = f();
  } catch (e) {
    throw notReady(e);
  }
  return JSON.parse(text);
}

const api = (name) => (...args) => run(() => wasmCall(name, encode(args)));

export const progressText = api("progressText");
export const progressLine = api("progressLine");
export const samePhase = api("samePhase");
export const shortWhat = api("shortWhat");
export const evaluate = api("evaluate");
export const approve = api("approve");
export const whoDecides = api("whoDecides");
export const checkMode = api("checkMode");
export const requestRefusal = api("requestRefusal");
export const tighten = api("tighten");
export const subagentModel = api("subagentModel");
export const offer = api("offer");
export const areas = api("areas");
export const runCase = api("runCase");
export const runFile = api("runFile");
export const version = api("version");
export const specVersion = api("specVersion");

/** Paces progress objects (progress.md §5): a new phase at once, data at most four times a second. */
export class Pacer {
  #inner;
  constructor() {
    try {
      this.#inner = new WasmPacer();
    } catch (e) {
      throw notReady(e);
    }
  }
  #call(name, args) {
    return run(() => this.#inner.call(name, encode(args)));
  }
  push(progress, now) {
    return this.#call("push", [progress, now]);
  }
  poll(now) {
    return this.#call("poll", [now]);
  }
  flush(now) {
    return this.#call("flush", [now]);
  }
  due() {
    return this.#call("due", []);
  }
}

/**
 * The main agent's tree of subagents (subagents.md §5–§13). Its methods are the core's team
 * operations and one per team tool, made from the list the core gives when the first team is
 * made: no operation is named here.
 */
export class Team {
  #inner;
  static #made = false;
  constructor(options, inner) {
    try {
      this.#inner = inner ?? new WasmTeam(encode(options ?? {}));
    } catch (e) {
      throw notReady(e);
    }
    Team.#makeMethods();
  }
  static fromJSON(state) {
    let inner;
    try {
      inner = WasmTeam.fromJSON(encode(state));
    } catch (e) {
      throw notReady(e);
    }
    return new Team(null, inner);
  }
  static #makeMethods() {
    if (Team.#made) return;
    for (const name of run(() => wasmCall("teamMethods", "[]"))) {
      Team.prototype[name] = function (...args) {
        return this.#call(name, args);
      };
    }
    Team.#made = true;
  }
  #call(name, args) {
    return run(() => this.#inner.call(name, encode(args)));
  }
  toJSON() {
    return this.#call("toJSON", []);
  }
}
