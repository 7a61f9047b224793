//! What a run leaves behind: the run itself, its turns, and every failure.

use serde::{Deserialize, Serialize};

use crate::errors::{ErrorCode, FailureClass};
use crate::settings::tagged::Tagged;
use crate::turn::Turn;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still going (or cut off before it could say otherwise).
    Running,
    /// The model gave its final answer.
    Succeeded,
    /// The run ended without a real answer (budget spent, fatal failure).
    Failed,
    /// The page cancelled it.
    Cancelled,
    /// It was cut off (a terminated worker, a reload, a crash) and not resumed: it keeps the steps
    /// it had committed.
    Interrupted,
}

/// Why a run ended. `kind` is camelCase like the rest of the wire; records stored by earlier
/// builds spelt it snake_case (`final_answer`), and those still read.
// Deserialize by hand (below), without serde's `Content` buffering: see crate::settings::tagged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum EndReason {
    /// The model answered.
    #[serde(alias = "final_answer")]
    FinalAnswer,
    /// The step budget ran out.
    #[serde(alias = "max_steps")]
    MaxSteps {
        /// The budget.
        steps: u32,
    },
    /// Too many steps in a row failed or made no progress.
    #[serde(alias = "consecutive_failures")]
    ConsecutiveFailures {
        /// How many.
        failures: u32,
    },
    /// A failure nothing could recover from.
    Fatal {
        /// What failed.
        code: ErrorCode,
        /// The failure's message.
        message: String,
    },
    /// The page cancelled the run.
    Cancelled,
    /// The run was cut off and given up rather than resumed.
    Interrupted,
}

/// [`EndReason`] externally tagged, read from its `kind` and the rest ([`Tagged::read`]): the
/// same variants, fields and serde attributes.
#[derive(Deserialize)]
#[serde(remote = "EndReason", rename_all = "camelCase")]
enum EndReasonTwin {
    #[serde(alias = "final_answer")]
    FinalAnswer,
    #[serde(alias = "max_steps")]
    MaxSteps {
        steps: u32,
    },
    #[serde(alias = "consecutive_failures")]
    ConsecutiveFailures {
        failures: u32,
    },
    Fatal {
        code: ErrorCode,
        message: String,
    },
    Cancelled,
    Interrupted,
}

impl<'de> Deserialize<'de> for EndReason {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const SHAPE: Tagged = Tagged {
            tag: "kind",
            expecting: "internally tagged enum EndReason",
            variants: &[
                "finalAnswer",
                "final_answer",
                "maxSteps",
                "max_steps",
                "consecutiveFailures",
                "consecutive_failures",
                "fatal",
                "cancelled",
                "interrupted",
            ],
        };
        SHAPE.read(d, |variant| EndReasonTwin::deserialize(variant))
    }
}

impl EndReason {
    /// One sentence for people and for the model's forced final call.
    pub fn describe(&self) -> String {
        match self {
            EndReason::FinalAnswer => "The model gave its final answer.".to_string(),
            EndReason::MaxSteps { steps } => format!("The step budget ({steps} steps) is spent."),
            EndReason::ConsecutiveFailures { failures } => {
                format!("{failures} steps in a row failed or made no progress.")
            }
            EndReason::Fatal { code, message } => {
                format!("The run stopped on a fatal failure ({code}): {message}")
            }
            EndReason::Cancelled => "The run was cancelled.".to_string(),
            EndReason::Interrupted => "The run was cut off and not resumed.".to_string(),
        }
    }
}

/// Counts kept on a run record.
///
/// They are written with the record, which is written when the run starts (all zero) and when it
/// ends, not at each step (a step's commit is its turn and its failures, with no rewrite of the
/// run record). So while a run is under way, or after it was cut off, its stored counts are zero
/// but for `steps`, which stores report from its committed turns; the live counts are the run's
/// own, in its result, and each committed turn stores them as they were then (a turn record's
/// `counts`). A resumed run counts on from its last committed turn's: only what the cut-off step
/// itself spent is lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunCounts {
    /// Steps begun: the committed ones, and the step the run stopped in when it stopped before
    /// committing it (a model call that failed for good, a cancel while the model wrote), so that
    /// it matches the steps the page was told of. A record read back while its run is still
    /// `running` counts its committed steps only.
    pub steps: u32,
    /// Model calls made, retries and the forced final call included.
    pub model_calls: u32,
    /// Tool attempts made, retries included.
    pub tool_calls: u32,
    /// Prompt tokens, as reported by the backend.
    pub prompt_tokens: u64,
    /// Generated tokens, as reported by the backend.
    pub completion_tokens: u64,
}

