//! The tree explorer: start a team, make tool calls as the main agent or any subagent, and see
//! the tree as subagents.md §12 shows it, the room, each call's answer and what was delivered;
//! undo; export the session as a `team` conformance case. Every answer is `lembas_rules::team`'s.

use lembas_rules::permission::Mode;
use lembas_rules::subagents::Capacity;
use lembas_rules::team::{tools::lead_tools, Team, TeamOptions};
use leptos::prelude::*;
use serde_json::{json, Value};

/// One call made in this session, for the log and the export.
#[derive(Clone, PartialEq)]
struct Made {
    by: String,
    tool: String,
    args: Value,
    result: Option<String>,
    delivered: Vec<(String, String)>,
}

fn template(tool: &str) -> Value {
    match tool {
        "team_add" => {
            json!({"name": "api", "role": "the API", "task": "Write the API.", "goal": "a service"})
        }
        "team_send" => json!({"to": ["all"], "message": "Heads up."}),
        "team_read" => json!({}),
        "team_stop" | "team_replace" => json!({"name": "api"}),
        "team_assign" => json!({"name": "api", "task": "Now the tests."}),
        "team_decide" => json!({"id": "r1", "allow": true}),
        "team_findings" => json!({"action": "write", "text": "A finding."}),
        "team_finish" => json!({"report": "Done."}),
        "team_request" => json!({"tool": "edit", "pattern": "docs/*", "why": "to write the docs"}),
        _ => json!({}),
    }
}

#[component]
pub fn TreeView() -> impl IntoView {
    let min = RwSignal::new(1u32);
    let max = RwSignal::new(4u32);
    let parallel = RwSignal::new(String::new());
    let mode = RwSignal::new(Mode::Edit);
    let team: RwSignal<Option<Team>> = RwSignal::new(None);
    let history: RwSignal<Vec<(Team, Vec<Made>)>> = RwSignal::new(Vec::new());
    let made: RwSignal<Vec<Made>> = RwSignal::new(Vec::new());
    let by = RwSignal::new(String::from("lead"));
    let tool = RwSignal::new(String::from("team_add"));
    let args = RwSignal::new(template("team_add").to_string());
    let error = RwSignal::new(String::new());
    let start = move |_| {
        let capacity = Capacity {
            group: None,
            parallel: parallel.get().trim().parse().ok().filter(|p: &u64| *p > 0),
        };
        team.set(Some(Team::new(&TeamOptions {
            min: min.get(),
            max: max.get(),
            capacity,
            mode: mode.get(),
            now: 1_762_790_400_000,
            ..TeamOptions::default()
        })));
        made.set(Vec::new());
        history.set(Vec::new());
    };
    let call = move |_| {
        let Some(mut t) = team.get_untracked() else {
            return;
        };
        let parsed: Value = match serde_json::from_str(&args.get_untracked()) {
            Ok(v) => v,
            Err(e) => return error.set(format!("args: {e}")),
        };
        let (b, tl) = (by.get_untracked(), tool.get_untracked());
        let before = t.clone();
        match t.call(&b, &tl, &parsed) {
            Ok(result) => {
                let delivered = t.take_delivered();
                let _ = t.take_started();
                history.update(|h| h.push((before, made.get_untracked())));
                made.update(|m| {
                    m.push(Made {
                        by: b,
                        tool: tl,
                        args: parsed,
                        result,
                        delivered,
                    })
                });
                team.set(Some(t));
                error.set(String::new());
            }
            Err(e) => error.set(e.to_string()),
        }
    };
    let undo = move |_| {
        if let Some((t, m)) = history.try_update(|h| h.pop()).flatten() {
            team.set(Some(t));
            made.set(m);
        }
    };
    let export = move || {
        let steps: Vec<Value> = made.with(|m| {
            m.iter()
                .map(|c| {
                    let mut delivered = serde_json::Map::new();
                    for (n, text) in &c.delivered {
                        if let Value::Array(l) = delivered.entry(n.clone()).or_insert_with(|| Value::Array(Vec::new())) {
                            l.push(Value::String(text.clone()));
                        }
                    }
                    json!({"op": "call", "by": c.by, "tool": c.tool, "args": c.args, "expect": {"result": c.result, "delivered": delivered}})
                })
                .collect()
        });
        let cap = parallel
            .get()
            .trim()
            .parse::<u64>()
            .ok()
            .map_or(json!({}), |p| json!({"parallel": p}));
        serde_json::to_string_pretty(&json!({"about": "A session made in the playground.", "start": {"min": min.get(), "max": max.get(), "capacity": cap, "mode": mode.get().as_str()}, "steps": steps})).unwrap_or_default()
    };
    let agents = move || {
        team.with(|t| {
            t.as_ref()
                .map(|t| t.tree().iter().map(|a| a.name.clone()).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    };
    let tools = move || {
        let mut list: Vec<&'static str> = lead_tools();
        list.extend(["team_finish", "team_request"]);
        list.sort_unstable();
        list
    };
    view! {
        <section class="tree-view">
            <div class="filters">
                <label>"Min " <input type="number" min="1" prop:value=move || min.get().to_string() on:input=move |ev| min.set(event_target_value(&ev).parse().unwrap_or(1)) /></label>
                <label>"Max " <input type="number" min="1" prop:value=move || max.get().to_string() on:input=move |ev| max.set(event_target_value(&ev).parse().unwrap_or(1)) /></label>
                <label>"Parallel (empty: no limit) " <input size="3" on:input=move |ev| parallel.set(event_target_value(&ev)) /></label>
                <label>"Mode " <select on:change=move |ev| { if let Some(m) = Mode::parse(&event_target_value(&ev)) { mode.set(m); } }>
                    {Mode::ALL.iter().map(|m| view! { <option value=m.as_str() selected=*m == Mode::Edit>{m.as_str()}</option> }).collect_view()}
                </select></label>
                <button on:click=start>"Start a team"</button>
            </div>
            <Show when=move || team.with(|t| t.is_some())>
                <div class="filters">
                    <label>"As " <select on:change=move |ev| by.set(event_target_value(&ev))>
                        {move || agents().into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
                    </select></label>
                    <label>"Tool " <select on:change=move |ev| { let t = event_target_value(&ev); args.set(template(&t).to_string()); tool.set(t); }>
                        {tools().into_iter().map(|t| view! { <option value=t selected=t == "team_add">{t}</option> }).collect_view()}
                    </select></label>
                    <label>"Arguments " <input data-testid="tree-args" size="60" prop:value=move || args.get() on:input=move |ev| args.set(event_target_value(&ev)) /></label>
                    <button data-testid="tree-call" on:click=call>"Call"</button>
                    <button on:click=undo>"Undo"</button>
                </div>
                <p class="error">{move || error.get()}</p>
                <pre data-testid="tree">{move || team.with(|t| t.as_ref().map(|t| t.read("lead", 0)).unwrap_or_default())}</pre>
                <h3>"Calls"</h3>
                <ol class="calls">
                    {move || made.get().into_iter().map(|c| view! {
                        <li><b>{c.by.clone()}</b> " → " {c.tool.clone()} ": " {c.result.clone().unwrap_or_else(|| "(no answer: the call goes on)".into())}
                            {c.delivered.iter().map(|(n, t)| view! { <pre class="delivered">{format!("delivered to {n}:\n{t}")}</pre> }).collect_view()}
                        </li>
                    }).collect_view()}
                </ol>
                <details><summary>"Export as a team case"</summary><textarea rows="12" readonly prop:value=export></textarea></details>
            </Show>
        </section>
    }
}
