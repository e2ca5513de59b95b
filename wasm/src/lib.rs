//! lembas-wasm: the bindings of the npm package `lembas-rules`. No rule lives here: every call
//! goes to `lembas_rules::api` by name, its arguments and its answer as JSON text (the package's
//! JavaScript makes them with `JSON.stringify` and reads them with `JSON.parse`, so a value too
//! deep or too odd is a thrown `Error`, never a trap). An error is a real `Error` with a `code`.

use lembas_rules::api::{self, ApiError, ApiPacer, ApiTeam};
use serde_json::Value;
use wasm_bindgen::prelude::*;

fn error(e: ApiError) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code));
    err.into()
}

fn args(text: &str) -> Result<Value, JsValue> {
    api::parse("arguments", text).map_err(error)
}

fn answer(r: api::ApiResult) -> Result<String, JsValue> {
    r.map(api::Answer::into_text).map_err(error)
}

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Calls an API function by name with its arguments as a JSON array; its answer as JSON.
#[wasm_bindgen]
pub fn call(name: &str, args_json: &str) -> Result<String, JsValue> {
    answer(api::dispatch(name, &args(args_json)?))
}

/// The progress pacer.
#[wasm_bindgen]
pub struct Pacer(ApiPacer);

#[wasm_bindgen]
impl Pacer {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Pacer {
        Pacer(ApiPacer::new())
    }

    pub fn call(&mut self, name: &str, args_json: &str) -> Result<String, JsValue> {
        answer(self.0.dispatch(name, &args(args_json)?))
    }
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new()
    }
}

/// The main agent's tree.
#[wasm_bindgen]
pub struct Team(ApiTeam);

#[wasm_bindgen]
impl Team {
    #[wasm_bindgen(constructor)]
    pub fn new(options_json: &str) -> Result<Team, JsValue> {
        ApiTeam::new(&args(options_json)?).map(Team).map_err(error)
    }

    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state_json: &str) -> Result<Team, JsValue> {
        ApiTeam::from_json(&args(state_json)?)
            .map(Team)
            .map_err(error)
    }

    pub fn call(&mut self, name: &str, args_json: &str) -> Result<String, JsValue> {
        answer(self.0.dispatch(name, &args(args_json)?))
    }
}
