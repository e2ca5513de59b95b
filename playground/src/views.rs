//! The page: its tabs (WAI-ARIA's pattern, every panel kept on the page so that switching loses
//! nothing), and the page's address, which follows the state they share (`page.rs`) and is
//! followed on Back, Forward and a pasted link. Each tab is its own module.

use crate::address::Tab;
use crate::model::{run_all, summary_of, CaseFile, Filter};
use crate::page::{current_fragment, focus_after_render, write_fragment, Page};
use crate::storage::load_files;
use leptos::prelude::*;

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
    // The Editor is made when its tab is first selected, then kept: whether it has been yet
    // (once it is, it stays so), and whether the tab's button or keys are selecting it for the
    // first time (then the keyboard stays on the tab).
    let editor_opened = opened_once(tab, Tab::Editor);
    let editor_chosen_by_tab = StoredValue::new(false);
    let choose_tab = move |t: Tab| {
        if t == Tab::Editor && !editor_opened.get_untracked() {
            editor_chosen_by_tab.set_value(true);
        }
        tab.set(t);
    };
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
            choose_tab(*t);
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
                on:click=move |_| choose_tab(t)
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
    // The other tabs but Cases are made the same way as the Editor, when first selected, then
    // kept: the summary's first frame waits for none of them.
    let panel_made_when_opened = move |t: Tab, make: fn(Page) -> AnyView| {
        let opened = opened_once(tab, t);
        panel(
            t,
            view! { {move || opened.get().then(|| make(page))} }.into_any(),
        )
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
            <crate::theme::ThemeToggle />
        </header>
        <crate::shortcuts::Shortcuts />
        // Every tab's panel stays on the page, hidden when another is selected: switching tabs
        // keeps the editor's text, the filters and a Tree session as they were. Each but the
        // Cases' is filled when it is first selected.
        <main>
            {panel(Tab::Cases, view! { <crate::cases_view::Cases page=page rows=rows /> }.into_any())}
            {panel(Tab::Editor, view! {
                // Made when the tab is first selected (not while the summary is drawn: its case
                // read and run, its drafts looked up), then kept; made again only when another
                // case is opened.
                {move || {
                    selected.track();
                    if !editor_opened.get() {
                        return None;
                    }
                    let take_keyboard = !editor_chosen_by_tab.get_value();
                    editor_chosen_by_tab.set_value(false);
                    Some(view! { <crate::editor_view::Editor page=page take_keyboard=take_keyboard /> })
                }}
            }.into_any())}
            {panel_made_when_opened(Tab::Progress, |_| view! { <crate::progress_view::ProgressView /> }.into_any())}
            {panel_made_when_opened(Tab::Tree, |page| view! { <crate::tree_view::TreeView address_out=page.tree_session address_in=page.tree_restore page=page /> }.into_any())}
            {panel_made_when_opened(Tab::Delegation, |_| view! { <crate::explore::Delegation /> }.into_any())}
            {panel_made_when_opened(Tab::Replay, |_| view! { <crate::replay_view::ReplayView /> }.into_any())}
        </main>
    }
}

/// Whether `which` has been the selected tab yet: false until it first is, then true for good (a
/// panel made then is kept, so that switching away loses nothing).
fn opened_once(tab: RwSignal<Tab>, which: Tab) -> Memo<bool> {
    Memo::new(move |opened: Option<&bool>| opened.copied().unwrap_or(false) || tab.get() == which)
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
