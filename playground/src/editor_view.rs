//! The Editor tab: one case's JSON with line numbers and colours, the parse error's line and the
//! first difference's marked in place, Format (Ctrl+Enter), saving into its file (Ctrl+S),
//! reverting, downloading the file, copying it as a case file, a link to it; new cases from
//! templates; the verdict, the differences by path, and Why as a trace.

use crate::diff::{differences, word_changes, WordChange};
use crate::json_text::{formatted, highlighted, scan};
use crate::link::case_link;
use crate::model::{json_error, new_cases_file, source_words, templates, CaseFile, Source};
use crate::page::Page;
use crate::storage::{download, draft_key, drafts, keep_draft, save_files};
use lembas_rules::conformance::{run_case, CaseTrace, Compare};
use leptos::prelude::*;
use serde_json::Value;

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
pub(crate) fn Editor(page: Page) -> impl IntoView {
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
        Ok((r, _)) if !r.pass => text.with(|t| {
            // Compared as the runner compares the case.
            let compare = serde_json::from_str::<Value>(t)
                .ok()
                .and_then(|case| lembas_rules::conformance::comparison(&area.get_value(), &case))
                .unwrap_or(Compare::Whole);
            differences(&area.get_value(), &compare, &r.expected, &r.actual, 50)
        }),
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
