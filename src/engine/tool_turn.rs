//! A tool step: check the call, run it — each attempt under its timeout, transient failures retried
//! by the runtime with backoff, jitter and Retry-After — and turn what happened into the observation
//! the model sees next.

use serde_json::{json, Value};

use crate::errors::{classify, CallContext, Envelope, ErrorCode, FailureClass, Origin, RawFailure, Severity};
use crate::tools::{CallCheck, ToolSpec};

use super::failure_log::NewFailure;
use super::guard::{guarded, pause, Guarded};
use super::narrowing::Narrowing;
use super::observation::describe_output;
use super::page_action::Appeared;
use super::run::{RunState, Stop};
use super::value_forms::add_other_forms;
use super::{Action, CallKey, Event, Outcome, RetryDecision, ToolCall, ToolOutput};
use crate::turn::{digest, result_digest};

/// How a tool call ended.
pub(crate) enum ToolEnd {
    /// It returned a result.
    Done(ToolOutput),
    /// It threw an envelope of warning severity: it did its job, with caveats.
    Advisory(Envelope),
    /// It failed, persistently or with the retries spent, at this attempt.
    Failed(Envelope, u32),
}

const NO_PROGRESS: &str =
    "\nNote: you already made this exact call and got this same result. Use it, call another tool, or give your final_answer.";

