//! What each agent of the tree is told (subagents.md §13, team.md §10): the main agent's lead
//! block and session notes, a subagent's member block (a sub-manager's with the sub-manager
//! block in it). Every sentence is the spec data's (`blocks.json`, `loop.json` `context.note`).

use super::Team;
use crate::permission::Mode;
use crate::spec::{blocks, loop_spec};
use crate::text::fill;

/// Three or more newlines become two, and the block is trimmed (`blocks.about`).
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut newlines = 0;
    for c in text.chars() {
        if c == '\n' {
            newlines += 1;
            if newlines > 2 {
                continue;
            }
        } else {
            newlines = 0;
        }
        out.push(c);
    }
    out.trim().to_string()
}

impl Team {
    /// The main agent's block: `blocks/team_lead.md` whenever the team tools are offered.
    pub fn lead_block(&self) -> Option<String> {
        self.unavailable()
            .is_none()
            .then(|| blocks().team_lead.to_string())
    }

    /// The session notes the main agent is told about the tree (team.md §10; subagents.md §6):
    /// one agent allowed, or the size, and the open slots when min is above 1.
    pub fn notes(&self) -> Vec<String> {
        let notes = &loop_spec().context.note;
        if !self.offered {
            return Vec::new();
        }
        if self.max <= 1 {
            return vec![notes.team_one.to_string()];
        }
        let mut out = vec![fill(
            &notes.team,
            &[
                ("min", &self.min.to_string()),
                ("max", &self.max.to_string()),
            ],
        )];
        let slots = self.open_slots();
        if slots > 0 {
            out.push(fill(&notes.team_lead, &[("members", &slots.to_string())]));
        }
        out
    }

    /// A live subagent's block: `blocks/team_member.md` filled for it, with `instructions` (its
    /// agent's own), the sub-manager block for a sub-manager and the read-only sentence in plan
    /// mode. None for the main agent or a name that is not live.
    pub fn member_block(&self, name: &str, instructions: &str) -> Option<String> {
        let blocks = blocks();
        let a = self.live(name)?;
        let manager = self.parent_name(a)?;
        let read_only = if a.mode == Mode::Plan {
            blocks.read_only.as_ref()
        } else {
            ""
        };
        let lead = if a.manager {
            blocks.team_submanager.as_ref()
        } else {
            ""
        };
        let text = fill(
            &blocks.team_member,
            &[
                ("name", &a.name),
                ("id", &a.id),
                ("manager", &manager),
                ("role", &a.position),
                ("goal", &a.goal),
                ("instructions", instructions),
                ("read_only", read_only),
                ("lead", lead),
            ],
        );
        Some(tidy(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lead, Team, TeamOptions};
    use super::*;
    use serde_json::json;

    fn team(min: u32, max: u32) -> Team {
        Team::new(&TeamOptions {
            min,
            max,
            ..TeamOptions::default()
        })
    }

    #[test]
    fn the_lead_block_only_while_the_tools_are_offered() {
        assert!(team(1, 4)
            .lead_block()
            .is_some_and(|b| b.starts_with("# Leading subagents")));
        assert_eq!(team(1, 1).lead_block(), None);
    }

    #[test]
    fn notes_say_the_size_and_the_open_slots() {
        assert_eq!(
            team(1, 4).notes(),
            vec!["The team may have 1 to 4 agents, you included.".to_string()]
        );
        let notes = team(3, 4).notes();
        assert_eq!(notes.len(), 2);
        assert!(notes[1].contains("opened 2 slots"), "{notes:?}");
        assert_eq!(team(1, 1).notes(), vec![loop_spec().context.note.team_one]);
    }

    #[test]
    fn a_member_block_names_it_its_parent_and_its_goal() {
        let mut t = team(1, 4);
        let add = |t: &mut Team, args: serde_json::Value| {
            t.call(lead(), "team_add", &args).unwrap().unwrap()
        };
        add(
            &mut t,
            json!({"name": "docs", "role": "writes the docs", "task": "t", "goal": "ship it", "mode": "plan"}),
        );
        add(
            &mut t,
            json!({"name": "area", "role": "runs an area", "task": "t", "lead": true}),
        );
        let docs = t.member_block("docs", "").unwrap();
        assert!(docs.starts_with(
            "You are \"docs\" (s1), a subagent of this session, and you report to \"lead\".\nYour position: writes the docs\nThe team's goal: ship it\n"
        ), "{docs}");
        assert!(
            docs.contains(blocks().read_only.as_ref()),
            "plan mode: {docs}"
        );
        assert!(!docs.contains("# Directing an area"));
        assert!(!docs.contains("{{"), "every variable filled: {docs}");
        assert!(!docs.contains("\n\n\n"));
        let area = t.member_block("area", "Be brief.").unwrap();
        assert!(area.contains("# Directing an area"), "{area}");
        assert!(area.contains("\nBe brief.\n"));
        assert!(!area.contains(blocks().read_only.as_ref()));
        assert_eq!(t.member_block(lead(), ""), None);
        assert_eq!(t.member_block("nobody", ""), None);
    }
}
