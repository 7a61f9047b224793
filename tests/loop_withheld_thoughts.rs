//! A thought that states values nothing in the run supports is not replayed in later prompts
//! (`engine/withheld.rs`): a small model copies its earlier thoughts forward, and an invented value
//! in a step-1 thought became the final answer (Qwen, recovery bench invent-balance at b9eb4d8).

mod support;

use keel::engine::{AgentConfig, PastSteps, Role, ThoughtReplay};
use serde_json::json;
use support::*;

fn step(thought: &str, tool: &str) -> Reply {
    Reply::Text(json!({"thought": thought, "action": {"tool": tool, "args": {}}}).to_string())
}

/// Runs: a step-1 thought inventing $3,100.00, `list_invoices`, a step-2 thought quoting its
/// result, `list_invoices` again, then an answer. Returns the assistant messages of each prompt,
/// the steps shown as messages (`pastSteps: "messages"`).
fn replayed(config: AgentConfig) -> (Vec<Vec<String>>, keel::engine::RunResult) {
    let config = AgentConfig { past_steps: PastSteps::Messages, ..config };
    let tools = FakeTools::new().script(
        "list_invoices",
        vec![
            Behaviour::Ok(json!("INV-1: $1,250.00\nINV-2: $980.00")),
            Behaviour::Ok(json!("INV-1: $1,250.00\nINV-2: $980.00\nINV-3: $5.00")),
        ],
    );
    let script = vec![
        step("Together they come to $3,100.00, I think.", "list_invoices"),
        step("INV-1 is $1,250.00 and INV-2 is $980.00.", "list_invoices"),
        answer("Together: $2,230.00."),
    ];
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), config);
    let (result, _) = h.run("How much do my invoices come to together?");
    let prompts = h
        .model
        .requests
        .borrow()
        .iter()
        .map(|r| r.messages.iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.clone()).collect())
        .collect();
    (prompts, result)
}

fn grounded() -> AgentConfig {
    AgentConfig { replay_thoughts: ThoughtReplay::Grounded, ..AgentConfig::default() }
}

#[test]
fn an_invented_value_in_a_thought_is_replayed_empty_and_kept_in_the_turn() {
    let (prompts, result) = replayed(grounded());
    assert_eq!(prompts.len(), 3);
    let first = &prompts[1][0];
    assert!(first.starts_with(r#"{"thought":"","action":{"tool":"list_invoices""#), "{first}");
    assert!(!prompts[2].iter().any(|m| m.contains("3,100")), "{:?}", prompts[2]);
    assert!(prompts[2][1].contains("INV-1 is $1,250.00"), "a grounded thought is replayed: {:?}", prompts[2]);
    assert_eq!(result.turns[0].thought, "Together they come to $3,100.00, I think.", "the turn keeps it");
    assert!(result.success, "{}", result.answer);
}

#[test]
fn replay_thoughts_all_replays_every_thought_and_none_the_default_replays_none() {
    let (prompts, _) =
        replayed(AgentConfig { replay_thoughts: ThoughtReplay::All, ..AgentConfig::default() });
    assert!(prompts[1][0].contains("$3,100.00, I think."), "{:?}", prompts[1]);
    let (prompts, result) =
        replayed(AgentConfig { replay_thoughts: ThoughtReplay::None, ..AgentConfig::default() });
    assert!(prompts[2].iter().all(|m| m.starts_with(r#"{"thought":"","action""#)), "{:?}", prompts[2]);
    assert_eq!(result.turns[1].thought, "INV-1 is $1,250.00 and INV-2 is $980.00.");
}

#[test]
fn the_log_form_shows_a_replayed_thought_before_the_call() {
    let tools = FakeTools::new().script("list_invoices", vec![Behaviour::Ok(json!("INV-1: $1,250.00"))]);
    let script = vec![step("INV-1 is $1,250.00, I think.", "list_invoices"), answer("INV-1: $1,250.00.")];
    let config = AgentConfig {
        replay_thoughts: ThoughtReplay::All,
        past_steps: PastSteps::Log,
        ..AgentConfig::default()
    };
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), config);
    h.run("How much is INV-1?");
    let requests = h.model.requests.borrow();
    let user = &requests[1].messages[1].content;
    assert!(
        user.contains(
            "\n1. You thought: INV-1 is $1,250.00, I think. You called list_invoices {}\nObservation: INV-1"
        ),
        "{user}"
    );
}
