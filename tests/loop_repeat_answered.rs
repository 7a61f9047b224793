//! A call made again after it worked (issue 9, model calls per task): its thought taken as the
//! answer when it states the result the call gave again and plans nothing more
//! (`thought_answer.rs`).

mod support;

use keel::engine::{AgentConfig, Event, Outcome, RunResult};
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

/// A step calling `tool` with `args`, `thought` beside it.
fn act_thinking(thought: &str, tool: &str, args: serde_json::Value) -> Reply {
    Reply::Text(json!({"thought": thought, "action": {"tool": tool, "args": args}}).to_string())
}

fn rate_spec() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        "get_rate",
        "The exchange rate between two currencies.",
        json!({"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
               "required": ["from", "to"], "additionalProperties": false}),
    )
    .read_only()]
}

fn rate_args() -> serde_json::Value {
    json!({"from": "EUR", "to": "USD"})
}

const TASK: &str = "What is the EUR to USD exchange rate?";

/// Runs `script` on `task` with `get_rate` answering `rates` in turn, then the last one again.
fn run_rates(
    script: Vec<Reply>,
    rates: &[&str],
    config: AgentConfig,
    task: &str,
) -> (Harness, RunResult, Vec<Event>) {
    let behaviours = rates.iter().map(|r| Behaviour::Ok(json!(r))).collect();
    let tools = FakeTools::new().script("get_rate", behaviours);
    let h = Harness::new(ScriptedModel::new(script), tools, rate_spec(), config);
    let (result, events) = h.run(task);
    (h, result, events)
}

const RATE: &str = "1 EUR = 1.0842 USD";

fn warned(events: &[Event], part: &str) -> bool {
    events.iter().any(|e| matches!(e, Event::Warning { message, .. } if message.contains(part)))
}

#[test]
fn a_call_made_again_with_its_result_in_the_thought_ends_with_the_thought_as_the_answer() {
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("The EUR to USD exchange rate is 1.0842.", "get_rate", rate_args()),
    ];
    let (h, result, events) = run_rates(script, &[RATE], AgentConfig::default(), TASK);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "The EUR to USD exchange rate is 1.0842.");
    assert_eq!(h.model.requests.borrow().len(), 2, "no third request: the thought was the answer");
    assert_eq!(result.turns.len(), 3);
    assert_eq!(result.turns[1].outcome, Outcome::Failed, "the repeat itself made no progress");
    assert_eq!(result.turns[2].outcome, Outcome::Final);
    assert!(warned(&events, "the thought is taken as the answer"), "{events:?}");
}

#[test]
fn a_thought_stating_nothing_a_result_gave_gets_the_request_for_the_answer_alone() {
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("I have what I need.", "get_rate", rate_args()),
        Reply::Text(json!({"final_answer": "1 EUR = 1.0842 USD"}).to_string()),
    ];
    let (h, result, _) = run_rates(script, &[RATE], AgentConfig::default(), TASK);
    assert_eq!(result.answer, "1 EUR = 1.0842 USD");
    assert_eq!(h.model.requests.borrow().len(), 3);
}

#[test]
fn a_call_made_again_that_gave_something_new_is_progress_whatever_its_thought_says() {
    // A status that moved on: the thought reports the first result, the call is polled again.
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("The EUR to USD exchange rate is 1.0842.", "get_rate", rate_args()),
        answer("1 EUR = 1.0850 USD"),
    ];
    let (h, result, _) = run_rates(script, &[RATE, "1 EUR = 1.0850 USD"], AgentConfig::default(), TASK);
    assert_eq!(result.turns[1].outcome, Outcome::Ok);
    assert_eq!(result.answer, "1 EUR = 1.0850 USD");
    assert_eq!(h.model.requests.borrow().len(), 3);
}

#[test]
fn without_grounding_the_thought_is_not_read_as_the_answer() {
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("The EUR to USD exchange rate is 1.0842.", "get_rate", rate_args()),
        answer("1.0842"),
    ];
    let config = AgentConfig { grounding: false, focused_answer: false, ..AgentConfig::default() };
    let (h, result, _) = run_rates(script, &[RATE], config, TASK);
    assert_eq!(result.answer, "1.0842");
    assert_eq!(h.model.requests.borrow().len(), 3);
}

#[test]
fn a_thought_with_a_value_no_tool_gave_is_not_taken_and_uses_up_no_warning() {
    // 1.0842 is the result; 0.92 is invented: the request for the answer alone follows instead, and
    // the model's own answer is checked with its one warning for an ungrounded answer still unused.
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("The rate is 1.0842, so 1 USD is 0.92 EUR.", "get_rate", rate_args()),
        Reply::Text(json!({"final_answer": "1 EUR = 1.0842 USD"}).to_string()),
    ];
    let (h, result, events) = run_rates(script, &[RATE], AgentConfig::default(), TASK);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "1 EUR = 1.0842 USD");
    assert_eq!(h.model.requests.borrow().len(), 3);
    assert!(!warned(&events, "the thought is taken as the answer"));
}

#[test]
fn a_thought_that_plans_another_call_is_not_taken_as_the_answer() {
    // Half of the task in the thought, and the plan for the rest: not an answer to end the run on.
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("EUR to USD is 1.0842. Next I need the GBP to USD rate.", "get_rate", rate_args()),
        Reply::Text(json!({"final_answer": "EUR to USD: 1.0842; GBP to USD was not looked up."}).to_string()),
    ];
    let (h, result, events) = run_rates(
        script,
        &[RATE],
        AgentConfig::default(),
        "What are the EUR to USD and the GBP to USD rates?",
    );
    assert!(!warned(&events, "the thought is taken as the answer"), "{events:?}");
    assert_eq!(h.model.requests.borrow().len(), 3, "the model was asked for its answer");
    assert_ne!(result.answer, "EUR to USD is 1.0842. Next I need the GBP to USD rate.");
}
