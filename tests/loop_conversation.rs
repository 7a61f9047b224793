//! Conversations: a session's earlier tasks and answers feed its next run, in order with their
//! steps; the store reads them back as the session's history, and clearing the session forgets them.

mod support;

use keel::engine::{AgentConfig, RunOptions};
use keel::store::{RunStatus, Store};
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

/// A session's turn record for run `run`: a call of `get_weather` that observed `observation`.
fn earlier_step(run: &str, step: u32, observation: &str) -> keel::store::TurnRecord {
    keel::store::TurnRecord {
        run_id: run.into(),
        session: "chat".into(),
        at_ms: 0,
        turn: keel::engine::Turn {
            step,
            thought: "look".into(),
            action: Some(keel::engine::Action { tool: "get_weather".into(), args: json!({"city": run}) }),
            observation: observation.into(),
            outcome: keel::engine::Outcome::Ok,
            reply: None,
        },
        counts: None,
        idempotency_key: None,
    }
}

#[test]
fn what_the_window_cannot_show_of_a_long_session_grounds_nothing() {
    // The session's oldest run observed a code; 300 runs after it, the window (1,500 tokens) shows
    // only the newest lines of the session's memory, so the model was never given the code.
    let model = ScriptedModel::new([answer("The code was ZX-9183."), answer("The code was ZX-9183.")]);
    let h = Harness::new(
        model,
        FakeTools::new(),
        specs(),
        AgentConfig { context_tokens: 1_500, grounding: true, ..classic() },
    );
    let put = |record| futures_executor::block_on(h.store.put_turn(&record)).unwrap();
    put(earlier_step("old-0", 1, "Door code: ZX-9183."));
    for r in 1..=300 {
        put(earlier_step(&format!("old-{r}"), 1, &format!("{r}°C")));
    }
    let result = run_in(&h, "What was the door code?", "now");
    let prompt = &h.model.requests.borrow()[0].messages;
    assert!(prompt.iter().all(|m| !m.content.contains("ZX-9183")), "the window shows the oldest run");
    assert!(
        !result.success,
        "a value only a line the model never saw holds is not grounded: {}",
        result.answer
    );
    assert_eq!(result.ungrounded, ["ZX-9183"], "{:?}", result.turns);
}
