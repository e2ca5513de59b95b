//! The main agent's managing tools (subagents.md §7, §8): team_decide, team_assign and
//! team_replace.

use super::tools::{done, refuse, ToolAnswer};
use super::{lead, team_spec, AgentState, RoomKind, Team};
use crate::delegation::{check_mode, Grant};
use crate::input::{InputError, Obj};
use crate::permission::Mode;
use crate::spec::spec;
use crate::text::fill;

impl Team {
    /// team_decide (§7): a grant when allowed; the subagent is told either way.
    pub(super) fn decide(&mut self, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let id = a.str("id")?;
        let allow = a
            .opt_bool("allow")?
            .ok_or_else(|| InputError::missing("args.allow"))?;
        let note = a.opt_str("note")?.map(str::trim).unwrap_or("");
        let Some(r) = self.requests.iter().find(|r| r.id == id && r.open).cloned() else {
            return refuse(fill(&texts.no_request, &[("id", id)]));
        };
        let Some(sub) = self.by_id(&r.from).filter(|s| !s.state.is_end()) else {
            return refuse(fill(&texts.no_request, &[("id", id)]));
        };
        let name = sub.name.clone();
        for x in self.requests.iter_mut().filter(|x| x.id == id) {
            x.open = false;
        }
        if allow {
            let permission = spec()
                .tool(&r.tool)
                .map_or_else(|| r.tool.clone(), |x| x.permission.to_string());
            if let Some(s) = self.by_id_mut(&r.from) {
                s.grants.push(Grant {
                    tool: r.tool.clone(),
                    permission,
                    pattern: r.pattern.clone(),
                });
            }
        }
        let head = fill(
            if allow {
                &texts.decision_allowed
            } else {
                &texts.decision_refused
            },
            &[("tool", &r.tool), ("pattern", &r.pattern)],
        );
        let body = if note.is_empty() {
            head
        } else {
            format!("{head}\n\n{note}")
        };
        self.post(
            lead(),
            vec![name.clone()],
            vec![name.clone()],
            body,
            RoomKind::Decision,
            id,
        );
        let decision = if allow {
            &texts.allowed
        } else {
            &texts.refused
        };
        done(fill(
            &texts.decided,
            &[("decision", decision), ("id", id), ("name", &name)],
        ))
    }

    /// team_assign (§8): a new task for a subagent that has not ended.
    pub(super) fn assign(&mut self, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let name = a.str("name")?;
        let task = a.str("task")?;
        let role = a.opt_str("role")?.map(str::trim).filter(|r| !r.is_empty());
        let mode = a.opt_word("mode", "mode", Mode::parse)?;
        let Some(target) = self.live(name).filter(|x| x.parent.is_some()) else {
            let ended = self
                .agents
                .iter()
                .any(|x| x.name == name && x.state.is_end());
            return refuse(if ended {
                fill(&texts.has_ended, &[("name", name)])
            } else {
                self.unknown(name)
            });
        };
        let (tid, tmode, trequest) = (target.id.clone(), target.mode, target.request.clone());
        let parent_name = match a.opt_str("parent")? {
            Some(p) => p.to_string(),
            None => self
                .parent_name(target)
                .unwrap_or_else(|| lead().to_string()),
        };
        let Some(parent) = self.live(&parent_name) else {
            return refuse(self.unknown(&parent_name));
        };
        if !parent.manager {
            return refuse(fill(&texts.not_manager, &[("name", &parent_name)]));
        }
        let (pid, pmode) = (parent.id.clone(), parent.mode);
        if self.subtree(&tid).contains(&pid) {
            return refuse(fill(
                &texts.cycle,
                &[("name", name), ("parent", &parent_name)],
            ));
        }
        let (new_mode, new_request) = match mode {
            None => (
                tmode.max(pmode),
                if tmode.max(pmode) > pmode {
                    trequest
                } else {
                    Vec::new()
                },
            ),
            Some(m) => {
                let kinds: Vec<&str> = if m > pmode {
                    trequest.iter().map(|k| k.as_str()).collect()
                } else {
                    Vec::new()
                };
                match check_mode(pmode, Some(m), &kinds) {
                    Ok(p) => (p.mode, p.request),
                    Err(refusal) => return refuse(refusal.text()),
                }
            }
        };
        if let Some(x) = self.by_id_mut(&tid) {
            x.task = task.to_string();
            if let Some(r) = role {
                x.position = r.lines().next().unwrap_or(r).to_string();
            }
            x.parent = Some(pid);
            x.moved_from = None;
            x.mode = new_mode;
            x.request = new_request;
        }
        // Its subtree is made no looser than it.
        let sub: Vec<String> = self.subtree(&tid);
        for id in sub.iter().skip(1) {
            let pm = self
                .by_id(id)
                .and_then(|x| x.parent.clone())
                .and_then(|p| self.by_id(&p))
                .map(|p| p.mode);
            if let (Some(pm), Some(x)) = (pm, self.by_id_mut(id)) {
                x.mode = x.mode.max(pm);
            }
        }
        self.post(
            lead(),
            vec![name.to_string()],
            vec![name.to_string()],
            task.to_string(),
            RoomKind::Assignment,
            "",
        );
        done(fill(&texts.assigned, &[("name", name)]))
    }

