//! Running one tool call: each attempt under its timeout, transient failures retried by the runtime
//! (backoff, jitter, Retry-After), everything else turned into an envelope for the model.

use serde_json::Value;

use crate::errors::{classify, CallContext, Envelope, FailureClass, Origin, RawFailure, Severity};
use crate::tools::ToolSpec;

use super::failure_log::NewFailure;
use super::guard::{guarded, pause, Guarded};
use super::run::{RunState, Stop};
use super::{CallKey, Event, RetryDecision, ToolCall, ToolOutput};

/// How a tool call ended.
pub(crate) enum ToolEnd {
    /// It returned a result.
    Done(ToolOutput),
    /// It threw an envelope of warning severity: it did its job, with caveats.
    Advisory(Envelope),
    /// It failed: persistently, or transiently with the retries spent.
    Failed(Envelope),
}

impl RunState<'_> {
    pub(crate) async fn run_tool(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        args: &Value,
    ) -> Result<ToolEnd, Stop> {
        let agent = self.agent;
        let effects = &agent.effects;
        let config = &agent.config;
        let timeout_ms = spec.timeout_ms.unwrap_or(config.tool_timeout_ms);
        let key = CallKey::new(&spec.name, args);
        let mut failed_attempts = Vec::new();
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.record.counts.tool_calls += 1;
            let call = ToolCall { tool: spec.name.clone(), args: args.clone(), attempt };
            let raw = match guarded(
                effects.tools.call(&call),
                effects.clock.as_ref(),
                Some(timeout_ms),
                &self.cancel,
            )
            .await
            {
                Guarded::Done(Ok(output)) => {
                    for index in failed_attempts {
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
            let classification = classify(&raw, Origin::Tool);
            let ctx = CallContext {
                tool: Some(&spec.name),
                args: Some(args),
                refs_from: &spec.refs_from,
                available: agent.tools.names(),
                suggestions: &[],
            };
            let envelope = Envelope::from_failure(&raw, classification, ctx);
            if envelope.severity == Severity::Warning && envelope.class != FailureClass::Fatal {
                return Ok(ToolEnd::Advisory(envelope));
            }
            let index = self.log.record(NewFailure {
                step,
                tool: Some(&spec.name),
                args_digest: Some(&key.args_digest),
                class: envelope.class,
                code: &envelope.code,
                attempt,
                message: &envelope.message,
                at_ms: effects.clock.now_ms(),
            });
            if envelope.class != FailureClass::Transient {
                return Ok(ToolEnd::Failed(envelope));
            }
            let decision =
                config.retry.decide(attempt, raw.retry_after_ms, spec.max_attempts, effects.random.as_ref());
            let delay_ms = match decision {
                RetryDecision::Retry { delay_ms } => delay_ms,
                RetryDecision::AttemptsExhausted => {
                    return Ok(ToolEnd::Failed(envelope.with_detail("attempts", attempt)));
                }
                RetryDecision::RetryAfterTooLong { retry_after_ms } => {
                    let envelope =
                        envelope.with_detail("attempts", attempt).with_detail("retryAfterMs", retry_after_ms);
                    return Ok(ToolEnd::Failed(envelope));
                }
            };
            self.log.mark_retried(index);
            failed_attempts.push(index);
            (self.emit)(&Event::Failure {
                step,
                tool: Some(spec.name.clone()),
                class: envelope.class,
                code: envelope.code.clone(),
                message: envelope.message.clone(),
                envelope: None,
            });
            (self.emit)(&Event::RetryScheduled {
                step,
                tool: Some(spec.name.clone()),
                attempt,
                delay_ms,
                code: envelope.code,
            });
            if !pause(effects.clock.as_ref(), delay_ms, &self.cancel).await {
                return Err(Stop::Cancelled);
            }
        }
    }
}
