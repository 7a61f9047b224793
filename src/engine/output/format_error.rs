//! Why a reply could not be read as a step, precisely enough for the model to fix it in one go.

use serde::Serialize;

use super::placeholder::is_answer_placeholder;
use crate::errors::ErrorCode;
use crate::text::head_tail;

/// The two shapes a step may take, as shown to the model after a format error.
pub const EXPECTED_SHAPE: &str = concat!(
    r#"{"thought": "<short reasoning>", "action": {"tool": "<tool name>", "args": {<arguments>}}}"#,
    "\nor\n",
    r#"{"thought": "<short reasoning>", "final_answer": "<answer for the user>"}"#
);

/// The most characters of the reply an error quotes back: the model needs to see what it sent,
/// but a runaway reply must not flood its context window.
const RECEIVED_MAX_CHARS: usize = 200;

/// A reply that could not be read as a step: what was wrong and what was received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{kind}; received: {received}")]
pub struct FormatError {
    /// What was wrong.
    pub kind: FormatErrorKind,
    /// The reply as received, trimmed and shortened to at most 200 characters (head…tail, where a
    /// cut-off reply shows what went missing).
    pub received: String,
}

/// What was wrong with a reply. Messages are written for the model, which reads them as feedback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum FormatErrorKind {
    /// The reply was empty or only whitespace.
    #[error("the reply was empty")]
    Empty,
    /// The reply has no `{` at all.
    #[error("the reply contains no JSON object")]
    NoObject,
    /// An object was found but is not valid JSON, even after the safe repairs.
    #[error("the JSON is invalid: {detail} at line {line} column {column}, near `{near}`")]
    NotJson {
        /// The parser's complaint (`expected value`, `key must be a string`).
        detail: String,
        /// The 1-based line of the problem in the reply.
        line: usize,
        /// The 1-based column (in characters) of the problem in the reply.
        column: usize,
        /// The reply's text from the problem on, a few characters of it.
        near: String,
    },
    /// The object never closes: the reply was cut off (or a closing bracket is missing). Never
    /// guessed into an action: the missing part might hold arguments.
    #[error(
        "the JSON object is incomplete: the reply ended {}with {open} bracket(s) still open (cut off, or a closing brace is missing)",
        if *.in_string { "inside a string " } else { "" }
    )]
    Truncated {
        /// How many `{` or `[` were still open.
        open: usize,
        /// Whether the reply ended inside a string.
        in_string: bool,
    },
    /// The reply is JSON, but not an object.
    #[error("the reply is {found}, not a JSON object")]
    NotAnObject {
        /// What it is instead (`an array`, `a string`).
        found: &'static str,
    },
    /// The object has neither an action nor a final answer.
    #[error("the object has neither \"action\" nor \"final_answer\" (its keys: {})", keys_list(.keys))]
    MissingAction {
        /// The keys the object had.
        keys: Vec<String>,
    },
    /// The action is there but malformed (no tool name, arguments that are not an object).
    #[error("the action is malformed: {detail}")]
    BadActionShape {
        /// What is wrong with it.
        detail: String,
    },
    /// The object has both an action and a non-empty final answer.
    #[error(
        "the object has both an action (tool \"{tool}\") and a final answer; a step is one or the other"
    )]
    Ambiguous {
        /// The tool the action named.
        tool: String,
    },
    /// The final answer is empty or blank, and there is no action.
    #[error("\"final_answer\" is empty")]
    EmptyAnswer,
    /// The step copies the example's placeholder instead of a real value.
    #[error("it copies the example's placeholder `{placeholder}` instead of a real value")]
    Placeholder {
        /// The placeholder copied.
        placeholder: String,
    },
    /// Asked for the arguments of one call alone (`focusedCall`), the reply was not a JSON object
    /// of them.
    #[error("it is not the arguments of `{tool}` as one JSON object")]
    NotArguments {
        /// The tool whose arguments were asked for.
        tool: String,
    },
}

fn keys_list(keys: &[String]) -> String {
    if keys.is_empty() {
        "none".into()
    } else {
        keys.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ")
    }
}

