//! The playground (Leptos, client-side): every conformance case run live through `lembas-rules`,
//! compiled to wasm with the page; the built-in cases come beside it as `cases.json`. Tabs: the
//! cases with their summary and the author's files, an editor for one case (its differences, its
//! trace, saving and downloading), the progress line ticking, the tree explorer, the delegation
//! explorer and a run replayed from its `--events` file. Every verdict and every text comes from
//! the rules; this crate only draws them.
//!
//! The contract for tests and tools: `data-testid` `summary` (`N passed, N failed`), `case-editor`,
//! `verdict` (`pass` / `fail`), `diff-path`, `paste`, `progress-line`, `tree`, `replay-time`.

mod address;
mod cases_view;
pub mod diff;
mod editor_view;
mod explore;
pub mod json_text;
pub mod link;
pub mod lzw;
pub mod model;
mod progress_view;
pub mod replay;
mod replay_view;
mod storage;
mod trace_view;
mod tree_view;
mod views;

use wasm_bindgen::prelude::*;

/// Opens the page with the built-in case files (`cases.json`'s text, fetched beside the
/// `.wasm` while it loads); an error says which file could not be read.
#[wasm_bindgen]
pub fn open(cases: String) -> Result<(), JsError> {
    console_error_panic_hook::set_once();
    let builtin = model::read_builtin(&cases).map_err(|e| JsError::new(&e))?;
    leptos::mount::mount_to_body(move || leptos::view! { <views::App builtin=builtin /> });
    Ok(())
}