impl RunState<'_> {
    /// Checks and runs one call (`thought` is the model's reasoning for it, shown with a request
    /// for approval). `Ok` is the observation and how the step ended; `Err` ends the run after the
    /// step is committed with its observation.
    pub(crate) async fn act(
        &mut self,
        step: u32,
        action: &Action,
        thought: &str,
    ) -> Result<(String, Outcome), (String, Stop)> {
        let agent = self.agent;
        let key = CallKey::new(&action.tool, &action.args);
        let spec = match agent.tools.check(&action.tool, &action.args) {
            CallCheck::Valid(spec) => spec,
            CallCheck::UnknownTool { suggestions } => {
                let message = format!("There is no tool named `{}`.", action.tool);
                let ctx = CallContext { suggestions: &suggestions, ..CallContext::default() };
                return Ok(self.refuse(step, action, &key, ErrorCode::UnknownTool, message, ctx));
            }
            CallCheck::InvalidArgs { spec, issues } => {
                let message = match issues.len() {
                    1 => format!("The arguments for `{}` have 1 problem.", spec.name),
                    n => format!("The arguments for `{}` have {n} problems.", spec.name),
                };
                let ctx = CallContext { issues: &issues, ..CallContext::default() };
                let refused = self.refuse(step, action, &key, ErrorCode::InvalidArgs, message, ctx);
                self.narrow_to_other_forms(&spec.name, &action.args);
                return Ok(refused);
            }
        };
        if let Some(refused) = self.refuse_unseen(step, spec, action, &key) {
            return Ok(refused);
        }
        if let Some(refused) = self.refuse_contradicting(step, spec, action, &key) {
            return Ok(refused);
        }
        let now = self.effects.clock.now_ms();
        if let Some(envelope) = self.repeats.blocked(&key, now) {
            // Refused as an identical repeat: the model is stuck on this call, so its tool sits out
            // the next step (like a call that gave the same result again).
            self.spent_tools.insert(spec.name.clone());
            self.fail(step, Some(&spec.name), Some(&key), &envelope, 1);
            return Ok((self.show(&envelope), Outcome::Failed));
        }
        match self.approval(step, spec, action, thought).await {
            Err(stop) => {
                return Err(("The run was cancelled while the call waited for approval.".into(), stop))
            }
            Ok(Some(rejected)) => {
                let envelope = self.repeats.failed(&key, rejected, self.effects.clock.now_ms());
                self.fail(step, Some(&spec.name), Some(&key), &envelope, 1);
                return Ok((self.show(&envelope), Outcome::Failed));
            }
            Ok(None) => {}
        }
        self.perform(step, spec, action, thought, &key).await
    }

    /// Runs a checked call (approved, if it needed approval): its intent stored first when its
    /// tool has side effects, then the call to its end, and what the model sees of it.
    pub(crate) async fn perform(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        action: &Action,
        thought: &str,
        key: &CallKey,
    ) -> Result<(String, Outcome), (String, Stop)> {
        let agent = self.agent;
        let idempotency_key = self.idempotency_key(step, key);
        if !spec.is_idempotent() {
            self.commit_intent(step, action, thought, &idempotency_key).await;
        }
        self.ran_key = Some(idempotency_key.clone());
        let end = self.run_tool(step, spec, &action.args, key, &idempotency_key).await;
        if end.is_ok() {
            // The call's outcome is known now: the same call made later is a new call.
            self.unknown_keys.remove(key);
        }
        match end {
            Err(stop) => Err(("The run was cancelled during this call.".to_string(), stop)),
            Ok(ToolEnd::Done(output)) => {
                self.note_acted(step, spec, &action.args, true);
                self.call_worked(&spec.name);
                for warning in &output.warnings {
                    self.warn(Some(step), format!("`{}`: {warning}", spec.name));
                }
                let observation = describe_output(&output, agent.config.observation_chars);
                // Judged against the listing the call acted on, before its own result lists anew.
                if !output.lists && self.acknowledges_only(&spec.name, &action.args, &observation) {
                    self.acknowledged.insert(step);
                }
                // Read by `answer_after_result` (which asks for the answer alone only with the
                // focused answer on and no warnings) and by the answer check after it.
                if agent.config.focused_answer && output.warnings.is_empty() {
                    if let Some(lines) = self.answer_appeared(spec, &action.args, &observation) {
                        self.appeared = Some(Appeared { step, lines });
                    }
                }
                // After `note_acted`, which reads the listing the call acted on.
                let replaced = self.outputs.insert(&spec.name, observation.clone(), step, output.lists);
                if replaced.as_ref() != Some(&observation) {
                    // A new result to answer from: an earlier answer that was no answer no longer
                    // counts toward ending the run (SmolLM2 answered a placeholder, its focused call
                    // fetched the order, and its next placeholder ended the run: guessed-id, 9d84c53).
                    self.non_answer_warned = false;
                }
                let observation = self.with_fix_notes(&spec.name, observation);
                let outcome = if output.warnings.is_empty() { Outcome::Ok } else { Outcome::Warning };
                let result = result_digest(&output.value, &output.warnings);
                Ok(self.progress(key, &action.args, &result, observation, outcome, thought))
            }
            Ok(ToolEnd::Advisory(envelope)) => {
                self.call_worked(&spec.name);
                self.warn(Some(step), format!("`{}`: {}", spec.name, envelope.message));
                let result = digest(&json!([envelope.code.as_str(), envelope.message]));
                Ok(self.progress(key, &action.args, &result, self.show(&envelope), Outcome::Warning, thought))
            }
            Ok(ToolEnd::Failed(mut envelope, attempt)) => {
                add_other_forms(&mut envelope, &action.args);
                if envelope.code == ErrorCode::NotFound {
                    if let Some(step) = self.own_form_step(&spec.name, &action.args, thought) {
                        envelope.recovery.insert(0, step);
                    }
                }
                if envelope.code == ErrorCode::InvalidArgs {
                    self.narrow_to_other_forms(&spec.name, &action.args);
                }
                // A new call that failed may have changed things (a stale ref: the page moved on),
                // so tools spent before it may have something new to give again.
                self.spent_tools.clear();
                match Narrowing::from_failure(spec, &envelope) {
                    Some(narrowing) => self.narrowings.learn(narrowing),
                    // A failure naming its fix leaves the element to be tried again after it.
                    None => self.note_acted(step, spec, &action.args, false),
                }
                let envelope = self.repeats.failed(key, envelope, self.effects.clock.now_ms());
                let index = self.fail(step, Some(&spec.name), Some(key), &envelope, attempt);
                self.log.note_idempotency_key(index, &idempotency_key);
                if envelope.class == FailureClass::Fatal || envelope.severity == Severity::Critical {
                    let stop = Stop::Fatal { code: envelope.code.clone(), message: envelope.message.clone() };
                    return Err((self.show(&envelope), stop));
                }
                let observation = match self.recovery_call(step, &spec.name, &envelope, index).await {
                    Some(observation) => observation,
                    None => self.show(&envelope),
                };
                Ok((observation, Outcome::Failed))
            }
        }
    }

    /// A successful call's observation, or a failed step if the same call already gave the same
    /// result: repeating it learns nothing new, and unless a failed call waits for its fix or the
    /// tool feeds another the next step answers with `thought` or asks for the answer alone (or,
    /// with a part of the task left to a tool never called, for that call: `task_parts.rs`).
    fn progress(
        &mut self,
        key: &CallKey,
        args: &Value,
        result: &str,
        observation: String,
        outcome: Outcome,
        thought: &str,
    ) -> (String, Outcome) {
        if self.repeats.succeeded(key, result) {
            self.spent_tools.clear();
            return (observation, outcome);
        }
        self.spent_tools.insert(key.tool.clone());
        self.runtime_text.push_str(NO_PROGRESS);
        if !self.unfixed.any() && !self.feeds_another(&key.tool) {
            // The model has what the call gives, no failed call waits for its fix, and the tool
            // lists nothing another call would take: the next step answers with the thought when
            // it states the result (`thought_answer.rs`), else asks for the answer alone
            // (`focused_answer.rs`). With 48 distractor tools, Qwen got the booking reference,
            // repeated the call, then called distractors until the step budget ran out.
            if self.thought_is_the_answer(thought) && self.task_part_left().is_none() {
                self.answer_from_thought = Some(thought.trim().to_string());
            } else if !self.acknowledges_only(&key.tool, args, &observation) {
                // A page action made again is no sign the model has its answer (`page_action.rs`).
                self.focus_answer_next();
            }
        }
        (observation + NO_PROGRESS, Outcome::Failed)
    }

    /// Runs one call to its end: each attempt under its timeout, transient failures retried.
    pub(crate) async fn run_tool(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        args: &Value,
        key: &CallKey,
        idempotency_key: &str,
    ) -> Result<ToolEnd, Stop> {
        self.settle_write().await;
        let agent = self.agent;
        let effects = self.effects;
        let config = &agent.config;
        let timeout_ms = spec.timeout_ms.unwrap_or(config.tool_timeout_ms);
        let mut retried = Vec::new();
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.record.counts.tool_calls += 1;
            let call = ToolCall {
                tool: spec.name.clone(),
                args: args.clone(),
                attempt,
                idempotency_key: idempotency_key.to_string(),
            };
            let pending = effects.tools.call(&call);
            let raw = match guarded(pending, effects.clock.as_ref(), Some(timeout_ms), &self.cancel).await {
                Guarded::Done(Ok(output)) => {
                    for index in retried {
                        self.log.mark_recovered(index);
                    }
                    return Ok(ToolEnd::Done(output));
                }
                Guarded::Done(Err(raw)) => raw,
                Guarded::TimedOut => RawFailure::named(
                    "TimeoutError",
                    format!("`{}` did not finish within {timeout_ms} ms and was aborted.", spec.name),
                ),
                Guarded::Cancelled => return Err(Stop::Cancelled),
            };
            // Read only for a failure's envelope: most calls answer.
            let producers = self.producers_of(spec);
            let ctx = CallContext {
                tool: Some(&spec.name),
                args: Some(args),
                refs_from: &producers,
                available: agent.tools.names(),
                attempts: attempt,
                ..CallContext::default()
            };
            let envelope = Envelope::from_failure(&raw, classify(&raw, Origin::Tool), ctx);
            if envelope.severity == Severity::Warning && envelope.class != FailureClass::Fatal {
                return Ok(ToolEnd::Advisory(envelope));
            }
            if envelope.class != FailureClass::Transient {
                return Ok(ToolEnd::Failed(envelope, attempt));
            }
            let delay_ms = match config.retry.decide(
                attempt,
                raw.retry_after_ms,
                spec.max_attempts,
                effects.random.as_ref(),
            ) {
                RetryDecision::Retry { delay_ms } => delay_ms,
                RetryDecision::AttemptsExhausted | RetryDecision::RetryAfterTooLong { .. } => {
                    return Ok(ToolEnd::Failed(envelope, attempt));
                }
            };
            let failure = NewFailure {
                step,
                tool: Some(&spec.name),
                args_digest: Some(&key.args_digest),
                class: envelope.class,
                code: &envelope.code,
                attempt,
                message: &envelope.message,
                at_ms: effects.clock.now_ms(),
            };
            let index = self.retrying(failure, delay_ms);
            self.log.note_idempotency_key(index, idempotency_key);
            retried.push(index);
            if !pause(effects.clock.as_ref(), delay_ms, &self.cancel).await {
                return Err(Stop::Cancelled);
            }
        }
    }

    /// A failed attempt the runtime will retry after `delay_ms`: recorded, marked retried, and told
    /// to the page. Returns its index in the log, to mark it recovered if a retry succeeds.
    pub(crate) fn retrying(&mut self, failure: NewFailure<'_>, delay_ms: u64) -> usize {
        let retry = Event::RetryScheduled {
            step: failure.step,
            tool: failure.tool.map(str::to_string),
            attempt: failure.attempt,
            delay_ms,
            code: failure.code.clone(),
        };
        let index = self.log_failure(failure, None);
        self.log.mark_retried(index);
        (self.emit)(&retry);
        index
    }
}
