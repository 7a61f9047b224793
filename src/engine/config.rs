//! The agent's settings, with defaults sized for small on-device models.

use serde::{Deserialize, Serialize};

use crate::errors::render::Format;

use super::RetryPolicy;

/// How an agent runs. Every field has a default; see each for what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentConfig {
    /// Steps allowed per run before a forced final answer.
    pub max_steps: u32,
    /// Failed or no-progress steps in a row before a forced final answer.
    pub max_consecutive_failures: u32,
    /// A tool attempt's timeout when its spec sets none.
    pub tool_timeout_ms: u64,
    /// A model call's timeout.
    pub model_timeout_ms: u64,
    /// Retries for transient tool and model failures.
    pub retry: RetryPolicy,
    /// How envelopes are rendered for the model.
    pub format: Format,
    /// The most characters an envelope or a tool result may take in the prompt.
    pub observation_chars: usize,
    /// Tokens the prompt may use (the model's window less room for its reply).
    pub context_tokens: usize,
    /// Whether to hand backends the step schema to constrain decoding.
    pub constrain_output: bool,
    /// Extra system instructions from the page author.
    pub instructions: Option<String>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_steps: 12,
            max_consecutive_failures: 5,
            tool_timeout_ms: 15_000,
            model_timeout_ms: 120_000,
            retry: RetryPolicy::default(),
            format: Format::Xml,
            observation_chars: 1_500,
            // Gemini Nano's window is about 9k tokens; keep ~1k for the reply.
            context_tokens: 8_000,
            constrain_output: true,
            instructions: None,
        }
    }
}
