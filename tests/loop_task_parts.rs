//! A part of the task left out (issue 9, no wrong success): a final answer given while a tool the
//! task names was never called is sent back naming the tool, and the next model call asks for that
//! tool's call alone (`task_parts.rs`).

mod support;

use keel::engine::{AgentConfig, Event, Outcome, RunResult};
use keel::errors::ErrorCode;
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

const TASK: &str = "What's the weather in Paris right now? Then tell me the total of my latest invoice.";
const WEATHER: &str = "Paris: 18°C, light rain.";
const INVOICES: &str = "INV-2025-014 (2025-06-30): $1,250.00\nINV-2025-009 (2025-03-31): $980.00";
/// Qwen's answer at e8c5218 (recovery bench two-part-task): the invoice part made up.
const HALF: &str = "The weather in Paris is 18°C with light rain. The total of my latest invoice is 0.";
const WHOLE: &str = "Paris: 18°C, light rain. Your latest invoice's total is $1,250.00.";

fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "get_weather",
            "Current weather for a city.",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        )
        .read_only(),
        ToolSpec::new(
            "list_invoices",
            "The customer's invoices, newest first, with their totals.",
            json!({"type": "object", "properties": {}}),
        )
        .read_only(),
    ]
}

fn paris() -> serde_json::Value {
    json!({"city": "Paris"})
}

fn run(script: Vec<Reply>, config: AgentConfig) -> (Harness, RunResult, Vec<Event>) {
    let tools = FakeTools::new()
        .script("get_weather", vec![Behaviour::Ok(json!(WEATHER))])
        .script("list_invoices", vec![Behaviour::Ok(json!(INVOICES))]);
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), config);
    let (result, events) = h.run(TASK);
    (h, result, events)
}

