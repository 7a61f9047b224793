//! Human approval: a call of a tool declared `needsApproval` waits for the user's decision before
//! it runs.
//!
//! The pause is a state of the run. The call is written to the run record (`pendingApproval`)
//! before the page is told (`approvalRequested`), so a worker killed while it waits loses nothing:
//! after a reload the store still lists the call, and a decision resumes the run with it
//! (`resume.rs`). A rejection is a failure the model sees (`APPROVAL_REJECTED`: the user's reason,
//! the other tools it may use); it is persistent, so the runtime never retries it, and an
//! identical call made again is refused as a repeat without asking the user twice.
//!
//! There is no timeout: a person may take minutes or hours, and the wait outlives a reload, which
//! an in-memory timer would not. A page that wants one rejects on its own timer
//! (`run.reject(callId, "no answer within 5 minutes")`); cancelling the run ends the wait.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map};

use crate::errors::{CallContext, Envelope, ErrorCode, FailureHints, RawFailure};
use crate::store::PendingApproval;
use crate::tools::{NeedsApproval, ToolSpec};

use super::guard::{guarded, Guarded};
use super::run::{RunState, StepResult, Stop};
use super::{Action, Event, Outcome, ToolCall, Turn};

/// The user's decision on a call that waits for approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Whether the call may run.
    pub approved: bool,
    /// Why it was rejected, for the model (ignored for an approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reason: Option<String>,
}

impl Decision {
    /// The call may run.
    pub fn approve() -> Decision {
        Decision { approved: true, reason: None }
    }

    /// The call must not run; `reason` is shown to the model.
    pub fn reject(reason: Option<String>) -> Decision {
        Decision { approved: false, reason }
    }
}

/// Why a decision was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// No run waits on this call: never asked for, already decided, or its run ended.
    #[error("no call `{call_id}` waits for approval{}", waiting_note(.waiting))]
    NotPending {
        /// The call named.
        call_id: String,
        /// The call the run waits on instead, if it waits on one.
        waiting: Option<String>,
    },
}

fn waiting_note(waiting: &Option<String>) -> String {
    match waiting {
        Some(call) => format!(" (the run waits on `{call}`)"),
        None => String::new(),
    }
}

#[derive(Default)]
struct State {
    /// The call the run waits on now.
    waiting: Option<String>,
    /// Decisions not yet taken by the run: the one it waits for, or one given ahead to a resumed run.
    decided: HashMap<String, Decision>,
    waker: Option<Waker>,
}

/// Where the user's decisions reach a run. Clones share one state: the page's side decides, the
/// run waits.
#[derive(Clone, Default)]
pub struct Approvals(Rc<RefCell<State>>);

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals").field("waiting", &self.waiting()).finish()
    }
}

impl Approvals {
    /// Approvals with no decision yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Approvals holding a decision given ahead: a run resumed after a reload to act on the call
    /// it was waiting on takes it instead of asking again.
    pub fn decided(call_id: &str, decision: Decision) -> Self {
        let approvals = Self::default();
        approvals.0.borrow_mut().decided.insert(call_id.to_string(), decision);
        approvals
    }

    /// The call the run waits on, if it waits.
    pub fn waiting(&self) -> Option<String> {
        self.0.borrow().waiting.clone()
    }

