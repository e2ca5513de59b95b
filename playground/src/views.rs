//! The page: its tabs (WAI-ARIA's pattern, every panel kept on the page so that switching loses
//! nothing), the state they share (`Page`: the files, the tab, the case open, the filters, the
//! Tree session) and the page's address, which follows that state and is followed on Back,
//! Forward and a pasted link (`address.rs`). Each tab is its own module.

use crate::address::{Address, Tab};
use crate::link::read_link;
use crate::model::{json_error, read_value, run_all, summary_of, CaseFile, Filter, Source};
use crate::storage::load_files;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Moves the keyboard to the element `id` once the page has drawn it.
fn focus_after_render(id: &'static str) {
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
fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
        .trim_start_matches('#')
        .to_string()
}

/// Writes the page's address: a new entry of the browser's history (`push`), so that Back
/// returns to the one before, or in place of the current one.
fn write_fragment(fragment: &str, push: bool) {
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

    /// The page's address now. A case opened from a link keeps the link as its address.
    fn address(self) -> Option<Address> {
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
    fn go(self, address: &Address) {
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
    fn open_link(self, fragment: &str) {
        let read = read_link(fragment).and_then(|(area, text, warning)| {
            let case = lembas_rules::json::parse_strict(&text).map_err(|e| json_error(&e))?;
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
    fn follow_fragment(self) {
        let fragment = current_fragment();
        if fragment.starts_with("v=") {
            self.open_link(&fragment);
        } else {
            self.go(&Address::from_fragment(&fragment));
        }
    }
}

/// The page, its built-in files given.
#[component]
pub fn App(builtin: Vec<CaseFile>) -> impl IntoView {
    let page = Page {
        files: RwSignal::new(load_files(builtin.clone())),
        builtin: StoredValue::new(builtin),
        tab: RwSignal::new(Tab::Cases),
        selected: RwSignal::new(None),
        filter: RwSignal::new(Filter::default()),
        notice: RwSignal::new(String::new()),
        tree_session: RwSignal::new(None),
        tree_restore: RwSignal::new(None),
    };
    let Page {
        files,
        tab,
        selected,
        notice,
        ..
    } = page;
    let rows = Memo::new(move |_| files.with(|f| run_all(f)));
    page.follow_fragment();
    // Back and Forward, and a link or an address pasted into the open page.
    let _back = window_event_listener(leptos::ev::popstate, move |_| page.follow_fragment());
    let _pasted = window_event_listener(leptos::ev::hashchange, move |_| page.follow_fragment());
    // The address follows the page: a new tab or case is a step of the browser's history; a
    // changed filter takes the current step's place.
    let written = StoredValue::new(page.address_untracked());
    Effect::new(move |_| {
        let Some(address) = page.address() else {
            return;
        };
        let fragment = address.to_fragment();
        if fragment == current_fragment() {
            written.set_value(Some(address));
            return;
        }
        // A new tab or case is a step of the history; a filter or a Tree step changes the
        // current one.
        let push = written.with_value(|w| {
            w.as_ref()
                .is_none_or(|w| w.tab != address.tab || w.case != address.case)
        }) && !current_fragment().starts_with("v=");
        write_fragment(&fragment, push);
        written.set_value(Some(address));
    });
    // Tabs as WAI-ARIA's pattern: the selected one in the Tab order, arrows, Home and End move.
    let select_by_key = move |key: &str| {
        let at = Tab::ALL
            .iter()
            .position(|t| *t == tab.get_untracked())
            .unwrap_or(0);
        let last = Tab::ALL.len() - 1;
        let next = match key {
            "ArrowRight" => {
                if at == last {
                    0
                } else {
                    at + 1
                }
            }
            "ArrowLeft" => {
                if at == 0 {
                    last
                } else {
                    at - 1
                }
            }
            "Home" => 0,
            "End" => last,
            _ => return false,
        };
        if let Some(t) = Tab::ALL.get(next) {
            tab.set(*t);
            focus_after_render(button_id(*t));
        }
        true
    };
    let tab_button = move |t: Tab| {
        view! {
            <button role="tab" id=button_id(t) aria-controls=panel_id(t)
                aria-selected=move || (tab.get() == t).to_string()
                tabindex=move || if tab.get() == t { "0" } else { "-1" }
                class:active=move || tab.get() == t
                on:click=move |_| tab.set(t)
                on:keydown=move |ev| { if select_by_key(&ev.key()) { ev.prevent_default(); } }>
                {t.label()}
            </button>
        }
    };
    let panel = move |t: Tab, body: AnyView| {
        view! {
            <div role="tabpanel" id=panel_id(t) aria-labelledby=button_id(t) hidden=move || tab.get() != t>
                {body}
            </div>
        }
    };
    view! {
        <header>
            <h1>"lembas playground"</h1>
            <p class="sub">"agent-harness spec " {lembas_rules::spec_version()} " · every case runs here, in your browser, through the rules core"</p>
            <p class="summary" data-testid="summary" role="status">{move || rows.with(|r| summary_of(r))}</p>
            <p class="error" data-testid="notice">{move || notice.get()}</p>
            <nav role="tablist">
                {Tab::ALL.map(tab_button).collect_view()}
            </nav>
        </header>
        // Every tab's panel stays on the page, hidden when another is selected: switching tabs
        // keeps the editor's text, the filters and a Tree session as they were.
        <main>
            {panel(Tab::Cases, view! { <crate::cases_view::Cases page=page rows=rows /> }.into_any())}
            {panel(Tab::Editor, view! {
                // Made again only when another case is opened.
                {move || {
                    selected.track();
                    view! { <crate::editor_view::Editor page=page /> }
                }}
            }.into_any())}
            {panel(Tab::Progress, view! { <crate::progress_view::ProgressView /> }.into_any())}
            {panel(Tab::Tree, view! { <crate::tree_view::TreeView address_out=page.tree_session address_in=page.tree_restore /> }.into_any())}
            {panel(Tab::Delegation, view! { <crate::explore::Delegation /> }.into_any())}
            {panel(Tab::Replay, view! { <crate::replay_view::ReplayView /> }.into_any())}
        </main>
    }
}

impl Page {
    /// The address as the page opens, read without following it.
    fn address_untracked(self) -> Option<Address> {
        untrack(move || self.address())
    }
}

/// A tab's panel's id.
fn panel_id(t: Tab) -> String {
    format!("panel-{}", t.as_str())
}

/// A tab's button's id.
fn button_id(t: Tab) -> &'static str {
    match t {
        Tab::Cases => "tab-cases",
        Tab::Editor => "tab-editor",
        Tab::Progress => "tab-progress",
        Tab::Tree => "tab-tree",
        Tab::Delegation => "tab-delegation",
        Tab::Replay => "tab-replay",
    }
}
