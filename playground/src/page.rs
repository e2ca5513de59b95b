//! The page's state that every tab shares (`Page`: the files, the tab, the case open, the
//! filters, the Tree session), how it becomes the page's address and how an address or a case's
//! link becomes it again (`address.rs`, `link.rs`); the browser's address bar and history.

use crate::address::{Address, Tab};
use crate::link::read_link;
use crate::model::{json_error, read_value, CaseFile, Filter, Source};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Moves the keyboard to the element `id` once the page has drawn it.
pub(crate) fn focus_after_render(id: &'static str) {
    request_animation_frame(move || {
        let element = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(id))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(e) = element {
            let _ = e.focus();
        }
    });
}

/// The page's fragment, without its `#`.
pub(crate) fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
        .trim_start_matches('#')
        .to_string()
}

/// Writes the page's address: a new entry of the browser's history (`push`), so that Back
/// returns to the one before, or in place of the current one.
pub(crate) fn write_fragment(fragment: &str, push: bool) {
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let url = if fragment.is_empty() {
        path
    } else {
        format!("{path}#{fragment}")
    };
    let _ = if push {
        history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    };
}

/// The files, the tab, the case open and the filters: the page's state.
#[derive(Clone, Copy)]
pub(crate) struct Page {
    pub(crate) files: RwSignal<Vec<CaseFile>>,
    pub(crate) tab: RwSignal<Tab>,
    pub(crate) selected: RwSignal<Option<(usize, usize)>>,
    pub(crate) filter: RwSignal<Filter>,
    pub(crate) notice: RwSignal<String>,
    /// The built-in files as they came.
    pub(crate) builtin: StoredValue<Vec<CaseFile>>,
    /// The Tree tab's session as the address carries it (written by the tab).
    pub(crate) tree_session: RwSignal<Option<String>>,
    /// A session from the address for the Tree tab to make again.
    pub(crate) tree_restore: RwSignal<Option<String>>,
}

impl Page {
    /// Opens a case in the editor, the keyboard with it.
    pub(crate) fn open(self, file: usize, index: usize) {
        self.selected.set(Some((file, index)));
        self.tab.set(Tab::Editor);
        focus_after_render("case-editor");
    }

    /// Adds a case file of the author's read from `text`, named `name` (`name-2` when that name
    /// is taken), kept in the browser, and opens its first case in the editor.
    pub(crate) fn add_and_open(self, name: &str, text: &str) -> Result<(), String> {
        let value = lembas_rules::json::parse_strict(text).map_err(|e| json_error(text, &e))?;
        let mut file = read_value(name, value, Source::Own, None)?;
        let at = self
            .files
            .try_update(|list| {
                let stem = file.name.clone();
                let mut n = 1;
                while list.iter().any(|f| f.name == file.name) {
                    n += 1;
                    file.name = format!("{stem}-{n}");
                }
                list.push(file);
                crate::storage::save_files(list).map(|()| list.len() - 1)
            })
            .unwrap_or_else(|| Err("the page's files are gone".into()))?;
        self.open(at, 0);
        Ok(())
    }

    /// The page's address now. A case opened from a link keeps the link as its address.
    pub(crate) fn address(self) -> Option<Address> {
        let case = match self.selected.get() {
            Some((fi, ci)) => {
                let file = self
                    .files
                    .with(|f| f.get(fi).map(|f| (f.name.clone(), f.source)));
                match file {
                    Some((_, Source::Linked)) => return None,
                    Some((name, _)) => Some((name, ci)),
                    None => None,
                }
            }
            None => None,
        };
        let tab = self.tab.get();
        Some(Address {
            tab: Some(tab),
            case,
            filter: self.filter.get(),
            // The Tree session is in the address while its tab is shown.
            team: (tab == Tab::Tree)
                .then(|| self.tree_session.get())
                .flatten(),
        })
    }

    /// Goes where an address says: its tab, its case (by its file's name) and its filters.
    pub(crate) fn go(self, address: &Address) {
        self.tab.set(address.tab.unwrap_or(Tab::Cases));
        let at = address.case.as_ref().and_then(|(name, index)| {
            self.files.with_untracked(|f| {
                let fi = f.iter().position(|x| x.name == *name)?;
                (*index < f.get(fi)?.cases.len()).then_some((fi, *index))
            })
        });
        if address.case.is_some() && at.is_none() {
            self.notice
                .set("The address names a case that is not here.".into());
        }
        if self.selected.get_untracked() != at {
            self.selected.set(at);
        }
        if self.filter.get_untracked() != address.filter {
            self.filter.set(address.filter.clone());
        }
        if address.team.is_some() && address.team != self.tree_session.get_untracked() {
            self.tree_restore.set(address.team.clone());
        }
    }

    /// Opens a link that carries a case (`#v=2&spec=…&area=…&case=…`). A link to a case that is
    /// already here (a built-in one, unchanged) opens it; another is shown beside them, not kept.
    pub(crate) fn open_link(self, fragment: &str) {
        let read = read_link(fragment).and_then(|(area, text, warning)| {
            let case =
                lembas_rules::json::parse_strict(&text).map_err(|e| json_error(&text, &e))?;
            // The link names its case's area: it is the file's own.
            let value = serde_json::json!({"area": area, "cases": [case]});
            let file = read_value("from a link", value, Source::Linked, None)?;
            Ok((file, warning))
        });
        match read {
            Ok((file, warning)) => {
                let linked = file.cases.first().cloned();
                let here = self.files.with_untracked(|list| {
                    list.iter().enumerate().find_map(|(fi, f)| {
                        let ci = f.cases.iter().position(|c| Some(c) == linked.as_ref())?;
                        (f.area == file.area).then_some((fi, ci))
                    })
                });
                let at = match here {
                    Some(at) => at,
                    None => {
                        self.files.update(|f| f.push(file));
                        (self.files.with_untracked(|f| f.len().saturating_sub(1)), 0)
                    }
                };
                self.selected.set(Some(at));
                self.tab.set(Tab::Editor);
                self.notice.set(warning.unwrap_or_default());
            }
            Err(e) => self
                .notice
                .set(format!("The link could not be opened: {e}")),
        }
    }

    /// Goes where the page's fragment says: a case's link, or an address.
    pub(crate) fn follow_fragment(self) {
        let fragment = current_fragment();
        if fragment.starts_with("v=") {
            self.open_link(&fragment);
        } else {
            self.go(&Address::from_fragment(&fragment));
        }
    }
}

impl Page {
    /// The address as the page opens, read without following it.
    pub(crate) fn address_untracked(self) -> Option<Address> {
        untrack(move || self.address())
    }
}
