//! Reading a step out of a JSON object, whatever names and shapes a small model gave its fields.

use serde_json::{Map, Value};

use super::{FormatErrorKind, Repair, Step};
use crate::text::{head_tail, json_type_name};

// Spellings of each field, compared after `norm_key` (lowercase, no `_`, `-` or spaces); the
// canonical spelling comes first so it wins when the model wrote several.
const THOUGHT: &[&str] = &["thought", "thoughts", "reasoning", "reason", "thinking"];
const ANSWER: &[&str] = &["finalanswer", "answer", "final"];
const ACTION: &[&str] = &["action", "toolcall", "functioncall"];
const TOOL: &[&str] = &["tool", "toolname", "name", "function"];
const ARGS: &[&str] = &["args", "arguments", "input", "parameters", "params", "toolinput", "actioninput"];
// At the top level `name` is too common a word to mean a tool unless arguments sit next to it
// (the OpenAI function-call shape `{"name": .., "arguments": ..}`).
const FLAT_TOOL: &[&str] = &["tool", "toolname"];
const FLAT_TOOL_WITH_ARGS: &[&str] = &["name", "function"];

/// Whether `key` (after [`norm_key`]) is one of the final answer's spellings.
pub(super) fn is_answer_key(key: &str) -> bool {
    ANSWER.contains(&key)
}

/// Reads `map` as a step, noting each repair; fails with what is wrong with the object.
pub(super) fn interpret(map: Map<String, Value>, repairs: &mut Vec<Repair>) -> Result<Step, FormatErrorKind> {
    let keys: Vec<String> = map.keys().cloned().collect();
    // A null is how models say "not this one" (`"action": null` next to an answer): not a repair.
    let mut top = Fields { map: map.into_iter().filter(|(_, v)| !v.is_null()).collect(), path: "" };

    let thought = match top.take(THOUGHT, "thought", repairs) {
        None => {
            repairs.push(Repair::MissingThought);
            String::new()
        }
        Some(value) => stringify(value, "thought", repairs),
    };
    let answer = match top.take(ANSWER, "final_answer", repairs) {
        // `"final": true` is a flag, not an answer.
        Some(Value::Bool(_)) => {
            repairs.push(Repair::DroppedField { field: "final_answer".into() });
            None
        }
        other => other.map(|value| stringify(value, "final_answer", repairs)),
    };
    let action = read_action(&mut top, repairs)?;
    let step = decide(thought, action, answer, repairs)?;
    for field in top.map.keys() {
        repairs.push(Repair::DroppedField { field: field.clone() });
    }
    match step {
        Some(step) => Ok(step),
        None => Err(FormatErrorKind::MissingAction { keys }),
    }
}

/// Chooses between the action and the final answer. Both present is an error rather than a guess:
/// running the tool might do what the answer claims was done, or the answer might rely on a result
/// the tool has not produced yet. An empty answer next to an action is a blank field, not a choice.
fn decide(
    thought: String,
    action: Option<(String, Value)>,
    answer: Option<String>,
    repairs: &mut Vec<Repair>,
) -> Result<Option<Step>, FormatErrorKind> {
    let blank = |a: &Option<String>| a.as_ref().is_some_and(|a| a.trim().is_empty());
    match action {
        Some((tool, args)) if matches!(norm_key(&tool).as_str(), "finalanswer") => {
            repairs.push(Repair::FinalAnswerAsTool);
            let answer = answer_from_args(args, repairs).or(answer);
            final_step(thought, answer).map(Some)
        }
        Some((tool, _)) if matches!(norm_key(&tool).as_str(), "" | "none" | "null" | "noaction") => {
            if answer.is_none() {
                return Ok(None);
            }
            repairs.push(Repair::IgnoredNoneAction);
            final_step(thought, answer).map(Some)
        }
        Some((tool, _)) if answer.is_some() && !blank(&answer) => Err(FormatErrorKind::Ambiguous { tool }),
        Some((tool, args)) => {
            if answer.is_some() {
                repairs.push(Repair::DroppedField { field: "final_answer".into() });
            }
            Ok(Some(Step::Action { thought, tool, args }))
        }
        None if answer.is_none() => Ok(None),
        None => final_step(thought, answer).map(Some),
    }
}

fn final_step(thought: String, answer: Option<String>) -> Result<Step, FormatErrorKind> {
    match answer {
        Some(answer) if !answer.trim().is_empty() => Ok(Step::Final { thought, answer }),
        _ => Err(FormatErrorKind::EmptyAnswer),
    }
}

