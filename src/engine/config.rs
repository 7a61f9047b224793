//! The agent's settings, with defaults sized for small on-device models.

use serde::{Deserialize, Serialize};

use crate::errors::render::Format;

use super::{RetryPolicy, ToolSelection};
use crate::settings::ConfigError;
use crate::tools::{Formats, MAX_ATTEMPTS, MAX_WAIT_MS};

/// The most steps a run may take (`maxSteps`, `maxConsecutiveFailures`).
pub const MAX_STEPS: u32 = 1_000;

/// How an agent runs. Every field has a default; see each for what it is. An unknown key is
/// refused (see [`super::settings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
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
    /// The most tokens one reply may take, for backends that accept a limit: without one, a model
    /// decoding without a schema can ramble until its window is full (minutes on a laptop).
    pub reply_tokens: u32,
    /// Whether to hand backends the step schema to constrain decoding.
    pub constrain_output: bool,
    /// Extra system instructions from the page author.
    pub instructions: Option<String>,
    /// Whether the model must call a tool, and which (the AI SDK's names). `None` (the default):
    /// `required` for an agent with tools, `auto` for one without — measured in
    /// bench/results/recovery.md: small models otherwise answer at step 1 with an invented value.
    pub tool_choice: Option<ToolChoice>,
    /// Whether a final answer's facts (numbers, ids, codes, e-mail addresses, file names, quoted
    /// values) must be found in the task, a tool result or an argument of a call that worked (or
    /// follow from those numbers by arithmetic): an answer that states others gets an
    /// `UNGROUNDED_ANSWER` envelope and one more step, and if the model persists the run ends
    /// unsuccessful. An answer that is no answer (`parrot.rs`, `unrelated.rs`) is refused the same way.
    /// With it on, a thought that states a result is read as the answer where the model wrote it in
    /// the wrong place: beside a placeholder answer, or beside a call made again that gave the same
    /// result (`thought_answer.rs`); those thoughts meet the same checks.
    pub grounding: bool,
    /// Whether, right after a call whose result leaves nothing for another call
    /// (`engine/answer_after_result.rs`), and after a final answer refused as no answer (a
    /// placeholder, keel's own words, words about none of the run) while a tool has answered, the
    /// next model call asks for the answer alone — the task, the conversation's earlier questions and the tools' results, with a one-field reply —
    /// instead of the whole step prompt (`engine/focused_answer.rs`). Off, the model gets the
    /// envelope and one more step like any refused reply.
    pub focused_answer: bool,
    /// Whether, after a reply calling a tool with an argument copied from the reply format's
    /// example (`"city": "<city>"`), the next model call asks for that call's arguments alone — the
    /// task, the conversation's earlier questions, the tools' results and the tool's arguments
    /// described in words, with the tool's input schema as the reply — instead of the whole step
    /// prompt (`engine/focused_call.rs`). Off, the model gets the envelope and one more step.
    pub focused_call: bool,
    /// Whether an id or reference argument must have been seen (in the task or an earlier
    /// observation) before the call runs, and is narrowed under constrained decoding to the output
    /// of whichever producer answered last — and, for a tool whose one required argument it is, to
    /// the lines whose labels the task names most (see `engine/provenance.rs`, `named_line.rs`).
    pub id_provenance: bool,
    /// Whether a call whose argument contradicts a time or a count the task states ("four
    /// people at 19:30" and `people: 1`, `time: "20:30"`) is refused once before it runs, with a
    /// plan naming the task's values (`CONTRADICTS_TASK`, `engine/task_values.rs`); so is a number
    /// argument from nowhere while the user's questions state another (`unstated_numbers.rs`), and
    /// an older listed item where the task asks for the most recent (`latest_listed.rs`). Sent
    /// again unchanged, it runs (a time the task implies stays possible), and the run is reported
    /// unsuccessful.
    pub task_values: bool,
    /// Which of the model's earlier thoughts later prompts replay (`engine/withheld.rs`).
    pub replay_thoughts: ThoughtReplay,
    /// Whether, after a failed call the model can fix with another call (bad arguments, an unseen,
    /// unknown or stale id or name, a missing permission a tool grants), its next steps must be calls
    /// until a call to that tool succeeds, for at most [`super::recovering::HOLD_STEPS`] steps from
    /// its latest call with new arguments: small models otherwise answer straight after the failure,
    /// with a value they made up (`engine/recovering.rs`).
    pub recover_before_answer: bool,
    /// How the run's earlier steps are written into the prompt (`engine/prompt/compact.rs`).
    pub past_steps: PastSteps,
    /// Which tools a prompt offers when the agent has many (`engine/selection.rs`).
    pub tool_selection: ToolSelection,
    /// Whether the tools' schemas assert `format` (`"assertion"`: `email`, `uri`, `uuid`, `date`,
    /// `date-time`, `time`, `ipv4`, `ipv6`, the formats Zod emits) or only annotate it
    /// (`"annotation"`, the default, as draft 2020-12 says).
    pub formats: Formats,
    /// Whether backends that can stream hand the step's text over as it is generated (`token`
    /// and `answerDelta` events). Off, every backend answers each step whole.
    pub stream: bool,
}

