//! The tree explorer: start a team, then act as the main agent, a subagent or the person — tool
//! calls from a form built for each tool (from its schema in `rules/spec/tools/`), a turn's end,
//! a full context, the person's stop — and see the tree drawn as subagents.md §12 shows it
//! (position, state, model, mode and request options, a context bar, open slots, ended subagents
//! dimmed with how they ended), team_read's text and room, each step's answer and what was
//! delivered; undo; export the session as a `team` conformance case. Every answer is
//! `lembas_rules::team`'s; this file only draws and records.

use lembas_rules::input::Obj;
use lembas_rules::permission::Mode;
use lembas_rules::spec::{loop_spec, tool_file};
use lembas_rules::subagents::Capacity;
use lembas_rules::team::operation::{Audience, Operation, TeamAnswer, TeamStep, TurnEndReason};
use lembas_rules::team::view::{TreeAgent, TreeInfo};
use lembas_rules::team::{tools::lead_tools, Delivery, Team, TeamOptions};
use lembas_rules::text::fill;
use leptos::prelude::*;
use serde_json::{json, Value};

/// Where this browser keeps the Tree tab's session.
const SESSION_KEY: &str = "lembas.playground.tree";

/// One step made in this session, for the log and the export: the operation and its answer.
#[derive(Clone, PartialEq)]
struct Step {
    step: TeamStep,
    answer: TeamAnswer,
}

/// Does an operation on the team: the step, or the input error's message.
fn apply(t: &mut Team, operation: Operation) -> Result<Step, String> {
    let step = TeamStep::untimed(operation);
    let answer = t.apply(&step).map_err(|e| e.to_string())?;
    Ok(Step { step, answer })
}

impl Step {
    /// The step as the team area's case file writes it, its answer as the expect.
    fn case_step(&self) -> Value {
        let mut case = self.step.to_json();
        if let Value::Object(m) = &mut case {
            m.insert("expect".into(), self.answer.to_json(Audience::Case));
        }
        case
    }

    fn title(&self) -> String {
        match &self.step.operation {
            Operation::Call { by, tool, .. } => format!("{by} → {tool}"),
            Operation::EndTurn { by, .. } => format!("{by}'s turn ends"),
            Operation::Context { by, used, window } => {
                format!("{by}'s context: {used} of {window}")
            }
            Operation::ContextFull { by } => format!("{by}'s context is full"),
            Operation::PersonStop { name } => format!("the person stops {name}"),
            other => other.kind().as_str().to_string(),
        }
    }

    /// Whether the step was a call the tool refused.
    fn refused(&self) -> bool {
        matches!(
            &self.answer,
            TeamAnswer::Call {
                result: Some(r),
                ..
            } if r.is_refusal()
        )
    }

    /// What the step said, if anything.
    fn said(&self) -> Option<String> {
        match &self.answer {
            TeamAnswer::Call { result, .. } => result.as_ref().map(|r| r.text().to_string()),
            TeamAnswer::ContextFull { text, .. } | TeamAnswer::Started(text) => text.clone(),
            TeamAnswer::Text(text) => Some(text.clone()),
            _ => None,
        }
    }

    /// What reached whom in this step.
    fn delivered(&self) -> &[Delivery] {
        match &self.answer {
            TeamAnswer::Call { delivered, .. }
            | TeamAnswer::ContextFull { delivered, .. }
            | TeamAnswer::TurnEnded { delivered, .. }
            | TeamAnswer::PersonStopped { delivered, .. }
            | TeamAnswer::Delivered(delivered) => delivered,
            _ => &[],
        }
    }
}

/// A form field of a tool's parameter, from its JSON schema.
#[derive(Clone)]
struct Field {
    name: String,
    kind: &'static str,
    choices: Vec<String>,
    required: bool,
    about: String,
}

