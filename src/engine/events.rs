//! What the loop tells the page as it goes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::errors::{Envelope, ErrorCode, FailureClass};
use crate::store::{EndReason, FailureStats};

use super::Outcome;

/// One thing that happened during a run, in order. Serialised with a `type` tag for the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "AgentEvent"))]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Event {
    /// A run began.
    #[serde(rename_all = "camelCase")]
    RunStarted {
        /// The run's id.
        run_id: String,
        /// The task.
        task: String,
    },
    /// A step began.
    StepStarted {
        /// The step, from 1.
        step: u32,
    },
    /// The model's reasoning for the step.
    Thought {
        /// The step.
        step: u32,
        /// The reasoning.
        text: String,
    },
    /// A piece of the step's text as the model writes it, from a backend that streams (the Prompt
    /// API's `promptStreaming`, an OpenAI-compatible server's `stream: true`, a custom model that
    /// calls `onText`): one event per chunk the backend gave. Live only, never stored; the step is
    /// still parsed whole when the reply is complete.
    Token {
        /// The step.
        step: u32,
        /// The text, to append to what the step's earlier `token` events carried.
        text: String,
    },
    /// A piece of the final answer as the model writes it: the `final_answer` string decoded out
    /// of the streamed step. It is the model's answer, not yet checked: the run's answer is the
    /// one `finalAnswer` carries (a grounding check may refuse this one).
    AnswerDelta {
        /// The step.
        step: u32,
        /// The text, to append to what the step's earlier `answerDelta` events carried.
        text: String,
    },
    /// The text the step's `token` and `answerDelta` events carried is not a reply: the model
    /// call failed, timed out or was cancelled mid-stream (a transient failure is then retried,
    /// streaming again from the start), or a fallback chain moved to its next backend. The page
    /// drops that text; the step's next `token` event starts the reply again.
    TokensDiscarded {
        /// The step.
        step: u32,
        /// Why: the failure's code (`TIMEOUT`, `NETWORK_ERROR`, `ABORTED` for a cancelled run…).
        code: ErrorCode,
    },
    /// The model asked for a tool call.
    #[serde(rename_all = "camelCase")]
    Action {
        /// The step.
        step: u32,
        /// The tool, as named by the model.
        tool: String,
        /// The arguments, as sent by the model.
        args: Value,
        /// The call's idempotency key, as the tool receives it (`ctx.idempotencyKey`).
        idempotency_key: String,
    },
    /// The call waits for the user's approval (its tool's `needsApproval`): the run is paused, and
    /// the pause is already stored on the run record. `run.approve(callId)` runs the call,
    /// `run.reject(callId, reason)` shows the model the rejection.
    #[serde(rename_all = "camelCase")]
    ApprovalRequested {
        /// The step.
        step: u32,
        /// The call's id, `<run>:<step>`.
        call_id: String,
        /// The tool.
        tool: String,
        /// The arguments, as the call would run with them.
        args: Value,
        /// The model's reasoning for the call.
        thought: String,
        /// The call was cut off by a reload before its outcome was stored (its tool's
        /// `onUnknownOutcome: "ask"`): approving makes it again, though it may have taken effect.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        outcome_unknown: bool,
    },
    /// The user decided on a call that waited for approval.
    #[serde(rename_all = "camelCase")]
    ApprovalDecided {
        /// The step.
        step: u32,
        /// The call's id.
        call_id: String,
        /// Whether it was approved (it then runs) or rejected.
        approved: bool,
        /// The reason given for a rejection.
        reason: Option<String>,
    },
    /// What the model will be shown for the step.
    Observation {
        /// The step.
        step: u32,
        /// The text.
        text: String,
        /// How the step ended.
        outcome: Outcome,
    },
    /// A transient failure will be retried after a delay.
    #[serde(rename_all = "camelCase")]
    RetryScheduled {
        /// The step.
        step: u32,
        /// The tool, or null for a model call.
        tool: Option<String>,
        /// The attempt that failed, from 1.
        attempt: u32,
        /// How long until the next attempt.
        delay_ms: u64,
        /// What failed.
        code: ErrorCode,
    },
    /// The runtime called a read-only tool on its own after a failure (the failing tool's
    /// `recoverWith`): the model's next observation holds its fresh output.
    RecoveryCall {
        /// The step.
        step: u32,
        /// The tool that failed.
        tool: String,
        /// The failure's code.
        code: ErrorCode,
        /// The read-only tool the runtime called.
        called: String,
        /// Whether that call worked.
        ok: bool,
    },
    /// Progress of the model's download while its backend gets ready (the Prompt API's
    /// `downloadprogress`): emitted by the backend during a model call, not by the loop.
    ModelDownload {
        /// How much is downloaded: a fraction of `total` (the Prompt API reports 0 to 1 of 1).
        loaded: f64,
        /// The whole, when known.
        total: Option<f64>,
    },
    /// A caveat: a tool's partial success, a storage problem, a fallback taken.
    Warning {
        /// The step, when it belongs to one.
        step: Option<u32>,
        /// What happened.
        message: String,
    },
    /// A failure, classified.
    Failure {
        /// The step.
        step: u32,
        /// The tool, when one was involved.
        tool: Option<String>,
        /// Its class.
        class: FailureClass,
        /// Its code.
        code: ErrorCode,
        /// Its message.
        message: String,
        /// Which attempt at the call failed, from 1: the failure log's `attempt`.
        attempt: u32,
        /// The envelope shown to the model, for persistent failures.
        envelope: Option<Box<Envelope>>,
    },
    /// The run's answer.
    FinalAnswer {
        /// The step the run ended in: the last one begun, committed or not; for an abandoned
        /// run, the step it was cut off in (1 when it committed none). 0 only for a run that
        /// ended before its first step began.
        step: u32,
        /// The answer.
        answer: String,
        /// Whether the model finished the task (false for a forced answer).
        success: bool,
    },
    /// The run ended.
    RunEnded {
        /// Why.
        reason: EndReason,
        /// Whether the task was completed.
        success: bool,
        /// The run's failure totals.
        stats: FailureStats,
    },
}
