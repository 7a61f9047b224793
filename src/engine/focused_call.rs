//! The focused call (`focusedCall`): when a reply calls a tool with an argument copied from the
//! reply format's example (`"target": "<target>"`), the next model call asks for that call's
//! arguments alone — the task, the conversation's earlier questions, the tools' results so far,
//! and the tool with its arguments described in words — and its reply, a JSON object of the
//! arguments, is the call. The whole step prompt has a placeholder in every argument, and SmolLM2
//! copied `<target>` in every reply of every recorded run of recovery-bench 429-retry-after
//! (101 refusals over 15 runs), the envelope's plan notwithstanding, as it had copied the answer's
//! placeholder before the focused answer (`focused_answer.rs`). The call is then checked and run
//! like any other; the request replaces the step after the refusal, so it adds no model call.
//!
//! Two more refusals lead to it. An answer in another unit than the task's asks for the call that
//! gave it, its `enum` arguments held to their other values (`answer_shape.rs`). And an answer that
//! is no answer, or ungrounded, when the run's only results list ids and dates for a tool that has
//! not answered yet, asks for that tool's call (`seen.rs` `consumer_waiting`): a focused answer
//! from a listing of ids can only invent the detail asked for.

use serde_json::{json, Map, Value};

use crate::text::clip;
use crate::tools::ToolSpec;

use super::model_turn::Ask;
use super::output::{is_answer_placeholder, parse_step, FormatError, FormatErrorKind, Parsed, Step};
use super::run::{RunState, StepResult};
use super::Action;

use super::focused_answer::{exchanges, result_lines};
use super::memory::Remembered;
use super::prompt::{estimate, TokenCounter};
use super::{CallKey, Message, Role, Turn};

/// The instructions of the focused call. No placeholder to copy: the arguments are described in
/// words.
pub(crate) const INSTRUCTIONS: &str = "Write the arguments of one call to the tool below, to do the user's task. Take each value from the task or the tool results; never write a description or a name in angle brackets as a value. Reply with one JSON object holding the arguments.";

/// What the request says of a tool that takes no arguments.
const NO_ARGUMENTS: &str = "Arguments: none. Reply with {}.";

/// Characters of an argument's description the request quotes.
const DESCRIPTION_CHARS: usize = 200;

/// The focused call's step schema: the tool's input schema as the whole reply, an object.
pub(crate) fn arguments_schema(spec: &ToolSpec) -> Value {
    let mut schema = spec.input_schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.entry("type").or_insert_with(|| Value::from("object"));
    }
    schema
}

/// `spec`'s arguments as lines: `- target (string, required): target language`.
fn argument_lines(spec: &ToolSpec) -> Vec<String> {
    let empty = Map::new();
    let properties = spec.input_schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required = spec.required();
    properties
        .iter()
        .map(|(name, schema)| {
            let mut kind = schema.get("type").and_then(Value::as_str).unwrap_or("any").to_string();
            if let Some(options) = schema.get("enum").and_then(Value::as_array) {
                let listed: Vec<String> = options.iter().map(Value::to_string).collect();
                kind = format!("one of {}", listed.join(", "));
            }
            if required.contains(&name.as_str()) {
                kind.push_str(", required");
            }
            match schema.get("description").and_then(Value::as_str) {
                Some(d) => format!("- {name} ({kind}): {}", clip(d, DESCRIPTION_CHARS)),
                None => format!("- {name} ({kind})"),
            }
        })
        .collect()
}

/// The focused call's messages: [`INSTRUCTIONS`], then the earlier questions of the conversation,
/// the task, the tool with its arguments, and the newest distinct results of calls that worked,
/// the oldest dropped until the estimate fits `budget_tokens`.
pub(crate) fn call_messages(
    task: &str,
    spec: &ToolSpec,
    memory: &[Remembered],
    turns: &[Turn],
    superseded: &[CallKey],
    counter: &dyn TokenCounter,
    budget_tokens: usize,
) -> Vec<Message> {
    let mut results = result_lines(turns, superseded);
    let earlier = exchanges(memory);
    let lines = argument_lines(spec);
    // A tool without arguments says so: an empty list left Qwen to guess what to write.
    let arguments =
        if lines.is_empty() { NO_ARGUMENTS.to_string() } else { format!("Arguments:\n{}", lines.join("\n")) };
    let tool = format!("Tool: {}: {}\n{arguments}", spec.name, spec.description.trim());
    loop {
        let mut user = String::new();
        if !earlier.is_empty() {
            user.push_str(&format!("Earlier in this conversation:\n{}\n\n", earlier.join("\n")));
        }
        user.push_str(&format!("Task: {task}\n\n{tool}"));
        if !results.is_empty() {
            user.push_str(&format!("\n\nTool results so far:\n{}", results.join("\n")));
        }
        let messages = vec![Message::new(Role::System, INSTRUCTIONS), Message::new(Role::User, user)];
        if results.is_empty() || estimate(&messages, counter) <= budget_tokens {
            return messages;
        }
        results.remove(0);
    }
}

