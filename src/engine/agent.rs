//! The agent, a definition (its tools, its settings, how it counts tokens and what it redacts), the
//! effects each run brings (the model, the tool host, the store, the clock, randomness), and the
//! result of a run.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::store::redact::Redactor;
use crate::store::{EndReason, FailureRecord, FailureStats, RunCounts, Store};
use crate::tools::{ToolSet, ToolSetError, ToolSpec};

use crate::settings::ConfigError;

use super::output::step_schema;
use super::run::RunState;
use super::{
    AgentConfig, Approvals, CancelToken, CharEstimate, Clock, Event, Model, Random, TokenCounter, ToolHost,
    Turn,
};

/// What one run runs on, given with the run ([`Agent::run`], [`Agent::resume`]): one agent serves
/// runs over different models or tool hosts (the browser tags each run's model and tool calls with
/// the run's id). Each is a small trait: the browser implements them, tests fake them.
#[derive(Clone)]
pub struct Effects {
    /// The language model.
    pub model: Rc<dyn Model>,
    /// Where tools run.
    pub tools: Rc<dyn ToolHost>,
    /// Where runs, turns and failures are written.
    pub store: Rc<dyn Store>,
    /// Time and waiting.
    pub clock: Rc<dyn Clock>,
    /// Randomness for retry jitter.
    pub random: Rc<dyn Random>,
}

/// Per-run options.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The session the run belongs to: its earlier turns feed this run's prompt.
    pub session: String,
    /// The run's id; `None` makes one from the clock and the random source.
    pub run_id: Option<String>,
    /// Cancels the run, the model or tool call under way included.
    pub cancel: CancelToken,
    /// Where the user's decisions on calls that need approval come in.
    pub approvals: Approvals,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            session: "default".to_string(),
            run_id: None,
            cancel: CancelToken::new(),
            approvals: Approvals::default(),
        }
    }
}

/// How a run ended, as it ran: its turns and failures hold the real arguments, never redacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// The run's id.
    pub run_id: String,
    /// The answer: the model's, or an honest account of what failed.
    pub answer: String,
    /// Whether the model finished the task on its own: false when a budget or a fatal failure
    /// ended the run, and when the model's final answer came straight after a call whose failure
    /// stayed unrecovered (it gave up; its answer should say what failed).
    pub success: bool,
    /// Why the run ended.
    pub reason: EndReason,
    /// Every step, in order.
    pub turns: Vec<Turn>,
    /// Every failure, with whether it was retried and recovered.
    pub failures: Vec<FailureRecord>,
    /// Failure totals.
    pub stats: FailureStats,
    /// Steps, calls and tokens.
    pub counts: RunCounts,
    /// The values the model's answer stated though no tool returned them and the task does not give
    /// them (`grounding`): the run is then unsuccessful and its answer says so instead.
    #[serde(default)]
    pub ungrounded: Vec<String>,
}

/// Why an agent could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// A tool spec is unusable.
    #[error(transparent)]
    Tools(#[from] ToolSetError),
    /// A setting is out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A ReAct agent: give it a task, it thinks, calls tools, recovers from their failures, and answers.
///
/// A definition: its tools, its settings and step schemas, how it counts tokens and what it
/// redacts. What a run runs on (the model, the tool host, the store…) comes with each run, as
/// [`Effects`], so runs of one agent may use different ones, and a resumed run is built the same
/// way as a fresh one. It also keeps, for the sessions whose runs ended last, what the answer
/// checks read of the memory lines those runs showed: only lines equal to those a later run
/// shows are read from it (`memory_parts.rs`).
pub struct Agent {
    pub(crate) tools: ToolSet,
    pub(crate) config: AgentConfig,
    pub(crate) counter: Rc<dyn TokenCounter>,
    /// What the store keeps of each call's arguments; everything when `None`.
    pub(crate) redactor: Option<Rc<dyn Redactor>>,
    /// The step schema with every tool, and the final-answer-only one.
    step_schemas: [serde_json::Value; 2],
    /// What the checks read of the lines of each session's memory its last run showed, kept for
    /// the session's next run (`memory_parts.rs`).
    pub(crate) memory_parts: super::memory_parts::KeptParts,
}

impl Agent {
    /// An agent with these tools and settings. Fails if a tool spec is unusable (duplicate or
    /// malformed name, invalid schema) or a setting is out of range, saying which and why.
    pub fn new(tools: Vec<ToolSpec>, config: AgentConfig) -> Result<Agent, AgentError> {
        config.validate()?;
        let tools = ToolSet::with_formats(tools, config.formats)?;
        config.validate_tool_choice(&tools)?;
        config.tool_selection.validate(&tools)?;
        let step_schemas = [step_schema(tools.specs(), false), step_schema(tools.specs(), true)];
        let counter = Rc::new(CharEstimate::default());
        Ok(Agent { tools, config, counter, redactor: None, step_schemas, memory_parts: Default::default() })
    }

    /// The step schema handed to backends that constrain decoding (computed once per agent).
    pub(crate) fn step_schema(&self, final_only: bool) -> &serde_json::Value {
        &self.step_schemas[usize::from(final_only)]
    }

    /// Replaces the token estimate, for backends that can count.
    pub fn with_token_counter(mut self, counter: Rc<dyn TokenCounter>) -> Agent {
        self.counter = counter;
        self
    }

    /// Redacts what runs store: each call's arguments go through `redactor` before its step is
    /// written, and what it removes is scrubbed from the run's stored text (see
    /// [`crate::store::redact`]). The run itself, its events and its [`RunResult`] keep the real
    /// arguments; what the store gives back (the session's memory, a resumed run's steps, the
    /// failure log) is the redacted form.
    pub fn with_redactor(mut self, redactor: Rc<dyn Redactor>) -> Agent {
        self.redactor = Some(redactor);
        self
    }

    /// The agent's settings.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The agent's tools.
    pub fn tools(&self) -> &ToolSet {
        &self.tools
    }

    /// Runs `task` to its end over `effects`, telling `on_event` what happens as it happens.
    ///
    /// Takes `&self` and holds no borrow across an await, so runs of different sessions may
    /// interleave on one thread.
    pub async fn run(
        &self,
        effects: &Effects,
        task: &str,
        options: RunOptions,
        on_event: &dyn Fn(&Event),
    ) -> RunResult {
        RunState::start(self, effects, task, options, on_event).await.drive().await
    }
}
