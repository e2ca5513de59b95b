//! The bridge to the case editor (playground/editor/editor.js: CodeMirror 6 driven by the case
//! format's schemas), which the page fetches when it is first needed: `globalThis.lembasEditor`
//! has `load()`, a promise of its module (index.html). The Rust side owns the text and the verdict; the editor tells each
//! change, Run (Ctrl/Cmd+Enter) and Save (Ctrl/Cmd+S), and is told the problems to mark and the
//! first difference.

use crate::json_problem::JsonProblem;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// A mounted editor.
    pub type EditorHandle;

    #[wasm_bindgen(method, js_name = setDoc)]
    fn set_doc_js(this: &EditorHandle, text: &str);
    #[wasm_bindgen(method, js_name = setProblems)]
    fn set_problems_js(this: &EditorHandle, problems: &JsValue);
    #[wasm_bindgen(method, js_name = markDifference)]
    fn mark_difference_js(this: &EditorHandle, path: Option<String>, go: bool);
    #[wasm_bindgen(method, js_name = markDifference)]
    fn show_difference_js(this: &EditorHandle, path: Option<String>, go: &str);
    #[wasm_bindgen(method, js_name = goToLine)]
    fn go_to_line_js(this: &EditorHandle, line: u32);
    #[wasm_bindgen(method, js_name = destroy)]
    fn destroy_js(this: &EditorHandle);
}

/// A problem the editor marks where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The text is not JSON: at this line and column.
    Json(JsonProblem),
    /// A field of the case the runner cannot read: at this path (`steps[2].by`).
    Field {
        /// The field's path.
        path: String,
        /// What is wrong with it.
        message: String,
    },
}

/// What the editor is mounted with.
pub struct EditorOptions {
    /// The text.
    pub doc: String,
    /// The case's area, whose schema it follows.
    pub area: String,
    /// The case's key, under which its undo history is kept while the page lives.
    pub key: String,
    /// The id of the element that says the editor's keys.
    pub described_by: &'static str,
}

/// The calls the editor makes, kept alive as long as it is.
pub struct EditorCalls {
    _change: Closure<dyn FnMut(String)>,
    _run: Closure<dyn FnMut()>,
    _save: Closure<dyn FnMut()>,
}

fn set(object: &Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(object, &JsValue::from_str(key), value).map(|_| ())
}

/// Mounts the editor in `parent` once its module has loaded; the handle and the calls it holds.
pub async fn mount(
    parent: web_sys::HtmlElement,
    options: EditorOptions,
    on_change: impl FnMut(String) + 'static,
    on_run: impl FnMut() + 'static,
    on_save: impl FnMut() + 'static,
) -> Result<(EditorHandle, EditorCalls), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let loader = Reflect::get(&window, &JsValue::from_str("lembasEditor"))?;
    let load: Function = Reflect::get(&loader, &JsValue::from_str("load"))?
        .dyn_into()
        .map_err(|_| JsValue::from_str("the page has no editor to load"))?;
    let ready: Promise = load
        .call0(&loader)?
        .dyn_into()
        .map_err(|_| JsValue::from_str("the editor's module was not loaded"))?;
    let module = JsFuture::from(ready).await?;
    let mount: Function = Reflect::get(&module, &JsValue::from_str("mount"))?.dyn_into()?;
    let calls = EditorCalls {
        _change: Closure::new(on_change),
        _run: Closure::new(on_run),
        _save: Closure::new(on_save),
    };
    let given = Object::new();
    set(&given, "doc", &JsValue::from_str(&options.doc))?;
    set(&given, "area", &JsValue::from_str(&options.area))?;
    set(&given, "key", &JsValue::from_str(&options.key))?;
    set(
        &given,
        "describedBy",
        &JsValue::from_str(options.described_by),
    )?;
    set(&given, "onChange", calls._change.as_ref())?;
    set(&given, "onRun", calls._run.as_ref())?;
    set(&given, "onSave", calls._save.as_ref())?;
    let handle = mount.call2(&JsValue::NULL, &parent, &given)?;
    Ok((handle.unchecked_into(), calls))
}

impl EditorHandle {
    /// The text, when the page changed it (Format, Revert).
    pub fn set_doc(&self, text: &str) {
        self.set_doc_js(text);
    }

    /// The problems marked, in place of the ones before.
    pub fn set_problems(&self, problems: &[Problem]) {
        let list = js_sys::Array::new();
        for problem in problems {
            let item = Object::new();
            let written = match problem {
                Problem::Json(p) => set(&item, "line", &JsValue::from(p.line as u32))
                    .and_then(|()| set(&item, "column", &JsValue::from(p.column as u32)))
                    .and_then(|()| set(&item, "message", &JsValue::from_str(&p.message))),
                Problem::Field { path, message } => set(&item, "path", &JsValue::from_str(path))
                    .and_then(|()| set(&item, "message", &JsValue::from_str(message))),
            };
            if written.is_ok() {
                list.push(&item);
            }
        }
        self.set_problems_js(&list);
    }

    /// The first difference marked (none: the mark removed); with `go`, the cursor moved there.
    pub fn mark_difference(&self, path: Option<String>, go: bool) {
        self.mark_difference_js(path, go);
    }

    /// The first difference marked and scrolled into view, the cursor left where it is (a
    /// failing case opens there).
    pub fn show_difference(&self, path: Option<String>) {
        self.show_difference_js(path, "show");
    }

    /// The cursor at the start of `line`, in view.
    pub fn go_to_line(&self, line: usize) {
        self.go_to_line_js(u32::try_from(line).unwrap_or(u32::MAX));
    }

    /// The editor gone (its undo history kept under its key).
    pub fn destroy(&self) {
        self.destroy_js();
    }
}
