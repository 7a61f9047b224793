//! A name the model itself wrote in another form (issue 9, NOT_FOUND plans that fit names): after
//! `NOT_FOUND` for `München`, the plan's first step sends the `Munich` of the model's own thought,
//! and the argument is held to it (`own_names.rs`).

mod support;

use keel::engine::{AgentConfig, Outcome};
use keel::errors::RawFailure;
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

const TASK: &str = "Wie ist das Wetter gerade in München? Answer in English with the temperature.";

fn weather() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        "get_weather",
        "Current weather for a city (English city names).",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )]
}

/// Qwen's first step at 9640f8a: the English name in the thought, the German one sent.
fn munchen() -> Reply {
    Reply::Text(
        json!({"thought": "The current weather in Munich is currently very mild.", "action": {"tool": "get_weather", "args": {"city": "München"}}})
            .to_string(),
    )
}

fn harness(script: Vec<Reply>, config: AgentConfig) -> Harness {
    let tools = FakeTools::new().script(
        "get_weather",
        vec![
            Behaviour::Fail(RawFailure::coded("NOT_FOUND", "No city named 'München'.")),
            Behaviour::Ok(json!("Munich: 12°C, cloudy.")),
        ],
    );
    Harness::new(ScriptedModel::new(script), tools, weather(), config)
}

#[test]
fn not_found_for_a_name_sends_the_form_the_models_own_thought_used() {
    let script =
        vec![munchen(), act("get_weather", json!({"city": "Munich"})), answer("Munich: 12°C, cloudy.")];
    let h = harness(script, AgentConfig::default());
    let (result, _) = h.run(TASK);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.turns[0].outcome, Outcome::Failed);
    let plan = &result.turns[0].observation;
    assert!(
        plan.contains(
            "Call `get_weather` again with `city`: \"Munich\", the name your own words used for 'München'."
        ),
        "{plan}"
    );
    let requests = h.model.requests.borrow();
    let schema = requests[1].schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""city":{"enum":["Munich"]}"#), "held to it: {schema}");
    let after = requests[2].schema.as_ref().expect("constrained").to_string();
    assert!(!after.contains(r#""enum":["Munich"]"#), "released once the call worked: {after}");
}

#[test]
fn without_grounding_the_plan_names_no_form() {
    let config = AgentConfig { grounding: false, ..AgentConfig::default() };
    let script =
        vec![munchen(), act("get_weather", json!({"city": "Munich"})), answer("Munich: 12°C, cloudy.")];
    let h = harness(script, config);
    let (result, _) = h.run(TASK);
    assert!(!result.turns[0].observation.contains("\"Munich\""), "{}", result.turns[0].observation);
    let requests = h.model.requests.borrow();
    let schema = requests[1].schema.as_ref().expect("constrained").to_string();
    assert!(!schema.contains(r#""enum":["Munich"]"#), "{schema}");
}
