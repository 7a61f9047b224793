//! Conversations: a session's earlier tasks and answers feed its next run, in order with their
//! steps; the store reads them back as the session's history, and clearing the session forgets them.

mod support;

use keel::engine::RunOptions;
use keel::store::RunStatus;
use serde_json::json;
use support::*;

fn run_in(h: &Harness, task: &str, id: &str) -> keel::engine::RunResult {
    h.clock.now.set(h.clock.now.get() + 1_000);
    let options = RunOptions { session: "chat".into(), run_id: Some(id.into()), ..Default::default() };
    h.run_with(task, options).0
}

fn conversation_harness() -> Harness {
    let model = ScriptedModel::new([
        act("get_weather", json!({"city": "Paris"})),
        answer("It is 18°C in Paris."),
        act("get_weather", json!({"city": "Oslo"})),
        answer("It is 4°C in Oslo."),
        answer("You asked about Paris, then Oslo."),
    ]);
    let tools = FakeTools::new()
        .script("get_weather", vec![Behaviour::Ok(json!("18°C")), Behaviour::Ok(json!("4°C"))]);
    Harness::new(model, tools, specs(), classic())
}

#[test]
fn a_follow_up_sees_the_earlier_questions_and_answers_in_order_with_their_steps() {
    let h = conversation_harness();
    assert!(run_in(&h, "What is the weather in Paris?", "r1").success);
    assert!(run_in(&h, "And in Oslo?", "r2").success);
    let requests = h.model.requests.borrow();
    // The follow-up's first prompt: the first exchange, then its own task.
    let first = &requests[2].messages[1].content;
    let at = |s: &str| first.find(s).unwrap_or_else(|| panic!("{s:?} missing from {first}"));
    assert!(at("User asked: What is the weather in Paris?") < at(r#"get_weather {"city":"Paris"} → ok"#));
    assert!(at(r#"get_weather {"city":"Paris"}"#) < at("You answered: It is 18°C in Paris."));
    assert!(at("You answered: It is 18°C in Paris.") < at("Task: And in Oslo?"));
    drop(requests);

    assert!(run_in(&h, "Which cities did I ask about?", "r3").success);
    let requests = h.model.requests.borrow();
    let third = &requests[4].messages[1].content;
    let at = |s: &str| third.find(s).unwrap_or_else(|| panic!("{s:?} missing from {third}"));
    assert!(at("You answered: It is 18°C in Paris.") < at("User asked: And in Oslo?"));
    assert!(at("User asked: And in Oslo?") < at("You answered: It is 4°C in Oslo."));
}

#[test]
fn the_history_is_the_sessions_exchanges_and_clearing_the_session_forgets_them() {
    let h = conversation_harness();
    run_in(&h, "What is the weather in Paris?", "r1");
    run_in(&h, "And in Oslo?", "r2");
    let history = h.store.history("chat");
    let rows: Vec<_> = history
        .iter()
        .map(|e| (e.run_id.as_str(), e.task.as_str(), e.answer.as_deref(), e.status, e.steps))
        .collect();
    assert_eq!(
        rows,
        [
            ("r1", "What is the weather in Paris?", Some("It is 18°C in Paris."), RunStatus::Succeeded, 2),
            ("r2", "And in Oslo?", Some("It is 4°C in Oslo."), RunStatus::Succeeded, 2),
        ]
    );
    assert!(history[0].started_ms < history[1].started_ms && history[0].ended_ms.is_some());
    assert!(h.store.history("other").is_empty());

    h.store.clear_session("chat");
    assert!(h.store.history("chat").is_empty());
    run_in(&h, "Which cities did I ask about?", "r3");
    let requests = h.model.requests.borrow();
    let prompt = &requests.last().unwrap().messages[1].content;
    assert!(!prompt.contains("Earlier in this conversation"), "{prompt}");
}
