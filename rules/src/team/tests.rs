use super::operation::TurnEndReason;
use super::*;
use serde_json::json;

fn team(min: u32, max: u32, parallel: Option<u64>) -> Team {
    Team::new(&TeamOptions {
        min,
        max,
        capacity: Capacity {
            group: None,
            parallel,
        },
        ..TeamOptions::default()
    })
}

fn call(t: &mut Team, by: &str, tool: &str, args: serde_json::Value) -> String {
    t.call(by, tool, &args)
        .unwrap()
        .map(|answer| answer.text().to_string())
        .unwrap_or_default()
}

#[test]
fn the_name_pattern_is_the_spec_data() {
    assert_eq!(team_spec().names.pattern, "^[a-z][a-z0-9-]{0,31}$");
    assert!(tools::name_matches("api-tests2"));
    assert!(!tools::name_matches("Api"));
    assert!(!tools::name_matches(&"a".repeat(33)));
    assert!(tools::name_matches(&"a".repeat(32)));
}

#[test]
fn add_send_report_and_wake() {
    let mut tm = team(1, 4, None);
    let added = call(
        &mut tm,
        "lead",
        "team_add",
        json!({"name": "api", "role": "the API", "task": "Write it.", "goal": "a service"}),
    );
    assert_eq!(
        added,
        "Added api (s1): it starts now. The team is 2 of 4 agents."
    );
    assert_eq!(
        tm.take_started(),
        [Delivery::new("api", "Write it.".to_string())]
    );
    tm.end_turn("lead", "", &TurnEndReason::Replied);
    tm.end_turn("api", "Done: src/api.rs.", &TurnEndReason::Replied);
    let d = tm.take_delivered();
    assert_eq!(
        d,
        [Delivery::new(
            "lead",
            "[Team report from api to lead:]\nDone: src/api.rs.".to_string()
        )]
    );
    assert_eq!(tm.live("lead").unwrap().state, AgentState::Working);
    assert_eq!(
        tm.started_with("lead"),
        Some("[Team report from api to lead:]\nDone: src/api.rs.")
    );
}