/// One run of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    /// Unique id.
    pub id: String,
    /// The session it belongs to.
    pub session: String,
    /// The task as given.
    pub task: String,
    /// Where it stands.
    pub status: RunStatus,
    /// When it started, ms since the epoch.
    pub started_ms: u64,
    /// When it ended.
    pub ended_ms: Option<u64>,
    /// The final answer, when there is one.
    pub answer: Option<String>,
    /// Why it ended.
    pub reason: Option<EndReason>,
    /// Counts.
    pub counts: RunCounts,
    /// The call the run waits to have approved, while it waits: written before the page is told
    /// (`approvalRequested`), cleared when the decision comes or the run ends. A run cut off while
    /// it waits keeps it, so that after a reload the call can still be approved or rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub pending_approval: Option<PendingApproval>,
    /// The latest call of a tool with side effects (neither `idempotent` nor `readOnly`) begun,
    /// written before the call runs. Its outcome is the turn of its step: while the run has no
    /// committed turn for `intent.step`, the call may or may not have taken effect, and a resumed
    /// run does not make it again silently. Cleared when the run ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub intent: Option<Intent>,
}

/// A call about to run, stored before it runs so that a run cut off during it knows the call's
/// outcome is unknown (a run record's `intent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Intent {
    /// The call's idempotency key, as its tool received it (`<run>:<step>`; a call made again
    /// with the same arguments after an unknown outcome keeps the first call's key).
    pub idempotency_key: String,
    /// The step the call belongs to.
    pub step: u32,
    /// The tool.
    pub tool: String,
    /// Its arguments as stored: redacted when the agent redacts.
    pub args: serde_json::Value,
    /// The model's reasoning for the call, scrubbed like the run's other text.
    pub thought: String,
    /// When the call began, ms since the epoch.
    pub started_ms: u64,
    /// Whether redaction changed the stored arguments: the call cannot be made again from the
    /// store alone.
    #[serde(default)]
    pub args_redacted: bool,
}

/// A call that waits for the user's approval (its tool's `needsApproval`), as stored on its run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "StoredApproval"))]
#[serde(rename_all = "camelCase")]
pub struct PendingApproval {
    /// The call's id, `<run>:<step>`: what `approve` and `reject` name.
    pub call_id: String,
    /// The step the call belongs to: the step after the run's last committed one.
    pub step: u32,
    /// The tool.
    pub tool: String,
    /// Its arguments as stored: redacted when the agent redacts.
    pub args: serde_json::Value,
    /// The model's reasoning for the call, scrubbed like the run's other text.
    pub thought: String,
    /// When approval was asked for, ms since the epoch.
    pub requested_ms: u64,
    /// Whether redaction changed the stored arguments: the call cannot then be run from the store
    /// alone, and a resumed run asks the model to make it again.
    #[serde(default)]
    pub args_redacted: bool,
    /// Whether the call was cut off by a reload before its outcome was stored: approving it makes
    /// it again (with the same idempotency key), though it may already have taken effect.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub outcome_unknown: bool,
}

/// A pending approval with the run it belongs to: what `agent.pendingApprovals()` lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The run that waits.
    pub run_id: String,
    /// Its session.
    pub session: String,
    /// Its task.
    pub task: String,
    /// The call.
    #[serde(flatten)]
    pub call: PendingApproval,
}

impl ApprovalRequest {
    /// The pending approval of `run`, if it waits for one.
    pub fn of(run: &RunRecord) -> Option<ApprovalRequest> {
        Some(ApprovalRequest {
            run_id: run.id.clone(),
            session: run.session.clone(),
            task: run.task.clone(),
            call: run.pending_approval.clone()?,
        })
    }
}

