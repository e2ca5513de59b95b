//! Delegation (subagents.md §7, spec 3.4.0): permissions are inherited and never widened.
//!
//! - [`check_mode`] — team_add's and team_assign's `mode` and `request` for a parent's mode;
//! - [`who_decides`] — a subagent's call: it runs, it goes to the person, or it is refused with
//!   its text (the steps of §7: its own mode with its grants; then the main agent's mode);
//! - [`request_refusal`] — team_request's own check;
//! - [`explain`] — the same call as a trace: each mode's parts and rules, whether the grants
//!   applied, and which step gave the answer;
//! - [`tighten`] — the main agent made stricter: every subagent looser than its parent is made as
//!   strict as it, down the tree; a looser switch changes no subagent.

use crate::json::{Fields, Json, Keys, ToJson};
use crate::permission::{
    decide, prepare, Action, Context, Decision, Mode, Request, RiskClass, Rule, RuleSource,
};
#[cfg(feature = "trace")]
use crate::permission::{trace, Trace};
use crate::spec::loop_spec;
use crate::text::fill;
use thiserror::Error;

/// A request option: a risk class a narrowed subagent may ask the main agent for.
pub fn request_kind(s: &str) -> Option<RiskClass> {
    if loop_spec().team.request.kinds.iter().any(|k| k == s) {
        RiskClass::parse(s)
    } else {
        None
    }
}

/// What team_add or team_assign gives a subagent: its mode and request options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentMode {
    /// Its mode.
    pub mode: Mode,
    /// The risk classes it may ask the main agent for (its request options).
    pub request: Vec<RiskClass>,
}

impl ToJson for SubagentMode {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("mode", self.mode)
            .with("request", &self.request)
            .done()
    }
}

/// Why team_add or team_assign refuses a subagent's mode or request options (§7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeRefusal {
    /// The mode is looser than the parent's (`wider`).
    Wider {
        /// The parent's mode.
        parent: Mode,
    },
    /// Request options for a mode no stricter than the parent's (`request_not_narrower`).
    RequestNotNarrower,
    /// A request option that is not one (`request_kind`).
    RequestKind {
        /// The word given.
        kind: String,
    },
}

impl ModeRefusal {
    /// The refusal's text, word for word (`loop.json` `team.texts`).
    pub fn text(&self) -> String {
        let texts = &loop_spec().team.texts;
        match self {
            ModeRefusal::Wider { parent } => {
                fill(&texts.wider, &[("parent_mode", parent.as_str())])
            }
            ModeRefusal::RequestNotNarrower => texts.request_not_narrower.to_string(),
            ModeRefusal::RequestKind { kind } => fill(&texts.request_kind, &[("kind", kind)]),
        }
    }
}

/// The mode check of team_add / team_assign for a parent in `parent` (§7): the refusal, or the
/// mode and options the subagent gets. In order: `wider`, `request_not_narrower`, `request_kind`.
pub fn check_mode(
    parent: Mode,
    mode: Option<Mode>,
    request: &[&str],
) -> Result<SubagentMode, ModeRefusal> {
    let mode = mode.unwrap_or(parent);
    if mode < parent {
        return Err(ModeRefusal::Wider { parent });
    }
    if !request.is_empty() && mode <= parent {
        return Err(ModeRefusal::RequestNotNarrower);
    }
    let mut kinds: Vec<RiskClass> = Vec::new();
    for k in request {
        let kind = request_kind(k).ok_or_else(|| ModeRefusal::RequestKind {
            kind: (*k).to_string(),
        })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(SubagentMode {
        mode,
        request: kinds,
    })
}

/// A grant the main agent gave a subagent (team_decide): an allow rule for it alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The tool it allows.
    pub tool: String,
    /// The tool's permission key (edit and write share `edit`).
    pub permission: String,
    /// The pattern it allows (a path or a command pattern).
    pub pattern: String,
}

