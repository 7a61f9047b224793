//! A call made again after it worked (issue 9, model calls per task): its thought taken as the
//! answer when it states the result the call gave again (`thought_answer.rs`), and a read-only tool
//! without arguments left out of the next step after it worked (`tool_turn.rs`, `only_one_way`).

mod support;

use keel::engine::{AgentConfig, Event, Outcome};
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

fn warned(events: &[Event], part: &str) -> bool {
    events.iter().any(|e| matches!(e, Event::Warning { message, .. } if message.contains(part)))
}

#[test]
fn a_call_made_again_with_its_result_in_the_thought_ends_with_the_thought_as_the_answer() {
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("The EUR to USD exchange rate is 1.0842.", "get_rate", rate_args()),
    ];
    let tools = FakeTools::new().script("get_rate", vec![Behaviour::Ok(json!("1 EUR = 1.0842 USD"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, rate_spec(), AgentConfig::default());
    let (result, events) = h.run(TASK);
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
    let tools = FakeTools::new().script("get_rate", vec![Behaviour::Ok(json!("1 EUR = 1.0842 USD"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, rate_spec(), AgentConfig::default());
    let (result, _) = h.run(TASK);
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
    let tools = FakeTools::new().script(
        "get_rate",
        vec![Behaviour::Ok(json!("1 EUR = 1.0842 USD")), Behaviour::Ok(json!("1 EUR = 1.0850 USD"))],
    );
    let h = Harness::new(ScriptedModel::new(script), tools, rate_spec(), AgentConfig::default());
    let (result, _) = h.run(TASK);
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
    let tools = FakeTools::new().script("get_rate", vec![Behaviour::Ok(json!("1 EUR = 1.0842 USD"))]);
    let config = AgentConfig { grounding: false, focused_answer: false, ..AgentConfig::default() };
    let h = Harness::new(ScriptedModel::new(script), tools, rate_spec(), config);
    let (result, _) = h.run(TASK);
    assert_eq!(result.answer, "1.0842");
    assert_eq!(h.model.requests.borrow().len(), 3);
}

#[test]
fn a_thought_answer_with_a_value_no_tool_gave_is_sent_back_like_any_answer() {
    // 1.0842 is the result; 0.92 is invented: the thought qualifies, the grounding check refuses it.
    let script = vec![
        act("get_rate", rate_args()),
        act_thinking("The rate is 1.0842, so 1 USD is 0.92 EUR.", "get_rate", rate_args()),
        Reply::Text(json!({"final_answer": "1 EUR = 1.0842 USD"}).to_string()),
        answer("1 EUR = 1.0842 USD"),
    ];
    let tools = FakeTools::new().script("get_rate", vec![Behaviour::Ok(json!("1 EUR = 1.0842 USD"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, rate_spec(), AgentConfig::default());
    let (result, _) = h.run(TASK);
    assert!(result.success, "{}", result.answer);
    assert!(result.answer.contains("1.0842"), "{}", result.answer);
    let refused = &result.turns[2];
    assert_eq!(refused.outcome, Outcome::Failed, "{refused:?}");
    assert!(refused.observation.contains("UNGROUNDED_ANSWER"), "{}", refused.observation);
}

/// The tools a request's step schema lets the model call.
fn callable(request: &keel::engine::ModelRequest) -> Vec<String> {
    let schema = request.schema.as_ref().expect("constrained");
    let branches = schema["anyOf"].as_array().cloned().unwrap_or_else(|| vec![schema.clone()]);
    branches
        .iter()
        .filter_map(|b| b["properties"]["action"]["properties"]["tool"]["const"].as_str().map(String::from))
        .collect()
}

fn page_specs(snapshot_read_only: bool) -> Vec<ToolSpec> {
    let snapshot =
        ToolSpec::new("snapshot", "Lists the page's elements with refs.", json!({"type": "object"}));
    vec![
        if snapshot_read_only { snapshot.read_only() } else { snapshot },
        ToolSpec::new(
            "click",
            "Clicks an element by ref.",
            json!({"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot"]),
    ]
}

#[test]
fn a_read_only_tool_without_arguments_sits_out_the_step_after_it_worked() {
    let script = vec![
        act("snapshot", json!({})),
        act("click", json!({"ref": "e1"})),
        act("snapshot", json!({})),
        answer("Clicked: e2 button 'Done'"),
    ];
    let tools = FakeTools::new()
        .script(
            "snapshot",
            vec![Behaviour::Ok(json!("e1 button 'Go'")), Behaviour::Ok(json!("e2 button 'Done'"))],
        )
        .script("click", vec![Behaviour::Ok(json!("clicked"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, page_specs(true), AgentConfig::default());
    let (result, _) = h.run("Click Go.");
    assert!(result.success, "{}", result.answer);
    let requests = h.model.requests.borrow();
    assert_eq!(callable(&requests[1]), vec!["click".to_string()], "snapshot sits out after it worked");
    assert!(callable(&requests[2]).contains(&"snapshot".to_string()), "back after another call");
    assert_eq!(callable(&requests[3]), vec!["click".to_string()]);
}

#[test]
fn a_tool_without_arguments_that_may_change_things_stays_callable() {
    // Not declared read-only: a second call may do something (`back` twice is two pages back).
    let script = vec![act("snapshot", json!({})), act("click", json!({"ref": "e1"})), answer("clicked e1")];
    let tools = FakeTools::new()
        .script("snapshot", vec![Behaviour::Ok(json!("e1 button 'Go'"))])
        .script("click", vec![Behaviour::Ok(json!("clicked"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, page_specs(false), AgentConfig::default());
    h.run("Click Go.");
    let requests = h.model.requests.borrow();
    assert!(callable(&requests[1]).contains(&"snapshot".to_string()), "{:?}", callable(&requests[1]));
}
