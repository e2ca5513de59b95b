//! Why the rules answered a call, as a trace (the Editor's Why and the Delegation tab): each part
//! of the call in order with the rules that matched it, the strictest part, what the mode did
//! with an ask; for a subagent's call, both modes and how §7 combines them, a note for grants not
//! used and a setup no tree can have. The steps are `lembas_rules`' traces; this file writes them
//! in words.

use lembas_rules::delegation::{Combined, DelegationTrace, GrantUse};
use lembas_rules::permission::{DecidedBy, Decision, PartTrace, Rule, Trace, TracedPart};
use leptos::prelude::*;

/// The article before a word: `an approval`, `a session`.
fn a_or_an(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// One decision in a line: its action, its reason, and what decided it.
fn decision_line(d: &Decision) -> String {
    format!(
        "{} — {} (decided by {})",
        d.action.as_str(),
        d.reason,
        decided_by_words(&d.decided_by)
    )
}

/// What decided a call, in words.
fn decided_by_words(by: &DecidedBy) -> String {
    match by {
        DecidedBy::Hardline { entry, part } => {
            format!("the hardline entry {entry}, which found \"{part}\": no mode or rule allows it")
        }
        DecidedBy::Rule {
            source,
            permission,
            pattern,
            action,
        } => format!(
            "{} {} rule: {permission} \"{pattern}\" → {}",
            a_or_an(source.as_str()),
            source.as_str(),
            action.as_str()
        ),
        DecidedBy::Mode { mode, class } => format!(
            "the mode {} for {} {} call, no rule matching it",
            mode.as_str(),
            a_or_an(class.as_str()),
            class.as_str()
        ),
        DecidedBy::OutsideRoot { path } => format!("the path {path}, outside the project"),
        DecidedBy::Unattended => "nobody to ask (unattended): what would ask is refused".into(),
        DecidedBy::Opaque { construct } => format!(
            "the line's {}, which the command reader does not read exactly: it fails closed",
            construct.as_str()
        ),
        DecidedBy::UnknownTarget { entry, part } => {
            format!("\"{part}\", whose target is known only when it runs ({entry})")
        }
        DecidedBy::Network { part } => {
            format!("the redirection \"{part}\", which opens a network connection")
        }
    }
}

/// A part of a call in words.
fn part_words(part: &TracedPart) -> String {
    match part {
        TracedPart::Command(text) if text.is_empty() => "the empty line".into(),
        TracedPart::Command(text) => format!("the command \"{text}\""),
        TracedPart::Path {
            path,
            permission,
            class,
        } => format!(
            "{} (as {permission}, {} {} call)",
            if path.is_empty() {
                "an empty path, read as the project root".to_string()
            } else {
                format!("the path {path}")
            },
            a_or_an(class.as_str()),
            class.as_str()
        ),
        TracedPart::Hardline { entry, part } => {
            format!("\"{part}\", which the hardline entry {entry} refuses in every mode")
        }
        TracedPart::Guarded { entry, part } => {
            format!("the path {part}, guarded by the hardline entry {entry}: asked at least")
        }
        TracedPart::Opaque(construct) => format!(
            "a construct the command reader does not read exactly ({}): the line fails closed",
            construct.as_str()
        ),
        TracedPart::UnknownTarget { entry, part } => {
            format!("\"{part}\", whose target is known only when it runs ({entry} would refuse it)")
        }
        TracedPart::Contents(folder) => {
            format!(
                "what is inside {folder}, read whole: judged by the read rules that guard a file"
            )
        }
        TracedPart::Network(part) => {
            format!(
                "the redirection \"{part}\", which opens a network connection: no rule allows it"
            )
        }
        TracedPart::Tool => "the tool itself (nothing to match but \"*\")".into(),
    }
}

/// A rule in words: `a defaults rule: bash "echo *" → allow`.
fn rule_words(rule: &Rule) -> String {
    let source = rule.source.as_str();
    format!(
        "{} {source} rule: {} \"{}\" → {}",
        a_or_an(source),
        rule.permission,
        rule.pattern,
        rule.action.as_str()
    )
}

/// One part's line: what it is, the rules that matched, its decision.
fn part_view(p: &PartTrace, strictest: bool) -> impl IntoView {
    let rules = match p.matched.as_slice() {
        [] if !p.uncovered.is_empty() => String::new(),
        [] => match &p.part {
            TracedPart::Command(_) | TracedPart::Path { .. } | TracedPart::Tool => {
                "no rule matches it".to_string()
            }
            _ => String::new(),
        },
        [one] => format!("one rule matches it: {}", rule_words(one)),
        many => format!(
            "{} rules match it, the last one decides: {}",
            many.len(),
            many.iter().map(rule_words).collect::<Vec<_>>().join("; ")
        ),
    };
    // A rule whose pattern matches but that does not cover the part: a default allow of a command
    // outside its program's read-only forms, an approval of a command with an effect, …
    let uncovered = (!p.uncovered.is_empty()).then(|| {
        format!(
            " — matched but not covering it (outside the read-only forms a default names, an effect \
             no approval covers, an approval of a stricter mode, or plan mode): {}",
            p.uncovered.iter().map(rule_words).collect::<Vec<_>>().join("; ")
        )
    });
    view! {
        <li class:strictest=strictest>
            {part_words(&p.part)} {(!rules.is_empty()).then(|| format!(" — {rules}"))}
            {uncovered}
            " → " <b>{p.decision.action.as_str()}</b> {format!(" — {}", p.decision.reason)}
            {strictest.then_some(view! { " " <i>"(the strictest part)"</i> })}
        </li>
    }
}

/// A mode's trace: each part, the strictest, and what the mode made of it.
fn trace_view(t: &Trace) -> impl IntoView {
    let strictest = t.parts.get(t.strictest).map(|p| &p.decision);
    let changed = strictest.filter(|d| **d != t.decision).map(|d| {
        format!(
            "The strictest part {} — then {}.",
            d.action.as_str(),
            decision_line(&t.decision)
        )
    });
    let intro = if t.parts.len() == 1 {
        format!("In {} mode, the call is one part:", t.mode.as_str())
    } else {
        format!(
            "In {} mode, the call has {} parts, each judged on its own; the strictest decides:",
            t.mode.as_str(),
            t.parts.len()
        )
    };
    view! {
        <p>{intro}</p>
        <ol class="steps">
            {t.parts.iter().enumerate().map(|(i, p)| part_view(p, t.parts.len() > 1 && i == t.strictest)).collect_view()}
        </ol>
        {changed.map(|c| view! { <p>{c}</p> })}
    }
}

/// How §7 combined the two modes, in words.
fn combined_words(c: Combined) -> &'static str {
    match c {
        Combined::OwnAllows => "its own mode allows the call, so it runs; the main agent's mode is not needed.",
        Combined::OwnRefuses => "its own mode refuses the call: refused, whatever the main agent's mode says.",
        Combined::AskParent { requestable: true } => "its own mode asks and the main agent's allows: refused, and it may ask its parent with team_request (the call's kind is one of its request options).",
        Combined::AskParent { requestable: false } => "its own mode asks and the main agent's allows: refused as not delegated (the call's kind is not one of its request options).",
        Combined::MainRefuses => "its own mode asks and the main agent's refuses: refused, with the main agent's reason.",
        Combined::NobodyToAsk => "both modes ask and nobody can answer (unattended): refused.",
        Combined::PersonDecides => "both modes ask: the person decides (an approval card naming the subagent).",
    }
}