#[test]
fn capacity_makes_a_turn_wait_for_a_slot() {
    let mut tm = team(1, 4, Some(2));
    call(
        &mut tm,
        "lead",
        "team_add",
        json!({"name": "a", "role": "r", "task": "t", "goal": "g"}),
    );
    let b = call(
        &mut tm,
        "lead",
        "team_add",
        json!({"name": "b", "role": "r", "task": "t2"}),
    );
    assert!(b.contains("waits for a free slot"), "{b}");
    assert_eq!(tm.live("b").unwrap().state, AgentState::Waiting);
    tm.end_turn("a", "ok", &TurnEndReason::Replied);
    assert_eq!(tm.live("b").unwrap().state, AgentState::Working);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Call(usize, &'static str, serde_json::Value),
        EndTurn(usize, bool),
        ContextFull(usize),
        MainMode(Mode),
        PersonStop(usize),
    }

    const NAMES: [&str; 6] = ["lead", "a", "b", "c", "d", "e"];

    fn name() -> impl Strategy<Value = usize> {
        0usize..NAMES.len()
    }

    fn mode() -> impl Strategy<Value = Mode> {
        prop::sample::select(Mode::ALL.to_vec())
    }

    fn op() -> impl Strategy<Value = Op> {
        let add = (
            name(),
            name(),
            prop::option::of(mode()),
            any::<bool>(),
            prop::option::of(name()),
        )
            .prop_map(|(by, n, m, lead, parent)| {
                let mut args =
                    json!({"name": NAMES[n], "role": "r", "task": "t", "goal": "g", "lead": lead});
                if let Some(m) = m {
                    args["mode"] = json!(m.as_str());
                    args["request"] = json!(["write"]);
                }
                if let Some(p) = parent {
                    args["parent"] = json!(NAMES[p]);
                }
                Op::Call(by, "team_add", args)
            });
        prop_oneof![
            4 => add,
            2 => (name(), name()).prop_map(|(by, to)| Op::Call(by, "team_send", json!({"to": [NAMES[to]], "message": "m"}))),
            1 => name().prop_map(|by| Op::Call(by, "team_send", json!({"to": ["all"], "message": "m"}))),
            1 => name().prop_map(|n| Op::Call(0, "team_stop", json!({"name": NAMES[n]}))),
            1 => name().prop_map(|by| Op::Call(by, "team_finish", json!({"report": "r"}))),
            1 => (name(), name(), prop::option::of(mode())).prop_map(|(n, p, m)| {
                let mut args = json!({"name": NAMES[n], "task": "t2", "parent": NAMES[p]});
                if let Some(m) = m { args["mode"] = json!(m.as_str()); }
                Op::Call(0, "team_assign", args)
            }),
            1 => name().prop_map(|n| Op::Call(0, "team_replace", json!({"name": NAMES[n]}))),
            1 => name().prop_map(|by| Op::Call(by, "team_request", json!({"tool": "edit", "pattern": "*", "why": "w"}))),
            1 => (1u64..4, any::<bool>()).prop_map(|(i, allow)| Op::Call(0, "team_decide", json!({"id": format!("r{i}"), "allow": allow}))),
            2 => (name(), any::<bool>()).prop_map(|(n, reason)| Op::EndTurn(n, reason)),
            1 => name().prop_map(Op::ContextFull),
            1 => mode().prop_map(Op::MainMode),
            1 => name().prop_map(Op::PersonStop),
        ]
    }

    fn check(tm: &Team, seen_ids: &mut Vec<String>) -> Result<(), TestCaseError> {
        // Ids are never reused: every agent's id is unique, and ids only grow.
        let mut ids: Vec<&str> = tm.agents.iter().map(|a| a.id.as_str()).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        prop_assert_eq!(before, ids.len(), "an id was used twice");
        for a in &tm.agents {
            if !seen_ids.contains(&a.id) {
                seen_ids.push(a.id.clone());
            }
        }
        prop_assert_eq!(seen_ids.len(), tm.agents.len(), "an agent vanished");
        // Live names are unique.
        let mut names: Vec<&str> = tm.tree().iter().map(|a| a.name.as_str()).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        prop_assert_eq!(n, names.len(), "two live agents share a name");
        prop_assert_eq!(
            n,
            tm.agents.iter().filter(|a| !a.state.is_end()).count(),
            "a live agent is not in the tree"
        );
        // The size is never above max.
        prop_assert!(
            tm.size() <= tm.max,
            "size {} above max {}",
            tm.size(),
            tm.max
        );
        // No subagent's mode is looser than its parent's.
        for a in tm.tree() {
            if let Some(p) = a.parent.as_deref().and_then(|p| tm.by_id(p)) {
                prop_assert!(
                    a.mode >= p.mode,
                    "{} in {} under {} in {}",
                    a.name,
                    a.mode,
                    p.name,
                    p.mode
                );
            }
        }
        // Every message is numbered once, in order.
        for (i, m) in tm.room.iter().enumerate() {
            prop_assert_eq!(m.n, i as u64 + 1);
        }
        // Slots: never more turns than the capacity allows.
        if let Some(p) = tm.capacity.parallel {
            let running = tm.agents.iter().filter(|a| a.state.holds_slot()).count() as u64;
            prop_assert!(running <= p, "{running} turns on {p} slots");
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn the_tree_keeps_its_invariants(ops in prop::collection::vec(op(), 1..60), max in 1u32..6, parallel in prop::option::of(2u64..4)) {
            let mut tm = Team::new(&TeamOptions { min: 1, max, capacity: Capacity { group: None, parallel }, ..TeamOptions::default() });
            let mut seen = Vec::new();
            for (i, op) in ops.into_iter().enumerate() {
                tm.set_now(1_000 + i as i64);
                match op {
                    Op::Call(by, tool, args) => {
                        if tm.live(NAMES[by]).is_some() {
                            let _ = tm.call(NAMES[by], tool, &args);
                        }
                    }
                    Op::EndTurn(n, steps) => tm.end_turn(NAMES[n], "reply", &if steps { TurnEndReason::Stopped(crate::progress::StopReason::Steps) } else { TurnEndReason::Replied }),
                    Op::ContextFull(n) => { tm.context_full(NAMES[n]); }
                    Op::MainMode(m) => tm.set_main_mode(m),
                    Op::PersonStop(n) => { tm.person_stop(NAMES[n]); }
                }
                check(&tm, &mut seen)?;
                let _ = tm.take_delivered();
                let _ = tm.read("lead", 0);
            }
        }
    }
}

#[test]
fn a_subagents_mode_chain_runs_up_to_the_main_agent() {
    let mut tm = team(1, 4, None);
    let added = call(
        &mut tm,
        "lead",
        "team_add",
        json!({"name": "api", "role": "r", "task": "t", "goal": "g", "mode": "plan"}),
    );
    assert!(added.starts_with("Added api"), "{added}");
    assert_eq!(tm.mode_chain("api"), [Mode::Plan, Mode::Edit]);
    assert_eq!(tm.mode_chain("lead"), [Mode::Edit]);
    assert!(tm.mode_chain("nobody").is_empty());
}
