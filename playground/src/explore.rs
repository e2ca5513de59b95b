//! The delegation explorer: a main agent's mode, a subagent's mode, request options and grants,
//! and a call — the answer and its text, the steps that decided it (the subagent's own mode, then
//! the main agent's), and what team_request would answer. Every answer is `lembas_rules`'.

use lembas_rules::delegation::{explain, request_id, request_refusal, requested, Grant, Subagent};
use lembas_rules::permission::{Context, Mode, Request, RiskClass, Target};
use leptos::prelude::*;

fn mode_select(value: RwSignal<Mode>, label: &'static str) -> impl IntoView {
    view! {
        <label>{label} " "
            <select on:change=move |ev| { if let Some(m) = Mode::parse(&event_target_value(&ev)) { value.set(m); } }>
                {Mode::ALL.iter().map(|m| view! { <option value=m.as_str() selected=*m == value.get_untracked()>{m.as_str()}</option> }).collect_view()}
            </select>
        </label>
    }
}

#[component]
pub fn Delegation() -> impl IntoView {
    let main = RwSignal::new(Mode::Edit);
    let sub = RwSignal::new(Mode::Manual);
    let kinds = RwSignal::new(vec![RiskClass::Write]);
    let grant = RwSignal::new(String::new());
    let tool = RwSignal::new(String::from("bash"));
    let target = RwSignal::new(String::from("git push origin main"));
    let unattended = RwSignal::new(false);
    let kind_box = move |k: RiskClass| {
        view! {
            <label><input type="checkbox" prop:checked=move || kinds.with(|v| v.contains(&k))
                on:change=move |ev| kinds.update(|v| { v.retain(|x| *x != k); if event_target_checked(&ev) { v.push(k); } }) />
                {k.as_str()}</label>
        }
    };
    let answer = move || {
        let t = tool.get();
        let target_value = target.get();
        let shape = if t == "bash" {
            Target::Line(target_value)
        } else {
            Target::Path(target_value)
        };
        let Some(req) = Request::tool(&t, shape) else {
            return view! { <p class="error">"unknown tool " {t}</p> }.into_any();
        };
        let grants: Vec<Grant> = grant
            .get()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| Grant {
                tool: req.tool.to_string(),
                permission: req.permission.to_string(),
                pattern: l.trim().to_string(),
            })
            .collect();
        let mut session = Context::new(main.get());
        session.unattended = unattended.get();
        let request = kinds.get();
        let explained = explain(
            &req,
            &session,
            &Subagent {
                mode: sub.get(),
                request: &request,
                grants: &grants,
            },
            main.get(),
        );
        let asked = request_refusal(&req.tool, Some(req.class), &request)
            .unwrap_or_else(|| requested(&request_id(1)));
        let v = &explained.verdict;
        view! {
            <p>"Answer: " <b data-testid="delegation-answer">{v.answer.as_str()}</b></p>
            {v.text.clone().map(|t| view! { <p data-testid="delegation-text">{t}</p> })}
            {crate::trace_view::delegation_why(&explained)}
            <p>"team_request for " {req.tool.clone()} " would answer: " <i>{asked}</i></p>
        }
        .into_any()
    };
    view! {
        <section class="delegation">
            <div class="filters">
                {mode_select(main, "Main agent's mode")}
                {mode_select(sub, "Subagent's mode")}
                <span>"Request options: " {kind_box(RiskClass::Read)} {kind_box(RiskClass::Write)} {kind_box(RiskClass::Execute)}</span>
                <label><input type="checkbox" on:change=move |ev| unattended.set(event_target_checked(&ev)) />" unattended"</label>
            </div>
            <div class="filters">
                <label>"Tool "
                    <select on:change=move |ev| tool.set(event_target_value(&ev))>
                        {["bash", "read", "write", "edit", "list", "grep", "glob"].iter().map(|t| view! { <option value=*t>{*t}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Command line or path " <input data-testid="delegation-call" size="40" prop:value=move || target.get() on:input=move |ev| target.set(event_target_value(&ev)) /></label>
                <label>"Grants (a pattern a line) " <textarea rows="2" on:input=move |ev| grant.set(event_target_value(&ev))></textarea></label>
            </div>
            {answer}
        </section>
    }
}
