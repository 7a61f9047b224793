//! Asking the model for a step: the prompt fitted to the run's context budget, the step schema for
//! backends that constrain decoding, transient failures retried with the one retry policy, a context
//! overflow answered by compacting harder (for the rest of the run), an unsatisfiable schema by
//! asking without it, a safety-filter block by withholding the newest observation.

use crate::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};

use super::answer_shape::sum_asked;
use super::failure_log::NewFailure;
use super::focused_answer::{answer_schema, focused_messages};
use super::focused_call::{arguments_schema, call_messages};
use super::greedy_replies::request_key;
use super::guard::{guarded, pause, Guarded};
use super::latest_listed::asked_end_line;
use super::model_stream::StepStream;
use super::run::{RunState, Stop};
use super::step_write::HeldEvents;
use super::{Event, ReplySink};
use super::{ModelRequest, PromptInput, RetryDecision};

/// What a model call asks for.
#[derive(Clone, Copy)]
pub(crate) enum Ask<'a> {
    /// The next step, from the whole step prompt.
    Step,
    /// Only a final answer, for this reason (a budget is spent).
    FinalOnly(&'a str),
    /// The answer alone, from the task and the tools' results (`focused_answer.rs`).
    AnswerAlone,
    /// The arguments of a call to this tool alone (`focused_call.rs`).
    CallAlone(&'a str),
}

/// Compactions allowed per model call before an overflow is fatal.
const MAX_COMPACTIONS: u32 = 2;

/// What replaces an observation the model's safety filter refused to read.
const WITHHELD: &str = "[withheld: the model's safety filter blocked this result; do not request it again]";

impl RunState<'_> {
    /// Asks the model for what step `step` needs (`ask`).
    pub(crate) async fn ask(&mut self, step: u32, ask: Ask<'_>) -> Result<String, Stop> {
        let agent = self.agent;
        let effects = self.effects;
        let config = &agent.config;
        let mut constrain = config.constrain_output;
        let mut compactions = 0;
        let mut withheld = false;
        let mut transient_attempts = 0;
        let mut failed = Vec::new();
        loop {
            if let Some(window) = effects.model.context_window() {
                self.context_tokens = self.context_tokens.min(window_budget(window));
            }
            // Built while the last step's write completes (`step_write.rs`).
            let request = match self.request(ask, constrain) {
                Ok(request) => request,
                Err(stop) => {
                    self.settle_write().await;
                    return Err(stop);
                }
            };
            let greedy_key = effects.model.greedy().then(|| request_key(&request));
            let again = greedy_key.and_then(|key| self.greedy_replies.get(key));
            if let Some((first, text)) = again.map(|(first, text)| (first, text.to_string())) {
                self.settle_write().await;
                let stream = StepStream::new(step, self.emit);
                self.warn(
                    Some(step),
                    format!(
                        "The model was sent the same request as at step {first}; it decodes greedily, \
                         so its reply then is used again without asking."
                    ),
                );
                if config.stream {
                    stream.text(&text);
                }
                return Ok(text);
            }
            self.record.counts.model_calls += 1;
            // The model is asked while the last step's write completes; its reply is acted on, and
            // the text it streams told, once the write is settled and the step's start told.
            let held = HeldEvents::new(self.emit);
            let forward = |event: &Event| held.emit(event);
            let stream = StepStream::new(step, &forward);
            let cancel = self.cancel.clone();
            let call = effects.model.complete(&request, config.stream.then_some(&stream as &dyn ReplySink));
            let call = guarded(call, effects.clock.as_ref(), Some(config.model_timeout_ms), &cancel);
            let raw = match self.beside_write(call, &held).await {
                Guarded::Done(Ok(reply)) => {
                    if let Some(usage) = reply.usage {
                        self.record.counts.prompt_tokens += u64::from(usage.prompt_tokens);
                        self.record.counts.completion_tokens += u64::from(usage.completion_tokens);
                    }
                    for index in failed {
                        self.log.mark_recovered(index);
                    }
                    if let Some(key) = greedy_key {
                        self.greedy_replies.keep(key, step, &reply.text);
                    }
                    return Ok(reply.text);
                }
                Guarded::Done(Err(raw)) => raw,
                Guarded::TimedOut => RawFailure::named(
                    "TimeoutError",
                    format!("The model did not answer within {} ms.", config.model_timeout_ms),
                ),
                Guarded::Cancelled => {
                    stream.discard(&ErrorCode::Aborted);
                    return Err(Stop::Cancelled);
                }
            };
            let found = classify(&raw, Origin::Model);
            // Told before the failure and its retry, so the page drops the partial text first.
            stream.discard(&found.code);
            let failure = |attempt| NewFailure {
                step,
                tool: None,
                args_digest: None,
                class: found.class,
                code: &found.code,
                attempt,
                message: &raw.message,
                at_ms: effects.clock.now_ms(),
            };
            let fallback = match (&found.code, found.class) {
                (ErrorCode::ContextOverflow, _) if compactions < MAX_COMPACTIONS => {
                    compactions += 1;
                    self.context_tokens = shrunk_budget(self.context_tokens, &raw);
                    Some(format!(
                        "The prompt overflowed the model's context; compacting to {} tokens for the rest of the run.",
                        self.context_tokens
                    ))
                }
                (ErrorCode::Unsupported, _) if constrain => {
                    constrain = false;
                    Some(
                        "The model rejected the step schema; asking without constrained decoding."
                            .to_string(),
                    )
                }
                (ErrorCode::SafetyBlocked, _) if !withheld && !self.turns.is_empty() => {
                    withheld = true;
                    if let Some(last) = self.turns.last_mut() {
                        // Only the prompt's copy: the stored step keeps what the tool returned.
                        last.observation = WITHHELD.to_string();
                        // What the task's names were read in is no longer what the model sees.
                        self.names_left = Default::default();
                    }
                    Some(
                        "The model's safety filter blocked the prompt; withholding the last observation."
                            .to_string(),
                    )
                }
                _ => None,
            };
            if let Some(warning) = fallback {
                failed.push(self.retrying(failure(transient_attempts + 1), 0));
                self.warn(Some(step), warning);
                continue;
            }
            if found.class != FailureClass::Transient {
                failed.push(self.log_failure(failure(transient_attempts + 1), None));
                return Err(Stop::Fatal { code: found.code.clone(), message: raw.message.clone() });
            }
            transient_attempts += 1;
            match config.retry.decide(transient_attempts, raw.retry_after_ms, None, effects.random.as_ref()) {
                RetryDecision::Retry { delay_ms } => {
                    failed.push(self.retrying(failure(transient_attempts), delay_ms));
                    if !pause(effects.clock.as_ref(), delay_ms, &self.cancel).await {
                        return Err(Stop::Cancelled);
                    }
                }
                _ => {
                    self.log_failure(failure(transient_attempts), None);
                    let message =
                        format!("The model failed {transient_attempts} time(s); last: {}", raw.message);
                    return Err(Stop::Fatal { code: found.code.clone(), message });
                }
            }
        }
    }

    /// The request for the step: the whole step prompt fitted to the budget with the step schema of
    /// the moment, or the focused answer request (`focused_answer.rs`), or the focused call's
    /// (`focused_call.rs`).
    fn request(&mut self, ask: Ask<'_>, constrain: bool) -> Result<ModelRequest, Stop> {
        let agent = self.agent;
        let config = &agent.config;
        let final_only = match ask {
            Ask::Step => None,
            Ask::CallAlone(tool) => {
                let spec = agent.tools.get(tool).ok_or_else(|| Stop::Fatal {
                    code: ErrorCode::InvalidOutput,
                    message: format!("keel asked for a call of `{tool}`, which the agent does not have"),
                })?;
                // What was learned of its arguments shows in its description and its schema.
                let spec = &self.narrowings.narrowed(spec, &self.id_narrowings());
                let messages = call_messages(
                    &self.task,
                    spec,
                    &self.memory,
                    &self.turns,
                    &self.superseded,
                    agent.counter.as_ref(),
                    self.context_tokens,
                );
                let schema = constrain.then(|| arguments_schema(spec));
                return Ok(ModelRequest { messages, schema, max_tokens: config.reply_tokens });
            }
            Ask::FinalOnly(reason) => Some(reason),
            Ask::AnswerAlone => {
                let results = self.outputs.iter().map(|(tool, result)| (tool.as_str(), result.as_str()));
                let fact = sum_asked(&self.task, results)
                    .map(|sum| format!("Computed from them: {sum}"))
                    .or_else(|| asked_end_line(&self.task, self.outputs.values().map(String::as_str)));
                let messages = focused_messages(
                    &self.task,
                    &self.memory,
                    &self.turns,
                    &self.superseded,
                    fact.as_deref(),
                    self.answered_alone && self.effects.model.greedy(),
                    agent.counter.as_ref(),
                    self.context_tokens,
                );
                return Ok(ModelRequest {
                    messages,
                    schema: constrain.then(answer_schema),
                    max_tokens: config.reply_tokens,
                });
            }
        };
        let offered = self.offered_tools();
        let input = PromptInput {
            tools: offered.as_deref().unwrap_or(agent.tools.specs()),
            task: &self.task,
            memory: &self.memory,
            turns: &self.turns,
            withheld_thoughts: &self.withheld_thoughts,
            final_only,
            instructions: config.instructions.as_deref(),
            past_steps: config.past_steps,
        };
        let messages = self
            .transcript
            .build(&input, agent.counter.as_ref(), self.context_tokens)
            .map_err(|e| Stop::Fatal { code: ErrorCode::ContextOverflow, message: e.to_string() })?;
        let schema = constrain.then(|| self.current_schema(final_only.is_some(), offered.as_deref()));
        Ok(ModelRequest { messages, schema, max_tokens: config.reply_tokens })
    }
}

