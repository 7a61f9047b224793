//! One step of a run as the engine records it and the store keeps it: the [`Turn`], its
//! [`Action`] and [`Outcome`], and the [`CallKey`] / [`digest`] that groups identical calls. Below
//! both the engine and the store, so neither imports the other for them.

mod call_key;

pub use call_key::{digest, result_digest, CallKey};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Action {
    /// The tool's name, as the model wrote it.
    pub tool: String,
    /// The arguments, as the model wrote them.
    pub args: Value,
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The tool succeeded.
    Ok,
    /// The tool succeeded with warnings.
    Warning,
    /// The step failed (tool failure, invalid call, unreadable output).
    Failed,
    /// The model gave its final answer.
    Final,
}

/// One step: the thought, the action (if any) and what was observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Turn {
    /// The step number within its run, from 1.
    pub step: u32,
    /// The model's reasoning.
    pub thought: String,
    /// The tool call, if the model made one.
    pub action: Option<Action>,
    /// What the model is shown next: the tool's result, a recovery envelope, or the final answer.
    pub observation: String,
    /// How the step ended.
    pub outcome: Outcome,
    /// What the model wrote, when it could not be read as a step: replayed as written in later
    /// prompts, so the model sees its own mistake rather than a different one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reply: Option<String>,
}

impl Turn {
    /// The step where the model gave its final answer.
    pub fn final_answer(step: u32, thought: String, answer: String) -> Turn {
        Turn { step, thought, action: None, observation: answer, outcome: Outcome::Final, reply: None }
    }

    /// Whether the step is a call that worked: its observation is the tool's result.
    pub fn worked(&self) -> bool {
        self.action.is_some() && matches!(self.outcome, Outcome::Ok | Outcome::Warning)
    }
}
