//! Turns and slots (team.md §8), the room and delivery (team.md §5, §7), a subagent's life and
//! its ends (subagents.md §9, §10).

use super::operation::TurnEndReason;
use super::{lead, team_spec, AgentState, Delivery, RoomKind, RoomMessage, Team};
use crate::permission::Mode;
use crate::progress::Progress;
use crate::spec::loop_spec;
use crate::text::fill;

impl Team {
    // ── turns and slots (team.md §8) ────────────────────────────────────────────

    fn slots_free(&self) -> bool {
        match self.capacity.parallel {
            None => true,
            Some(p) => {
                let used = self.agents.iter().filter(|a| a.state.holds_slot()).count();
                u64::try_from(used).unwrap_or(u64::MAX) < p
            }
        }
    }

    /// `id` has work: its turn starts now if a slot is free, else it waits for one.
    pub(crate) fn want_turn(&mut self, id: &str, brief: Option<String>) {
        let free = self.slots_free();
        let seq = self.wait_seq;
        let Some(a) = self.by_id_mut(id) else { return };
        if brief.is_some() {
            a.brief = brief;
        }
        if a.state.holds_slot() || a.state.is_end() || a.state == AgentState::Waiting {
            return;
        }
        if free {
            self.start_turn(id);
        } else if let Some(a) = self.by_id_mut(id) {
            a.state = AgentState::Waiting;
            a.wait_since = Some(seq);
            self.wait_seq += 1;
        }
    }

    fn start_turn(&mut self, id: &str) {
        let Some(a) = self.by_id_mut(id) else { return };
        let text = match a.brief.take() {
            Some(b) => b,
            None => std::mem::take(&mut a.inbox).join("\n\n"),
        };
        a.state = AgentState::Working;
        a.wait_since = None;
        let name = a.name.clone();
        self.note_start(&name, text);
    }

    fn note_start(&mut self, name: &str, text: String) {
        self.started.push(Delivery::new(name, text.clone()));
        match self.last_started.iter_mut().find(|d| d.to == name) {
            Some(slot) => slot.text = text,
            None => self.last_started.push(Delivery::new(name, text)),
        }
    }

    /// Gives free slots to the agents waiting longest.
    pub(crate) fn fill_slots(&mut self) {
        while self.slots_free() {
            let next = self
                .agents
                .iter()
                .filter(|a| a.state == AgentState::Waiting)
                .min_by_key(|a| a.wait_since.unwrap_or(u64::MAX))
                .map(|a| a.id.clone());
            match next {
                Some(id) => self.start_turn(&id),
                None => break,
            }
        }
    }

    // ── the room (team.md §5) ───────────────────────────────────────────────────

    /// A text reaching an agent: a working one gets it at its next step, a finished or idle one is
    /// woken, a paused one gets nothing (the message stays in the room).
    pub(crate) fn deliver(&mut self, name: &str, text: String) {
        let Some(a) = self.live(name) else { return };
        let (id, state) = (a.id.clone(), a.state);
        match state {
            AgentState::Paused
            | AgentState::Done
            | AgentState::OutOfContext
            | AgentState::Stopped => {}
            AgentState::Working | AgentState::Waiting => {
                self.delivered.push(Delivery::new(name, text.clone()));
                if state == AgentState::Waiting {
                    if let Some(a) = self.by_id_mut(&id) {
                        a.inbox.push(text);
                    }
                }
            }
            AgentState::Finished | AgentState::Idle => {
                self.delivered.push(Delivery::new(name, text.clone()));
                if let Some(a) = self.by_id_mut(&id) {
                    a.inbox.push(text);
                }
                self.want_turn(&id, None);
            }
        }
    }

    /// Posts a message: numbered, kept, and delivered to each recipient under its mark.
    pub(crate) fn post(
        &mut self,
        from: &str,
        to: Vec<String>,
        recipients: Vec<String>,
        text: String,
        kind: RoomKind,
        id: &str,
    ) -> u64 {
        let n = u64::try_from(self.room.len())
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let marks = &team_spec().marks;
        let template = match kind {
            RoomKind::Message => &marks.message,
            RoomKind::Report => &marks.report,
            RoomKind::Assignment => &marks.assignment,
            RoomKind::Request => &marks.request,
            RoomKind::Decision => &marks.decision,
        };
        let mark = fill(
            template,
            &[("from", from), ("to", &to.join(", ")), ("id", id)],
        );
        for r in &recipients {
            self.deliver(r, format!("{mark}\n{text}"));
        }
        for a in self.agents.iter_mut().filter(|a| !a.state.is_end()) {
            if a.name == from || recipients.contains(&a.name) {
                a.messages += 1;
            }
        }
        self.room.push(RoomMessage {
            n,
            from: from.to_string(),
            to,
            recipients,
            text,
            time: self.now,
            kind,
        });
        n
    }