fn fields(tool: &str) -> Vec<Field> {
    let Some(file) = tool_file(tool) else {
        return Vec::new();
    };
    let params = file.get("parameters");
    let required: Vec<&str> = params
        .and_then(|p| p.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(props)) = params.and_then(|p| p.get("properties")) else {
        return Vec::new();
    };
    let mut list: Vec<Field> = props
        .iter()
        .map(|(name, p)| Field {
            name: name.clone(),
            kind: match p.get("type").and_then(Value::as_str) {
                Some("boolean") => "boolean",
                Some("integer") | Some("number") => "number",
                Some("array") => "list",
                _ => "text",
            },
            choices: p
                .get("enum")
                .and_then(Value::as_array)
                .map(|e| {
                    e.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            required: required.contains(&name.as_str()),
            about: p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        })
        .collect();
    // The required fields first, in the order the schema lists them; then the others.
    list.sort_by_key(|f| {
        (
            !f.required,
            required
                .iter()
                .position(|r| *r == f.name)
                .unwrap_or(usize::MAX),
        )
    });
    list
}

/// The value a form field's text gives (None: left out).
fn field_value(kind: &str, text: &str) -> Option<Value> {
    let text = text.trim();
    match kind {
        "boolean" => Some(Value::Bool(text == "true")),
        _ if text.is_empty() => None,
        "number" => text.parse::<u64>().ok().map(Value::from),
        "list" => Some(Value::Array(
            text.split(',')
                .map(|s| Value::String(s.trim().to_string()))
                .filter(|s| s.as_str() != Some(""))
                .collect(),
        )),
        _ => Some(Value::String(text.to_string())),
    }
}

/// A field's text in the form, from the arguments.
fn field_text(args: &Value, name: &str) -> String {
    match args.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map_or_else(|| json_text(v), str::to_string))
            .collect::<Vec<_>>()
            .join(", "),
        Some(Value::Null) | None => String::new(),
        Some(v) => json_text(v),
    }
}

/// A value's compact JSON text, as serde_json writes it (a value is always written).
fn json_text(value: &Value) -> String {
    lembas_rules::json::to_text(value).unwrap_or_default()
}

fn template(tool: &str) -> Value {
    match tool {
        "team_add" => {
            json!({"name": "api", "role": "the API", "task": "Write the API.", "goal": "a service"})
        }
        "team_send" => json!({"to": ["all"], "message": "Heads up."}),
        "team_stop" | "team_replace" => json!({"name": "api"}),
        "team_assign" => json!({"name": "api", "task": "Now the tests."}),
        "team_decide" => json!({"id": "r1", "allow": true}),
        "team_findings" => json!({"action": "write", "text": "A finding."}),
        "team_finish" => json!({"report": "Done."}),
        "team_request" => json!({"tool": "edit", "pattern": "docs/*", "why": "to write the docs"}),
        _ => json!({}),
    }
}

/// How deep an agent sits: its parents counted up to the main agent.
fn depth(info: &TreeInfo, a: &TreeAgent) -> usize {
    let mut d = 0;
    let mut parent = a.parent.clone();
    while let Some(p) = parent {
        d += 1;
        parent = info
            .agents
            .iter()
            .find(|x| x.name == p)
            .and_then(|x| x.parent.clone());
        if d > info.agents.len() {
            break;
        }
    }
    d
}

fn row(a: &TreeAgent, depth: usize, ended: bool) -> impl IntoView {
    let (percent, context) = a
        .context_text()
        .map_or((0, String::new()), |(p, t)| (p.min(100), t));
    let title = context.clone();
    let class = if ended {
        "agent ended".to_string()
    } else {
        format!(
            "agent {}",
            a.state.word().replace(' ', "-").replace(':', "")
        )
    };
    view! {
        <li class=class style=format!("margin-left: {}rem", depth as f32 * 1.5) data-agent=a.name.clone()>
            <span class="who"><b>{a.name.clone()}</b> " (" {a.id.clone()} ")"</span>
            <span class="position">{a.position.clone()}</span>
            <span class="state">{a.state.word()}</span>
            <span class="model">{a.model.clone()}</span>
            <span class="mode">{a.mode_text()}</span>
            <span class="context" title=title>
                <span class="bar"><span class="fill" style=format!("width: {percent}%")></span></span>
                {context}
            </span>
            <span class="counts">{format!("{} findings · {} messages", a.findings, a.messages)}</span>
        </li>
    }
}

