//! The session's plan (plan mode, end to end): a title and its steps, each pending, in progress or
//! completed — what `plan_write` writes, `plan_update` marks and `plan_submit` puts to the person.
//! It is kept as a Markdown file in `.lembas/plans/` (the one place plan mode may write, by the
//! default rules) and sent to an editor as ACP's `plan` update. The tools' answers are the texts
//! of their spec files (`rules/spec/tools/plan_*.json`, this project's own).

use lembas_rules::spec::tool_file;
use lembas_rules::text::fill;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being done.
    InProgress,
    /// Done.
    Completed,
}

impl StepStatus {
    /// The word a tool's answer and the file use.
    pub fn word(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::InProgress => "in progress",
            StepStatus::Completed => "completed",
        }
    }

    /// The box the Markdown file draws before a step.
    fn mark(self) -> &'static str {
        match self {
            StepStatus::Pending => "[ ]",
            StepStatus::InProgress => "[~]",
            StepStatus::Completed => "[x]",
        }
    }
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What is done, in a sentence.
    pub text: String,
    /// Where it stands.
    pub status: StepStatus,
}

/// The plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// What it is for.
    pub title: String,
    /// Its steps, in order.
    pub steps: Vec<PlanStep>,
}

/// `plan_write`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    title: String,
    steps: Vec<String>,
}

/// `plan_update`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateArgs {
    step: usize,
    status: StepStatus,
    #[serde(default)]
    text: Option<String>,
}

/// A text of a plan tool's spec file (`texts.<key>`), filled.
pub fn text(tool: &str, key: &str, values: &[(&str, &str)]) -> String {
    let template = tool_file(tool)
        .and_then(|f| f.get("texts")?.get(key)?.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{tool}: {key}"));
    fill(&template, values)
}

/// A tool file's `unavailable` text.
pub fn unavailable(tool: &str) -> String {
    tool_file(tool)
        .and_then(|f| f.get("unavailable")?.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{tool} is unavailable"))
}

/// Why arguments were not read, in words.
fn what_is_wrong(e: &serde_json::Error) -> String {
    e.to_string()
        .split(" at line ")
        .next()
        .unwrap_or_default()
        .to_string()
}

impl Plan {
    /// The plan `plan_write` writes, every step pending; the tool's `bad` text when the
    /// arguments are not a title and at least one step.
    pub fn written(args: &Value) -> Result<Plan, String> {
        let bad = |what: &str| text("plan_write", "bad", &[("what", what)]);
        let args: WriteArgs =
            serde_json::from_value(args.clone()).map_err(|e| bad(&what_is_wrong(&e)))?;
        if args.title.trim().is_empty() {
            return Err(bad("the title is empty"));
        }
        let steps: Vec<PlanStep> = args
            .steps
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .map(|text| PlanStep {
                text,
                status: StepStatus::Pending,
            })
            .collect();
        if steps.is_empty() {
            return Err(bad("it has no step"));
        }
        Ok(Plan {
            title: args.title.trim().to_string(),
            steps,
        })
    }

    /// Marks a step as `plan_update` says: its answer, or the `bad` text naming what is wrong.
    pub fn update(&mut self, args: &Value) -> Result<String, String> {
        let bad = |what: &str| text("plan_update", "bad", &[("what", what)]);
        let args: UpdateArgs =
            serde_json::from_value(args.clone()).map_err(|e| bad(&what_is_wrong(&e)))?;
        let count = self.steps.len();
        let step = args
            .step
            .checked_sub(1)
            .and_then(|at| self.steps.get_mut(at))
            .ok_or_else(|| bad(&format!("there is no step {} (1 to {count})", args.step)))?;
        step.status = args.status;
        if let Some(words) = args.text.map(|t| t.trim().to_string()) {
            if !words.is_empty() {
                step.text = words;
            }
        }
        Ok(text(
            "plan_update",
            "updated",
            &[
                ("step", &args.step.to_string()),
                ("status", args.status.word()),
            ],
        ))
    }

    /// The plan as its Markdown file: the title, then a line a step.
    pub fn markdown(&self) -> String {
        let mut out = format!("# {}\n\n", self.title);
        for (n, step) in self.steps.iter().enumerate() {
            out.push_str(&format!(
                "{}. {} {}\n",
                n + 1,
                step.status.mark(),
                step.text
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_is_written_marked_and_drawn() {
        let mut plan =
            Plan::written(&json!({"title": "Fix the parser", "steps": ["Read it", " ", "Fix it"]}))
                .unwrap();
        assert_eq!(plan.steps.len(), 2);
        assert_eq!(
            plan.update(&json!({"step": 2, "status": "in_progress"})),
            Ok("Step 2 is in progress.".to_string())
        );
        assert_eq!(
            plan.markdown(),
            "# Fix the parser\n\n1. [ ] Read it\n2. [~] Fix it\n"
        );
    }

    #[test]
    fn bad_arguments_are_named() {
        let no_steps = Plan::written(&json!({"title": "x", "steps": []})).unwrap_err();
        assert_eq!(no_steps, "The plan was not written: it has no step.");
        let extra = Plan::written(&json!({"title": "x", "steps": ["a"], "run": "rm"})).unwrap_err();
        assert!(extra.contains("unknown field `run`"), "{extra}");
        let mut plan = Plan::written(&json!({"title": "x", "steps": ["a"]})).unwrap();
        let beyond = plan
            .update(&json!({"step": 0, "status": "completed"}))
            .unwrap_err();
        assert_eq!(
            beyond,
            "The plan was not changed: there is no step 0 (1 to 1)."
        );
        let word = plan
            .update(&json!({"step": 1, "status": "done"}))
            .unwrap_err();
        assert!(word.contains("unknown variant `done`"), "{word}");
    }
}