/// Why a permission case's call got its decision.
pub fn permission_why(t: &Trace) -> impl IntoView {
    view! {
        <div class="why" data-testid="why"><h2>"Why"</h2>
            {trace_view(t)}
            <p>"The decision: " {decision_line(&t.decision)}</p>
        </div>
    }
}

/// Why a subagent's call got its answer: both modes, and how they combine.
pub fn delegation_why(d: &DelegationTrace) -> impl IntoView {
    let grants = if d.grants == GrantUse::Applied {
        ", with its grants"
    } else {
        ""
    };
    let unused = (d.grants == GrantUse::Unused).then_some(());
    view! {
        <div class="why" data-testid="why"><h2>"Why"</h2>
            {d.impossible.as_ref().map(|r| view! {
                <p class="error" data-testid="why-impossible">"This setup cannot happen: team_add would refuse a subagent in this mode under this main agent — " {r.text()}</p>
            })}
            <h3>{format!("1. In the subagent's mode ({}{grants})", d.own.mode.as_str())}</h3>
            {trace_view(&d.own)}
            <h3>{format!("2. In the main agent's mode ({})", d.main.mode.as_str())}</h3>
            {trace_view(&d.main)}
            {unused.map(|()| view! { <p class="note" data-testid="why-grants">"The subagent's grants are not used here: a grant applies only where the main agent's own mode allows the call (subagents.md §7)."</p> })}
            <p data-testid="why-combined">"How they combine (subagents.md §7): " {combined_words(d.combined)}</p>
            <p>"The answer: " <b>{d.verdict.answer.as_str()}</b> {d.verdict.text.clone().map(|t| format!(" — {t}"))}</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lembas_rules::permission::{Mode, RiskClass};

    #[test]
    fn a_class_takes_its_article_and_an_empty_path_is_said() {
        let by = DecidedBy::Mode {
            mode: Mode::Edit,
            class: RiskClass::Interact,
        };
        assert_eq!(
            decided_by_words(&by),
            "the mode edit for an interact call, no rule matching it"
        );
        let empty = TracedPart::Path {
            path: String::new(),
            permission: "read".into(),
            class: RiskClass::Read,
        };
        assert_eq!(
            part_words(&empty),
            "an empty path, read as the project root (as read, a read call)"
        );
    }
}