/// The prompt budget a context window of `window` tokens allows: an eighth is kept for the reply
/// (1,152 of Gemini Nano's 9,216 tokens; a step is rarely over 300).
fn window_budget(window: usize) -> usize {
    window - window / 8
}

/// The budget after an overflow: scaled by what the backend reported (`quota / requested`, the
/// Prompt API's QuotaExceededError fields) when it did, else by two thirds; with a 10% margin,
/// since the estimate was evidently too low.
fn shrunk_budget(budget: usize, raw: &RawFailure) -> usize {
    let number = |key: &str| raw.hints.details.get(key).and_then(serde_json::Value::as_f64);
    let ratio = match (number("quota"), number("requested")) {
        (Some(quota), Some(requested)) if requested > quota && quota > 0.0 => quota / requested,
        _ => 2.0 / 3.0,
    };
    (budget as f64 * ratio * 0.9) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::FailureHints;

    #[test]
    fn the_budget_shrinks_by_the_reported_ratio_or_by_two_thirds() {
        let plain = RawFailure::named("QuotaExceededError", "too big");
        assert_eq!(shrunk_budget(9000, &plain), 5400);
        let details = serde_json::from_value(serde_json::json!({"requested": 12000, "quota": 6000})).unwrap();
        let measured = plain.clone().with_hints(FailureHints { details, ..Default::default() });
        assert_eq!(shrunk_budget(9000, &measured), 4050);
    }

    #[test]
    fn a_known_window_keeps_an_eighth_for_the_reply() {
        assert_eq!(window_budget(9216), 8064);
        assert_eq!(window_budget(0), 0);
    }
}
