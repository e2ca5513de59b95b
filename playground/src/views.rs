//! The page: tabs for the cases (with paste, open and drop, and the author's files), the editor
//! (a case's JSON with line numbers and colours, its differences, save, download, links), the
//! progress line, the tree and delegation explorers, and a run replayed from its events. The
//! tab, the case open and the filters are the page's address (`address.rs`).

use crate::address::{Address, Tab};
use crate::diff::{differences, word_changes, WordChange};
use crate::json_text::{formatted, highlighted, scan};
use crate::link::{case_link, read_link};
use crate::model::{
    json_error, new_cases_file, read_value, run_all, summary_of, templates, CaseFile, Filter, Row,
    Source,
};
use lembas_rules::conformance::{run_case, Area, CaseTrace};
use lembas_rules::json::ToJson;
use lembas_rules::progress::{
    line, PersonWait, Phase, PhaseKind, Progress, StopReason, WaitReason,
};
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::JsCast;

/// Where this browser keeps the author's files.
const STORAGE_KEY: &str = "lembas.playground.files";
/// Where it keeps the edits not yet saved into their files, by case.
const DRAFTS_KEY: &str = "lembas.playground.drafts";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The built-in files with the author's changes saved into them, then the author's own files.
fn load_files(builtin: Vec<CaseFile>) -> Vec<CaseFile> {
    let mut files = builtin;
    let Some(text) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) else {
        return files;
    };
    let Ok(Value::Array(list)) = serde_json::from_str::<Value>(&text) else {
        return files;
    };
    for v in list {
        let Some(name) = v.get("name").and_then(Value::as_str) else {
            continue;
        };
        let edited = v.get("source").and_then(Value::as_str) == Some(Source::Edited.as_str());
        let source = if edited { Source::Edited } else { Source::Own };
        let Some(file) = v
            .get("file")
            .and_then(|f| read_value(name, f.clone(), source, None).ok())
        else {
            continue;
        };
        match files
            .iter_mut()
            .find(|f| edited && f.source == Source::BuiltIn && f.name == file.name)
        {
            Some(built_in) => *built_in = file,
            None => files.push(file),
        }
    }
    files
}

/// Keeps the author's files (their own and the built-in ones they saved into) in this browser;
/// an error when the browser would not keep them, so that nothing is lost without being said.
fn save_files(files: &[CaseFile]) -> Result<(), String> {
    let kept: Vec<Value> = files
        .iter()
        .filter(|f| f.source.kept())
        .map(|f| {
            let file = serde_json::from_str::<Value>(&f.to_text()).unwrap_or(Value::Null);
            serde_json::json!({"name": f.name, "source": f.source.as_str(), "file": file})
        })
        .collect();
    let Some(s) = storage() else {
        return Err(
            "this browser keeps no files for this page: your files are shown until you leave"
                .into(),
        );
    };
    s.set_item(STORAGE_KEY, &Value::Array(kept).to_string())
        .map_err(|_| {
            "this browser's storage for the page is full: your files are shown until you leave, and not kept (download them, or remove one)".to_string()
        })
}

/// The key of a case's edit in the drafts: its file's name and its index.
fn draft_key(file: &str, index: usize) -> String {
    format!("{file}#{index}")
}

/// Every edit not yet saved, by case.
fn drafts() -> serde_json::Map<String, Value> {
    storage()
        .and_then(|s| s.get_item(DRAFTS_KEY).ok().flatten())
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default()
}

/// Keeps a case's unsaved edit (`Some`) or forgets it (`None`); an error when the browser
/// would not keep it.
fn keep_draft(key: &str, text: Option<&str>) -> Result<(), String> {
    let mut all = drafts();
    match text {
        Some(t) => {
            all.insert(key.to_string(), Value::String(t.to_string()));
        }
        None => {
            all.remove(key);
        }
    }
    let stored =
        storage().and_then(|s| s.set_item(DRAFTS_KEY, &Value::Object(all).to_string()).ok());
    stored.ok_or_else(|| {
        "this browser will not keep your edit: save it into its file or download it before you leave".to_string()
    })
}

/// Hands `text` to the person as a file called `name` (the browser's download).
fn download(name: &str, text: &str) -> Result<(), String> {
    let failed = || format!("{name} could not be downloaded");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| failed())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| failed())?;
    let link = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
        .ok_or_else(failed)?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

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
struct Page {
    files: RwSignal<Vec<CaseFile>>,
    tab: RwSignal<Tab>,
    selected: RwSignal<Option<(usize, usize)>>,
    filter: RwSignal<Filter>,
    notice: RwSignal<String>,
    /// The built-in files as they came.
    builtin: StoredValue<Vec<CaseFile>>,
    /// The Tree tab's session as the address carries it (written by the tab).
    tree_session: RwSignal<Option<String>>,
    /// A session from the address for the Tree tab to make again.
    tree_restore: RwSignal<Option<String>>,
}

