//! The system message: the agent's role, its rules, the tools with their argument schemas, and the
//! reply format with one example of each kind of step.
//!
//! Small models follow short numbered rules and copy examples closely, so the wording is terse and
//! the action example calls a tool that really exists, with arguments shaped by its schema (an
//! invented tool in the example gets called).

use serde_json::{Map, Value};

use crate::engine::provenance::reading_first;
use crate::tools::ToolSpec;

const ROLE_AND_RULES: &str = "You are an agent. You complete the user's task step by step by calling tools.

Rules:
1. Reply with exactly one JSON object and nothing else.
2. One action per reply; you then get its Observation.
3. Use only the tools listed below, with args that match their schema.
4. Take ids and references only from earlier observations; never guess them.
5. When a tool fails, follow the numbered recovery steps in its observation.
6. Never repeat a call that failed with the same args.
7. When the task is done, reply with final_answer.
8. If you cannot finish, reply with final_answer and say plainly what failed.";

const ACTION_FORMAT: &str = r#"{"thought":"<short reason>","action":{"tool":"<tool name>","args":{<args>}}}"#;
const FINAL_FORMAT: &str = r#"{"thought":"<short reason>","final_answer":"<answer for the user>"}"#;
const FINAL_EXAMPLE: &str =
    r#"{"thought":"I have what I need.","final_answer":"<what you found, in plain words>"}"#;

/// Renders the one system message: role and rules, the page author's instructions, the tools,
/// and the reply format.
pub(crate) fn system_message(tools: &[ToolSpec], instructions: Option<&str>) -> String {
    let mut out = String::from(ROLE_AND_RULES);
    if let Some(extra) = instructions.map(str::trim).filter(|s| !s.is_empty()) {
        out.push_str("\n\n");
        out.push_str(extra);
    }
    let Some(first) = tools.first() else {
        out.push_str("\n\nTools: none. Reply only with final_answer.\n\nOutput:\n");
        out.push_str(FINAL_FORMAT);
        out.push_str("\nExample: ");
        out.push_str(FINAL_EXAMPLE);
        return out;
    };
    out.push_str("\n\nTools:");
    for tool in tools {
        out.push_str("\n- ");
        out.push_str(&tool.name);
        let description = tool.description.trim();
        if !description.is_empty() {
            out.push_str(": ");
            out.push_str(description);
        }
        if !tool.refs_from.is_empty() {
            // The listers that only read, where some do (`snapshot`, not `navigate`).
            let read_only = |n: &str| tools.iter().any(|t| t.name == n && t.read_only);
            let named = reading_first(&tool.refs_from, read_only);
            out.push_str(" (ids come from: ");
            out.push_str(&named.join(", "));
            out.push(')');
        }
        out.push_str("\n  args: ");
        out.push_str(&compact_schema(&tool.input_schema).to_string());
    }
    out.push_str("\n\nOutput, one of:\n");
    out.push_str(ACTION_FORMAT);
    out.push('\n');
    out.push_str(FINAL_FORMAT);
    out.push_str("\nExample action: ");
    out.push_str(&action_example(first));
    out.push_str("\nExample final: ");
    out.push_str(FINAL_EXAMPLE);
    out
}

/// Keys whose value is a map from names to subschemas (not a schema itself: a property may well
/// be called `title`).
const SCHEMA_MAPS: [&str; 4] = ["properties", "patternProperties", "$defs", "definitions"];
/// Keys whose value is one subschema or a list of them.
const SUBSCHEMAS: [&str; 13] = [
    "items",
    "prefixItems",
    "additionalProperties",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "anyOf",
    "oneOf",
    "allOf",
];

/// A JSON Schema without what the model does not need (`$schema`, `title`), keeping what
/// constrains or explains the arguments (types, descriptions, enums, required, bounds).
pub(crate) fn compact_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else { return schema.clone() };
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        let kept = match key.as_str() {
            "$schema" | "title" => continue,
            k if SCHEMA_MAPS.contains(&k) => match value {
                Value::Object(named) => Value::Object(
                    named.iter().map(|(name, sub)| (name.clone(), compact_schema(sub))).collect(),
                ),
                other => other.clone(),
            },
            k if SUBSCHEMAS.contains(&k) => match value {
                Value::Array(list) => Value::Array(list.iter().map(compact_schema).collect()),
                other => compact_schema(other),
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), kept);
    }
    Value::Object(out)
}

/// An example action step calling `tool` with a placeholder for each required argument.
fn action_example(tool: &ToolSpec) -> String {
    let schema = &tool.input_schema;
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut args = Map::new();
    if let (Some(required), Some(properties)) = (schema.get("required").and_then(Value::as_array), properties)
    {
        for name in required.iter().filter_map(Value::as_str) {
            let sub = properties.get(name).unwrap_or(&Value::Null);
            args.insert(name.to_owned(), placeholder(name, sub));
        }
    }
    let step = serde_json::json!({
        "thought": "<what you know so far and what this call is for>",
        "action": { "tool": tool.name, "args": args },
    });
    step.to_string()
}

/// A value of the shape `schema` asks for: its first enum value, else a typed stand-in.
fn placeholder(name: &str, schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        Some(Value::String(t)) => Some(t.as_str()),
        _ => None,
    };
    match ty {
        Some("integer" | "number") => Value::from(1),
        Some("boolean") => Value::Bool(true),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(Map::new()),
        _ => Value::String(format!("<{name}>")),
    }
}