/// The arguments a focused call's reply gives: the JSON object itself, or the `args` of a whole
/// step the model wrote instead for the same tool. `None` for anything else.
pub(crate) fn reply_arguments(reply: &str, tool: &str) -> Option<Value> {
    let text =
        reply.trim().trim_start_matches("```json").trim_start_matches("```").trim_end_matches("```").trim();
    let value: Value = serde_json::from_str(text).ok()?;
    let object = value.as_object()?;
    match object.get("action") {
        Some(action) if action.get("tool").and_then(Value::as_str) == Some(tool) => {
            action.get("args").filter(|a| a.is_object()).cloned()
        }
        Some(_) => None,
        None => Some(value),
    }
}

impl RunState<'_> {
    /// The tool a refused reply (`error`, for the reply `text`) called with an argument copied from
    /// the reply format's example, when the agent asks for such a call's arguments alone
    /// (`focusedCall`) and has the tool.
    pub(crate) fn copied_into_call(&self, error: &FormatError, text: &str) -> Option<String> {
        let FormatErrorKind::Placeholder { placeholder } = &error.kind else { return None };
        if !self.agent.config.focused_call || is_answer_placeholder(placeholder) {
            return None;
        }
        let reply: Value = serde_json::from_str(text.trim()).ok()?;
        let tool = reply.get("action")?.get("tool")?.as_str()?;
        self.agent.tools.get(tool).map(|spec| spec.name.clone())
    }

    /// The step after such a reply: the model is asked for the arguments of a call to `tool` alone,
    /// and the call they make is checked and run as any step's (its reply read as a step, so a
    /// copied placeholder is refused again, without another focused call).
    pub(crate) async fn focused_call_step(&mut self, step: u32, tool: String) -> StepResult {
        let text = match self.ask(step, Ask::CallAlone(&tool)).await {
            Ok(text) => text,
            Err(stop) => return StepResult::Stop(stop),
        };
        let not_arguments = || FormatError::new(FormatErrorKind::NotArguments { tool: tool.clone() }, &text);
        let call = match reply_arguments(&text, &tool) {
            Some(args) => {
                match parse_step(&json!({"thought": "", "action": {"tool": tool, "args": args}}).to_string())
                {
                    Ok(Parsed { step: Step::Action { tool, args, .. }, .. }) => Ok(Action { tool, args }),
                    // A step built as an action reads as one; anything else is no call.
                    Ok(_) => Err(not_arguments()),
                    Err(e) => Err(FormatError::new(e.kind, &text)),
                }
            }
            None => Err(not_arguments()),
        };
        match call {
            Ok(action) => self.call_step(step, String::new(), action).await,
            Err(error) => {
                self.reject_unreadable(step, error).await;
                StepResult::Continue
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::engine::prompt::CharEstimate;

    fn translate() -> ToolSpec {
        ToolSpec::new(
            "translate",
            "Translates text.",
            json!({"type": "object", "properties": {
                "text": {"type": "string", "description": "the text"},
                "target": {"type": "string", "description": "target language"}}, "required": ["text"]}),
        )
    }

    #[test]
    fn describes_the_arguments_in_words_with_no_placeholder() {
        let messages = call_messages(
            "Translate 'good morning' into French.",
            &translate(),
            &[],
            &[],
            &[],
            &CharEstimate::default(),
            8_000,
        );
        let user = &messages[1].content;
        assert!(user.contains("Task: Translate 'good morning' into French."), "{user}");
        assert!(
            user.contains("- text (string, required): the text\n- target (string): target language"),
            "{user}"
        );
        let all = format!("{}{}", messages[0].content, user);
        assert!(!all.contains("<text>") && !all.contains("<target>"), "{all}");
        assert!(!user.contains("Tool results"), "no result yet, no results section: {user}");
    }

    #[test]
    fn a_tool_without_arguments_is_said_to_take_none() {
        let spec =
            ToolSpec::new("list_invoices", "The invoices.", json!({"type": "object", "properties": {}}));
        let messages =
            call_messages("My latest invoice?", &spec, &[], &[], &[], &CharEstimate::default(), 8_000);
        assert!(
            messages[1]
                .content
                .ends_with("Tool: list_invoices: The invoices.\nArguments: none. Reply with {}."),
            "{}",
            messages[1].content
        );
    }

    #[test]
    fn reads_the_arguments_object_or_a_whole_step_for_the_same_tool() {
        assert_eq!(
            reply_arguments(r#"{"text": "good morning", "target": "French"}"#, "translate"),
            Some(json!({"text": "good morning", "target": "French"}))
        );
        let step = r#"{"thought": "t", "action": {"tool": "translate", "args": {"text": "hi"}}}"#;
        assert_eq!(reply_arguments(step, "translate"), Some(json!({"text": "hi"})));
        assert_eq!(reply_arguments(step, "other"), None, "a step for another tool is not this call");
        assert_eq!(
            reply_arguments("```json\n{\"text\": \"hi\"}\n```", "translate"),
            Some(json!({"text": "hi"}))
        );
        assert_eq!(reply_arguments("French", "translate"), None);
    }
}
