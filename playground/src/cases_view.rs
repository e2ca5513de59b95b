//! The Cases tab: every case with its verdict (the author's files first, with a file column),
//! the filters, pasting, opening or dropping a case file, and the author's files — each
//! downloaded or removed on its own.

use crate::model::{json_error, read_value, source_words, CaseFile, Row, Source};
use crate::page::Page;
use crate::storage::{download, save_files};
use lembas_rules::conformance::Area;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::JsCast;

/// The most rows the Cases table draws at once.
const ROWS_SHOWN: usize = 1000;

/// The rows drawn with the page's first frame; the others a frame later, so that the summary is
/// on screen before the browser draws a thousand rows.
const FIRST_ROWS: usize = 40;

#[component]
pub(crate) fn Cases(page: Page, rows: Memo<Vec<Row>>) -> impl IntoView {
    let Page { files, filter, .. } = page;
    let paste_error = RwSignal::new(String::new());
    let paste_status = RwSignal::new(String::new());
    let paste_text = RwSignal::new(String::new());
    // Empty: the area comes from the file (its `area`, its name, its cases).
    let paste_area = RwSignal::new(String::new());
    // The author's files first, a group of their own; then the built-in ones. A long list is
    // cut, and says so: a table of ten thousand rows takes the browser seconds to draw. Kept by
    // their place in `rows`: only the rows drawn are copied.
    let kept = Memo::new(move |_| {
        rows.with(|r| {
            filter.with(|f| {
                let mut list: Vec<usize> = (0..r.len())
                    .filter(|&i| r.get(i).is_some_and(|row| f.keeps(row)))
                    .collect();
                list.sort_by_key(|&i| r.get(i).is_none_or(|row| !row.authors));
                list
            })
        })
    });
    let drawn = RwSignal::new(FIRST_ROWS);
    request_animation_frame(move || {
        // After the first frame is painted: the rest of the table.
        request_animation_frame(move || drawn.set(ROWS_SHOWN));
    });
    let shown = move || {
        let limit = drawn.get();
        rows.with(|r| {
            kept.with(|k| {
                k.iter()
                    .take(limit)
                    .filter_map(|&i| r.get(i).map(Listed::of))
                    .collect::<Vec<_>>()
            })
        })
    };
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
        let parsed = lembas_rules::json::parse_strict(&text).map_err(|e| json_error(&text, &e));
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
                <select data-testid="area-filter" prop:value=move || filter.with(|f| f.area.clone().unwrap_or_default()) on:change=move |ev| {
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
                on:input=move |ev| {
                    // A paste or a drop is whole when it lands: judged at once, its own error said.
                    let landed = ev.dyn_ref::<web_sys::InputEvent>()
                        .is_some_and(|i| matches!(i.input_type().as_str(), "insertFromPaste" | "insertFromDrop"));
                    let text = event_target_value(&ev);
                    if landed {
                        paste_text.set(text.clone());
                        on_paste(text);
                    } else {
                        on_input(text);
                    }
                }
                on:change=move |ev| on_paste(event_target_value(&ev))></textarea>
            <label>"or open " <input type="file" accept=".json,application/json" multiple data-testid="open-file"
                on:change=move |ev| {
                    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    read_files(input.as_ref().and_then(|i| i.files()));
                    // Emptied, so that the same file opened again (after removing it) is read again.
                    if let Some(i) = input { i.set_value(""); }
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
        // Nothing to show is said, not drawn as a table of no rows.
        <p data-testid="no-rows" hidden=move || kept.with(|k| !k.is_empty())>{move || {
            if filter.with(|f| f.failures_only) {
                "No case fails with these filters: every case shown would pass."
            } else {
                "No case matches these filters."
            }
        }}</p>
        <table class="cases" hidden=move || kept.with(Vec::is_empty)>
            <thead><tr><th>"file"</th><th>"#"</th><th>"case"</th><th>"verdict"</th></tr></thead>
            <tbody>
                <For each=shown key=|r| (r.file, r.index, r.pass, r.file_name.clone(), r.about.clone()) let:row>
                    <tr class:fail=!row.pass class:yours=row.authors>
                        <td class="file">{row.file_name.clone()}<span class="area">{format!(" · {}", row.area)}</span></td>
                        <td>{row.index}</td>
                        <td><a href="#" on:click=move |ev| { ev.prevent_default(); page.open(row.file, row.index); }>{row.about.clone()}</a></td>
                        <td class="verdict">{if row.pass { "pass" } else { "fail" }}</td>
                    </tr>
                </For>
            </tbody>
        </table>
    }
}

/// What the table draws of a case's row (its result's values stay in `rows`).
#[derive(Clone)]
struct Listed {
    file: usize,
    index: usize,
    pass: bool,
    authors: bool,
    file_name: String,
    area: String,
    about: String,
}

impl Listed {
    fn of(row: &Row) -> Listed {
        Listed {
            file: row.file,
            index: row.index,
            pass: row.result.pass,
            authors: row.authors,
            file_name: row.file_name.clone(),
            area: row.area.clone(),
            about: row.about.clone(),
        }
    }
}
