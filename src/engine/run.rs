//! One run of the loop: thought → action → observation, until a final answer, a spent budget, a
//! fatal failure or cancellation.

use crate::errors::render::render;
use crate::errors::{
    classify, CallContext, Envelope, ErrorCode, FailureClass, FailureHints, Origin, RawFailure, Severity,
};
use crate::store::{EndReason, RunCounts, RunRecord, RunStatus};
use crate::tools::CallCheck;

use super::agent::{Agent, RunOptions, RunResult};
use super::failure_log::{FailureLog, NewFailure};
use super::observation::describe_output;
use super::tool_turn::ToolEnd;
use super::{parse_step, Action, CallKey, CancelToken, Event, Outcome, Repeats, Step, Turn};

/// Why the loop stops early.
pub(crate) enum Stop {
    Cancelled,
    Fatal { code: ErrorCode, message: String },
}

impl Stop {
    fn reason(self) -> EndReason {
        match self {
            Stop::Cancelled => EndReason::Cancelled,
            Stop::Fatal { code, message } => EndReason::Fatal { code, message },
        }
    }
}

/// The state of one run. Owned by the run's future, never shared: nothing is borrowed across an await.
pub(crate) struct RunState<'a> {
    pub(crate) agent: &'a Agent,
    pub(crate) emit: &'a dyn Fn(&Event),
    pub(crate) cancel: CancelToken,
    pub(crate) task: String,
    pub(crate) record: RunRecord,
    pub(crate) memory: Vec<Turn>,
    pub(crate) turns: Vec<Turn>,
    pub(crate) log: FailureLog,
    pub(crate) repeats: Repeats,
    /// Failed or no-progress steps in a row.
    consecutive: u32,
}

