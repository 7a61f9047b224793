//! One step of the ReAct loop as the model decides it: call a tool, or give the final answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One decision of the model. On the wire it is one of the two canonical shapes
/// `{"thought": "...", "action": {"tool": "name", "args": {...}}}` or
/// `{"thought": "...", "final_answer": "..."}`; serde reads and writes exactly those (and nothing
/// else: reading the model's untidy output is [`parse_step`](super::parse_step)'s job).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "WireStep", try_from = "WireStep")]
pub enum Step {
    /// Call a tool with arguments.
    Action {
        /// The model's reasoning before acting (may be empty).
        thought: String,
        /// The tool's name, as the model wrote it (validated later against the registry).
        tool: String,
        /// The arguments; always an object when produced by the parser.
        args: Value,
    },
    /// Finish the run with an answer for the user.
    Final {
        /// The model's reasoning before answering (may be empty).
        thought: String,
        /// The answer; never blank when produced by the parser.
        answer: String,
    },
}

impl Step {
    /// The model's reasoning for this step.
    pub fn thought(&self) -> &str {
        match self {
            Step::Action { thought, .. } | Step::Final { thought, .. } => thought,
        }
    }

    /// Whether this step ends the run.
    pub fn is_final(&self) -> bool {
        matches!(self, Step::Final { .. })
    }
}

/// The canonical wire shape; field order puts the thought first, as the model writes it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireStep {
    thought: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    action: Option<WireAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    final_answer: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireAction {
    tool: String,
    args: Value,
}

impl From<Step> for WireStep {
    fn from(step: Step) -> Self {
        match step {
            Step::Action { thought, tool, args } => {
                WireStep { thought, action: Some(WireAction { tool, args }), final_answer: None }
            }
            Step::Final { thought, answer } => WireStep { thought, action: None, final_answer: Some(answer) },
        }
    }
}

impl TryFrom<WireStep> for Step {
    type Error = &'static str;

    fn try_from(wire: WireStep) -> Result<Self, Self::Error> {
        match (wire.action, wire.final_answer) {
            (Some(WireAction { tool, args }), None) => Ok(Step::Action { thought: wire.thought, tool, args }),
            (None, Some(answer)) => Ok(Step::Final { thought: wire.thought, answer }),
            (Some(_), Some(_)) => Err("a step has either \"action\" or \"final_answer\", not both"),
            (None, None) => Err("a step needs \"action\" or \"final_answer\""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_to_the_canonical_shapes_thought_first() {
        let action = Step::Action { thought: "t".into(), tool: "search".into(), args: json!({"q": "x"}) };
        assert_eq!(
            serde_json::to_string(&action).unwrap(),
            r#"{"thought":"t","action":{"tool":"search","args":{"q":"x"}}}"#
        );
        let done = Step::Final { thought: String::new(), answer: "42".into() };
        assert_eq!(serde_json::to_string(&done).unwrap(), r#"{"thought":"","final_answer":"42"}"#);
        assert_eq!(serde_json::from_str::<Step>(&serde_json::to_string(&done).unwrap()).unwrap(), done);
        assert!(!action.is_final() && done.is_final());
        assert_eq!(action.thought(), "t");
    }

    #[test]
    fn deserializing_is_strict() {
        let both = r#"{"thought":"","action":{"tool":"a","args":{}},"final_answer":"x"}"#;
        assert!(serde_json::from_str::<Step>(both).is_err());
        assert!(serde_json::from_str::<Step>(r#"{"thought":""}"#).is_err());
        assert!(serde_json::from_str::<Step>(r#"{"thought":"","answer":"x"}"#).is_err());
    }
}
