//! Side effects and resume: a call of a tool with side effects is never made twice by accident.
//!
//! Before a call of a tool that is neither `idempotent` nor `readOnly` runs, its intent is written
//! to the run record (`RunRecord::intent`); the call's outcome is the turn its step commits. A run
//! cut off in between (a terminated worker, a reload) left a call that may or may not have taken
//! effect. Resumed, it does not make that call again silently: per the tool's `onUnknownOutcome`,
//! it asks the user (the approval machinery of `approval.rs`, with `outcomeUnknown`) or tells the
//! model (`OUTCOME_UNKNOWN`: what was called, that it may or may not have happened, how to find
//! out). An idempotent tool's call is simply made again, as the model asks for it.
//!
//! Every call carries an idempotency key, `<run>:<step>`, the same for each attempt and for the
//! step made again after a reload: a tool passes it to its service as `Idempotency-Key`. A call
//! made again with the arguments of a call whose outcome is unknown keeps that call's key, so a
//! service that honours keys does it once even if the first did take effect.

use serde_json::{json, Map};

use crate::errors::{CallContext, ErrorCode, FailureHints, RawFailure};
use crate::store::Intent;
use crate::tools::{OnUnknownOutcome, ToolSpec};

use super::run::{RunState, StepResult, Stop};
use super::{Action, CallKey, Event, Outcome, Turn};

impl RunState<'_> {
    /// The idempotency key of a call of `key` at `step`: `<run>:<step>`, or the key of an earlier
    /// call with the same tool and arguments whose outcome is unknown.
    pub(crate) fn idempotency_key(&self, step: u32, key: &CallKey) -> String {
        self.unknown_keys.get(key).cloned().unwrap_or_else(|| format!("{}:{step}", self.record.id))
    }

    /// Tells the page of the call the step makes, with its idempotency key.
    pub(crate) fn emit_action(&self, step: u32, action: &Action) {
        let idempotency_key = self.idempotency_key(step, &CallKey::new(&action.tool, &action.args));
        (self.emit)(&Event::Action {
            step,
            tool: action.tool.clone(),
            args: action.args.clone(),
            idempotency_key,
        });
    }

    /// Stores the intent of a call of a tool with side effects, before it runs.
    pub(crate) async fn commit_intent(&mut self, step: u32, action: &Action, thought: &str, key: &str) {
        let (args, thought, args_redacted) = self.stored_call(action, thought, step).await;
        self.record.intent = Some(Intent {
            idempotency_key: key.to_string(),
            step,
            tool: action.tool.clone(),
            args,
            thought,
            started_ms: self.effects.clock.now_ms(),
            args_redacted,
        });
        // While a run is under way its record counts the steps committed, not the one begun.
        let begun = self.record.counts.steps;
        self.record.counts.steps = self.step();
        self.save_run().await;
        self.record.counts.steps = begun;
    }

    /// The call cut off at `step` before its outcome was stored, if there is one: an intent for
    /// a step with no committed turn, which only a resumed run's first step can have.
    pub(crate) fn unknown_outcome(&self, step: u32) -> Option<Intent> {
        self.record.intent.clone().filter(|intent| intent.step == step && self.step() < step)
    }

    /// The step of a resumed run whose call was cut off before its outcome was stored: the call is
    /// made again only once the user approves (`onUnknownOutcome: "ask"`), else the model is told
    /// that it may or may not have happened.
    pub(crate) async fn unknown_outcome_step(&mut self, step: u32, intent: Intent) -> StepResult {
        let action = Action { tool: intent.tool.clone(), args: intent.args.clone() };
        let key = CallKey::new(&action.tool, &action.args);
        self.unknown_keys.insert(key.clone(), intent.idempotency_key.clone());
        self.say_thought(step, &intent.thought);
        self.emit_action(step, &action);
        let spec = self.agent.tools.get(&intent.tool);
        let ask = spec.filter(|s| s.unknown_outcome() == OnUnknownOutcome::Ask && !intent.args_redacted);
        self.warn(
            Some(step),
            format!(
                "The call to `{}` (idempotency key {}) was cut off before its outcome was stored: it may or may not have taken effect, so it is not made again {}.",
                intent.tool,
                intent.idempotency_key,
                if ask.is_some() { "unless the user approves" } else { "and the model is told" }
            ),
        );
        let (observation, outcome, stop) = match ask {
            Some(spec) => self.ask_to_repeat(step, spec, &action, &intent).await,
            None => {
                let (observation, outcome) = self.report_unknown(step, &action, &intent, None);
                (observation, outcome, None)
            }
        };
        let turn =
            Turn { step, thought: intent.thought, action: Some(action), observation, outcome, reply: None };
        self.commit(turn).await;
        stop.map_or(StepResult::Continue, StepResult::Stop)
    }

    /// Asks the user whether to make the call again (the decision may have been given ahead, after
    /// a reload); approved, it runs with its first key, else the model is told.
    async fn ask_to_repeat(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        action: &Action,
        intent: &Intent,
    ) -> (String, Outcome, Option<Stop>) {
        let decision = match self.decision_on(step, action, &intent.thought, true).await {
            Ok(decision) => decision,
            Err(stop) => {
                let said = "The run was cancelled while the call waited for approval to be made again.";
                return (said.to_string(), Outcome::Failed, Some(stop));
            }
        };
        if !decision.approved {
            let (observation, outcome) = self.report_unknown(step, action, intent, Some(decision.reason));
            return (observation, outcome, None);
        }
        let key = CallKey::new(&action.tool, &action.args);
        match self.perform(step, spec, action, &intent.thought, &key).await {
            Ok((observation, outcome)) => (observation, outcome, None),
            Err((observation, stop)) => (observation, Outcome::Failed, Some(stop)),
        }
    }

    /// Tells the model the call may or may not have happened (`OUTCOME_UNKNOWN`); `rejected` holds
    /// the user's reason when they chose not to make it again.
    fn report_unknown(
        &mut self,
        step: u32,
        action: &Action,
        intent: &Intent,
        rejected: Option<Option<String>>,
    ) -> (String, Outcome) {
        let tool = &action.tool;
        let mut message = format!(
            "Your call to `{tool}` was cut off before its result was stored (the page reloaded or the worker stopped while it ran): it may or may not have taken effect, so it was not made again."
        );
        let reason = rejected.as_ref().map(|r| r.as_deref().map(str::trim).unwrap_or_default());
        match reason {
            Some("") => message.push_str(" The user chose not to make it again."),
            Some(reason) => message.push_str(&format!(" The user chose not to make it again: {reason}")),
            None => {}
        }
        let mut details = Map::new();
        details.insert("idempotencyKey".into(), json!(intent.idempotency_key));
        if let Some(reason) = reason.filter(|r| !r.is_empty()) {
            details.insert("reason".into(), json!(reason));
        }
        let hints = FailureHints { details, ..FailureHints::default() };
        let raw = RawFailure::message(message).with_hints(hints);
        let envelope = self.envelope(ErrorCode::OutcomeUnknown, &raw, Some(action), CallContext::default());
        let key = CallKey::new(tool, &action.args);
        let index = self.fail(step, Some(tool), Some(&key), &envelope, 1);
        self.log.note_idempotency_key(index, &intent.idempotency_key);
        (self.show(&envelope), Outcome::Failed)
    }
}
