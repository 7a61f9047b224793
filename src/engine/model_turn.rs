//! Asking the model for a step: the prompt fitted to the context budget, the step schema for
//! backends that constrain decoding, transient failures retried with the one retry policy, a context
//! overflow answered by compacting harder, an unsatisfiable schema by asking without it.

use crate::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};

use super::failure_log::NewFailure;
use super::guard::{guarded, pause, Guarded};
use super::run::{RunState, Stop};
use super::{build_messages, step_schema, Event, ModelRequest, PromptInput, RetryDecision};

impl RunState<'_> {
    /// Asks for step `step`; `final_only` carries the reason when only a final answer is allowed.
    pub(crate) async fn ask(&mut self, step: u32, final_only: Option<&str>) -> Result<String, Stop> {
        let agent = self.agent;
        let effects = &agent.effects;
        let config = &agent.config;
        let mut budget = config.context_tokens;
        let mut constrain = config.constrain_output;
        let mut compacted = false;
        let mut failed_attempts = Vec::new();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let input = PromptInput {
                tools: agent.tools.specs(),
                task: &self.task,
                memory: &self.memory,
                turns: &self.turns,
                final_only,
                instructions: config.instructions.as_deref(),
            };
            let messages = build_messages(&input, agent.counter.as_ref(), budget)
                .map_err(|e| Stop::Fatal { code: ErrorCode::ContextOverflow, message: e.to_string() })?;
            let schema = constrain.then(|| step_schema(agent.tools.specs(), final_only.is_some()));
            let request = ModelRequest { messages, schema };
            self.record.counts.model_calls += 1;
            let call = effects.model.complete(&request);
            let raw = match guarded(call, effects.clock.as_ref(), Some(config.model_timeout_ms), &self.cancel)
                .await
            {
                Guarded::Done(Ok(reply)) => {
                    if let Some(usage) = reply.usage {
                        self.record.counts.prompt_tokens += u64::from(usage.prompt_tokens);
                        self.record.counts.completion_tokens += u64::from(usage.completion_tokens);
                    }
                    for index in failed_attempts {
                        self.log.mark_recovered(index);
                    }
                    return Ok(reply.text);
                }
                Guarded::Done(Err(raw)) => raw,
                Guarded::TimedOut => RawFailure::named(
                    "TimeoutError",
                    format!("The model did not answer within {} ms.", config.model_timeout_ms),
                ),
                Guarded::Cancelled => return Err(Stop::Cancelled),
            };
            let found = classify(&raw, Origin::Model);
            let index = self.log.record(NewFailure {
                step,
                tool: None,
                args_digest: None,
                class: found.class,
                code: &found.code,
                attempt,
                message: &raw.message,
                at_ms: effects.clock.now_ms(),
            });
            failed_attempts.push(index);
            (self.emit)(&Event::Failure {
                step,
                tool: None,
                class: found.class,
                code: found.code.clone(),
                message: raw.message.clone(),
                envelope: None,
            });
            match (&found.code, found.class) {
                (ErrorCode::ContextOverflow, _) if !compacted => {
                    // The estimate undercounted: compact to two thirds and ask once more.
                    compacted = true;
                    budget = budget * 2 / 3;
                    self.log.mark_retried(index);
                    self.warn(
                        Some(step),
                        "The prompt overflowed the model's context; compacting the history.".into(),
                    );
                }
                (ErrorCode::Unsupported, _) if constrain => {
                    constrain = false;
                    self.log.mark_retried(index);
                    self.warn(
                        Some(step),
                        "The model rejected the step schema; asking without constrained decoding.".into(),
                    );
                }
                (_, FailureClass::Transient) => {
                    match config.retry.decide(attempt, raw.retry_after_ms, None, effects.random.as_ref()) {
                        RetryDecision::Retry { delay_ms } => {
                            self.log.mark_retried(index);
                            (self.emit)(&Event::RetryScheduled {
                                step,
                                tool: None,
                                attempt,
                                delay_ms,
                                code: found.code.clone(),
                            });
                            if !pause(effects.clock.as_ref(), delay_ms, &self.cancel).await {
                                return Err(Stop::Cancelled);
                            }
                        }
                        _ => {
                            let message =
                                format!("The model failed {attempt} time(s); last: {}", raw.message);
                            return Err(Stop::Fatal { code: found.code, message });
                        }
                    }
                }
                _ => return Err(Stop::Fatal { code: found.code, message: raw.message }),
            }
        }
    }
}