impl FormatError {
    /// An error of `kind` for the reply `text`.
    pub fn new(kind: FormatErrorKind, text: &str) -> Self {
        FormatError { kind, received: head_tail(text.trim(), RECEIVED_MAX_CHARS) }
    }

    /// The two shapes a step may take, compactly.
    pub fn expected_shape() -> &'static str {
        EXPECTED_SHAPE
    }

    /// Whether the reply was a final answer with nothing in it: empty, or the format's answer
    /// placeholder copied.
    pub fn is_no_answer(&self) -> bool {
        match &self.kind {
            FormatErrorKind::EmptyAnswer => true,
            FormatErrorKind::Placeholder { placeholder } => is_answer_placeholder(placeholder),
            _ => false,
        }
    }

    /// The failure code this error is logged and enveloped under.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::InvalidOutput
    }

    /// What was wrong, in one sentence for the model.
    pub fn summary(&self) -> String {
        format!("Your last reply could not be read: {}.", self.kind)
    }

    /// The steps that fix it: a nudge where the fix is not obvious, then the expected shape.
    pub fn recovery_steps(&self) -> Vec<String> {
        let mut steps: Vec<String> = self.hint().lines().map(str::to_string).collect();
        steps.push(format!("Reply with exactly one JSON object, one of:\n{EXPECTED_SHAPE}"));
        steps
    }

    /// A nudge for the errors whose fix is not obvious from the message alone.
    fn hint(&self) -> &'static str {
        match self.kind {
            FormatErrorKind::Truncated { .. } => "Keep the thought short so the whole object fits.\n",
            FormatErrorKind::Ambiguous { .. } => "Either call one tool or give the final answer, not both.\n",
            FormatErrorKind::NoObject | FormatErrorKind::NotAnObject { .. } => {
                "Write the step as a JSON object, with no text around it.\n"
            }
            FormatErrorKind::NotJson { .. } => "Use double quotes around keys and strings.\n",
            FormatErrorKind::EmptyAnswer => "If you are done, write the answer; otherwise call a tool.\n",
            FormatErrorKind::Placeholder { .. } => {
                "Put the real value, taken from the task or an observation, where the example has a placeholder.\n"
            }
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn received_text_keeps_head_and_tail() {
        let long = format!("{}{}", "a".repeat(150), "b".repeat(150));
        let err = FormatError::new(FormatErrorKind::Empty, &long);
        assert_eq!(err.received, format!("{}…{}", "a".repeat(100), "b".repeat(99)));
        assert_eq!(FormatError::new(FormatErrorKind::Empty, "  short ").received, "short");
    }

    #[test]
    fn the_error_says_what_was_wrong_and_how_to_fix_it() {
        let err =
            FormatError::new(FormatErrorKind::Truncated { open: 2, in_string: true }, " {\"thought\": \"lo");
        assert_eq!(
            err.summary(),
            "Your last reply could not be read: the JSON object is incomplete: the reply ended inside a string \
             with 2 bracket(s) still open (cut off, or a closing brace is missing)."
        );
        assert_eq!(err.received, "{\"thought\": \"lo");
        assert_eq!(
            err.recovery_steps(),
            vec![
                "Keep the thought short so the whole object fits.".to_string(),
                format!("Reply with exactly one JSON object, one of:\n{EXPECTED_SHAPE}"),
            ]
        );
        assert_eq!(FormatError::new(FormatErrorKind::Empty, "").recovery_steps().len(), 1);
        assert_eq!(err.code(), ErrorCode::InvalidOutput);
        assert_eq!(FormatError::expected_shape(), EXPECTED_SHAPE);
    }

    #[test]
    fn missing_action_lists_the_keys_found() {
        let kind = FormatErrorKind::MissingAction { keys: vec!["thought".into(), "observation".into()] };
        assert_eq!(
            kind.to_string(),
            "the object has neither \"action\" nor \"final_answer\" (its keys: \"thought\", \"observation\")"
        );
        assert_eq!(serde_json::to_value(&kind).unwrap()["kind"], "missing_action");
    }
}
