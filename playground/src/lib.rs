//! The playground (Leptos, client-side): every conformance case run live through `lembas-rules`,
//! compiled to wasm with the page; the built-in cases come beside it as `cases.json`. Tabs: the
//! cases with their summary and the author's files, an editor for one case (its differences, its
//! trace, saving and downloading), the progress line ticking, the tree explorer, the delegation
//! explorer and a run replayed from its `--events` file. Every verdict and every text comes from
//! the rules; this crate only draws them.
//!
//! The contract for tests and tools: `data-testid` `summary` (`N passed, N failed`), `case-editor`,
//! `verdict` (`pass` / `fail`), `diff-path`, `paste`, `progress-line`, `tree`, `replay-time`;
//! the case editor's element (`.cm-host`) holds its handle as `lembasEditor` (`getDoc()`: its text).

mod address;
mod cases_view;
pub mod diff;
mod editor_js;
mod editor_view;
mod explore;
pub mod json_problem;
pub mod json_text;
pub mod link;
pub mod lzw;
pub mod model;
mod page;
mod progress_view;
pub mod replay;
mod replay_view;
mod shortcuts;
mod storage;
mod theme;
mod trace_view;
mod tree_view;
mod views;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Opens the page with the built-in case files (`cases.json`'s bytes, fetched beside the
/// `.wasm` while it loads: bytes are copied into the module as they are, where a string would be
/// encoded again); an error says which file could not be read.
#[wasm_bindgen]
pub fn open(cases: Vec<u8>) -> Result<(), JsError> {
    console_error_panic_hook::set_once();
    let cases = String::from_utf8(cases)
        .map_err(|e| JsError::new(&format!("cases.json: not UTF-8 text ({e})")))?;
    let builtin = model::read_builtin(&cases).map_err(|e| JsError::new(&e))?;
    // Drawn over the page as it first painted (index.html's `#app`: its header, the summary's
    // line held), in one go: nothing moves.
    let app = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        .ok_or_else(|| JsError::new("the page has no #app to draw in"))?;
    app.set_inner_html("");
    leptos::mount::mount_to(
        app,
        move || leptos::view! { <views::App builtin=builtin /> },
    )
    .forget();
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    /// Each module of `src/` and the modules its code names (`crate::name`), comments left out.
    fn imports() -> BTreeMap<String, Vec<String>> {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut graph = BTreeMap::new();
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if path.extension().is_none_or(|e| e != "rs") || name == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut named: Vec<String> = Vec::new();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for (at, _) in line.match_indices("crate::") {
                    let rest = &line[at + "crate::".len()..];
                    let module: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if module != name && !named.contains(&module) {
                        named.push(module);
                    }
                }
            }
            graph.insert(name.to_string(), named);
        }
        graph
    }

    /// A path of imports from `from` back to it, if there is one.
    fn circle(graph: &BTreeMap<String, Vec<String>>, from: &str) -> Option<Vec<String>> {
        let mut stack = vec![vec![from.to_string()]];
        let mut seen: Vec<String> = Vec::new();
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for next in graph.get(last).into_iter().flatten() {
                if next == from {
                    let mut found = path.clone();
                    found.push(next.clone());
                    return Some(found);
                }
                if !seen.contains(next) {
                    seen.push(next.clone());
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
        None
    }

    #[test]
    fn no_two_modules_import_each_other() {
        let graph = imports();
        assert!(graph.len() > 10, "{graph:?}");
        assert!(graph["views"].contains(&"page".to_string()), "{graph:?}");
        for module in graph.keys() {
            assert_eq!(circle(&graph, module), None, "{module} imports itself");
        }
        // The check finds a circle when there is one.
        let mut with_circle = graph.clone();
        with_circle.get_mut("page").unwrap().push("views".into());
        assert!(circle(&with_circle, "page").is_some());
    }
}