/// How a prompt shows the run's earlier steps (`pastSteps`). A small model copies its own earlier
/// messages: shown its last call as an assistant message, Qwen2.5-Coder-0.5B sent that call again
/// after it had worked in 15 of the recovery bench's 28 scenarios at e612171, one model call
/// wasted each time. Shown the steps as a log in the user message, it answers from the result
/// sooner — sometimes too soon; the bench decides the default (`bench/results/recovery-issue9.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PastSteps {
    /// A numbered log in the user message: `3. You called tool {args}` and its observation
    /// (`"log"`).
    Log,
    /// Each step as the assistant message the model wrote, then its observation as a user message
    /// (`"messages"`).
    #[default]
    Messages,
}

/// Which earlier thoughts a prompt replays (`replayThoughts`). A small model copies its earlier
/// thoughts into later steps word for word, values it invented included, and repeats the call that
/// followed them. The default, `"none"`, is the measured one: on the recovery bench at 7b427ab
/// (Qwen2.5-Coder-0.5B, the first 10 scenarios) it completed 5 tasks in 36 steps where `"grounded"`
/// completed 3 in 45 (`bench/results/recovery-issue9.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThoughtReplay {
    /// Every thought, except those stating values (numbers, amounts, ids, e-mail addresses) that no
    /// tool returned and the task does not give: those are replayed empty (`"grounded"`).
    Grounded,
    /// No earlier thought: each is replayed empty (`"none"`).
    #[default]
    None,
    /// Every thought as written (`"all"`).
    All,
}

/// Whether the model must call a tool before it answers (`toolChoice`).
///
/// Enforced through the step schema where decoding is constrained, and by refusing the step where
/// it is not. Only the steps before the model's first call are bound: once it has called a tool
/// (`required`) or that tool (`{ tool }`), it may answer or call any tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides (`"auto"`).
    Auto,
    /// The first step must be a tool call (`"required"`).
    Required,
    /// No tools: the model answers straight away (`"none"`).
    None,
    /// The first call must be to this tool (`{ tool: "<name>" }`).
    Tool(String),
}

impl Serialize for ToolChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolChoice::Auto => s.serialize_str("auto"),
            ToolChoice::Required => s.serialize_str("required"),
            ToolChoice::None => s.serialize_str("none"),
            ToolChoice::Tool(tool) => serde_json::json!({ "tool": tool }).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        const EXPECTED: &str = r#"toolChoice must be "auto", "required", "none" or { tool: "<name>" }"#;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(word) => match word.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "required" => Ok(ToolChoice::Required),
                "none" => Ok(ToolChoice::None),
                other => Err(D::Error::custom(format!("{EXPECTED}, not \"{other}\""))),
            },
            serde_json::Value::Object(map) => match (map.get("tool"), map.len()) {
                (Some(serde_json::Value::String(tool)), 1) => Ok(ToolChoice::Tool(tool.clone())),
                _ => Err(D::Error::custom(format!("{EXPECTED}, not {}", serde_json::Value::Object(map)))),
            },
            other => Err(D::Error::custom(format!("{EXPECTED}, not {other}"))),
        }
    }
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
            // A step is a short thought and one call: a few hundred tokens.
            reply_tokens: 1_024,
            constrain_output: true,
            instructions: None,
            tool_choice: None,
            grounding: true,
            focused_answer: true,
            focused_call: true,
            id_provenance: true,
            task_values: true,
            replay_thoughts: ThoughtReplay::None,
            recover_before_answer: true,
            past_steps: PastSteps::Messages,
            tool_selection: ToolSelection::default(),
            formats: Formats::Annotation,
            stream: true,
        }
    }
}

