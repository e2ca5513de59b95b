//! The playground (Leptos, client-side): every conformance case run live through `lembas-rules`,
//! compiled to wasm with the page. Views: the cases with their summary, an editor for one case,
//! pasting a case file, the progress line ticking, the tree explorer and the delegation explorer. Every verdict and every text comes from the
//! rules; this crate only draws them.
//!
//! The contract for tests and tools: `data-testid` `summary` (`N passed, N failed`), `case-editor`,
//! `verdict` (`pass` / `fail`), `paste`, `progress-line`, `tree`.

mod address;
pub mod diff;
mod explore;
pub mod json_text;
pub mod link;
pub mod lzw;
pub mod model;
pub mod replay;
mod replay_view;
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