impl Grant {
    /// The shape of a grant [`Grant::list_from_json`] reads.
    pub fn shape() -> crate::schema::Shape {
        use crate::schema::{Field, Shape};
        Shape::Object(vec![
            Field::required("tool", Shape::Text, "The tool granted."),
            Field::required("pattern", Shape::Text, "The pattern granted."),
            Field::optional(
                "permission",
                Shape::Text,
                "Its permission key (default: the tool's).",
            ),
        ])
    }

    /// Reads `[{ tool, pattern, permission? }]`; the permission key is the tool's own when not given.
    pub fn list_from_json(
        path: &str,
        list: Option<&Vec<serde_json::Value>>,
    ) -> Result<Vec<Grant>, crate::input::InputError> {
        let mut grants = Vec::new();
        for (i, g) in list.into_iter().flatten().enumerate() {
            let p = crate::input::index(path, i);
            let o = crate::input::Obj::new(&p, g)?;
            o.only(&["tool", "pattern", "permission"])?;
            let tool = o.str("tool")?;
            let permission = match o.opt_str("permission")? {
                Some(p) => p.to_string(),
                None => crate::spec::spec()
                    .tool(tool)
                    .map_or_else(|| tool.to_string(), |t| t.permission.to_string()),
            };
            grants.push(Grant {
                tool: tool.to_string(),
                permission,
                pattern: o.str("pattern")?.to_string(),
            });
        }
        Ok(grants)
    }

    pub(crate) fn rule(&self) -> Rule {
        Rule::new(
            &self.permission,
            &self.pattern,
            Action::Allow,
            RuleSource::Grant,
        )
    }
}

/// Who decides. Ordered loosest first, so the strictest of two is their `max()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CallAnswer {
    /// It runs.
    Run,
    /// Nobody in the tree can allow it: an approval card to the person, naming the subagent.
    Person,
    /// Refused, with its text.
    Refused,
}

words!(CallAnswer { Run => "run", Person => "person", Refused => "refused" });

impl CallAnswer {
    /// The answer a decision gives a call of the main agent's own.
    pub fn of(action: Action) -> CallAnswer {
        match action {
            Action::Allow => CallAnswer::Run,
            Action::Ask => CallAnswer::Person,
            Action::Deny => CallAnswer::Refused,
        }
    }
}

/// Who decides a subagent's call, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Who decides.
    pub answer: CallAnswer,
    /// The refusal's text (for `refused`).
    pub text: Option<String>,
    /// The call in the subagent's own mode, with its grants.
    pub own: Decision,
    /// The call in the main agent's mode (no grants), when it was asked.
    pub main: Option<Decision>,
}

impl ToJson for Verdict {
    /// `text` and `main` are left out when there is none.
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("answer", self.answer)
            .with_some("text", &self.text)
            .with("own", &self.own)
            .with_some("main", &self.main)
            .done()
    }
}

impl ToJson for Grant {
    fn write<J: Json>(&self, keys: Keys, out: &mut J) {
        Fields::of(out, keys)
            .with("tool", &self.tool)
            .with("permission", &self.permission)
            .with("pattern", &self.pattern)
            .done()
    }
}

serialize_as_json!(SubagentMode, Verdict, Grant);

/// A subagent's place, for [`who_decides`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subagent<'a> {
    /// Its mode.
    pub mode: Mode,
    /// Its request options.
    pub request: &'a [RiskClass],
    /// The grants the main agent gave it.
    pub grants: &'a [Grant],
}