    // ── ends (§9, §10) ──────────────────────────────────────────────────────────

    /// Ends subagents (ids) in `state`. Those under one that ended by itself move under its
    /// parent until it is replaced; a stopped one's subtree is for the caller to stop with it.
    pub(crate) fn end(&mut self, ids: &[String], state: AgentState) {
        for id in ids {
            let now = self.now;
            let Some(a) = self.by_id_mut(id) else {
                continue;
            };
            if a.state.is_end() || a.parent.is_none() {
                continue;
            }
            a.state = state;
            a.ended_at = Some(now);
            // Nothing runs for an ended agent (§12 shows how it ended, not a phase).
            a.progress = None;
            a.inbox.clear();
            a.brief = None;
            a.wait_since = None;
            let parent = a.parent.clone();
            self.ended.push(id.clone());
            for r in self.requests.iter_mut().filter(|r| &r.from == id) {
                r.open = false;
            }
            if state != AgentState::Stopped {
                for c in self.agents.iter_mut() {
                    if c.parent.as_deref() == Some(id.as_str()) && !c.state.is_end() {
                        c.parent = parent.clone();
                        c.moved_from = Some(id.clone());
                    }
                }
            }
        }
        self.fill_slots();
    }

    /// An agent's turn ended with this final reply (team.md §7; §9 for a paused one). A
    /// subagent's reply is its report to its parent; the main agent becomes idle.
    pub fn end_turn(&mut self, name: &str, reply: &str, reason: &TurnEndReason) {
        let Some(a) = self.live(name) else { return };
        let (id, state, parent) = (a.id.clone(), a.state, self.parent_name(a));
        let now = self.now;
        match state {
            AgentState::Paused => {
                let gone = fill(&team_spec().texts.gone, &[("name", name), ("id", &id)]);
                let reply = reply.trim();
                let text = if reply.is_empty() {
                    gone
                } else {
                    format!("{gone}\n\n{reply}")
                };
                if let Some(p) = parent {
                    self.post(name, vec![p.clone()], vec![p], text, RoomKind::Report, "");
                }
                self.end(&[id], AgentState::OutOfContext);
            }
            AgentState::Working => {
                let is_lead = self.by_id(&id).is_some_and(|a| a.parent.is_none());
                if let Some(a) = self.by_id_mut(&id) {
                    a.state = if is_lead {
                        AgentState::Idle
                    } else {
                        AgentState::Finished
                    };
                    a.last_ended = Some(now);
                }
                if let Some(p) = parent {
                    let texts = &team_spec().texts;
                    let mut body = reply.trim().to_string();
                    if body.is_empty() {
                        body = texts.no_report.to_string();
                    }
                    if let Some(r) = reason.word() {
                        body = format!("{body}\n{}", fill(&texts.ended, &[("reason", r)]));
                    }
                    self.post(name, vec![p.clone()], vec![p], body, RoomKind::Report, "");
                }
                self.fill_slots();
                // Messages that came while it ended (or the person's next prompt) wake it again.
                let wake = self.by_id(&id).is_some_and(|a| {
                    (!a.inbox.is_empty() || a.brief.is_some()) && !a.state.holds_slot()
                });
                if wake {
                    self.want_turn(&id, None);
                }
            }
            AgentState::Waiting
            | AgentState::Finished
            | AgentState::Idle
            | AgentState::Done
            | AgentState::OutOfContext
            | AgentState::Stopped => {}
        }
    }

    /// Texts delivered to a working agent that its engine did not take before its turn ended
    /// (they came during its last step): kept for its next turn, which [`Team::end_turn`] then
    /// starts (team.md §7: messages that came while it ended wake it again). Call before
    /// `end_turn`.
    pub fn keep_for_next_turn(&mut self, name: &str, texts: Vec<String>) {
        if let Some(a) = self.live_mut(name) {
            a.inbox.extend(texts);
        }
    }

    /// Its context use, as its engine last said it.
    pub fn set_context(&mut self, name: &str, used: u64, window: u64) {
        if let Some(a) = self.live_mut(name) {
            a.context = Some(super::view::ContextUse { used, window });
        }
    }

    /// Whether a subagent's context has reached `pause_at` of its window (§9).
    pub fn context_reached(&self, name: &str) -> bool {
        self.live(name).is_some_and(|a| {
            a.parent.is_some()
                && a.state == AgentState::Working
                && a.context.is_some_and(|c| {
                    c.window > 0
                        && (c.used as f64) >= (c.window as f64) * team_spec().context.pause_at
                })
        })
    }

