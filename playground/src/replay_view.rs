//! The Replay tab: open the `--events` file of a `lembas run` and watch the run again — the tree
//! and every agent's progress line at each moment, a timeline to scrub, play and step event by
//! event. The moments are `replay.rs`'s; this file only draws them.

use crate::replay::Replay;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// A time in seconds: to the millisecond under ten seconds, to the tenth above.
fn seconds(ms: i64) -> String {
    if ms < 10_000 {
        format!("{:.3}s", ms as f64 / 1000.0)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

#[component]
pub fn ReplayView() -> impl IntoView {
    let replay: RwSignal<Option<Replay>> = RwSignal::new(None);
    let error = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let now = RwSignal::new(0i64);
    // How many events are shown: stepping moves it one event at a time, even within one
    // millisecond; scrubbing and playing set it from the time.
    let shown = RwSignal::new(0usize);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(1i64);
    let set_time = move |t: i64| {
        now.set(t);
        shown.set(replay.with_untracked(|r| r.as_ref().map_or(0, |r| r.said_by(t))));
    };
    let span = move || replay.with(|r| r.as_ref().map_or((0, 0), Replay::span));
    let load = move |file_name: String, text: String| match Replay::read(&text) {
        Ok(r) => {
            now.set(r.span().0);
            shown.set(r.said_by(r.span().0));
            replay.set(Some(r));
            name.set(file_name);
            error.set(String::new());
            playing.set(false);
        }
        Err(e) => error.set(format!("{file_name}: {e}")),
    };
    let read_files = move |list: Option<web_sys::FileList>| {
        let Some(file) = list.and_then(|l| l.get(0)) else {
            return;
        };
        let file_name = file.name();
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                Ok(text) => load(file_name, text.as_string().unwrap_or_default()),
                Err(_) => error.set(format!("{file_name}: could not be read")),
            }
        });
    };
    // Playing: the run's own pace (or 2, 5, 10 times it), a tenth of a second at a time.
    let handle = set_interval_with_handle(
        move || {
            if !playing.get_untracked() {
                return;
            }
            let (_, end) = span();
            let next = (now.get_untracked() + 100 * speed.get_untracked()).min(end);
            set_time(next);
            if next >= end {
                playing.set(false);
            }
        },
        std::time::Duration::from_millis(100),
    );
    on_cleanup(move || {
        if let Ok(h) = handle {
            h.clear();
        }
    });
    // To the event before or after the one shown last.
    let step = move |forward: bool| {
        let Some((count, len)) =
            replay.with_untracked(|r| r.as_ref().map(|r| (shown.get_untracked(), r.len())))
        else {
            return;
        };
        let next = if forward {
            (count + 1).min(len)
        } else {
            count.saturating_sub(1)
        };
        playing.set(false);
        shown.set(next);
        now.set(replay.with_untracked(|r| r.as_ref().map_or(0, |r| r.time_of(next))));
    };
    let moment = move || {
        replay.with(|r| {
            r.as_ref().map(|r| {
                (
                    r.after(shown.get(), now.get()),
                    r.len(),
                    r.untimed(),
                    r.skipped().to_vec(),
                )
            })
        })
    };
    view! {
        <section class="replay"
            on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
            on:drop=move |ev: web_sys::DragEvent| {
                ev.prevent_default();
                read_files(ev.data_transfer().and_then(|d| d.files()));
            }>
            <p>"Open the events of a run (" <code>"lembas run --events FILE"</code> ") and watch it again: the tree and every agent's progress line as they were at each moment."</p>
            <label>"Events file " <input type="file" accept=".jsonl,.json,.txt,application/json" data-testid="replay-file"
                on:change=move |ev| {
                    let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    read_files(input.and_then(|i| i.files()));
                } />" (or drop it here)"</label>
            <p class="error" role="alert" data-testid="replay-error">{move || error.get()}</p>
            {move || moment().map(|(m, total, untimed, skipped)| {
                let (start, end) = span();
                let said = m.said;
                let clock = format!("{} of {} · {said} of {total} events", seconds(now.get_untracked() - start), seconds(end - start));
                view! {
                    <div class="timeline">
                        <button data-testid="replay-back" prop:disabled={move || said == 0} on:click=move |_| step(false)>"◀ event"</button>
                        <button data-testid="replay-play" on:click=move |_| {
                            if now.get_untracked() >= span().1 { set_time(span().0); }
                            playing.update(|p| *p = !*p);
                        }>{move || if playing.get() { "Pause" } else { "Play" }}</button>
                        <button data-testid="replay-next" prop:disabled={move || said >= total} on:click=move |_| step(true)>"event ▶"</button>
                        <label>"Speed "
                            <select data-testid="replay-speed" on:change=move |ev| speed.set(event_target_value(&ev).parse().unwrap_or(1))>
                                {[1i64, 2, 5, 10].map(|x| view! { <option value=x.to_string() selected=x == speed.get_untracked()>{format!("×{x}")}</option> }).collect_view()}
                            </select>
                        </label>
                        <label class="scrub">"Time in the run "
                            <input type="range" data-testid="replay-time" min="0" max=(end - start).to_string() step="1"
                                aria-valuetext=clock.clone()
                                prop:value=move || (now.get() - span().0).to_string()
                                on:input=move |ev| {
                                    playing.set(false);
                                    if let Ok(x) = event_target_value(&ev).parse::<i64>() { set_time(span().0 + x); }
                                } />
                        </label>
                        <span data-testid="replay-clock">{clock}</span>
                    </div>
                    <p class="sub">{format!("{}{}", name.get_untracked(), if untimed { " (no times in the file: one event a second)" } else { "" })}</p>
                    {(!skipped.is_empty()).then(|| view! {
                        <p class="error" data-testid="replay-skipped">{format!("{} {} could not be read and {} left out: {}", skipped.len(), if skipped.len() == 1 { "line" } else { "lines" }, if skipped.len() == 1 { "is" } else { "are" }, skipped.join("; "))}</p>
                    })}
                    <h2>"Progress"</h2>
                    <ul class="replay-lines" data-testid="replay-lines">
                        {m.lines.into_iter().map(|(who, l)| view! {
                            <li><b>{who}</b>": " <span class="line">{l.unwrap_or_else(|| "—".into())}</span></li>
                        }).collect_view()}
                    </ul>
                    <h2>"The tree"</h2>
                    <div data-testid="replay-tree">
                        {match m.tree {
                            Some(t) => {
                                let header = format!("{} of {} agents", t.size, t.max);
                                crate::tree_view::drawn(&t, header).into_any()
                            }
                            None => view! { <p>"No tree yet: the run has no subagents by now."</p> }.into_any(),
                        }}
                    </div>
                    <h2>"Said last"</h2>
                    <ol class="replay-log" data-testid="replay-log">
                        {m.log.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                    </ol>
                }
            })}
        </section>
    }
}