    /// Decides the call the run waits on; refused, saying so, for any other call.
    pub fn decide(&self, call_id: &str, decision: Decision) -> Result<(), ApprovalError> {
        let waker = {
            let mut state = self.0.borrow_mut();
            if state.waiting.as_deref() != Some(call_id) {
                return Err(ApprovalError::NotPending {
                    call_id: call_id.to_string(),
                    waiting: state.waiting.clone(),
                });
            }
            state.waiting = None;
            state.decided.insert(call_id.to_string(), decision);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// The decision given ahead for `call_id`, taken.
    pub(crate) fn take(&self, call_id: &str) -> Option<Decision> {
        self.0.borrow_mut().decided.remove(call_id)
    }

    /// Waits for the decision on `call_id`; the run waits on it from now until the decision
    /// comes or the wait is dropped (the run cancelled).
    fn ask(&self, call_id: &str) -> Waiting {
        self.0.borrow_mut().waiting = Some(call_id.to_string());
        Waiting { approvals: self.clone(), call_id: call_id.to_string() }
    }
}

/// The future of [`Approvals::ask`].
struct Waiting {
    approvals: Approvals,
    call_id: String,
}

impl Future for Waiting {
    type Output = Decision;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Decision> {
        let mut state = self.approvals.0.borrow_mut();
        if let Some(decision) = state.decided.remove(&self.call_id) {
            return Poll::Ready(decision);
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut state = self.approvals.0.borrow_mut();
        if state.waiting.as_deref() == Some(self.call_id.as_str()) {
            state.waiting = None;
        }
        state.waker = None;
    }
}

impl RunState<'_> {
    /// The approval gate before a checked call runs: `Ok(None)` when it may run (no approval
    /// needed, or approved), `Ok(Some(envelope))` when the user rejected it, `Err` when the run was
    /// cancelled while it waited.
    pub(crate) async fn approval(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        action: &Action,
        thought: &str,
    ) -> Result<Option<Envelope>, Stop> {
        self.settle_write().await;
        if !self.needs_approval(step, spec, action).await? {
            // A resumed run's waiting call that no longer needs approval: the pause is over.
            self.end_pause().await;
            return Ok(None);
        }
        let decision = self.decision_on(step, action, thought, false).await?;
        Ok((!decision.approved).then(|| self.rejection(action, decision.reason)))
    }

    /// The user's decision on the call of `step`: one given before the run asked (`approve` /
    /// `reject` ahead of the pause), else waited for with the pause stored. The pause is then
    /// cleared and `approvalDecided` told. An approval's reason is dropped. `Err` when the run was
    /// cancelled while it waited.
    pub(crate) async fn decision_on(
        &mut self,
        step: u32,
        action: &Action,
        thought: &str,
        outcome_unknown: bool,
    ) -> Result<Decision, Stop> {
        let call_id = format!("{}:{step}", self.record.id);
        let decision = match self.approvals.take(&call_id) {
            Some(decision) => decision,
            None => self.wait_for_decision(step, &call_id, action, thought, outcome_unknown).await?,
        };
        self.end_pause().await;
        let reason = if decision.approved { None } else { decision.reason };
        (self.emit)(&Event::ApprovalDecided {
            step,
            call_id,
            approved: decision.approved,
            reason: reason.clone(),
        });
        Ok(Decision { approved: decision.approved, reason })
    }

    /// Clears the pause stored on the run record, if there is one, and stores the record.
    pub(crate) async fn end_pause(&mut self) {
        if self.record.pending_approval.take().is_some() {
            self.save_run().await;
        }
    }

    /// Whether this call waits for approval: its tool's declaration, or for `perCall` the tool
    /// host's answer (a host that fails or does not answer in the tool's time means yes).
    async fn needs_approval(&self, step: u32, spec: &ToolSpec, action: &Action) -> Result<bool, Stop> {
        match spec.needs_approval {
            NeedsApproval::Never => return Ok(false),
            NeedsApproval::Always => return Ok(true),
            NeedsApproval::PerCall => {}
        }
        let effects = self.effects;
        let key = super::CallKey::new(&action.tool, &action.args);
        let call = ToolCall {
            tool: action.tool.clone(),
            args: action.args.clone(),
            attempt: 1,
            idempotency_key: self.idempotency_key(step, &key),
        };
        let timeout_ms = spec.timeout_ms.unwrap_or(self.agent.config.tool_timeout_ms);
        let asked = effects.tools.needs_approval(&call);
        let why = match guarded(asked, effects.clock.as_ref(), Some(timeout_ms), &self.cancel).await {
            Guarded::Done(Ok(needed)) => return Ok(needed),
            Guarded::Cancelled => return Err(Stop::Cancelled),
            Guarded::Done(Err(failure)) => failure.message,
            Guarded::TimedOut => format!("no answer within {timeout_ms} ms"),
        };
        self.warn(
            Some(step),
            format!(
                "Could not tell whether this call of `{}` needs approval, so it waits for one: {why}",
                spec.name
            ),
        );
        Ok(true)
    }

    /// Stores the pause, tells the page, and waits for the decision or the run's cancellation.
    /// `outcome_unknown`: the call was cut off by a reload before its outcome was stored, and
    /// approving it makes it again (`intent.rs`).
    pub(crate) async fn wait_for_decision(
        &mut self,
        step: u32,
        call_id: &str,
        action: &Action,
        thought: &str,
        outcome_unknown: bool,
    ) -> Result<Decision, Stop> {
        let (args, stored_thought, args_redacted) = self.stored_call(action, thought, step).await;
        self.record.pending_approval = Some(PendingApproval {
            call_id: call_id.to_string(),
            step,
            tool: action.tool.clone(),
            args,
            thought: stored_thought,
            requested_ms: self.effects.clock.now_ms(),
            args_redacted,
            outcome_unknown,
        });
        self.save_run().await;
        let waiting = self.approvals.ask(call_id);
        (self.emit)(&Event::ApprovalRequested {
            step,
            call_id: call_id.to_string(),
            tool: action.tool.clone(),
            args: action.args.clone(),
            thought: thought.to_string(),
            outcome_unknown,
        });
        let clock = self.effects.clock.as_ref();
        match guarded(waiting, clock, None, &self.cancel).await {
            Guarded::Done(decision) => Ok(decision),
            Guarded::TimedOut | Guarded::Cancelled => Err(Stop::Cancelled),
        }
    }

    /// The envelope of a rejected call: the user's reason, and the other tools the model may use.
    pub(crate) fn rejection(&self, action: &Action, reason: Option<String>) -> Envelope {
        let tool = &action.tool;
        let reason = reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
        let others: Vec<String> = self.agent.tools.names().iter().filter(|n| *n != tool).cloned().collect();
        let message = match &reason {
            Some(reason) => format!("The user rejected the call to `{tool}`, so it was not run: {reason}"),
            None => format!("The user rejected the call to `{tool}`, so it was not run."),
        };
        let mut details = Map::new();
        if let Some(reason) = &reason {
            details.insert("reason".into(), json!(reason));
        }
        let hints = FailureHints {
            causes: reason.as_ref().map(|r| vec![format!("The user said: {r}")]),
            available_actions: Some(others),
            details,
            ..FailureHints::default()
        };
        let raw = RawFailure::message(message).with_hints(hints);
        self.envelope(ErrorCode::ApprovalRejected, &raw, Some(action), CallContext::default())
    }
}

impl RunState<'_> {
    /// The step of a resumed run that was waiting on `pending`: the call that waited is made again
    /// (its decision given ahead, or asked for anew) rather than a new reply asked of the model.
    /// A call whose stored arguments were redacted cannot be run from the store: a rejection still
    /// reaches the model, anything else tells it to make the call again (asking approval again).
    pub(crate) async fn resume_pending(&mut self, step: u32, pending: PendingApproval) -> StepResult {
        let action = Action { tool: pending.tool.clone(), args: pending.args.clone() };
        if !pending.args_redacted {
            return self.call_step(step, pending.thought, action).await;
        }
        self.say_thought(step, &pending.thought);
        self.emit_action(step, &action);
        let decision = self.approvals.take(&pending.call_id);
        self.end_pause().await;
        let observation = match decision.filter(|d| !d.approved) {
            Some(rejected) => {
                let reason = rejected.reason.clone();
                (self.emit)(&Event::ApprovalDecided {
                    step,
                    call_id: pending.call_id.clone(),
                    approved: false,
                    reason: reason.clone(),
                });
                let envelope = self.rejection(&action, reason);
                let key = super::CallKey::new(&action.tool, &action.args);
                self.fail(step, Some(&action.tool), Some(&key), &envelope, 1);
                self.show(&envelope)
            }
            None => {
                self.warn(
                    Some(step),
                    format!(
                        "The call `{}` waited for approval across a reload, but its arguments were redacted in the store, so it was not run; the model is asked to make it again, and it will wait for a new approval.",
                        pending.call_id
                    ),
                );
                format!(
                    "Your call to `{}` was not run: it waited for the user's approval while the page reloaded, and its arguments were not kept. If it is still needed, call it again.",
                    action.tool
                )
            }
        };
        let turn = Turn {
            step,
            thought: pending.thought,
            action: Some(action),
            observation,
            outcome: Outcome::Failed,
            reply: None,
        };
        self.commit(turn).await;
        StepResult::Continue
    }
}
