//! The page: tabs for the cases (with paste, open and drop), the editor (with copy and links),
//! the progress line, the tree and delegation explorers.

use crate::link::{case_link, read_link};
use crate::model::{
    builtin_files, differing_keys, json_error, read_value, run_all, summary_of, CaseFile, Filter,
    Row,
};
use lembas_rules::conformance::{run_case, Area};
use lembas_rules::json::ToJson;
use lembas_rules::progress::{
    line, PersonWait, Phase, PhaseKind, Progress, StopReason, WaitReason,
};
use leptos::prelude::*;
use serde_json::Value;

const STORAGE_KEY: &str = "lembas.playground.files";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The author's own files, kept in local storage until removed.
fn load_own() -> Vec<CaseFile> {
    let Some(text) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) else {
        return Vec::new();
    };
    let Ok(Value::Array(list)) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    list.into_iter()
        .filter_map(|v| {
            let name = v.get("name").and_then(Value::as_str)?.to_string();
            let file = v.get("file")?.clone();
            read_value(&name, file, false, None).ok()
        })
        .collect()
}

/// Keeps the person's files in this browser; an error when the browser would not keep them
/// (its storage is full), so that nothing is lost without being said.
fn save_own(files: &[CaseFile]) -> Result<(), String> {
    let own: Vec<Value> = files
        .iter()
        .filter(|f| !f.builtin)
        .map(|f| serde_json::json!({"name": f.name, "file": {"area": f.area, "cases": f.cases}}))
        .collect();
    let Some(s) = storage() else {
        return Err(
            "this browser keeps no files for this page: they are shown until you leave".into(),
        );
    };
    s.set_item(STORAGE_KEY, &Value::Array(own).to_string())
        .map_err(|_| {
            "this browser's storage for the page is full: your files are shown until you leave, and not kept".to_string()
        })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Cases,
    Editor,
    Progress,
    Delegation,
    Tree,
}

impl Tab {
    /// The tabs in the order they are shown.
    const ALL: [Tab; 5] = [
        Tab::Cases,
        Tab::Editor,
        Tab::Progress,
        Tab::Tree,
        Tab::Delegation,
    ];

    /// Its panel's id.
    fn panel_id(self) -> &'static str {
        match self {
            Tab::Cases => "panel-cases",
            Tab::Editor => "panel-editor",
            Tab::Progress => "panel-progress",
            Tab::Delegation => "panel-delegation",
            Tab::Tree => "panel-tree",
        }
    }

    /// Its button's id.
    fn button_id(self) -> &'static str {
        match self {
            Tab::Cases => "tab-cases",
            Tab::Editor => "tab-editor",
            Tab::Progress => "tab-progress",
            Tab::Delegation => "tab-delegation",
            Tab::Tree => "tab-tree",
        }
    }
}

/// Moves the keyboard to the element `id` once the page has drawn it.
fn focus_after_render(id: &'static str) {
    request_animation_frame(move || {
        use wasm_bindgen::JsCast;
        let element = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(id))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(e) = element {
            let _ = e.focus();
        }
    });
}

