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
    t.call(by, tool, &args).unwrap().unwrap_or_default()
}

#[test]
fn the_name_pattern_is_the_spec_data() {
    assert_eq!(t().names.pattern, "^[a-z][a-z0-9-]{0,31}$");
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
        [("api".to_string(), "Write it.".to_string())]
    );
    tm.end_turn("lead", "", None);
    tm.end_turn("api", "Done: src/api.rs.", None);
    let d = tm.take_delivered();
    assert_eq!(
        d,
        [(
            "lead".to_string(),
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
    tm.end_turn("a", "ok", None);
    assert_eq!(tm.live("b").unwrap().state, AgentState::Working);
}
