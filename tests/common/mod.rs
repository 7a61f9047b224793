//! Fixtures shared by the integration tests: the XML well-formedness checker, and the prompt tests'
//! tools, turns and structural checks.
#![allow(dead_code)]

#[cfg(not(target_arch = "wasm32"))]
pub mod json_values;
pub mod xml_check;

use keel::engine::{Action, Message, Outcome, Role, Turn};
use keel::tools::ToolSpec;
use serde_json::json;

/// Two small tools, with the noise Zod's `toJSONSchema` adds (`$schema`, `title`).
pub fn two_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "get_weather",
            "Current weather for a city.",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "GetWeatherArgs",
                "type": "object",
                "properties": {
                    "city": { "type": "string", "title": "City", "description": "City name, e.g. Paris" },
                    "unit": { "type": "string", "enum": ["c", "f"] }
                },
                "required": ["city"],
                "additionalProperties": false
            }),
        ),
        ToolSpec::new(
            "book_room",
            "Books a hotel room by id.",
            json!({
                "type": "object",
                "properties": {
                    "room_id": { "type": "string" },
                    "title": { "type": "string", "description": "Mr, Ms…" }
                },
                "required": ["room_id"]
            }),
        )
        .with_refs_from(["search_rooms"]),
    ]
}

/// A step calling `tool`.
pub fn call(step: u32, tool: &str, args: serde_json::Value, observation: &str, outcome: Outcome) -> Turn {
    Turn {
        step,
        thought: format!("step {step}"),
        action: Some(Action { tool: tool.into(), args }),
        observation: observation.into(),
        outcome,
        reply: None,
    }
}

/// A final step answering `answer`.
pub fn answer(step: u32, answer: &str) -> Turn {
    Turn {
        step,
        thought: "done".into(),
        action: None,
        observation: answer.into(),
        outcome: Outcome::Final,
        reply: None,
    }
}

/// `n` successful steps whose observations are `size` characters long.
pub fn steps(n: u32, size: usize) -> Vec<Turn> {
    (1..=n)
        .map(|i| {
            let body: String =
                format!("result {i}: ").chars().chain("abcdefghij".chars().cycle()).take(size).collect();
            call(i, "get_weather", json!({ "city": format!("city{i}") }), &body, Outcome::Ok)
        })
        .collect()
}

/// Panics unless the prompt is one system message then a user message then alternating
/// assistant/user messages, and carries the task verbatim in its first user message.
pub fn assert_well_formed(messages: &[Message], task: &str) {
    assert!(messages.len() >= 2, "{messages:?}");
    assert_eq!(messages[0].role, Role::System);
    assert_eq!(messages.iter().filter(|m| m.role == Role::System).count(), 1);
    assert_eq!(messages[1].role, Role::User);
    assert!(messages[1].content.contains(task), "task missing: {:?}", messages[1].content);
    for (i, m) in messages.iter().enumerate().skip(2) {
        let expected = if i % 2 == 0 { Role::Assistant } else { Role::User };
        assert_eq!(m.role, expected, "message {i} breaks the alternation: {messages:#?}");
    }
}