#[component]
pub fn App() -> impl IntoView {
    let files = RwSignal::new({
        let mut f = builtin_files();
        f.extend(load_own());
        f
    });
    let rows = Memo::new(move |_| files.with(|f| run_all(f)));
    let tab = RwSignal::new(Tab::Cases);
    let selected: RwSignal<Option<(usize, usize)>> = RwSignal::new(None);
    let notice = RwSignal::new(String::new());
    // A link that carries a case (`#v=2&spec=…&area=…&case=…`) opens it in the editor; a link
    // pasted into an open page is read by loading it again.
    let _reload = window_event_listener(leptos::ev::hashchange, |_| {
        if let Some(w) = web_sys::window() {
            let _ = w.location().reload();
        }
    });
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    if hash.len() > 1 {
        match read_link(&hash).and_then(|(area, text, warning)| {
            let case = lembas_rules::json::parse_strict(&text).map_err(|e| json_error(&e))?;
            // The link names its case's area: it is the file's own.
            let value = serde_json::json!({"area": area, "cases": [case]});
            let file = read_value("from a link", value, false, None)?;
            Ok((file, warning))
        }) {
            Ok((mut file, warning)) => {
                // A link to a case that is already here (a built-in one, unchanged) opens it;
                // another is shown beside them, not kept.
                let linked = file.cases.first().cloned();
                let here = files.with_untracked(|list| {
                    list.iter().enumerate().find_map(|(fi, f)| {
                        let ci = f.cases.iter().position(|c| Some(c) == linked.as_ref())?;
                        (f.area == file.area).then_some((fi, ci))
                    })
                });
                let at = match here {
                    Some(at) => at,
                    None => {
                        file.builtin = true; // shown, not kept
                        file.name = "from a link".into();
                        files.update(|f| f.push(file));
                        (files.with_untracked(|f| f.len().saturating_sub(1)), 0)
                    }
                };
                selected.set(Some(at));
                tab.set(Tab::Editor);
                notice.set(warning.unwrap_or_default());
            }
            Err(e) => notice.set(format!("The link could not be opened: {e}")),
        }
    }
    let open = move |file: usize, index: usize| {
        selected.set(Some((file, index)));
        tab.set(Tab::Editor);
        // The keyboard goes with what was opened: the case's text box.
        focus_after_render("case-editor");
    };
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
            focus_after_render(t.button_id());
        }
        true
    };
    let tab_button = move |t: Tab, label: &'static str| {
        view! {
            <button role="tab" id=t.button_id() aria-controls=t.panel_id()
                aria-selected=move || (tab.get() == t).to_string()
                tabindex=move || if tab.get() == t { "0" } else { "-1" }
                class:active=move || tab.get() == t
                on:click=move |_| tab.set(t)
                on:keydown=move |ev| { if select_by_key(&ev.key()) { ev.prevent_default(); } }>
                {label}
            </button>
        }
    };
    view! {
        <header>
            <h1>"lembas playground"</h1>
            <p class="sub">"agent-harness spec " {lembas_rules::spec_version()} " · every case runs here, in your browser, through the rules core"</p>
            <p class="summary" data-testid="summary" role="status">{move || rows.with(|r| summary_of(r))}</p>
            <p class="error" data-testid="notice">{move || notice.get()}</p>
            <nav role="tablist">
                {tab_button(Tab::Cases, "Cases")}
                {tab_button(Tab::Editor, "Editor")}
                {tab_button(Tab::Progress, "Progress")}
                {tab_button(Tab::Tree, "Tree")}
                {tab_button(Tab::Delegation, "Delegation")}
            </nav>
        </header>
        // Every tab's panel stays on the page, hidden when another is selected: switching tabs
        // keeps the editor's text, the filters and a Tree session as they were.
        <main>
            <div role="tabpanel" id=Tab::Cases.panel_id() aria-labelledby=Tab::Cases.button_id() hidden=move || tab.get() != Tab::Cases>
                <Cases files=files rows=rows open=open />
            </div>
            <div role="tabpanel" id=Tab::Editor.panel_id() aria-labelledby=Tab::Editor.button_id() hidden=move || tab.get() != Tab::Editor>
                // Made again only when another case is opened.
                {move || {
                    selected.track();
                    view! { <Editor files=files selected=selected /> }
                }}
            </div>
            <div role="tabpanel" id=Tab::Progress.panel_id() aria-labelledby=Tab::Progress.button_id() hidden=move || tab.get() != Tab::Progress>
                <ProgressView />
            </div>
            <div role="tabpanel" id=Tab::Tree.panel_id() aria-labelledby=Tab::Tree.button_id() hidden=move || tab.get() != Tab::Tree>
                <crate::tree_view::TreeView />
            </div>
            <div role="tabpanel" id=Tab::Delegation.panel_id() aria-labelledby=Tab::Delegation.button_id() hidden=move || tab.get() != Tab::Delegation>
                <crate::explore::Delegation />
            </div>
        </main>
    }
}