/// The answer inside a `final_answer` tool call: an answer-like key, or the only string argument.
fn answer_from_args(args: Value, repairs: &mut Vec<Repair>) -> Option<String> {
    let Value::Object(map) = args else { return None };
    let mut fields = Fields { map, path: "action.args." };
    if let Some(value) = fields.take(ANSWER, "final_answer", &mut Vec::new()) {
        return Some(stringify(value, "final_answer", repairs));
    }
    let mut strings = fields.map.into_iter().filter_map(|(_, v)| v.as_str().map(str::to_string));
    match (strings.next(), strings.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// The tool and arguments, from an `action` object, an `action` string with sibling arguments, or
/// tool and arguments keys at the top level.
fn read_action(
    top: &mut Fields,
    repairs: &mut Vec<Repair>,
) -> Result<Option<(String, Value)>, FormatErrorKind> {
    let tool = match top.take(ACTION, "action", repairs) {
        Some(Value::Object(map)) => return action_object(map, repairs).map(Some),
        Some(Value::String(tool)) => Some(Value::String(tool)),
        Some(other) => {
            return Err(bad(format!(
                "\"action\" must be an object like {{\"tool\": \"name\", \"args\": {{...}}}}, not {}",
                json_type_name(&other)
            )))
        }
        // The flat shapes get one `FlatAction` repair rather than a rename per key.
        None if top.has(ARGS) => top
            .take(FLAT_TOOL, "", &mut Vec::new())
            .or_else(|| top.take(FLAT_TOOL_WITH_ARGS, "", &mut Vec::new())),
        None => top.take(FLAT_TOOL, "", &mut Vec::new()),
    };
    let Some(tool) = tool else { return Ok(None) };
    repairs.push(Repair::FlatAction);
    let tool = tool_name(tool)?;
    let args = match top.take(ARGS, "", &mut Vec::new()) {
        Some(args) => args_value(args, repairs)?,
        None => default_args(repairs),
    };
    Ok(Some((tool, args)))
}

fn action_object(
    map: Map<String, Value>,
    repairs: &mut Vec<Repair>,
) -> Result<(String, Value), FormatErrorKind> {
    let mut fields = Fields { map: map.into_iter().filter(|(_, v)| !v.is_null()).collect(), path: "action." };
    let Some(tool) = fields.take(TOOL, "action.tool", repairs) else {
        return Err(bad("\"action\" has no \"tool\" naming the tool to call".into()));
    };
    let tool = tool_name(tool)?;
    let args = match fields.take(ARGS, "action.args", repairs) {
        Some(args) => args_value(args, repairs)?,
        // `{"tool": "search", "query": "cats"}`: the model inlined the arguments. They are complete
        // (the object closed) and still go through the tool's schema validation.
        None if !fields.map.is_empty() => {
            repairs.push(Repair::ArgsFromSiblingKeys);
            return Ok((tool, Value::Object(std::mem::take(&mut fields.map))));
        }
        None => default_args(repairs),
    };
    for field in fields.map.keys() {
        repairs.push(Repair::DroppedField { field: format!("action.{field}") });
    }
    Ok((tool, args))
}

fn tool_name(tool: Value) -> Result<String, FormatErrorKind> {
    match tool {
        Value::String(name) => Ok(name),
        other => {
            Err(bad(format!("\"tool\" must be a string naming the tool, not {}", json_type_name(&other))))
        }
    }
}

fn default_args(repairs: &mut Vec<Repair>) -> Value {
    repairs.push(Repair::DefaultedArgs);
    Value::Object(Map::new())
}

fn args_value(args: Value, repairs: &mut Vec<Repair>) -> Result<Value, FormatErrorKind> {
    match args {
        Value::Object(_) => Ok(args),
        Value::String(text) if text.trim().is_empty() => Ok(default_args(repairs)),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(decoded @ Value::Object(_)) => {
                repairs.push(Repair::ArgsFromString);
                Ok(decoded)
            }
            _ => Err(bad(format!(
                "\"args\" must be an object of named arguments like {{\"name\": value}}, not the string {}",
                Value::String(head_tail(&text, 60))
            ))),
        },
        other => Err(bad(format!(
            "\"args\" must be an object of named arguments like {{\"name\": value}}, not {}",
            json_type_name(&other)
        ))),
    }
}

fn stringify(value: Value, field: &str, repairs: &mut Vec<Repair>) -> String {
    match value {
        Value::String(text) => text,
        other => {
            repairs.push(Repair::StringifiedField { field: field.into() });
            other.to_string()
        }
    }
}

fn bad(detail: String) -> FormatErrorKind {
    FormatErrorKind::BadActionShape { detail }
}

pub(super) fn norm_key(key: &str) -> String {
    key.chars().filter(|c| !matches!(c, '_' | '-' | ' ')).flat_map(char::to_lowercase).collect()
}

/// An object's fields not yet consumed; `path` prefixes keys in repairs (`action.`).
struct Fields {
    map: Map<String, Value>,
    path: &'static str,
}

impl Fields {
    fn has(&self, aliases: &[&str]) -> bool {
        self.map.keys().any(|k| aliases.contains(&norm_key(k).as_str()))
    }

    /// Removes and returns the field spelled by the earliest alias, noting a rename when it is
    /// not spelled `canonical`. Other spellings stay, to be reported as dropped.
    fn take(&mut self, aliases: &[&str], canonical: &str, repairs: &mut Vec<Repair>) -> Option<Value> {
        let key =
            aliases.iter().find_map(|alias| self.map.keys().find(|k| norm_key(k) == *alias)).cloned()?;
        let value = self.map.shift_remove(&key)?;
        let from = format!("{}{key}", self.path);
        if from != canonical {
            repairs.push(Repair::RenamedKey { from, to: canonical.into() });
        }
        Some(value)
    }
}