/// Who decides a subagent's call (§7). `session` holds the session's rules and approvals (its
/// mode is not read); `main` is the main agent's mode. A grant applies only where the main
/// agent's own mode would allow the call.
pub fn who_decides(req: &Request, session: &Context, sub: &Subagent<'_>, main: Mode) -> Verdict {
    let texts = &loop_spec().team.texts;
    let prepared = prepare(req, session);
    // The main agent's own mode on the call; then the subagent's, with the grants that apply.
    let main_decision = decide(&prepared, session, main, &[], false);
    let grants = grants_applied(sub, main_decision.action);
    let own = decide(&prepared, session, sub.mode, &grants, false);
    let refused = |text: String, own: Decision, main: Option<Decision>| Verdict {
        answer: CallAnswer::Refused,
        text: Some(text),
        own,
        main,
    };
    match own.action {
        Action::Allow => Verdict {
            answer: CallAnswer::Run,
            text: None,
            own,
            main: None,
        },
        Action::Deny => refused(own.reason.to_string(), own, None),
        Action::Ask => match main_decision.action {
            Action::Allow => {
                let text = if sub.request.contains(&req.class) {
                    texts.requestable.to_string()
                } else {
                    texts.not_delegated.to_string()
                };
                refused(text, own, Some(main_decision))
            }
            Action::Deny => refused(main_decision.reason.to_string(), own, Some(main_decision)),
            Action::Ask if session.unattended => refused(
                crate::spec::spec()
                    .modes_file
                    .reasons
                    .unattended
                    .to_string(),
                own,
                Some(main_decision),
            ),
            Action::Ask => Verdict {
                answer: CallAnswer::Person,
                text: None,
                own,
                main: Some(main_decision),
            },
        },
    }
}

/// The subagent's grants as rules, where they apply: only where the main agent's own mode allows
/// the call (§7).
fn grants_applied(sub: &Subagent<'_>, main: Action) -> Vec<Rule> {
    if main == Action::Allow {
        sub.grants.iter().map(Grant::rule).collect()
    } else {
        Vec::new()
    }
}

#[cfg(feature = "trace")]
/// Which step of §7 gave a subagent's call its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combined {
    /// Its own mode (with its grants) allows the call: it runs.
    OwnAllows,
    /// Its own mode refuses the call.
    OwnRefuses,
    /// Its own mode asks and the main agent's allows: refused, with team_request's way to ask its
    /// parent when the call's risk class is one of its request options (`requestable`), or as
    /// not delegated.
    AskParent {
        /// Whether the call's class is one of its request options.
        requestable: bool,
    },
    /// Its own mode asks and the main agent's refuses.
    MainRefuses,
    /// Both ask and nobody can answer (unattended): refused.
    NobodyToAsk,
    /// Both ask: the person decides.
    PersonDecides,
}

#[cfg(feature = "trace")]
/// What became of a subagent's grants for a call (§7: a grant applies only where the main
/// agent's own mode allows the call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantUse {
    /// It has none.
    None,
    /// They were judged with its own mode's rules.
    Applied,
    /// It has some, but the main agent's mode does not allow the call: not used.
    Unused,
}

#[cfg(feature = "trace")]
/// A subagent's call explained: each mode's trace, whether its grants applied, which step gave
/// the answer, and the answer ([`who_decides`]'s own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegationTrace {
    /// The call in the subagent's own mode, with its grants where they applied.
    pub own: Trace,
    /// The call in the main agent's mode (no grants).
    pub main: Trace,
    /// What became of the subagent's grants.
    pub grants: GrantUse,
    /// The step that gave the answer.
    pub combined: Combined,
    /// Why team_add would refuse this subagent's mode and request options under this main
    /// agent's mode: a setup no tree can have; none when it can.
    pub impossible: Option<ModeRefusal>,
    /// The answer.
    pub verdict: Verdict,
}

#[cfg(feature = "trace")]
/// Explains [`who_decides`] for a call: the same steps, traced.
pub fn explain(
    req: &Request,
    session: &Context,
    sub: &Subagent<'_>,
    main: Mode,
) -> DelegationTrace {
    let verdict = who_decides(req, session, sub, main);
    let prepared = prepare(req, session);
    let main_trace = trace(&prepared, session, main, &[], false);
    let grants = grants_applied(sub, main_trace.decision.action);
    let own = trace(&prepared, session, sub.mode, &grants, false);
    let combined = match (verdict.answer, verdict.main.as_ref().map(|m| m.action)) {
        (CallAnswer::Run, _) => Combined::OwnAllows,
        (CallAnswer::Person, _) => Combined::PersonDecides,
        (CallAnswer::Refused, None) => Combined::OwnRefuses,
        (CallAnswer::Refused, Some(Action::Allow)) => Combined::AskParent {
            requestable: sub.request.contains(&req.class),
        },
        (CallAnswer::Refused, Some(Action::Deny)) => Combined::MainRefuses,
        (CallAnswer::Refused, Some(Action::Ask)) => Combined::NobodyToAsk,
    };
    let request: Vec<&str> = sub.request.iter().map(|k| k.as_str()).collect();
    DelegationTrace {
        own,
        main: main_trace,
        grants: match (sub.grants.is_empty(), grants.is_empty()) {
            (true, _) => GrantUse::None,
            (false, false) => GrantUse::Applied,
            (false, true) => GrantUse::Unused,
        },
        combined,
        impossible: check_mode(main, Some(sub.mode), &request).err(),
        verdict,
    }
}