#[component]
fn Cases(
    files: RwSignal<Vec<CaseFile>>,
    rows: Memo<Vec<Row>>,
    open: impl Fn(usize, usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let filter = RwSignal::new(Filter::default());
    let paste_error = RwSignal::new(String::new());
    let paste_status = RwSignal::new(String::new());
    let paste_text = RwSignal::new(String::new());
    // Empty: the area comes from the file (its `area`, its name, its cases).
    let paste_area = RwSignal::new(String::new());
    let shown = move || {
        rows.with(|r| {
            filter.with(|f| {
                r.iter()
                    .filter(|row| f.keeps(row))
                    .cloned()
                    .collect::<Vec<_>>()
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
        match parsed.and_then(|v| read_value(&name, v, false, Some(&area))) {
            Ok(mut file) => {
                let count = file.cases.len();
                let kept = files.try_update(|list| {
                    file.name =
                        format!("{name} {}", list.iter().filter(|f| !f.builtin).count() + 1);
                    let added = format!(
                        "Added {count} {} of {} as \"{}\".",
                        if count == 1 { "case" } else { "cases" },
                        file.area,
                        file.name
                    );
                    list.push(file);
                    save_own(list).map(|()| added)
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
    view! {
        <section class="filters">
            <label>"Area "
                <select on:change=move |ev| {
                    let v = event_target_value(&ev);
                    filter.update(|f| f.area = if v.is_empty() { None } else { Some(v) });
                }>
                    <option value="">"every area"</option>
                    {Area::ALL.iter().map(|a| view! { <option value=a.as_str()>{a.as_str()}</option> }).collect_view()}
                </select>
            </label>
            <label><input type="checkbox" on:change=move |ev| filter.update(|f| f.failures_only = event_target_checked(&ev)) />" failures only"</label>
            <label>"Text " <input type="search" placeholder="about…" on:input=move |ev| filter.update(|f| f.text = event_target_value(&ev)) /></label>
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
                    use wasm_bindgen::JsCast;
                    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    read_files(input.and_then(|i| i.files()));
                } />" (or drop a file here)"</label>
            <p class="error" role="alert">{move || paste_error.get()}</p>
            <p role="status" data-testid="paste-status">{move || paste_status.get()}</p>
            <Show when=move || files.with(|f| f.iter().any(|x| !x.builtin))>
                <button on:click=move |_| {
                    let own = files.with_untracked(|f| f.iter().filter(|x| !x.builtin).count());
                    let question = format!("Remove the {own} {} you added? They are not kept anywhere else.", if own == 1 { "file" } else { "files" });
                    let sure = web_sys::window().and_then(|w| w.confirm_with_message(&question).ok()).unwrap_or(false);
                    if sure {
                        let kept = files.try_update(|list| { list.retain(|f| f.builtin); save_own(list) });
                        paste_status.set(String::new());
                        if let Some(Err(e)) = kept { paste_error.set(e); }
                    }
                }>"Remove my files"</button>
            </Show>
        </section>
        <table class="cases">
            <thead><tr><th>"area"</th><th>"#"</th><th>"case"</th><th>"verdict"</th></tr></thead>
            <tbody>
                <For each=shown key=|r| (r.file, r.index, r.result.pass) let:row>
                    <tr class:fail=!row.result.pass>
                        <td>{row.area.clone()}</td>
                        <td>{row.index}</td>
                        <td><a href="#" on:click=move |ev| { ev.prevent_default(); open(row.file, row.index); }>{row.about.clone()}</a></td>
                        <td class="verdict">{if row.result.pass { "pass" } else { "fail" }}</td>
                    </tr>
                </For>
            </tbody>
        </table>
    }
}

#[component]
fn Editor(
    files: RwSignal<Vec<CaseFile>>,
    selected: RwSignal<Option<(usize, usize)>>,
) -> impl IntoView {
    let (file, index) = selected.get_untracked().unwrap_or((0, 0));
    let area = files
        .with_untracked(|f| f.get(file).map(|x| x.area.clone()))
        .unwrap_or_else(|| "progress".into());
    let initial = files
        .with_untracked(|f| f.get(file).and_then(|x| x.cases.get(index)).cloned())
        .and_then(|c| serde_json::to_string_pretty(&c).ok())
        .unwrap_or_default();
    let text = RwSignal::new(initial);
    let area = StoredValue::new(area);
    let outcome = Memo::new(move |_| {
        text.with(|t| match serde_json::from_str::<Value>(t) {
            Err(e) => Err(json_error(&e)),
            Ok(case) => Ok((
                run_case(&area.get_value(), &case),
                lembas_rules::conformance::why(&area.get_value(), &case),
            )),
        })
    });
    view! {
        <section class="editor">
            <p>"Area " <b>{area.get_value()}</b> " — edit the case; it runs again as you type."</p>
            <label for="case-editor" class="visually-hidden">"The case, as JSON"</label>
            <textarea id="case-editor" data-testid="case-editor" rows="20" spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <p>
                <button on:click=move |_| {
                    if let Some(w) = web_sys::window() {
                        let _ = w.navigator().clipboard().write_text(&text.get_untracked());
                    }
                }>"Copy as case"</button>
                " "
                <a data-testid="case-link" href=move || {
                    let compact = serde_json::from_str::<Value>(&text.get()).map(|v| v.to_string()).unwrap_or_else(|_| text.get());
                    format!("#{}", case_link(&area.get_value(), &compact))
                }>"A link to this case"</a>
            </p>
            {move || match outcome.get() {
                Err(e) => view! { <p class="error">"Not JSON: " {e}</p> }.into_any(),
                Ok((r, why)) => {
                    let marks = differing_keys(&r.expected, &r.actual).join(", ");
                    view! {
                        <p aria-live="polite">"Verdict: " <b data-testid="verdict" class:fail=!r.pass>{if r.pass { "pass" } else { "fail" }}</b>
                           {r.message.clone().map(|m| format!(" — {m}"))}</p>
                        {(!marks.is_empty()).then(|| view! { <p class="diff">"Differs at: " {marks}</p> })}
                        <div class="side">
                            <div><h2>"expected"</h2><pre>{serde_json::to_string_pretty(&r.expected).unwrap_or_default()}</pre></div>
                            <div><h2>"actual"</h2><pre>{serde_json::to_string_pretty(&r.actual).unwrap_or_default()}</pre></div>
                        </div>
                        {why.map(|w| why_view(&w))}
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
        d["decided_by"]
    )
}

/// Why the rules answered a case so: a permission case's decision; a delegation call's in the
/// subagent's mode (with its grants) and, when it was asked, in the main agent's.
fn why_view(why: &Value) -> impl IntoView {
    let lines: Vec<(String, String)> = if why.get("own").is_some() {
        let mut l = vec![(
            "In the subagent's mode".to_string(),
            decision_line(&why["own"]),
        )];
        if why.get("main").is_some_and(|m| !m.is_null()) {
            l.push((
                "In the main agent's mode".into(),
                decision_line(&why["main"]),
            ));
        }
        l
    } else {
        vec![("The decision".to_string(), decision_line(why))]
    };
    view! {
        <div class="why" data-testid="why"><h2>"Why"</h2>
            <ol class="steps">{lines.into_iter().map(|(k, v)| view! { <li>{k} ": " {v}</li> }).collect_view()}</ol>
        </div>
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