/// The user message of the `index`th model request.
fn asked(h: &Harness, index: usize) -> String {
    let requests = h.model.requests.borrow();
    requests[index].messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn an_answer_leaving_a_named_tool_uncalled_is_sent_back_and_that_call_asked_for() {
    let script =
        vec![act("get_weather", paris()), answer(HALF), Reply::Text("{}".to_string()), answer(WHOLE)];
    let (h, result, events) = run(script, AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, WHOLE);
    assert_eq!(h.tools.calls_to("list_invoices"), 1);
    let refused = &result.turns[1];
    assert_eq!(refused.outcome, Outcome::Failed);
    assert!(refused.observation.contains("`list_invoices` has not been called"), "{}", refused.observation);
    assert!(refused.observation.contains("'invoice'"), "{}", refused.observation);
    assert!(events.iter().any(|e| matches!(e, Event::Failure { code: ErrorCode::AnswerMismatch, .. })));
    let focused = asked(&h, 2);
    assert!(focused.contains("Write the arguments of one call to the tool below"), "{focused}");
    assert!(focused.contains("Tool: list_invoices"), "{focused}");
    assert_eq!(h.model.requests.borrow().len(), 4);
}

#[test]
fn without_grounding_the_half_answer_stands() {
    let config = AgentConfig { grounding: false, ..AgentConfig::default() };
    let (h, result, _) = run(vec![act("get_weather", paris()), answer(HALF)], config);
    assert!(result.success);
    assert_eq!(result.answer, HALF);
    assert_eq!(h.tools.calls_to("list_invoices"), 0);
}

#[test]
fn an_answer_with_every_named_tool_called_is_not_sent_back() {
    let script = vec![act("get_weather", paris()), act("list_invoices", json!({})), answer(WHOLE)];
    let (h, result, _) = run(script, AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    assert_eq!(h.model.requests.borrow().len(), 3);
}

#[test]
fn the_same_half_answer_again_ends_the_run_unsuccessful_naming_the_part() {
    // Without the focused call the model gets one more whole step, and answers the same way.
    let config = AgentConfig { focused_call: false, ..AgentConfig::default() };
    let (h, result, _) = run(vec![act("get_weather", paris()), answer(HALF), answer(HALF)], config);
    assert!(!result.success, "{}", result.answer);
    assert!(result.answer.contains("`list_invoices` was never called"), "{}", result.answer);
    assert!(!result.answer.contains(" is 0"), "the made-up part is not told as fact: {}", result.answer);
    assert_eq!(h.tools.calls_to("list_invoices"), 0);
}

#[test]
fn a_call_made_again_asks_for_the_part_left_not_for_the_answer() {
    // The thought states the weather: without a part left it would be taken as the answer.
    let again = Reply::Text(
        json!({"thought": "It is 18°C with light rain in Paris.", "action": {"tool": "get_weather", "args": paris()}})
            .to_string(),
    );
    let script = vec![act("get_weather", paris()), again, Reply::Text("{}".to_string()), answer(WHOLE)];
    let (h, result, _) = run(script, AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, WHOLE);
    assert_eq!(h.tools.calls_to("list_invoices"), 1);
    assert!(asked(&h, 2).contains("Tool: list_invoices"), "{}", asked(&h, 2));
}

/// SmolLM2's focused answer at e8c5218: the older invoice's total for the latest.
const OLDER: &str = "Paris: 18°C, light rain. Total: $980.00";

#[test]
fn an_answer_with_the_older_items_value_for_the_latest_is_sent_back_naming_the_latest() {
    let script =
        vec![act("get_weather", paris()), act("list_invoices", json!({})), answer(OLDER), answer(WHOLE)];
    let (h, result, _) = run(script, AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, WHOLE);
    let refused = &result.turns[2].observation;
    assert!(
        refused.contains("Your answer gives 980.00, listed for an item dated 2025-03-31, but the task asks for the latest one: \"INV-2025-014 (2025-06-30): $1,250.00\"."),
        "{refused}"
    );
    // The next request is the focused answer, with the latest item as its last line.
    let focused = asked(&h, 3);
    assert!(focused.contains("Answer the user's question using only the tool results below"), "{focused}");
    assert!(focused.ends_with("The latest of them: INV-2025-014 (2025-06-30): $1,250.00"), "{focused}");
}

#[test]
fn the_older_items_value_again_ends_the_run_unsuccessful() {
    let script =
        vec![act("get_weather", paris()), act("list_invoices", json!({})), answer(OLDER), answer(OLDER)];
    let (_, result, _) = run(script, AgentConfig::default());
    assert!(!result.success, "{}", result.answer);
    assert!(result.answer.contains("where the task asks for the latest one"), "{}", result.answer);
    let off = AgentConfig { grounding: false, ..AgentConfig::default() };
    let script = vec![act("get_weather", paris()), act("list_invoices", json!({})), answer(OLDER)];
    let (_, result, _) = run(script, off);
    assert!(result.success, "without grounding the older total stands: {}", result.answer);
}

/// SmolLM2's answer at 565d6dd, both tools called: the weather, and keel's markup.
const WEATHER_ONLY: &str = "Paris: 18°C, light rain.</thought>\n<recovery>\n<step n=";

#[test]
fn an_answer_stating_nothing_a_named_tool_returned_is_sent_back_with_its_result() {
    let script = vec![
        act("get_weather", paris()),
        act("list_invoices", json!({})),
        answer(WEATHER_ONLY),
        Reply::Text(json!({"final_answer": WHOLE}).to_string()),
    ];
    let (h, result, _) = run(script, AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, WHOLE);
    let refused = &result.turns[2].observation;
    assert!(
        refused.contains("it asks about 'invoice', and states nothing `list_invoices` returned"),
        "{refused}"
    );
    assert!(
        refused.contains("`list_invoices` already returned: \"INV-2025-014 (2025-06-30): $1,250.00"),
        "{refused}"
    );
    assert!(
        asked(&h, 3).contains("Answer the user's question using only the tool results below"),
        "the focused answer"
    );
}

#[test]
fn stating_nothing_of_it_again_ends_the_run_unsuccessful() {
    let script = vec![
        act("get_weather", paris()),
        act("list_invoices", json!({})),
        answer(WEATHER_ONLY),
        Reply::Text(json!({"final_answer": "Paris: 18°C, light rain."}).to_string()),
    ];
    let (_, result, _) = run(script, AgentConfig::default());
    assert!(!result.success, "{}", result.answer);
    assert!(
        result.answer.contains("the answer stated nothing `list_invoices` returned"),
        "{}",
        result.answer
    );
}

#[test]
fn calls_only_of_tools_the_agent_lacks_leave_the_answer_to_the_tool_choice() {
    // The e2e resume scenario's shape: the only calls name no tool the agent has.
    let config = AgentConfig {
        tool_choice: Some(keel::engine::ToolChoice::Auto),
        recover_before_answer: false,
        ..AgentConfig::default()
    };
    let script = vec![act("get_wether", paris()), answer("Sorry, no luck with Paris today.")];
    let (h, result, _) = run(script, config);
    assert_eq!(result.answer, "Sorry, no luck with Paris today.", "{:#?}", result.turns);
    assert_eq!(h.model.requests.borrow().len(), 2, "not sent back for a part left");
}
