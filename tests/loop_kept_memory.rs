//! What an agent keeps of a session's memory across its runs (the checks' parts of each line,
//! `memory_parts.rs`) is only ever what the session holds now: a run whose session's memory
//! changed since the last run, a run of another session and a run of a cleared session judge an
//! answer by what they show, as an agent that kept nothing would.

mod support;

use keel::engine::{AgentConfig, Outcome, RunOptions, RunResult, ToolChoice};
use keel::store::{Store, TurnRecord};
use serde_json::json;
use support::*;

const BALANCE: &str = "Vacation: 13.5 days left of 25.";
const RESTATED: &str = "Vacation: 25 days a year, 13.5 days left.";

fn run_in(h: &Harness, session: &str, task: &str) -> RunResult {
    h.clock.now.set(h.clock.now.get() + 1_000);
    let options = RunOptions { session: session.into(), ..Default::default() };
    h.run_with(task, options).0
}

/// One agent for every run: a balance looked up, then answers given from the session's memory.
fn harness(answers: usize) -> Harness {
    let mut script = vec![act("get_weather", json!({"city": "HR"})), answer("You have 13.5 days left.")];
    script.extend((0..answers).map(|_| answer("You had 25 days.")));
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!(BALANCE))]);
    // An answer may come without a call: the session's memory is what grounds it.
    let config = AgentConfig { tool_choice: Some(ToolChoice::Auto), ..AgentConfig::default() };
    Harness::new(ScriptedModel::new(script), tools, specs(), config)
}

/// Whether `result` refused its first answer as stating values nothing seen gives.
fn refused_as_ungrounded(result: &RunResult) -> bool {
    let first = &result.turns[0];
    first.outcome == Outcome::Failed && first.observation.contains("UNGROUNDED_ANSWER")
}

/// Rewrites the observation of the session's one tool call.
fn rewrite_observation(h: &Harness, session: &str, observation: &str) {
    let turns = futures_executor::block_on(h.store.session_turns(session)).expect("the session's turns");
    let call = turns.into_iter().find(|t| t.turn.action.is_some()).expect("the session's call");
    let turn = keel::engine::Turn { observation: observation.into(), ..call.turn };
    let record = TurnRecord { turn, ..call };
    futures_executor::block_on(h.store.put_turn(&record)).expect("rewritten");
}

#[test]
fn a_run_reads_the_session_as_it_is_now_not_as_the_last_run_read_it() {
    let h = harness(3);
    assert!(run_in(&h, "s", "How many vacation days do I have left?").success);
    // "25 days" where the session gave 25 without a unit and "days" to 13.5: misread.
    let before = run_in(&h, "s", "And at the start of the year?");
    assert!(refused_as_ungrounded(&before), "{:?}", before.turns[0]);
    assert!(before.turns[0].observation.contains("25 days"), "{}", before.turns[0].observation);

    // The session's earlier call now says "25 days" itself: the same answer is grounded.
    rewrite_observation(&h, "s", &serde_json::to_string(RESTATED).unwrap());
    let after = run_in(&h, "s", "And at the start of the year?");
    assert!(after.success, "{:?}", after.turns);
    assert_eq!(after.answer, "You had 25 days.");
}

#[test]
fn another_session_and_a_cleared_one_show_nothing_of_what_was_kept() {
    let h = harness(3);
    assert!(run_in(&h, "s", "How many vacation days do I have left?").success);
    let other = run_in(&h, "t", "And at the start of the year?");
    assert!(refused_as_ungrounded(&other), "{:?}", other.turns[0]);
    assert!(other.turns[0].observation.contains("'25'"), "25 was never seen: {}", other.turns[0].observation);

    let h = harness(3);
    assert!(run_in(&h, "s", "How many vacation days do I have left?").success);
    h.store.clear_session("s");
    let cleared = run_in(&h, "s", "And at the start of the year?");
    assert!(refused_as_ungrounded(&cleared), "{:?}", cleared.turns[0]);
    assert!(cleared.turns[0].observation.contains("'25'"), "{}", cleared.turns[0].observation);
}
