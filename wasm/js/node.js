// The Node entry: the .wasm is read from beside this file and loaded at import, so every
// function is ready to call.
import { readFileSync } from "node:fs";
import { initSync } from "./index.js";

initSync({ module: readFileSync(new URL("./lembas_wasm_bg.wasm", import.meta.url)) });

export * from "./index.js";
export { default } from "./index.js";