/// team_request's check (§7): refused with `not_requestable` when the tool's risk class is not in
/// the subagent's request options; None when it may ask.
pub fn request_refusal(
    tool: &str,
    class: Option<RiskClass>,
    request: &[RiskClass],
) -> Option<String> {
    if class.is_some_and(|c| request.contains(&c)) {
        return None;
    }
    let kinds: Vec<&str> = request.iter().map(|k| k.as_str()).collect();
    let kinds = if kinds.is_empty() {
        loop_spec().team.texts.no_kinds.to_string()
    } else {
        kinds.join(", ")
    };
    Some(fill(
        &loop_spec().team.texts.not_requestable,
        &[("tool", tool), ("kinds", &kinds)],
    ))
}

/// The answer to a request that was posted, with its id (`r1`).
pub fn requested(id: &str) -> String {
    fill(&loop_spec().team.texts.requested, &[("id", id)])
}

/// A request's id: `r` and its number in the session.
pub fn request_id(n: u64) -> String {
    format!("{}{n}", loop_spec().team.request.id_prefix)
}

/// A subagent in a tree handed to [`tighten`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeMember {
    /// Its name.
    pub name: String,
    /// Its parent's name.
    pub parent: String,
    /// Its mode.
    pub mode: Mode,
}

/// A tree [`tighten`] cannot read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DelegationError {
    /// An agent's parent is not in the list.
    #[error("agents[{index}].parent: unknown agent \"{parent}\"")]
    UnknownParent {
        /// The agent's place in the list.
        index: usize,
        /// The parent named.
        parent: String,
    },
}

