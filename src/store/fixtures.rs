//! Records for the store's unit tests: a run and a turn with every field but the few a test
//! varies left empty.

use super::{RunCounts, RunRecord, RunStatus, TurnRecord};
use crate::turn::Turn;

/// A run record of `session` with nothing but its id, start and status.
pub(crate) fn run(id: &str, session: &str, started_ms: u64, status: RunStatus) -> RunRecord {
    RunRecord {
        id: id.into(),
        session: session.into(),
        task: format!("task of {id}"),
        status,
        started_ms,
        ended_ms: None,
        answer: None,
        reason: None,
        counts: RunCounts::default(),
        pending_approval: None,
        intent: None,
    }
}

/// A turn of `run_id` in `session`: a final answer `answer` at `step`, written at `at_ms`.
pub(crate) fn turn(run_id: &str, session: &str, step: u32, at_ms: u64, answer: String) -> TurnRecord {
    TurnRecord {
        run_id: run_id.into(),
        session: session.into(),
        at_ms,
        turn: Turn::final_answer(step, String::new(), answer),
        counts: None,
        idempotency_key: None,
    }
}