impl AgentConfig {
    /// Checks every setting; the first one out of range is reported.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn check(
            ok: bool,
            field: &'static str,
            value: impl ToString,
            expected: &'static str,
        ) -> Result<(), ConfigError> {
            if ok {
                Ok(())
            } else {
                Err(ConfigError { field: field.to_string(), value: value.to_string(), expected })
            }
        }
        // Out-of-range values are refused, not clamped: a setting keel quietly changed would be a
        // setting ignored. The maxima are far past any useful value; they exist so that a typo
        // (`2**32 - 1` attempts, a timeout past what `setTimeout` can wait) fails here.
        let r = &self.retry;
        let wait = |ms: u64| (1..=MAX_WAIT_MS).contains(&ms);
        check((1..=MAX_STEPS).contains(&self.max_steps), "maxSteps", self.max_steps, "from 1 to 1000")?;
        check(
            (1..=MAX_STEPS).contains(&self.max_consecutive_failures),
            "maxConsecutiveFailures",
            self.max_consecutive_failures,
            "from 1 to 1000",
        )?;
        check(
            wait(self.tool_timeout_ms),
            "toolTimeoutMs",
            self.tool_timeout_ms,
            "from 1 ms to 86400000 ms (a day)",
        )?;
        check(
            wait(self.model_timeout_ms),
            "modelTimeoutMs",
            self.model_timeout_ms,
            "from 1 ms to 86400000 ms (a day)",
        )?;
        check(
            (200..=1_000_000).contains(&self.observation_chars),
            "observationChars",
            self.observation_chars,
            "from 200 (room for one recovery plan) to 1000000",
        )?;
        check(
            (512..=10_000_000).contains(&self.context_tokens),
            "contextTokens",
            self.context_tokens,
            "from 512 (room for the rules and the task) to 10000000",
        )?;
        check(
            (64..=1_000_000).contains(&self.reply_tokens),
            "replyTokens",
            self.reply_tokens,
            "from 64 (room for one step) to 1000000",
        )?;
        check(
            (1..=MAX_ATTEMPTS).contains(&r.max_attempts),
            "retry.maxAttempts",
            r.max_attempts,
            "from 1 (never retry) to 100",
        )?;
        check((0.0..=1.0).contains(&r.jitter), "retry.jitter", r.jitter, "between 0 and 1")?;
        check(
            r.max_delay_ms <= MAX_WAIT_MS,
            "retry.maxDelayMs",
            r.max_delay_ms,
            "at most 86400000 ms (a day)",
        )?;
        check(
            r.base_delay_ms <= r.max_delay_ms,
            "retry.baseDelayMs",
            r.base_delay_ms,
            "at most retry.maxDelayMs",
        )?;
        check(
            r.max_retry_after_ms <= MAX_WAIT_MS,
            "retry.maxRetryAfterMs",
            r.max_retry_after_ms,
            "at most 86400000 ms (a day)",
        )?;
        Ok(())
    }
}

impl AgentConfig {
    /// Checks `toolChoice` against the agent's tools: a named tool must be one of them, and
    /// `required` needs at least one.
    pub(crate) fn validate_tool_choice(&self, tools: &crate::tools::ToolSet) -> Result<(), ConfigError> {
        match &self.tool_choice {
            Some(ToolChoice::Tool(name)) if tools.get(name).is_none() => Err(ConfigError {
                field: "toolChoice.tool".into(),
                value: format!("\"{name}\""),
                expected: "the name of one of the agent's tools",
            }),
            Some(ToolChoice::Required) if tools.specs().is_empty() => Err(ConfigError {
                field: "toolChoice".into(),
                value: "\"required\"".into(),
                expected: "\"auto\" or \"none\": the agent has no tools to call",
            }),
            _ => Ok(()),
        }
    }

    /// The tool choice in force: the configured one, else `required` when there are tools.
    pub(crate) fn tool_choice(&self, has_tools: bool) -> ToolChoice {
        match &self.tool_choice {
            Some(choice) => choice.clone(),
            None if has_tools => ToolChoice::Required,
            None => ToolChoice::Auto,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_bad_values_are_named() {
        assert_eq!(AgentConfig::default().validate(), Ok(()));
        let zero = AgentConfig { max_consecutive_failures: 0, ..AgentConfig::default() };
        assert_eq!(
            zero.validate().unwrap_err().to_string(),
            "config `maxConsecutiveFailures` is 0: from 1 to 1000"
        );
        let nan = AgentConfig {
            retry: RetryPolicy { jitter: f64::NAN, ..RetryPolicy::default() },
            ..AgentConfig::default()
        };
        assert_eq!(nan.validate().unwrap_err().field, "retry.jitter");
    }
}