/// The main agent's mode became `main`: every subagent looser than its parent is made as strict as
/// it, down the tree; a stricter one keeps its own (§7). Each one's mode after, in the order given.
pub fn tighten(main: Mode, agents: &[TreeMember]) -> Result<Vec<(String, Mode)>, DelegationError> {
    let lead = &loop_spec().team.names.lead;
    let mut done: Vec<(String, Mode)> = Vec::with_capacity(agents.len());
    let mode_of = |name: &str, done: &[(String, Mode)]| -> Option<Mode> {
        if name == lead {
            Some(main)
        } else {
            done.iter().find(|(n, _)| n == name).map(|(_, m)| *m)
        }
    };
    // Parents first; a parent may be listed after its subagent.
    let mut pending: Vec<usize> = (0..agents.len()).collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|&i| {
            let Some(a) = agents.get(i) else { return false };
            match mode_of(&a.parent, &done) {
                Some(parent) => {
                    done.push((a.name.clone(), a.mode.max(parent)));
                    false
                }
                None => true,
            }
        });
        if pending.len() == before {
            let i = pending.first().copied().unwrap_or(0);
            let parent = agents.get(i).map(|a| a.parent.clone()).unwrap_or_default();
            return Err(DelegationError::UnknownParent { index: i, parent });
        }
    }
    Ok(agents
        .iter()
        .filter_map(|a| done.iter().find(|(n, _)| *n == a.name).cloned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::{evaluate, Target};
    use proptest::prelude::*;

    fn bash(line: &str) -> Request {
        Request::bash(line)
    }

    #[test]
    fn mode_checks_in_order() {
        assert_eq!(check_mode(Mode::Edit, None, &[]).unwrap().mode, Mode::Edit);
        let wider = check_mode(Mode::Manual, Some(Mode::Edit), &["delete"]).unwrap_err();
        assert_eq!(
            wider,
            ModeRefusal::Wider {
                parent: Mode::Manual
            }
        );
        assert!(wider.text().contains("(manual)"));
        assert!(check_mode(Mode::Edit, None, &["delete"])
            .unwrap_err()
            .text()
            .starts_with("Request options"));
        assert_eq!(
            check_mode(Mode::Edit, Some(Mode::Plan), &["interact"])
                .unwrap_err()
                .text(),
            "interact is not a request option: use read, write or execute."
        );
        assert_eq!(
            check_mode(Mode::Edit, Some(Mode::Plan), &["read", "read"])
                .unwrap()
                .request,
            [RiskClass::Read]
        );
    }

    #[test]
    fn tighten_down_the_tree() {
        let p = |n: &str, parent: &str, m| TreeMember {
            name: n.into(),
            parent: parent.into(),
            mode: m,
        };
        let out = tighten(
            Mode::Manual,
            &[p("b", "a", Mode::Auto), p("a", "lead", Mode::Edit)],
        )
        .unwrap();
        assert_eq!(
            out,
            [("b".into(), Mode::Manual), ("a".into(), Mode::Manual)]
        );
        assert!(tighten(Mode::Auto, &[p("x", "nobody", Mode::Edit)]).is_err());
    }

    #[test]
    fn unattended_refuses_what_would_reach_the_person() {
        let mut ctx = Context::new(Mode::Edit);
        ctx.unattended = true;
        let sub = Subagent {
            mode: Mode::Edit,
            request: &[],
            grants: &[],
        };
        let v = who_decides(&bash("git push origin main"), &ctx, &sub, Mode::Edit);
        assert_eq!(v.answer, CallAnswer::Refused);
    }

    fn mode() -> impl Strategy<Value = Mode> {
        prop::sample::select(Mode::ALL.to_vec())
    }

    fn call() -> impl Strategy<Value = Request> {
        let lines = prop::sample::select(vec![
            "git push origin main",
            "git status",
            "npm test",
            "rm -rf /",
            "rm -rf build",
            "echo hi > a.txt",
            "git status && npm test",
            "sudo apt install x",
            "cat .env",
        ]);
        let paths = prop::sample::select(vec![
            "src/a.ts",
            ".env",
            "../x",
            "/etc/passwd",
            ".lembas/plans/p.md",
            ".git/hooks/x",
        ]);
        let tools = prop::sample::select(vec!["read", "write", "edit", "list", "team_send"]);
        prop_oneof![
            lines.prop_map(bash),
            (tools, paths).prop_map(|(t, p)| Request::tool(t, Target::Path(p.into())).unwrap()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// A subagent's answer is never looser than its main agent's for the same call.
        #[test]
        fn a_subagent_is_never_looser_than_its_main_agent(
            req in call(), main in mode(), extra in 0usize..4, kinds in prop::sample::subsequence(vec![RiskClass::Read, RiskClass::Write, RiskClass::Execute], 0..3),
            grant in prop::option::of(prop::sample::select(vec!["git push *", "*", "src/*", "rm *"])),
            unattended in any::<bool>(),
        ) {
            let sub_mode = Mode::ALL.get((main.index() + extra).min(3)).copied().unwrap();
            let mut ctx = Context::new(main);
            ctx.unattended = unattended;
            let grants: Vec<Grant> = grant.map(|g| Grant { tool: req.tool.to_string(), permission: req.permission.to_string(), pattern: g.into() }).into_iter().collect();
            let v = who_decides(&req, &ctx, &Subagent { mode: sub_mode, request: &kinds, grants: &grants }, main);
            let main_answer = CallAnswer::of(evaluate(&req, &ctx).action);
            prop_assert!(v.answer >= main_answer, "{:?} for the subagent, {:?} for the main agent", v.answer, main_answer);
            if v.answer == CallAnswer::Refused { prop_assert!(v.text.is_some()); }
        }
    }
}