    /// An agent's progress, as its engine last said it (the tree shows it).
    pub fn set_progress(&mut self, name: &str, progress: Option<Progress>) {
        if let Some(a) = self.live_mut(name) {
            a.progress = progress;
        }
    }

    /// Its context is full (§9): paused, and its one final turn starts with the notice. The text
    /// of that turn, or none when it cannot be paused.
    pub fn context_full(&mut self, name: &str) -> Option<String> {
        // A context fills while a turn runs: only a working subagent is paused.
        let a = self.live(name)?;
        if a.parent.is_none() || a.state != AgentState::Working {
            return None;
        }
        let id = a.id.clone();
        let spec = team_spec();
        let steps = spec.context.final_steps.to_string();
        let text = format!(
            "{}\n{}",
            fill(&spec.marks.context_full, &[("to", name)]),
            fill(&spec.texts.context_full, &[("steps", &steps)])
        );
        let a = self.by_id_mut(&id)?;
        a.state = AgentState::Paused;
        a.inbox.clear();
        a.brief = None;
        self.delivered.push(Delivery::new(name, text.clone()));
        self.note_start(name, text.clone());
        Some(text)
    }

    /// The person's prompt (a session's next turn): the main agent's next turn starts with it —
    /// after the session notes when the Subagents setting changed since they were told (team.md
    /// §10), and before what waits in its inbox — now if it rests, else when it can.
    pub fn prompt(&mut self, text: &str) {
        let told = std::mem::take(&mut self.setting_changed);
        let lead_id = lead().to_string();
        let notes = if told { self.notes() } else { Vec::new() };
        let Some(a) = self.by_id_mut(&lead_id) else {
            return;
        };
        let mut parts = notes;
        parts.push(text.to_string());
        parts.append(&mut a.inbox);
        let brief = parts.join("\n\n");
        self.want_turn(&lead_id, Some(brief));
    }

    /// The person changed the Subagents setting between turns (subagents.md §6): read as team.md
    /// §2 says, and told to the main agent with its next prompt. New open slots are filled by it.
    pub fn change_setting(&mut self, min: u32, max: u32) {
        let before = (self.min, self.max);
        self.set_setting(min, max);
        if (self.min, self.max) != before {
            self.setting_changed = true;
        }
    }

    /// The person picked another model for the main agent: the session's model from now on (a
    /// subagent named no model runs on it); subagents at work keep theirs.
    pub fn set_model(&mut self, model: &str) {
        self.model = model.to_string();
        if let Some(l) = self.agents.first_mut() {
            l.model = model.to_string();
        }
    }

    /// The main agent's mode changed: stricter reaches down the tree, looser changes nobody (§7).
    pub fn set_main_mode(&mut self, mode: Mode) {
        if let Some(l) = self.agents.first_mut() {
            l.mode = mode;
        }
        let order: Vec<String> = self.tree().iter().map(|a| a.id.clone()).collect();
        for id in order {
            let parent_mode = self
                .by_id(&id)
                .and_then(|a| a.parent.clone())
                .and_then(|p| self.by_id(&p))
                .map(|p| p.mode);
            if let (Some(pm), Some(a)) = (parent_mode, self.by_id_mut(&id)) {
                a.mode = a.mode.max(pm);
            }
        }
    }

    /// The person stops a live subagent and its subtree (§10); the main agent is told in a note.
    /// The ids stopped.
    pub fn person_stop(&mut self, name: &str) -> Vec<String> {
        let Some(a) = self.live(name).filter(|a| a.parent.is_some()) else {
            return Vec::new();
        };
        let ids = self.subtree(&a.id.clone());
        let names: Vec<String> = ids
            .iter()
            .filter_map(|id| self.by_id(id).map(|a| a.name.clone()))
            .collect();
        self.end(&ids, AgentState::Stopped);
        let note = fill(
            &loop_spec().context.note.team_stopped,
            &[("names", &names.join(", "))],
        );
        self.delivered.push(Delivery::new(lead(), note));
        ids
    }

    /// What reached whom since this was last taken.
    pub fn take_delivered(&mut self) -> Vec<Delivery> {
        std::mem::take(&mut self.delivered)
    }

    /// Whose turns started, with what, since this was last taken.
    pub fn take_started(&mut self) -> Vec<Delivery> {
        std::mem::take(&mut self.started)
    }

    /// What an agent's latest turn was started with.
    pub fn started_with(&self, name: &str) -> Option<&str> {
        self.last_started
            .iter()
            .find(|d| d.to == name)
            .map(|d| d.text.as_str())
    }
}
