//! The Progress tab: a progress object (progress.md §1) drawn as its line, ticking from the real
//! clock; a template for every phase, valid as it comes; the picker follows the JSON.

use crate::model::json_error;
use lembas_rules::json::ToJson;
use lembas_rules::progress::{
    line, PersonWait, Phase, PhaseKind, Progress, StopReason, WaitReason,
};
use leptos::prelude::*;
use serde_json::Value;

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
pub(crate) fn ProgressView() -> impl IntoView {
    let start = now_ms();
    let text = RwSignal::new(
        lembas_rules::json::to_pretty_text(&serde_json::json!({"phase": "running_tool", "since": start, "tool": "bash", "what": "cargo test"})).unwrap_or_default(),
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
            |t| match serde_json::from_str::<Value>(t).map_err(|e| json_error(t, &e)) {
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
            text.set(lembas_rules::json::to_pretty_text(&example.to_json()).unwrap_or_default());
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