/// One committed step of a run, as stored: redacted when the agent redacts (`config.store.redact`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// The run.
    pub run_id: String,
    /// The session.
    pub session: String,
    /// When the step ended, ms since the epoch.
    pub at_ms: u64,
    /// The step.
    pub turn: Turn,
    /// The run's counts once this step was committed (model and tool calls, tokens): what a run cut
    /// off after it had spent, for its resumption to count on from. Absent in records written
    /// before keel stored them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub counts: Option<RunCounts>,
    /// The idempotency key the step's tool call ran with (the one its intent record holds, `idempotencyKey`): the
    /// same for each attempt, and the key of the cut-off call when a resumed run makes it again.
    /// Absent when the step ran no tool (an answer, a refused or rejected call) and in records
    /// written before keel stored it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub idempotency_key: Option<String>,
}

/// One failure: a failed tool attempt, an invalid call, or unreadable model output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FailureRecord {
    /// Unique id: `<run>:<step>:<attempt>` plus a sequence number within the step.
    pub id: String,
    /// The run.
    pub run_id: String,
    /// The session.
    pub session: String,
    /// The step.
    pub step: u32,
    /// The tool, when a tool (or a tool name) was involved.
    pub tool: Option<String>,
    /// A digest of the normalised arguments, to group identical calls without storing them twice;
    /// as stored, that of the redacted arguments when the agent redacts.
    pub args_digest: Option<String>,
    /// The class.
    pub class: FailureClass,
    /// The code.
    pub code: ErrorCode,
    /// Which attempt of the call failed, from 1.
    pub attempt: u32,
    /// The failure's message.
    pub message: String,
    /// Whether the runtime retried after it.
    pub retried: bool,
    /// Whether a later step (or retry) succeeded at the same goal.
    pub recovered: bool,
    /// The read-only tool the runtime called on its own after this failure (the failing tool's
    /// `recoverWith`), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub recovery_call: Option<String>,
    /// The idempotency key of the tool call that failed (as an intent's `idempotencyKey`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub idempotency_key: Option<String>,
    /// When it happened, ms since the epoch.
    pub at_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::{Action, Outcome};

    #[test]
    fn a_turn_record_keeps_its_calls_idempotency_key_and_one_stored_without_it_still_reads() {
        let turn = Turn {
            step: 2,
            thought: "pay it".into(),
            action: Some(Action { tool: "pay".into(), args: serde_json::json!({"invoice": "INV-7"}) }),
            observation: "paid".into(),
            outcome: Outcome::Ok,
            reply: None,
        };
        let record = TurnRecord {
            run_id: "r1".into(),
            session: "s".into(),
            at_ms: 7,
            turn,
            counts: None,
            idempotency_key: Some("r1:2".into()),
        };
        let written = serde_json::to_value(&record).unwrap();
        assert_eq!(written["idempotencyKey"], "r1:2");
        assert_eq!(serde_json::from_value::<TurnRecord>(written.clone()).unwrap(), record);
        // As keel stored it before it kept the key.
        let mut old = written;
        old.as_object_mut().unwrap().remove("idempotencyKey");
        let read: TurnRecord = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(read, TurnRecord { idempotency_key: None, ..record });
        assert_eq!(serde_json::to_value(&read).unwrap(), old, "no key, no field written");
    }

    #[test]
    fn an_end_reason_is_written_camel_case_and_read_in_either_spelling() {
        let reason = EndReason::MaxSteps { steps: 3 };
        assert_eq!(
            serde_json::to_value(&reason).unwrap(),
            serde_json::json!({"kind": "maxSteps", "steps": 3})
        );
        for (old, new) in [
            (r#"{"kind":"final_answer"}"#, r#"{"kind":"finalAnswer"}"#),
            (r#"{"kind":"max_steps","steps":3}"#, r#"{"kind":"maxSteps","steps":3}"#),
            (
                r#"{"kind":"consecutive_failures","failures":5}"#,
                r#"{"kind":"consecutiveFailures","failures":5}"#,
            ),
        ] {
            let stored: EndReason = serde_json::from_str(old).unwrap();
            assert_eq!(stored, serde_json::from_str::<EndReason>(new).unwrap(), "{old}");
        }
    }
}