impl Page {
    /// Opens a case in the editor, the keyboard with it.
    fn open(self, file: usize, index: usize) {
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
                (*index <= f.get(fi)?.cases.len()).then_some((fi, *index))
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
            {panel(Tab::Cases, view! { <Cases page=page rows=rows /> }.into_any())}
            {panel(Tab::Editor, view! {
                // Made again only when another case is opened.
                {move || {
                    selected.track();
                    view! { <Editor page=page /> }
                }}
            }.into_any())}
            {panel(Tab::Progress, view! { <ProgressView /> }.into_any())}
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

/// The most rows the Cases table draws at once.
const ROWS_SHOWN: usize = 1000;

/// How a file's source reads in the file column.
fn source_words(source: Source) -> &'static str {
    match source {
        Source::BuiltIn => "",
        Source::Edited => " (edited)",
        Source::Own => " (yours)",
        Source::Linked => " (from a link, not kept)",
    }
}

#[component]
fn Cases(page: Page, rows: Memo<Vec<Row>>) -> impl IntoView {
    let Page { files, filter, .. } = page;
    let paste_error = RwSignal::new(String::new());
    let paste_status = RwSignal::new(String::new());
    let paste_text = RwSignal::new(String::new());
    // Empty: the area comes from the file (its `area`, its name, its cases).
    let paste_area = RwSignal::new(String::new());
    // The author's files first, a group of their own; then the built-in ones. A long list is
    // cut, and says so: a table of ten thousand rows takes the browser seconds to draw.
    let kept = Memo::new(move |_| {
        rows.with(|r| {
            filter.with(|f| {
                let mut list: Vec<Row> = r.iter().filter(|row| f.keeps(row)).cloned().collect();
                list.sort_by_key(|row| !row.authors);
                list
            })
        })
    });
    let shown = move || kept.with(|k| k.iter().take(ROWS_SHOWN).cloned().collect::<Vec<_>>());
    let cut = move || {
        kept.with(|k| {
            (k.len() > ROWS_SHOWN).then(|| {
                format!(
                    "Showing the first {ROWS_SHOWN} of {} cases: filter to see the others.",
                    k.len()
                )
            })
        })
    };
    // A text from the paste box, an opened file or a dropped one: a case file, or one case of
    // the area picked beside it.
    let add_text = move |name: String, text: String| {
        if text.trim().is_empty() {
            paste_error.set(String::new());
            return;
        }
        let parsed = serde_json::from_str::<Value>(&text).map_err(|e| json_error(&e));
        let area = paste_area.get_untracked();
        match parsed.and_then(|v| read_value(&name, v, Source::Own, Some(&area))) {
            Ok(mut file) => {
                let count = file.cases.len();
                let kept = files.try_update(|list| {
                    // A name of its own: a second `pasted` is `pasted-2`.
                    let stem = file.name.clone();
                    let mut n = 1;
                    while list.iter().any(|f| f.name == file.name) {
                        n += 1;
                        file.name = format!("{stem}-{n}");
                    }
                    let added = format!(
                        "Added {count} {} of {} as \"{}\".",
                        if count == 1 { "case" } else { "cases" },
                        file.area,
                        file.name
                    );
                    list.push(file);
                    save_files(list).map(|()| added)
                });
                match kept {
                    Some(Ok(added)) => {
                        paste_status.set(added);
                        paste_error.set(String::new());
                    }
                    Some(Err(e)) => paste_error.set(e),
                    None => {}
                }
                paste_text.set(String::new());
            }
            Err(e) => paste_error.set(format!("{name}: {e}")),
        }
    };
    // A paste is read as it lands (the text is whole then); typing is read when the box is left.
    let on_input = move |text: String| {
        paste_text.set(text.clone());
        if matches!(serde_json::from_str::<Value>(&text), Ok(Value::Object(_))) {
            add_text("pasted".into(), text);
        }
    };
    let on_paste = move |text: String| add_text("pasted".into(), text);
    let read_files = move |list: Option<web_sys::FileList>| {
        let Some(list) = list else { return };
        for i in 0..list.length() {
            let Some(file) = list.get(i) else { continue };
            let name = file.name();
            leptos::task::spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                    Ok(text) => add_text(name, text.as_string().unwrap_or_default()),
                    Err(_) => paste_error.set(format!("{name}: could not be read")),
                }
            });
        }
    };
    let confirm = |question: &str| {
        web_sys::window()
            .and_then(|w| w.confirm_with_message(question).ok())
            .unwrap_or(false)
    };
    // Removes the author's files that `which` picks, once they said so.
    let remove = move |question: String, which: Box<dyn Fn(&CaseFile) -> bool>| {
        if !confirm(&question) {
            return;
        }
        let kept = files.try_update(|list| {
            list.retain(|f| !which(f));
            save_files(list)
        });
        page.selected.set(None);
        paste_status.set(String::new());
        if let Some(Err(e)) = kept {
            paste_error.set(e);
        }
        // A built-in file that was edited comes back as it is built in.
        let restored = page.builtin.get_value();
        files.update(|list| {
            for b in restored {
                if !list.iter().any(|f| f.name == b.name) {
                    list.push(b);
                }
            }
        });
    };
    let own_files = move || {
        files.with(|f| {
            f.iter()
                .filter(|x| x.source.authors())
                .map(|x| (x.name.clone(), x.source, x.cases.len()))
                .collect::<Vec<_>>()
        })
    };
    let file_names = move || files.with(|f| f.iter().map(|x| x.name.clone()).collect::<Vec<_>>());
    view! {
        <section class="filters">
            <label>"Area "
                <select prop:value=move || filter.with(|f| f.area.clone().unwrap_or_default()) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    filter.update(|f| f.area = if v.is_empty() { None } else { Some(v) });
                }>
                    <option value="">"every area"</option>
                    {Area::ALL.iter().map(|a| view! { <option value=a.as_str()>{a.as_str()}</option> }).collect_view()}
                </select>
            </label>
            <label>"File "
                <select data-testid="file-filter" prop:value=move || filter.with(|f| f.file.clone().unwrap_or_default()) on:change=move |ev| {
                    let v = event_target_value(&ev);
                    filter.update(|f| f.file = if v.is_empty() { None } else { Some(v) });
                }>
                    <option value="">"every file"</option>
                    {move || file_names().into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
                </select>
            </label>
            <label><input type="checkbox" data-testid="failures-only" prop:checked=move || filter.with(|f| f.failures_only) on:change=move |ev| filter.update(|f| f.failures_only = event_target_checked(&ev)) />" failures only"</label>
            <label>"Text " <input type="search" data-testid="text-filter" placeholder="about…" prop:value=move || filter.with(|f| f.text.clone()) on:input=move |ev| filter.update(|f| f.text = event_target_value(&ev)) /></label>
        </section>
        <section class="paste"
            on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
            on:drop=move |ev: web_sys::DragEvent| {
                ev.prevent_default();
                read_files(ev.data_transfer().and_then(|d| d.files()));
            }>
            <label for="paste-area">"Area of a case or file that does not say its own "</label>
            <select id="paste-area" data-testid="paste-area" on:change=move |ev| paste_area.set(event_target_value(&ev))>
                <option value="">"— from the file —"</option>
                {Area::ALL.iter().map(|a| view! { <option value=a.as_str()>{a.as_str()}</option> }).collect_view()}
            </select>
            <label for="paste">" Paste a case file, or one case"</label>
            <textarea id="paste" data-testid="paste" rows="3" placeholder="{ \"area\": \"progress\", \"cases\": [ … ] }"
                prop:value=move || paste_text.get()
                on:input=move |ev| on_input(event_target_value(&ev))
                on:change=move |ev| on_paste(event_target_value(&ev))></textarea>
            <label>"or open " <input type="file" accept=".json,application/json" multiple data-testid="open-file"
                on:change=move |ev| {
                    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    read_files(input.and_then(|i| i.files()));
                } />" (or drop a file here)"</label>
            <p class="error" role="alert">{move || paste_error.get()}</p>
            <p role="status" data-testid="paste-status">{move || paste_status.get()}</p>
        </section>
        <Show when=move || !own_files().is_empty()>
            <section class="own-files" data-testid="own-files">
                <h2>"Your files"</h2>
                <ul>
                    {move || own_files().into_iter().map(|(name, source, count)| {
                        let for_download = name.clone();
                        let for_remove = name.clone();
                        let label = format!("{name}{} · {count} {}", source_words(source), if count == 1 { "case" } else { "cases" });
                        view! {
                            <li>
                                <span>{label}</span>" "
                                <button on:click=move |_| {
                                    let file = files.with_untracked(|f| f.iter().find(|x| x.name == for_download).map(|x| (x.file_name(), x.to_text())));
                                    if let Some((file_name, text)) = file {
                                        if let Err(e) = download(&file_name, &text) { paste_error.set(e); }
                                    }
                                }>"Download"</button>" "
                                <button on:click=move |_| {
                                    let name = for_remove.clone();
                                    let question = if source == Source::Edited {
                                        format!("Undo your changes to {name}? It is shown as built in again.")
                                    } else {
                                        format!("Remove {name} ({count} {})? It is not kept anywhere else.", if count == 1 { "case" } else { "cases" })
                                    };
                                    remove(question, Box::new(move |f: &CaseFile| f.name == name && f.source.authors()));
                                }>{if source == Source::Edited { "Undo changes" } else { "Remove" }}</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <button on:click=move |_| {
                    let own = files.with_untracked(|f| f.iter().filter(|x| x.source.authors()).count());
                    let question = format!("Remove the {own} {} you added or changed? They are not kept anywhere else.", if own == 1 { "file" } else { "files" });
                    remove(question, Box::new(|f: &CaseFile| f.source.authors()));
                }>"Remove my files"</button>
            </section>
        </Show>
        <p role="status" data-testid="rows-cut">{cut}</p>
        <table class="cases">
            <thead><tr><th>"file"</th><th>"#"</th><th>"case"</th><th>"verdict"</th></tr></thead>
            <tbody>
                <For each=shown key=|r| (r.file, r.index, r.result.pass, r.file_name.clone(), r.about.clone()) let:row>
                    <tr class:fail=!row.result.pass class:yours=row.authors>
                        <td class="file">{row.file_name.clone()}<span class="area">{format!(" · {}", row.area)}</span></td>
                        <td>{row.index}</td>
                        <td><a href="#" on:click=move |ev| { ev.prevent_default(); page.open(row.file, row.index); }>{row.about.clone()}</a></td>
                        <td class="verdict">{if row.result.pass { "pass" } else { "fail" }}</td>
                    </tr>
                </For>
            </tbody>
        </table>
    }
}

/// A line of the text as a position of the text box (in UTF-16 units, as the browser counts).
fn line_start(text: &str, line: usize) -> u32 {
    let at = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(|l| l.encode_utf16().count())
        .sum::<usize>();
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The pixel height of a line of the editor (its style sheet's `line-height`).
const LINE_HEIGHT: i32 = 20;

/// Highlighting stops above this size: a text this long is shown plainly.
const HIGHLIGHT_LIMIT: usize = 300_000;

/// The text of the editor, each line in its own element so that a marked line is marked
/// across the box: `marks` are (line, class).
fn marked_html(html: &str, marks: &[(usize, &'static str)]) -> String {
    if marks.is_empty() {
        return html.to_string();
    }
    let mut out = String::with_capacity(html.len() + 64);
    for (i, l) in html.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match marks.iter().find(|(n, _)| *n == i + 1) {
            Some((_, class)) => {
                out.push_str("<span class=\"");
                out.push_str(class);
                out.push_str("\">");
                out.push_str(l);
                out.push_str("</span>");
            }
            None => out.push_str(l),
        }
    }
    out
}

/// The line numbers beside the text, the marked ones in their class.
fn gutter_html(lines: usize, marks: &[(usize, &'static str)]) -> String {
    let mut out = String::with_capacity(lines * 4);
    for n in 1..=lines.max(1) {
        match marks.iter().find(|(m, _)| *m == n) {
            Some((_, class)) => out.push_str(&format!("<span class=\"{class}\">{n}</span>\n")),
            None => out.push_str(&format!("{n}\n")),
        }
    }
    out
}

/// One difference as a person reads it: its path (and the step, counted from one, in a team
/// case), and the expected value beside the answer's — a changed string's words marked.
fn difference_view(
    d: &crate::diff::Difference,
    steps: usize,
    line: Option<usize>,
    go_to: impl Fn(usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let step = d
        .path
        .strip_prefix("steps[")
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse::<usize>().ok())
        .map(|n| format!(" (step {} of {steps})", n + 1));
    let shown = |v: &Option<Value>| match v {
        Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
        None => "(none)".to_string(),
    };
    let values = match (&d.expected, &d.actual) {
        (Some(Value::String(e)), Some(Value::String(a))) => view! {
            <p class="words">
                {word_changes(e, a).into_iter().map(|c| match c {
                    WordChange::Same(s) => view! { <span>{s}</span> }.into_any(),
                    WordChange::Expected(s) => view! { <del title="expected">{s}</del> }.into_any(),
                    WordChange::Actual(s) => view! { <ins title="answer">{s}</ins> }.into_any(),
                }).collect_view()}
            </p>
        }
        .into_any(),
        (e, a) => view! {
            <div class="pair">
                <div><span class="label">"expected "</span><pre>{shown(e)}</pre></div>
                <div><span class="label">"answer "</span><pre>{shown(a)}</pre></div>
            </div>
        }
        .into_any(),
    };
    view! {
        <li>
            <code data-testid="diff-path">{d.path.clone()}</code>{step}
            {line.map(|n| view! { " " <button class="link" on:click=move |_| go_to(n)>{format!("line {n}")}</button> })}
            {values}
        </li>
    }
}

#[component]
fn Editor(page: Page) -> impl IntoView {
    let Page {
        files, selected, ..
    } = page;
    let (file_index, index) = selected.get_untracked().unwrap_or((0, 0));
    let facts = files.with_untracked(|f| {
        f.get(file_index).map(|x| {
            (
                x.name.clone(),
                x.area.clone(),
                x.source,
                x.cases.get(index).cloned(),
            )
        })
    });
    let (file_name, area, source, case) =
        facts.unwrap_or_else(|| (String::new(), "progress".into(), Source::Own, None));
    let saved_text = RwSignal::new(
        case.as_ref()
            .and_then(|c| serde_json::to_string_pretty(c).ok())
            .unwrap_or_default(),
    );
    let key = StoredValue::new(draft_key(&file_name, index));
    let status = RwSignal::new(String::new());
    // An edit not yet saved comes back: after a reload, or when the case is opened again.
    let initial = match drafts().get(&key.get_value()).and_then(Value::as_str) {
        Some(draft) if draft != saved_text.get_untracked() => {
            status.set("Your unsaved edit of this case is back: save it, or revert it.".into());
            draft.to_string()
        }
        _ => saved_text.get_untracked(),
    };
    let text = RwSignal::new(initial);
    let unsaved = move || text.with(|t| saved_text.with(|s| t != s));
    let area = StoredValue::new(area);
    let file_name = StoredValue::new(file_name);
    let outcome = Memo::new(move |_| {
        text.with(|t| match serde_json::from_str::<Value>(t) {
            Err(e) => Err((json_error(&e), e.line())),
            Ok(case) => Ok((
                run_case(&area.get_value(), &case),
                lembas_rules::conformance::trace(&area.get_value(), &case),
            )),
        })
    });
    let diffs = Memo::new(move |_| match outcome.get() {
        Ok((r, _)) if !r.pass => differences(&area.get_value(), &r.expected, &r.actual, 50),
        _ => Vec::new(),
    });
    let scanned = Memo::new(move |_| text.with(|t| (t.len() <= HIGHLIGHT_LIMIT).then(|| scan(t))));
    let line_of = move |path: &str| scanned.with(|s| s.as_ref().and_then(|s| s.line_of(path)));
    // The parse error's line, and the first difference's, marked beside the text and across it.
    let marks = Memo::new(move |_| {
        let mut m: Vec<(usize, &'static str)> = Vec::new();
        if let Err((_, line)) = outcome.get() {
            m.push((line, "mark-error"));
        }
        if let Some(first) = diffs.with(|d| d.first().map(|d| d.path.clone())) {
            if let Some(line) = line_of(&first) {
                m.push((line, "mark-diff"));
            }
        }
        m
    });
    let code_html = move || {
        text.with(|t| {
            let html = scanned.with(|s| match s {
                Some(s) => highlighted(t, s),
                None => highlighted(t, &scan("")) + &t.replace('&', "&amp;").replace('<', "&lt;"),
            });
            marked_html(&html, &marks.get())
        })
    };
    let gutter = move || {
        text.with(|t| {
            gutter_html(
                t.lines().count() + usize::from(t.ends_with('\n')),
                &marks.get(),
            )
        })
    };
    let area_ref = NodeRef::<leptos::html::Textarea>::new();
    let code_ref = NodeRef::<leptos::html::Pre>::new();
    let gutter_ref = NodeRef::<leptos::html::Pre>::new();
    let sync_scroll = move || {
        if let Some(t) = area_ref.get_untracked() {
            if let Some(c) = code_ref.get_untracked() {
                c.set_scroll_top(t.scroll_top());
                c.set_scroll_left(t.scroll_left());
            }
            if let Some(g) = gutter_ref.get_untracked() {
                g.set_scroll_top(t.scroll_top());
            }
        }
    };
    // Puts the cursor at the start of a line and scrolls it into view.
    let go_to = move |line: usize| {
        if let Some(t) = area_ref.get_untracked() {
            let at = text.with_untracked(|x| line_start(x, line));
            let _ = t.focus();
            let _ = t.set_selection_range(at, at);
            let top = i32::try_from(line.saturating_sub(3)).unwrap_or(0) * LINE_HEIGHT;
            t.set_scroll_top(top);
            sync_scroll();
        }
    };
    let set_text = move |new: String| {
        let dirty = saved_text.with_untracked(|s| *s != new);
        text.set(new.clone());
        if let Err(e) = keep_draft(&key.get_value(), dirty.then_some(new.as_str())) {
            status.set(e);
        }
    };
    let format = move || match formatted(&text.get_untracked()) {
        Ok(t) => {
            set_text(t);
            status.set("Formatted.".into());
        }
        Err(e) => status.set(format!("Not formatted: {e}")),
    };
    let save = move || {
        let parsed =
            serde_json::from_str::<Value>(&text.get_untracked()).map_err(|e| json_error(&e));
        let result = parsed.and_then(|case| {
            files
                .try_update(|list| {
                    let f = list.get_mut(file_index).ok_or("the file is gone")?;
                    if f.source == Source::Linked {
                        return Err(
                            "a case from a link is not kept: paste it, or download it".to_string()
                        );
                    }
                    f.save_case(index, case)?;
                    save_files(list)
                })
                .unwrap_or(Ok(()))
        });
        match result {
            Ok(()) => {
                saved_text.set(text.get_untracked());
                let _ = keep_draft(&key.get_value(), None);
                status.set(format!("Saved into {}.json.", file_name.get_value()));
            }
            Err(e) => status.set(format!("Not saved: {e}")),
        }
    };
    let revert = move || {
        text.set(saved_text.get_untracked());
        let _ = keep_draft(&key.get_value(), None);
        status.set("Back to the case as saved.".into());
    };
    let download_file = move || {
        let file =
            files.with_untracked(|f| f.get(file_index).map(|x| (x.file_name(), x.to_text())));
        match file {
            Some((name, body)) => match download(&name, &body) {
                Ok(()) => status.set(format!(
                    "Downloaded {name}{}.",
                    if unsaved() {
                        " (as saved: your unsaved edit is not in it)"
                    } else {
                        ""
                    }
                )),
                Err(e) => status.set(e),
            },
            None => status.set("There is no file to download.".into()),
        }
    };
    // Copies the case as a case file that says its area: pasted anywhere, it opens as it is.
    let copy = move || {
        let case = serde_json::from_str::<Value>(&text.get_untracked()).map_err(|e| json_error(&e));
        match case {
            Ok(case) => {
                let file = serde_json::json!({"area": area.get_value(), "cases": [case]});
                let body = serde_json::to_string_pretty(&file).unwrap_or_default();
                let clipboard = web_sys::window().map(|w| w.navigator().clipboard());
                match clipboard {
                    Some(c) => {
                        let promise = c.write_text(&body);
                        leptos::task::spawn_local(async move {
                            match wasm_bindgen_futures::JsFuture::from(promise).await {
                                Ok(_) => status.set(format!("Copied as a case file of {} (with its area).", area.get_value())),
                                Err(_) => status.set("The browser did not let the page copy: select the text and copy it.".into()),
                            }
                        });
                    }
                    None => status.set("This browser has no clipboard for the page.".into()),
                }
            }
            Err(e) => status.set(format!("Not copied: {e}")),
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let command = ev.ctrl_key() || ev.meta_key();
        match ev.key().as_str() {
            "Enter" if command => {
                ev.prevent_default();
                format();
            }
            "s" | "S" if command => {
                ev.prevent_default();
                save();
            }
            _ => {}
        }
    };
    // New cases from templates, one per area and operation, valid as they come.
    let made = StoredValue::new(page.builtin.with_value(|b| templates(b)));
    let new_case = move |label: String| {
        let Some(t) = made.with_value(|m| m.iter().find(|t| t.label() == label).cloned()) else {
            return;
        };
        let name = new_cases_file(&t.area);
        let at = files.try_update(|list| {
            let fi = match list
                .iter()
                .position(|f| f.name == name && f.source == Source::Own)
            {
                Some(fi) => fi,
                None => {
                    list.push(CaseFile {
                        name: name.clone(),
                        about: Some(format!("My {} cases.", t.area)),
                        area: t.area.clone(),
                        cases: Vec::new(),
                        source: Source::Own,
                    });
                    list.len() - 1
                }
            };
            let file = list.get_mut(fi).ok_or("the file is gone")?;
            let ci = file.cases.len();
            file.save_case(ci, t.case.clone())?;
            save_files(list).map(|()| (fi, ci))
        });
        match at {
            Some(Ok((fi, ci))) => page.open(fi, ci),
            Some(Err(e)) => status.set(e),
            None => {}
        }
    };
    view! {
        <section class="editor">
            <p class="editor-bar">
                <label>"New case from a template "
                    <select data-testid="template" on:change=move |ev| {
                        let picked = event_target_value(&ev);
                        if !picked.is_empty() { new_case(picked); }
                    }>
                        <option value="">"— area: operation —"</option>
                        {made.with_value(|m| m.iter().map(|t| { let l = t.label(); view! { <option value=l.clone()>{l.clone()}</option> } }).collect_view())}
                    </select>
                </label>
            </p>
            <p>"File " <b data-testid="editor-file">{file_name.get_value()}</b>{source_words(source)} ", case " {index} " · area " <b>{area.get_value()}</b>
                {move || unsaved().then_some(view! { " · " <i data-testid="unsaved">"not saved"</i> })}
            </p>
            <div class="code">
                <pre class="gutter" aria-hidden="true" node_ref=gutter_ref inner_html=gutter></pre>
                <div class="code-body">
                    <pre class="code-view" aria-hidden="true" node_ref=code_ref inner_html=code_html></pre>
                    <label for="case-editor" class="visually-hidden">"The case, as JSON"</label>
                    <textarea id="case-editor" data-testid="case-editor" rows="20" spellcheck="false" wrap="off"
                        node_ref=area_ref
                        aria-describedby="editor-keys"
                        prop:value=move || text.get()
                        on:input=move |ev| set_text(event_target_value(&ev))
                        on:scroll=move |_| sync_scroll()
                        on:keydown=on_key></textarea>
                </div>
            </div>
            <p class="actions">
                <button data-testid="format" on:click=move |_| format()>"Format"</button>" "
                <button data-testid="save" on:click=move |_| save()>{format!("Save into {}.json", file_name.get_value())}</button>" "
                <button data-testid="revert" disabled=move || !unsaved() on:click=move |_| revert()>"Revert"</button>" "
                <button data-testid="download" on:click=move |_| download_file()>{format!("Download {}.json", file_name.get_value())}</button>" "
                <button data-testid="copy" on:click=move |_| copy()>"Copy as case"</button>" "
                <a data-testid="case-link" href=move || {
                    let compact = serde_json::from_str::<Value>(&text.get()).map(|v| v.to_string()).unwrap_or_else(|_| text.get());
                    format!("#{}", case_link(&area.get_value(), &compact))
                }>"A link to this case"</a>
            </p>
            <p class="hint" id="editor-keys">"Ctrl+Enter formats, Ctrl+S saves into the file."</p>
            <p role="status" data-testid="editor-status">{move || status.get()}</p>
            {move || match outcome.get() {
                Err((e, line)) => view! {
                    <p class="error" data-testid="json-error">"Not JSON: " {e} " "
                        <button class="link" on:click=move |_| go_to(line)>{format!("line {line}")}</button></p>
                }.into_any(),
                Ok((r, why)) => {
                    let steps = r.expected.as_array().map_or(0, Vec::len);
                    view! {
                        <p aria-live="polite">"Verdict: " <b data-testid="verdict" class:fail=!r.pass>{if r.pass { "pass" } else { "fail" }}</b>
                           {r.message.clone().map(|m| format!(" — {m}"))}</p>
                        {(!r.pass && !diffs.with(Vec::is_empty)).then(|| view! {
                            <section class="differences" data-testid="diff">
                                <h2>"Differences"</h2>
                                <ol>{diffs.get().iter().map(|d| difference_view(d, steps, line_of(&d.path), go_to)).collect_view()}</ol>
                            </section>
                        })}
                        <details class="whole">
                            <summary>"The whole expected and actual answers"</summary>
                            <div class="side">
                                <div><h2>"expected"</h2><pre>{serde_json::to_string_pretty(&r.expected).unwrap_or_default()}</pre></div>
                                <div><h2>"actual"</h2><pre>{serde_json::to_string_pretty(&r.actual).unwrap_or_default()}</pre></div>
                            </div>
                        </details>
                        {why.map(|t| match t {
                            CaseTrace::Permission(t) => crate::trace_view::permission_why(&t).into_any(),
                            CaseTrace::Delegation(d) => crate::trace_view::delegation_why(&d).into_any(),
                        })}
                    }.into_any()
                }
            }}
        </section>
    }
}

/// One decision in a line: its action, its reason, and what decided it (the one writer of a
/// decision for people, here and in the Delegation tab).
pub(crate) fn decision_line(d: &Value) -> String {
    format!(
        "{} — {} (decided by {})",
        d["action"].as_str().unwrap_or(""),
        d["reason"].as_str().unwrap_or(""),
        decided_by_words(&d["decided_by"])
    )
}

/// What decided a call, in words: the rules' `decided_by` (tagged by `by`).
fn decided_by_words(by: &Value) -> String {
    let field = |k: &str| by.get(k).and_then(Value::as_str).unwrap_or("");
    match field("by") {
        "hardline" => format!(
            "the hardline entry {}, which found \"{}\": no mode or rule allows it",
            field("entry"),
            field("part")
        ),
        "rule" => format!(
            "a {} rule: {} \"{}\" → {}",
            field("source"),
            field("permission"),
            field("pattern"),
            field("action")
        ),
        "mode" => format!(
            "the mode {} for a {} call, no rule matching it",
            field("mode"),
            field("class")
        ),
        "outside_root" => format!("the path {}, outside the project", field("path")),
        "unattended" => "nobody to ask (unattended): what would ask is refused".into(),
        "opaque" => format!(
            "the line's {}, which the command reader does not read exactly: it fails closed",
            field("construct")
        ),
        "unknown_target" => format!(
            "\"{}\", whose target is known only when it runs ({})",
            field("part"),
            field("entry")
        ),
        _ => by.to_string(),
    }
}

fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// A phase of each kind with every field it needs, as a client would send it: the Progress tab's
/// templates, valid as they come.
fn example_phase(kind: PhaseKind) -> Phase {
    match kind {
        PhaseKind::Queued => Phase::Queued { ahead: Some(2) },
        PhaseKind::WaitingForModel => Phase::WaitingForModel {
            model: "qwen3-coder".into(),
            reason: WaitReason::Slots,
        },
        PhaseKind::LoadingModel => Phase::LoadingModel {
            model: "qwen3-coder".into(),
        },
        PhaseKind::ReadingPrompt => Phase::ReadingPrompt {
            done: Some(4096),
            total: Some(16384),
        },
        PhaseKind::Thinking => Phase::Thinking,
        PhaseKind::Writing => Phase::Writing { rate: Some(42.5) },
        PhaseKind::RunningTool => Phase::RunningTool {
            tool: "bash".into(),
            what: Some("cargo test".into()),
        },
        PhaseKind::WaitingForPerson => Phase::WaitingForPerson {
            what: PersonWait::Approval,
            tool: Some("bash".into()),
        },
        PhaseKind::WaitingForSubagents => Phase::WaitingForSubagents { running: 3 },
        PhaseKind::Compacting => Phase::Compacting,
        PhaseKind::Retrying => Phase::Retrying {
            reason: "502 Bad Gateway".into(),
            in_secs: 10,
            attempt: Some(1),
        },
        PhaseKind::Stopped => Phase::Stopped {
            reason: Some(StopReason::Person),
        },
        PhaseKind::Failed => Phase::Failed {
            reason: "connection refused".into(),
        },
    }
}

#[component]
fn ProgressView() -> impl IntoView {
    let start = now_ms();
    let text = RwSignal::new(
        serde_json::to_string_pretty(&serde_json::json!({"phase": "running_tool", "since": start, "tool": "bash", "what": "cargo test"})).unwrap_or_default(),
    );
    let now = RwSignal::new(start);
    let handle = set_interval_with_handle(
        move || now.set(now_ms()),
        std::time::Duration::from_millis(1000),
    );
    on_cleanup(move || {
        if let Ok(h) = handle {
            h.clear();
        }
    });
    let drawn = move || {
        text.with(
            |t| match serde_json::from_str::<Value>(t).map_err(|e| json_error(&e)) {
                Err(e) => Err(e),
                Ok(v) => Progress::from_json("progress", &v)
                    .map(|p| line(&p, now.get()))
                    .map_err(|e| e.to_string()),
            },
        )
    };
    let set_phase = move |phase: &str| {
        if let Some(kind) = PhaseKind::parse(phase) {
            let example = Progress::new(example_phase(kind), now_ms());
            text.set(serde_json::to_string_pretty(&example.to_json()).unwrap_or_default());
        }
    };
    // The picker follows the phase the JSON names.
    let picked = move || {
        text.with(|t| {
            serde_json::from_str::<Value>(t)
                .ok()
                .and_then(|v| v.get("phase").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default()
        })
    };
    view! {
        <section class="progress">
            <label>"Phase "
                <select data-testid="progress-phase" prop:value=picked on:change=move |ev| set_phase(&event_target_value(&ev))>
                    {PhaseKind::ALL.map(|k| k.as_str()).into_iter().map(|p| view! { <option value=p>{p}</option> }).collect_view()}
                </select>
            </label>
            <p class="line" data-testid="progress-line">{move || drawn().unwrap_or_else(|e| e)}</p>
            <label for="progress-json">"The progress object (progress.md §1), as JSON"</label>
            <textarea id="progress-json" data-testid="progress-json" rows="8" spellcheck="false" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
        </section>
    }
}