impl<'a> RunState<'a> {
    pub(crate) async fn start(
        agent: &'a Agent,
        task: &str,
        options: RunOptions,
        emit: &'a dyn Fn(&Event),
    ) -> RunState<'a> {
        let effects = &agent.effects;
        let now = effects.clock.now_ms();
        let run_id = options.run_id.unwrap_or_else(|| {
            format!("run-{now:x}-{:08x}", (effects.random.unit() * f64::from(u32::MAX)) as u32)
        });
        let mut state = RunState {
            agent,
            emit,
            cancel: options.cancel,
            task: task.to_string(),
            record: RunRecord {
                id: run_id.clone(),
                session: options.session.clone(),
                task: task.to_string(),
                status: RunStatus::Running,
                started_ms: now,
                ended_ms: None,
                answer: None,
                reason: None,
                counts: RunCounts::default(),
            },
            memory: Vec::new(),
            turns: Vec::new(),
            log: FailureLog::new(&run_id, &options.session),
            repeats: Repeats::default(),
            consecutive: 0,
        };
        match effects.store.session_turns(&options.session).await {
            Ok(records) => state.memory = records.into_iter().map(|r| r.turn).collect(),
            Err(e) => state.warn(None, format!("Could not read the session's history: {e}")),
        }
        (state.emit)(&Event::RunStarted { run_id, task: task.to_string() });
        state.save_run().await;
        state
    }

    pub(crate) async fn drive(mut self) -> RunResult {
        let config = &self.agent.config;
        let ending = loop {
            if self.cancel.is_cancelled() {
                break Err(Stop::Cancelled);
            }
            if self.consecutive >= config.max_consecutive_failures {
                break Ok(EndReason::ConsecutiveFailures { failures: self.consecutive });
            }
            if self.step() >= config.max_steps {
                break Ok(EndReason::MaxSteps { steps: config.max_steps });
            }
            match self.step_once().await {
                Ok(Some(answer)) => return self.finish(answer, true, EndReason::FinalAnswer).await,
                Ok(None) => {}
                Err(stop) => break Err(stop),
            }
        };
        match ending {
            Ok(budget) => self.forced_final(budget).await,
            Err(Stop::Cancelled) => {
                let answer = "The run was cancelled before it finished.".to_string();
                self.finish(answer, false, EndReason::Cancelled).await
            }
            Err(stop) => {
                let reason = stop.reason();
                let answer = format!("I could not complete the task. {}", reason.describe());
                self.finish(answer, false, reason).await
            }
        }
    }

    /// The number of the last step taken.
    pub(crate) fn step(&self) -> u32 {
        self.turns.len() as u32
    }

    /// One step: ask, parse, check, act, observe. `Some(answer)` when the model answered.
    async fn step_once(&mut self) -> Result<Option<String>, Stop> {
        let step = self.step() + 1;
        (self.emit)(&Event::StepStarted { step });
        let text = self.ask(step, None).await?;
        let parsed = match parse_step(&text) {
            Ok(parsed) => parsed,
            Err(error) => {
                let hints = FailureHints { recovery: Some(error.recovery_steps()), ..Default::default() };
                let raw = RawFailure::coded("INVALID_OUTPUT", error.summary()).with_hints(hints);
                let mut envelope = self.envelope(&raw, None, None);
                envelope.sent = Some(error.received.into());
                self.fail(step, None, None, &envelope);
                self.commit(step, String::new(), None, self.show(&envelope), Outcome::Failed).await;
                self.consecutive += 1;
                return Ok(None);
            }
        };
        match parsed.step {
            Step::Final { thought, answer } => {
                self.say_thought(step, &thought);
                self.log.recover(None);
                self.commit(step, thought, None, answer.clone(), Outcome::Final).await;
                Ok(Some(answer))
            }
            Step::Action { thought, tool, args } => {
                self.say_thought(step, &thought);
                (self.emit)(&Event::Action { step, tool: tool.clone(), args: args.clone() });
                let action = Action { tool, args };
                let (observation, outcome) = self.act(step, &action).await?;
                self.consecutive = if outcome == Outcome::Failed { self.consecutive + 1 } else { 0 };
                self.commit(step, thought, Some(action), observation, outcome).await;
                Ok(None)
            }
        }
    }

    /// Checks and runs one call; returns the observation and how the step ended.
    async fn act(&mut self, step: u32, action: &Action) -> Result<(String, Outcome), Stop> {
        let agent = self.agent;
        let key = CallKey::new(&action.tool, &action.args);
        let spec = match agent.tools.check(&action.tool, &action.args) {
            CallCheck::Valid(spec) => spec,
            CallCheck::UnknownTool { suggestions } => {
                let raw =
                    RawFailure::coded("UNKNOWN_TOOL", format!("There is no tool named `{}`.", action.tool));
                let mut envelope = self.envelope(&raw, Some(action), Some(&suggestions));
                envelope.available_actions = agent.tools.names().to_vec();
                return Ok(self.failed_call(step, action, &key, envelope));
            }
            CallCheck::InvalidArgs { spec, issues } => {
                let raw = RawFailure::coded(
                    "INVALID_ARGS",
                    match issues.len() {
                        1 => format!("The arguments for `{}` have 1 problem.", spec.name),
                        n => format!("The arguments for `{}` have {n} problems.", spec.name),
                    },
                );
                let envelope = self.envelope(&raw, Some(action), None).with_issues(issues);
                return Ok(self.failed_call(step, action, &key, envelope));
            }
        };
        if let Some(envelope) = self.repeats.blocked(&key) {
            self.fail(step, Some(action), Some(&key), &envelope);
            return Ok((self.show(&envelope), Outcome::Failed));
        }
        match self.run_tool(step, spec, &action.args).await? {
            ToolEnd::Done(output) => {
                self.log.recover(Some(&spec.name));
                for warning in &output.warnings {
                    self.warn(Some(step), format!("`{}`: {warning}", spec.name));
                }
                let mut observation = describe_output(&output, agent.config.observation_chars);
                let outcome = if output.warnings.is_empty() { Outcome::Ok } else { Outcome::Warning };
                if self.repeats.succeeded(&key) > 0 {
                    // The same call again learns nothing new: count it toward the failure budget.
                    observation.push_str(
                        "\nNote: you already made this exact call and got this result. Use it, call another tool, or give your final_answer.",
                    );
                    return Ok((observation, Outcome::Failed));
                }
                Ok((observation, outcome))
            }
            ToolEnd::Advisory(envelope) => {
                self.log.recover(Some(&spec.name));
                self.warn(Some(step), envelope.message.clone());
                Ok((self.show(&envelope), Outcome::Warning))
            }
            ToolEnd::Failed(envelope) => {
                let envelope = self.repeats.failed(&key, envelope);
                if envelope.class == FailureClass::Fatal || envelope.severity == Severity::Critical {
                    return Err(Stop::Fatal {
                        code: envelope.code.clone(),
                        message: envelope.message.clone(),
                    });
                }
                (self.emit)(&self.failure_event(step, &envelope));
                Ok((self.show(&envelope), Outcome::Failed))
            }
        }
    }

    /// A call that failed before running (unknown tool, invalid arguments).
    fn failed_call(
        &mut self,
        step: u32,
        action: &Action,
        key: &CallKey,
        envelope: Envelope,
    ) -> (String, Outcome) {
        self.fail(step, Some(action), Some(key), &envelope);
        let envelope = self.repeats.failed(key, envelope);
        (self.emit)(&self.failure_event(step, &envelope));
        (self.show(&envelope), Outcome::Failed)
    }

    /// Builds an envelope with what the runtime knows about the call.
    pub(crate) fn envelope(
        &self,
        raw: &RawFailure,
        action: Option<&Action>,
        suggestions: Option<&[String]>,
    ) -> Envelope {
        let tools = &self.agent.tools;
        let refs_from =
            action.and_then(|a| tools.get(&a.tool)).map(|s| s.refs_from.as_slice()).unwrap_or(&[]);
        let ctx = CallContext {
            tool: action.map(|a| a.tool.as_str()),
            args: action.map(|a| &a.args),
            refs_from,
            available: tools.names(),
            suggestions: suggestions.unwrap_or(&[]),
        };
        Envelope::from_failure(raw, classify(raw, Origin::Tool), ctx)
    }

    /// Renders an envelope for the prompt.
    pub(crate) fn show(&self, envelope: &Envelope) -> String {
        let config = &self.agent.config;
        render(envelope, config.format, config.observation_chars)
    }

    pub(crate) fn failure_event(&self, step: u32, envelope: &Envelope) -> Event {
        Event::Failure {
            step,
            tool: envelope.tool.clone(),
            class: envelope.class,
            code: envelope.code.clone(),
            message: envelope.message.clone(),
            envelope: Some(Box::new(envelope.clone())),
        }
    }

    /// Records a failure of a step's first (or only) attempt in the log; the store gets it with
    /// the step's commit.
    fn fail(&mut self, step: u32, action: Option<&Action>, key: Option<&CallKey>, envelope: &Envelope) {
        let now = self.agent.effects.clock.now_ms();
        self.log.record(NewFailure {
            step,
            tool: action.map(|a| a.tool.as_str()),
            args_digest: key.map(|k| k.args_digest.as_str()),
            class: envelope.class,
            code: &envelope.code,
            attempt: 1,
            message: &envelope.message,
            at_ms: now,
        });
    }

    fn say_thought(&self, step: u32, thought: &str) {
        if !thought.is_empty() {
            (self.emit)(&Event::Thought { step, text: thought.to_string() });
        }
    }

    pub(crate) fn warn(&self, step: Option<u32>, message: String) {
        (self.emit)(&Event::Warning { step, message });
    }
}
