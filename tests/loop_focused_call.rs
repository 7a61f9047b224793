//! The focused call (`focusedCall`, issue 9): after a reply calling a tool with an argument copied
//! from the reply format's example (`"target": "<target>"`), the next model call asks for that
//! call's arguments alone, and the call they make is checked and run like any other.

mod support;

use keel::engine::{AgentConfig, Outcome};
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

fn translate() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        "translate",
        "Translates text.",
        json!({"type": "object", "properties": {
            "text": {"type": "string", "description": "the text"},
            "target": {"type": "string", "description": "target language"}}, "required": ["text", "target"]}),
    )]
}

const TASK: &str = "Translate 'good morning' into French.";

/// A step calling `translate` with the format's placeholder for `target`.
fn copied() -> Reply {
    Reply::Text(
        json!({"thought": "t", "action": {"tool": "translate", "args": {"text": "good morning", "target": "<target>"}}})
            .to_string(),
    )
}

/// The reply a focused call gets: the arguments object alone.
fn arguments(args: serde_json::Value) -> Reply {
    Reply::Text(args.to_string())
}

fn harness(script: Vec<Reply>, config: AgentConfig) -> Harness {
    let tools = FakeTools::new().script("translate", vec![Behaviour::Ok(json!("Bonjour"))]);
    Harness::new(ScriptedModel::new(script), tools, translate(), config)
}

#[test]
fn a_copied_argument_placeholder_gets_a_request_for_the_calls_arguments_alone() {
    let h = harness(
        vec![copied(), arguments(json!({"text": "good morning", "target": "French"})), answer("Bonjour")],
        AgentConfig::default(),
    );
    let (result, _) = h.run(TASK);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Bonjour");
    assert_eq!(h.tools.calls_to("translate"), 1);
    assert_eq!(result.turns[1].outcome, Outcome::Ok);
    assert_eq!(
        result.turns[1].action.as_ref().unwrap().args,
        json!({"text": "good morning", "target": "French"})
    );
    let requests = h.model.requests.borrow();
    assert_eq!(requests.len(), 3, "the focused call replaces a step: no model call is added");
    let focused = &requests[1];
    let prompt = format!("{}\n{}", focused.messages[0].content, focused.messages[1].content);
    assert!(prompt.contains("Write the arguments of one call to the tool below"), "{prompt}");
    assert!(prompt.contains("- target (string, required): target language"), "{prompt}");
    assert!(!prompt.contains("<target>"), "no placeholder to copy: {prompt}");
    assert_eq!(
        focused.schema.as_ref(),
        Some(&translate()[0].input_schema),
        "the tool's schema is the reply's"
    );
}

#[test]
fn a_placeholder_again_is_refused_without_another_focused_call_and_the_switch_turns_it_off() {
    let h = harness(
        vec![
            copied(),
            arguments(json!({"text": "good morning", "target": "<target>"})),
            answer("I could not."),
        ],
        AgentConfig::default(),
    );
    let (result, _) = h.run(TASK);
    assert_eq!(h.tools.calls_to("translate"), 0);
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
    assert!(
        result.turns[1].observation.contains("placeholder `&lt;target&gt;`"),
        "{}",
        result.turns[1].observation
    );
    let requests = h.model.requests.borrow();
    assert!(
        requests[2].messages[0].content != requests[1].messages[0].content,
        "the step after is a whole step"
    );

    let off = AgentConfig { focused_call: false, ..AgentConfig::default() };
    let h = harness(vec![copied(), answer("I could not.")], off);
    h.run(TASK);
    let requests = h.model.requests.borrow();
    assert_eq!(
        requests[0].messages[0].content, requests[1].messages[0].content,
        "focusedCall: false asks for a whole step"
    );
}

#[test]
fn a_reply_that_is_not_the_arguments_is_refused_naming_the_tool() {
    let h =
        harness(vec![copied(), Reply::Text("French".into()), answer("I could not.")], AgentConfig::default());
    let (result, _) = h.run(TASK);
    let seen = &result.turns[1].observation;
    assert!(seen.contains("it is not the arguments of `translate` as one JSON object"), "{seen}");
}

#[test]
fn no_answer_after_a_listing_of_ids_alone_gets_the_call_that_looks_one_up() {
    let tools = FakeTools::new()
        .script("list_orders", vec![Behaviour::Ok(json!("ORD-5521 (2025-09-02), ORD-5310 (2025-08-14)"))])
        .script("get_order", vec![Behaviour::Ok(json!("ORD-5521: 3 items, total $42.50, shipped"))]);
    let h = Harness::new(
        ScriptedModel::new([
            act("list_orders", json!({})),
            answer("{<response here>}"),
            arguments(json!({"order_id": "ORD-5521"})),
            answer("{<response here>}"),
            arguments(json!({"final_answer": "$42.50"})),
        ]),
        tools,
        order_tools(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("What is the total of my most recent order?");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "$42.50");
    let requests = h.model.requests.borrow();
    let focused = &requests[2];
    assert!(focused.messages[1].content.contains("Tool: get_order"), "{}", focused.messages[1].content);
    let schema = focused.schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""enum":["ORD-5521","ORD-5310"]"#), "the listed ids only: {schema}");
    assert!(
        requests[4].messages[0].content.starts_with("Answer the user's question"),
        "a new result makes a placeholder after it a first one again: the focused answer, not the end"
    );
}