/// The tree as §12 shows it: the live agents in tree order, the open slots, the ended dimmed.
pub(crate) fn drawn(info: &TreeInfo, header: String) -> impl IntoView {
    let live: Vec<_> = info
        .agents
        .iter()
        .map(|a| row(a, depth(info, a), false).into_any())
        .collect();
    // The slots and the ended are said in team_read's words (`loop.json` `team.read`).
    let read = &loop_spec().team.read;
    let slots = (info.open_slots > 0).then(|| {
        let text = fill(&read.slots, &[("n", &info.open_slots.to_string())]);
        view! { <li class="agent slot" style="margin-left: 1.5rem">{text}</li> }
    });
    let ended: Vec<_> = info
        .ended
        .iter()
        .map(|a| row(a, 0, true).into_any())
        .collect();
    view! {
        <div class="drawn-tree">
            <p class="tree-head">{header}</p>
            <ul class="agents">{live}{slots}</ul>
            {(!info.ended.is_empty()).then(|| view! { <p class="tree-head">{read.ended.as_str()}</p> })}
            <ul class="agents">{ended}</ul>
        </div>
    }
}

#[component]
pub fn TreeView(
    /// The session as the page's address carries it, written here as it changes.
    address_out: RwSignal<Option<String>>,
    /// A session from the page's address to make again (a link, Back, Forward).
    address_in: RwSignal<Option<String>>,
    /// The page: the exported session opens in its editor.
    page: crate::page::Page,
) -> impl IntoView {
    let min = RwSignal::new(1u32);
    let max = RwSignal::new(4u32);
    let parallel = RwSignal::new(String::new());
    let mode = RwSignal::new(Mode::Edit);
    let team: RwSignal<Option<Team>> = RwSignal::new(None);
    let history: RwSignal<Vec<(Team, Vec<Step>)>> = RwSignal::new(Vec::new());
    let steps: RwSignal<Vec<Step>> = RwSignal::new(Vec::new());
    let by = RwSignal::new(String::from("lead"));
    let tool = RwSignal::new(String::from("team_add"));
    let args = RwSignal::new(template("team_add"));
    let args_text = RwSignal::new(json_text(&template("team_add")));
    let reply = RwSignal::new(String::from("Done."));
    let used = RwSignal::new(String::from("9000"));
    let window = RwSignal::new(String::from("10000"));
    let error = RwSignal::new(String::new());
    let note = RwSignal::new(String::new());
    let export_status = RwSignal::new(String::new());
    let begin = move || {
        // A setting no team can have is said, not clamped out of sight (team.md §2).
        if let Some(why) = Team::impossible_setting(min.get(), max.get()) {
            error.set(format!("The Subagents setting: {why}"));
            return;
        }
        let capacity = Capacity {
            group: None,
            parallel: parallel.get().trim().parse().ok().filter(|p: &u64| *p > 0),
        };
        let one_at_a_time = capacity.one_at_a_time();
        let t = Team::new(&TeamOptions {
            min: min.get(),
            max: max.get(),
            capacity,
            mode: mode.get(),
            now: 1_762_790_400_000,
            ..TeamOptions::default()
        });
        // Read as team.md §2 says: a max above the cap is lowered, and the inputs show it.
        let (read_min, read_max) = (t.info().min, t.info().max);
        error.set(if (read_min, read_max) == (min.get(), max.get()) {
            String::new()
        } else {
            format!("The Subagents setting is read as {read_min} to {read_max} (team.md §2: at most the cap).")
        });
        min.set(read_min);
        max.set(read_max);
        // Whether subagents are offered is the rules' (subagents.md §4); the tab says why not.
        let offered = t
            .clone()
            .apply(&TeamStep::untimed(Operation::Offered { by: "lead".into() }));
        note.set(match offered {
            Ok(TeamAnswer::Offered { setting: false, .. }) if one_at_a_time => "Subagents are not offered (subagents.md §4): its model serves one request at a time (capacity 1) and no other model is given, so no subagent can run beside the main agent and every team tool answers that there is no team.".into(),
            Ok(TeamAnswer::Offered { setting: false, .. }) => "Subagents are not offered (subagents.md §4): every team tool answers that there is no team.".into(),
            _ => String::new(),
        });
        team.set(Some(t));
        steps.set(Vec::new());
        history.set(Vec::new());
        by.set("lead".into());
    };
    let start = move |_| begin();
    let run = move |op: Operation| {
        let Some(mut t) = team.get_untracked() else {
            return;
        };
        let before = t.clone();
        match apply(&mut t, op) {
            // The person stops subagents: a stop that stopped nobody changed nothing to keep.
            Ok(Step {
                answer: TeamAnswer::PersonStopped { stopped, .. },
                ..
            }) if stopped.is_empty() => error.set(
                "The person stops a live subagent and its subtree (subagents.md §10): pick one, not the main agent.".into(),
            ),
            Ok(step) => {
                history.update(|h| h.push((before, steps.get_untracked())));
                steps.update(|s| s.push(step));
                // The one acting may have ended: act as the main agent then.
                if t.live(&by.get_untracked()).is_none() {
                    by.set("lead".into());
                }
                team.set(Some(t));
                error.set(String::new());
            }
            Err(e) => error.set(e),
        }
    };
    let set_tool = move |t: String| {
        let a = template(&t);
        args_text.set(json_text(&a));
        args.set(a);
        tool.set(t);
    };
    let set_field = move |name: String, kind: &'static str, text: String| {
        args.update(|a| {
            if !a.is_object() {
                *a = json!({});
            }
            if let Value::Object(m) = a {
                match field_value(kind, &text) {
                    Some(v) => m.insert(name, v),
                    None => m.remove(&name),
                };
            }
        });
        args_text.set(json_text(&args.get_untracked()));
    };
    let call = move |_| match serde_json::from_str::<Value>(&args_text.get_untracked()) {
        Ok(a) => run(Operation::Call {
            by: by.get_untracked(),
            tool: tool.get_untracked(),
            args: a,
        }),
        Err(e) => error.set(format!("args: {e}")),
    };
    let undo = move |_| {
        if let Some((t, s)) = history.try_update(|h| h.pop()).flatten() {
            team.set(Some(t));
            steps.set(s);
        }
    };
    // The session is kept in this browser as it goes (its setting and its steps), and made again
    // from them when the page opens: a reload loses nothing.
    Effect::new(move |_| {
        let kept = team.with(Option::is_some).then(|| {
            let list: Vec<Value> = steps.with(|s| s.iter().map(|x| x.step.to_json()).collect());
            json!({"min": min.get_untracked(), "max": max.get_untracked(), "parallel": parallel.get_untracked(), "mode": mode.get_untracked().as_str(), "steps": list})
        });
        let text = kept.map(|k| json_text(&k));
        address_out.set(text.as_deref().map(crate::link::pack));
        if let Some(s) = crate::storage::storage() {
            let _ = match text {
                Some(k) => s.set_item(SESSION_KEY, &k),
                None => s.remove_item(SESSION_KEY),
            };
        }
    });
    // Makes a session again from what was kept of it: its setting, then each step.
    let restore = move |k: Value| {
        let count = |key: &str| {
            k.get(key)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        if let (Some(a), Some(b)) = (count("min"), count("max")) {
            min.set(a);
            max.set(b);
        }
        parallel.set(
            k.get("parallel")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        );
        if let Some(m) = k.get("mode").and_then(Value::as_str).and_then(Mode::parse) {
            mode.set(m);
        }
        begin();
        let list = k
            .get("steps")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (i, v) in list.iter().enumerate() {
            let path = format!("steps[{i}]");
            let step = Obj::new(&path, v).and_then(|o| TeamStep::read(&o, &[]));
            match step {
                Ok(s) => run(s.operation),
                Err(e) => {
                    error.set(format!(
                        "The kept session stops at a step that cannot be read: {e}"
                    ));
                    break;
                }
            }
        }
    };
    if let Some(k) = crate::storage::storage()
        .and_then(|s| s.get_item(SESSION_KEY).ok().flatten())
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    {
        restore(k);
    }
    // A session in the page's address (a link to it, Back, Forward) is made again from it.
    Effect::new(move |_| {
        let Some(packed) = address_in.get() else {
            return;
        };
        address_in.set(None);
        if address_out.get_untracked().as_deref() == Some(packed.as_str()) {
            return;
        }
        match crate::link::unpack(&packed).and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
            Some(k) => restore(k),
            None => error.set("The address's Tree session is damaged: it was not opened.".into()),
        }
    });
    let export = move || {
        let list: Vec<Value> = steps.with(|s| s.iter().map(Step::case_step).collect());
        let cap = parallel
            .get()
            .trim()
            .parse::<u64>()
            .ok()
            .map_or(json!({}), |p| json!({"parallel": p}));
        // A case file that says its area: pasted or opened anywhere, it runs as it is.
        let case = json!({"about": "A session made in the playground.", "start": {"min": min.get(), "max": max.get(), "capacity": cap, "mode": mode.get().as_str()}, "steps": list});
        lembas_rules::json::to_pretty_text(&json!({"area": "team", "cases": [case]}))
            .unwrap_or_default()
    };
    let agents = move || {
        team.with(|t| {
            t.as_ref()
                .map(|t| {
                    t.tree()
                        .iter()
                        .map(|a| a.name().to_string())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let tools = move || {
        let mut list: Vec<&'static str> = lead_tools();
        list.extend(["team_finish", "team_request"]);
        list.sort_unstable();
        list
    };
    let form = move || {
        fields(&tool.get())
            .into_iter()
            .map(|f| {
                let (name, kind) = (f.name.clone(), f.kind);
                let value = move || args.with(|a| field_text(a, &name));
                let label = format!("{}{}", f.name, if f.required { " *" } else { "" });
                let n = f.name.clone();
                let input = if kind == "boolean" {
                    let v = value.clone();
                    view! { <input type="checkbox" prop:checked=move || v() == "true" on:change=move |ev| set_field(n.clone(), kind, event_target_checked(&ev).to_string()) /> }.into_any()
                } else if !f.choices.is_empty() {
                    let choices = f.choices.clone();
                    view! { <select prop:value=value.clone() on:change=move |ev| set_field(n.clone(), kind, event_target_value(&ev))>
                        <option value="">"—"</option>
                        {choices.into_iter().map(|c| view! { <option value=c.clone()>{c.clone()}</option> }).collect_view()}
                    </select> }.into_any()
                } else {
                    view! { <input data-field=f.name.clone() placeholder=if kind == "list" { "a, b" } else { "" } prop:value=value.clone() on:input=move |ev| set_field(n.clone(), kind, event_target_value(&ev)) /> }.into_any()
                };
                view! { <label title=f.about.clone()>{label} " " {input} <small class="help">{f.about.clone()}</small></label> }
            })
            .collect_view()
    };
    let info = move || team.with(|t| t.as_ref().map(|t| (t.info(), t.tree_lines())));
    view! {
        <section class="tree-view">
            <div class="filters">
                <label>"Min " <input type="number" min="1" data-testid="tree-min" prop:value=move || min.get().to_string() on:input=move |ev| min.set(event_target_value(&ev).parse().unwrap_or(1)) /></label>
                <label>"Max " <input type="number" min="1" data-testid="tree-max" prop:value=move || max.get().to_string() on:input=move |ev| max.set(event_target_value(&ev).parse().unwrap_or(1)) /></label>
                <label>"Capacity: requests at once (empty: no limit) " <input size="3" data-testid="tree-parallel" prop:value=move || parallel.get() on:input=move |ev| parallel.set(event_target_value(&ev)) /></label>
                <label>"Main agent's mode " <select on:change=move |ev| { if let Some(m) = Mode::parse(&event_target_value(&ev)) { mode.set(m); } }>
                    {Mode::ALL.iter().map(|m| view! { <option value=m.as_str() selected=*m == Mode::Edit>{m.as_str()}</option> }).collect_view()}
                </select></label>
                <button data-testid="tree-start" on:click=start>"Start a team"</button>
            </div>
            // Said with or without a team: a setting that cannot start one is said here too.
            <p class="error" role="alert" data-testid="tree-error">{move || error.get()}</p>
            <p role="status" data-testid="tree-note">{move || note.get()}</p>
            <Show when=move || team.with(|t| t.is_some())>
                <div class="filters">
                    <label>"Act as " <select data-testid="tree-by" prop:value=move || by.get() on:change=move |ev| by.set(event_target_value(&ev))>
                        {move || agents().into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
                    </select></label>
                    <label>"Tool " <select data-testid="tree-tool" on:change=move |ev| set_tool(event_target_value(&ev))>
                        {tools().into_iter().map(|t| view! { <option value=t selected=t == "team_add">{t}</option> }).collect_view()}
                    </select></label>
                </div>
                <fieldset class="tool-form">
                    <legend>{move || tool.get()}</legend>
                    <div class="filters">{form}</div>
                    <label>"Arguments (JSON) " <input data-testid="tree-args" size="70" prop:value=move || args_text.get() on:input=move |ev| { let t = event_target_value(&ev); if let Ok(v) = serde_json::from_str::<Value>(&t) { args.set(v); } args_text.set(t); } /></label>
                    <button data-testid="tree-call" on:click=call>"Call"</button>
                </fieldset>
                <div class="filters">
                    <label>"Final reply " <input size="20" prop:value=move || reply.get() on:input=move |ev| reply.set(event_target_value(&ev)) /></label>
                    <button data-testid="tree-end-turn" on:click=move |_| run(Operation::EndTurn { by: by.get_untracked(), reply: reply.get_untracked(), reason: TurnEndReason::Replied })>"End its turn"</button>
                    <label>"Context " <input size="6" prop:value=move || used.get() on:input=move |ev| used.set(event_target_value(&ev)) /></label>
                    <label>" of " <input size="6" prop:value=move || window.get() on:input=move |ev| window.set(event_target_value(&ev)) /></label>
                    <button on:click=move |_| match (used.get_untracked().trim().parse(), window.get_untracked().trim().parse()) {
                        (Ok(u), Ok(w)) => run(Operation::Context { by: by.get_untracked(), used: u, window: w }),
                        _ => error.set("context: the tokens used and the window are whole numbers".into()),
                    }>"Set its context"</button>
                    <button data-testid="tree-context-full" on:click=move |_| run(Operation::ContextFull { by: by.get_untracked() })>"Its context is full"</button>
                    <button data-testid="tree-person-stop" on:click=move |_| run(Operation::PersonStop { name: by.get_untracked() })>"The person stops it"</button>
                    <button on:click=undo>"Undo"</button>
                </div>
                <div data-testid="tree">{move || info().map(|(i, lines)| drawn(&i, lines.first().cloned().unwrap_or_default()))}</div>
                <details open><summary>"team_read, as the main agent"</summary>
                    <pre data-testid="team-read">{move || team.with(|t| t.as_ref().map(|t| t.read("lead", 0)).unwrap_or_default())}</pre>
                </details>
                <h2>"Steps"</h2>
                <ol class="calls" data-testid="tree-steps">
                    {move || steps.get().into_iter().map(|s| view! {
                        <li class=if s.refused() { "refused" } else { "" }><b>{s.title()}</b> ": " {if s.refused() { "refused: " } else { "" }} {s.said().unwrap_or_else(|| "(no answer)".into())}
                            {s.delivered().iter().map(|d| view! { <pre class="delivered">{format!("delivered to {}:\n{}", d.to, d.text)}</pre> }).collect_view()}
                        </li>
                    }).collect_view()}
                </ol>
                <section class="tree-export">
                    <h2>"The session as a team case"</h2>
                    <p class="actions">
                        <button data-testid="tree-export-open" on:click=move |_| {
                            if let Err(e) = page.add_and_open("tree-session", &export()) { export_status.set(e); }
                        }>"Open in the editor"</button>" "
                        <button data-testid="tree-export-download" on:click=move |_| {
                            export_status.set(match crate::storage::download("tree-session.json", &export()) {
                                Ok(()) => "Downloaded tree-session.json.".into(),
                                Err(e) => e,
                            });
                        }>"Download"</button>" "
                        <button data-testid="tree-export-copy" on:click=move |_| {
                            crate::storage::copy_text(&export(), "Copied: paste it as a case file anywhere.".into(), move |s| export_status.set(s));
                        }>"Copy"</button>
                    </p>
                    <p role="status" data-testid="tree-export-status">{move || export_status.get()}</p>
                    <details><summary>"Its text"</summary><label for="tree-export" class="visually-hidden">"The session as a team case"</label><textarea id="tree-export" data-testid="tree-export" rows="12" readonly prop:value=export></textarea></details>
                </section>
            </Show>
        </section>
    }
}