    /// team_replace (§8): the same name, position, parent, mode, request options and model; a
    /// new id; briefed with the task and the old one's findings; its subagents move under it.
    pub(super) fn replace(&mut self, a: &Obj<'_>) -> Result<ToolAnswer, InputError> {
        let texts = &team_spec().texts;
        let name = a.str("name")?;
        let task = a.opt_str("task")?.map(str::trim).filter(|x| !x.is_empty());
        let old = match self.live(name) {
            Some(x) => x.clone(),
            None => match self
                .agents
                .iter()
                .rev()
                .find(|x| x.name == name && x.state.is_end())
            {
                Some(x) => x.clone(),
                None => return refuse(self.unknown(name)),
            },
        };
        if old.parent.is_none() {
            return refuse(self.unknown(name));
        }
        let live = !old.state.is_end();
        if !live && self.size() + 1 > self.max {
            return refuse(fill(&texts.full, &[("max", &self.max.to_string())]));
        }
        if live {
            // It alone ends: the subagents under it wait for the replacement.
            for c in self.agents.iter_mut() {
                if c.parent.as_deref() == Some(old.id.as_str()) && !c.state.is_end() {
                    c.moved_from = Some(old.id.clone());
                    c.parent = old.parent.clone();
                }
            }
            self.end(std::slice::from_ref(&old.id), AgentState::Stopped);
        }
        let home = old
            .moved_from
            .clone()
            .or(old.parent.clone())
            .unwrap_or_else(|| lead().to_string());
        let parent_id = match self.by_id(&home) {
            Some(p) if !p.state.is_end() => p.id.clone(),
            _ => old
                .parent
                .clone()
                .filter(|p| self.by_id(p).is_some_and(|x| !x.state.is_end()))
                .unwrap_or_else(|| lead().to_string()),
        };
        let parent_mode = self.by_id(&parent_id).map_or(Mode::Auto, |p| p.mode);
        let findings = if old.findings.is_empty() {
            texts.no_findings.to_string()
        } else {
            old.findings
                .iter()
                .map(|f| {
                    fill(
                        &team_spec().findings.item,
                        &[("n", &f.n.to_string()), ("text", &f.text)],
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let task = task.map(str::to_string).unwrap_or_else(|| old.task.clone());
        let brief = fill(
            &texts.replace_brief,
            &[
                ("task", &task),
                ("name", &old.name),
                ("id", &old.id),
                ("findings", &findings),
            ],
        );
        let id = self.next_id();
        let fresh = super::Agent {
            position: old.position.clone(),
            task,
            request: old.request.clone(),
            parent: Some(parent_id),
            manager: old.manager,
            goal: old.goal.clone(),
            agent_kind: old.agent_kind.clone(),
            ..super::Agent::blank(id.clone(), &old.name, &old.model, old.mode.max(parent_mode))
        };
        self.agents.push(fresh);
        for c in self.agents.iter_mut() {
            if c.moved_from.as_deref() == Some(old.id.as_str()) && !c.state.is_end() {
                c.parent = Some(id.clone());
                c.moved_from = None;
            }
        }
        self.want_turn(&id, Some(brief));
        done(fill(
            &texts.replaced,
            &[
                ("name", name),
                ("id", &id),
                ("size", &self.size().to_string()),
                ("max", &self.max.to_string()),
            ],
        ))
    }
}
