//! The Editor tab: one case's JSON in the case editor (CodeMirror, driven by the case format's
//! schemas: `editor_js.rs`), its JSON error and the runner's field error marked at their place
//! and the first difference in the text; Run (Ctrl/Cmd+Enter: to the first difference), Format,
//! saving into its file (Ctrl/Cmd+S anywhere on the tab), reverting, downloading the file,
//! copying it as a case file, a link to it; new cases from templates; beside the case, the
//! verdict, the differences by path, and Why as a trace.

use crate::address::Tab;
use crate::diff::{differences, word_changes, WordChange};
use crate::editor_js::{EditorCalls, EditorHandle, EditorOptions, Problem};
use crate::json_problem::json_problem;
use crate::json_text::{formatted, scan};
use crate::link::case_link;
use crate::model::{json_error, new_cases_file, source_words, templates, CaseFile, Source};
use crate::page::Page;
use crate::storage::{download, draft_key, drafts, keep_draft, save_files};
use lembas_rules::conformance::{read_error, run_case, Area, CaseTrace, Compare};
use leptos::prelude::*;
use serde_json::Value;

/// Line numbers for the differences are found up to this size of text.
const SCAN_LIMIT: usize = 300_000;

/// One difference as a person reads it: its path (and the step, counted from one, in a team
/// case), and the expected value beside the answer's — a changed string's words marked.
fn difference_view(
    d: &crate::diff::Difference,
    steps: usize,
    line: Option<usize>,
    show: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let step = d
        .path
        .strip_prefix("steps[")
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse::<usize>().ok())
        .map(|n| format!(" (step {} of {steps})", n + 1));
    let shown = |v: &Option<Value>| match v {
        Some(v) => lembas_rules::json::to_pretty_text(v).unwrap_or_default(),
        None => "(none)".to_string(),
    };
    let values = match (&d.expected, &d.actual) {
        (Some(Value::String(e)), Some(Value::String(a))) => view! {
            <p class="words">
                {word_changes(e, a).into_iter().map(|c| match c {
                    WordChange::Same(s) => view! { <span>{s}</span> }.into_any(),
                    // Said in words too, not by colour and line alone.
                    WordChange::Expected(s) => view! { <del title="expected"><span class="visually-hidden">"[expected: "</span>{s}<span class="visually-hidden">"]"</span></del> }.into_any(),
                    WordChange::Actual(s) => view! { <ins title="answer"><span class="visually-hidden">"[answer: "</span>{s}<span class="visually-hidden">"]"</span></ins> }.into_any(),
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
            {line.map(|n| {
                let path = d.path.clone();
                view! { " " <button class="link" on:click=move |_| show(path.clone())>{format!("line {n}")}</button> }
            })}
            {values}
        </li>
    }
}

#[component]
pub(crate) fn Editor(
    page: Page,
    /// Whether the editor takes the keyboard once it is mounted (a case opened, or the page
    /// opened on it), or leaves it where it is (its tab selected by its button or keys).
    take_keyboard: bool,
) -> impl IntoView {
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
            .and_then(|c| lembas_rules::json::to_pretty_text(c).ok())
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
        text.with(|t| match lembas_rules::json::parse_strict(t) {
            Err(e) => Err(json_problem(t, &e)),
            Ok(case) => Ok((
                run_case(&area.get_value(), &case),
                lembas_rules::conformance::trace(&area.get_value(), &case),
            )),
        })
    });
    let diffs = Memo::new(move |_| match outcome.get() {
        Ok((r, _)) if !r.pass => text.with(|t| {
            // Compared as the runner compares the case.
            let compare = lembas_rules::json::parse_strict(t)
                .ok()
                .and_then(|case| lembas_rules::conformance::comparison(&area.get_value(), &case))
                .unwrap_or(Compare::Whole);
            differences(&area.get_value(), &compare, &r.expected, &r.actual, 50)
        }),
        _ => Vec::new(),
    });
    let scanned = Memo::new(move |_| text.with(|t| (t.len() <= SCAN_LIMIT).then(|| scan(t))));
    let line_of = move |path: &str| scanned.with(|s| s.as_ref().and_then(|s| s.line_of(path)));
    // What the editor marks: the JSON error, or the field the runner cannot read.
    let problems = Memo::new(move |_| match outcome.get() {
        Err(problem) => vec![Problem::Json(problem)],
        Ok(_) => text
            .with(|t| {
                let case = lembas_rules::json::parse_strict(t).ok()?;
                let error = read_error(Area::parse(&area.get_value())?, &case)?;
                let path = error
                    .path()
                    .strip_prefix("case.")
                    .unwrap_or(error.path())
                    .to_string();
                Some(vec![Problem::Field {
                    path,
                    message: error.to_string(),
                }])
            })
            .unwrap_or_default(),
    });
    let first_difference = Memo::new(move |_| diffs.with(|d| d.first().map(|d| d.path.clone())));
    // The case editor, once its module has loaded; the calls it makes live as long as it does.
    let editor: StoredValue<Option<EditorHandle>, LocalStorage> = StoredValue::new_local(None);
    let calls: StoredValue<Option<EditorCalls>, LocalStorage> = StoredValue::new_local(None);
    let host = NodeRef::<leptos::html::Div>::new();
    let with_editor = move |f: &dyn Fn(&EditorHandle)| {
        editor.with_value(|e| {
            if let Some(e) = e {
                f(e);
            }
        })
    };
    // Marks the first difference and moves the cursor to it (a difference's "line N", Run).
    let show = move |path: String| with_editor(&|e| e.mark_difference(Some(path.clone()), true));
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
        let parsed = text
            .with_untracked(|t| lembas_rules::json::parse_strict(t).map_err(|e| json_error(t, &e)));
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
        let case = text
            .with_untracked(|t| lembas_rules::json::parse_strict(t).map_err(|e| json_error(t, &e)));
        match case {
            Ok(case) => {
                let file = serde_json::json!({"area": area.get_value(), "cases": [case]});
                let body = lembas_rules::json::to_pretty_text(&file).unwrap_or_default();
                let copied = format!(
                    "Copied as a case file of {} (with its area).",
                    area.get_value()
                );
                crate::storage::copy_text(&body, copied, move |s| status.set(s));
            }
            Err(e) => status.set(format!("Not copied: {e}")),
        }
    };
    // Run (Ctrl/Cmd+Enter): the case runs as it is typed; Run moves to what is wrong with it.
    let run = move || match outcome.get_untracked() {
        Err(problem) => {
            with_editor(&|e| e.go_to_line(problem.line));
            status.set(format!("Not JSON: {problem}"));
        }
        Ok((result, _)) if result.pass => status.set("Run: it passes.".into()),
        Ok((result, _)) => match first_difference.get_untracked() {
            Some(path) => {
                show(path.clone());
                status.set(format!("Run: it fails; the first difference is at {path}."));
            }
            None => {
                if let Some(Problem::Field { path, .. }) = problems.get_untracked().first() {
                    show(path.clone());
                }
                status.set(format!(
                    "Run: it fails — {}",
                    result.message.unwrap_or_default()
                ));
            }
        },
    };
    // Ctrl/Cmd+S saves wherever the keyboard is on the Editor tab (not the browser's "Save
    // page as"); in the editor, the editor's own key does it first.
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let command = ev.ctrl_key() || ev.meta_key();
        let on_this_tab = page.tab.get_untracked() == Tab::Editor;
        if on_this_tab
            && command
            && !ev.default_prevented()
            && matches!(ev.key().as_str(), "s" | "S")
        {
            ev.prevent_default();
            save();
        }
    });
    on_cleanup(move || {
        keys.remove();
        editor.update_value(|e| {
            if let Some(e) = e.take() {
                e.destroy();
            }
        });
        calls.set_value(None);
    });
    // The editor mounted once its element is on the page, with the text as it is then.
    let mounting = StoredValue::new(false);
    Effect::new(move |_| {
        let Some(element) = host.get() else { return };
        if mounting.get_value() {
            return;
        }
        mounting.set_value(true);
        let options = EditorOptions {
            doc: text.get_untracked(),
            area: area.get_value(),
            key: key.get_value(),
            described_by: "editor-keys",
        };
        let parent: web_sys::HtmlElement = element.into();
        leptos::task::spawn_local(async move {
            match crate::editor_js::mount(parent, options, set_text, run, save).await {
                Ok((handle, held)) => {
                    handle.set_problems(&problems.get_untracked());
                    handle.show_difference(first_difference.get_untracked());
                    if take_keyboard && page.tab.get_untracked() == Tab::Editor {
                        crate::page::focus_after_render("case-editor");
                    }
                    editor.set_value(Some(handle));
                    calls.set_value(Some(held));
                }
                Err(e) => status.set(format!(
                    "The editor could not load: {}",
                    e.as_string().unwrap_or_else(|| "its module failed".into())
                )),
            }
        });
    });
    // What the page changes (Format, Revert) reaches the editor; its marks follow the text.
    Effect::new(move |_| {
        let now = text.get();
        with_editor(&|e| e.set_doc(&now));
    });
    Effect::new(move |_| {
        let marked = problems.get();
        with_editor(&|e| e.set_problems(&marked));
    });
    Effect::new(move |_| {
        let first = first_difference.get();
        with_editor(&|e| e.mark_difference(first.clone(), false));
    });
    // New cases from templates, one per area and operation, valid as they come.
    let made = StoredValue::new(page.builtin.with_value(|b| templates(b)));
    let picked = RwSignal::new(String::new());
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
                        cases: Default::default(),
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
            // Picking a template only picks it (the arrow keys move through them): Create makes it.
            <p class="editor-bar">
                <label>"New case from a template "
                    <select data-testid="template" on:change=move |ev| picked.set(event_target_value(&ev))>
                        <option value="">"— area: operation —"</option>
                        {made.with_value(|m| m.iter().map(|t| { let l = t.label(); view! { <option value=l.clone()>{l.clone()}</option> } }).collect_view())}
                    </select>
                </label>" "
                <button data-testid="template-create" disabled=move || picked.with(String::is_empty)
                    on:click=move |_| new_case(picked.get_untracked())>"Create"</button>
            </p>
            <div class="editor-side">
            <div class="editor-case">
            <p>"File " <b data-testid="editor-file">{file_name.get_value()}</b>{source_words(source)} ", case " {index} " · area " <b>{area.get_value()}</b>
                {move || unsaved().then_some(view! { " · " <i data-testid="unsaved">"not saved"</i> })}
            </p>
            <div class="cm-host" node_ref=host></div>
            <p class="actions">
                <button data-testid="run" on:click=move |_| run()>"Run"</button>" "
                <button data-testid="format" on:click=move |_| format()>"Format"</button>" "
                <button data-testid="save" on:click=move |_| save()>{format!("Save into {}.json", file_name.get_value())}</button>" "
                <button data-testid="revert" disabled=move || !unsaved() on:click=move |_| revert()>"Revert"</button>" "
                <button data-testid="download" on:click=move |_| download_file()>{format!("Download {}.json", file_name.get_value())}</button>" "
                <button data-testid="copy" on:click=move |_| copy()>"Copy as case"</button>" "
                <a data-testid="case-link" href=move || {
                    let compact = serde_json::from_str::<Value>(&text.get()).ok().and_then(|v| lembas_rules::json::to_text(&v).ok()).unwrap_or_else(|| text.get());
                    format!("#{}", case_link(&area.get_value(), &compact))
                }>"A link to this case"</a>
            </p>
            <p class="hint" id="editor-keys">"Ctrl+Space completes, Ctrl+Enter runs to the first difference, Ctrl+S saves into the file, Esc then Tab leaves the editor; ? lists every key."</p>
            <p role="status" data-testid="editor-status">{move || status.get()}</p>
            </div>
            <div class="editor-verdict">
            {move || match outcome.get() {
                Err(problem) => {
                    let line = problem.line;
                    view! {
                        <p class="error" data-testid="json-error">"Not JSON: " {problem.to_string()} " "
                            <button class="link" on:click=move |_| with_editor(&|e| e.go_to_line(line))>{format!("line {line}")}</button></p>
                    }.into_any()
                }
                Ok((r, why)) => {
                    let steps = r.expected.as_array().map_or(0, Vec::len);
                    view! {
                        <p aria-live="polite">"Verdict: " <b data-testid="verdict" class:fail=!r.pass>{if r.pass { "pass" } else { "fail" }}</b>
                           {r.message.clone().map(|m| format!(" — {m}"))}</p>
                        {(!r.pass && !diffs.with(Vec::is_empty)).then(|| view! {
                            <section class="differences" data-testid="diff">
                                <h2>"Differences"</h2>
                                <ol>{diffs.get().iter().map(|d| difference_view(d, steps, line_of(&d.path), show)).collect_view()}</ol>
                            </section>
                        })}
                        <details class="whole">
                            <summary>"The whole expected and actual answers"</summary>
                            <div class="side">
                                <div><h2>"expected"</h2><pre>{lembas_rules::json::to_pretty_text(&r.expected).unwrap_or_default()}</pre></div>
                                <div><h2>"actual"</h2><pre>{lembas_rules::json::to_pretty_text(&r.actual).unwrap_or_default()}</pre></div>
                            </div>
                        </details>
                        {why.map(|t| match t {
                            CaseTrace::Permission(t) => crate::trace_view::permission_why(&t).into_any(),
                            CaseTrace::Delegation(d) => crate::trace_view::delegation_why(&d).into_any(),
                        })}
                    }.into_any()
                }
            }}
            </div>
            </div>
        </section>
    }
}
