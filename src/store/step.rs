//! What one step writes, handed to the store at once so that a durable store can put it in one
//! transaction: the step's turn and the failures it recorded or changed, and, for the step that
//! answers, the run record's last write.

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use super::{FailureRecord, RunRecord, Store, StoreError, TurnRecord};

/// One step's records, all of one session: its turn (last, after any earlier turn of the run
/// written again without a secret the step taught the redactor), the failures recorded or
/// changed since the run's last write, and the run record when the step ends the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepWrite {
    /// The turns, the step's own last.
    pub turns: Vec<TurnRecord>,
    /// The failures recorded or changed (a retry, `recovered`) since the last write.
    pub failures: Vec<FailureRecord>,
    /// The run record as the run ends, when this step's turn is its answer: the run's end is
    /// stored with it, not in a write of its own after it.
    pub run: Option<RunRecord>,
}

impl StepWrite {
    /// What a warning about this write names: the step, and its failure records if it has any.
    pub fn describe(&self) -> String {
        let step = self.turns.last().map(|t| t.turn.step);
        let records = match (step, self.failures.len()) {
            (Some(step), 0) => format!("step {step}"),
            (Some(step), 1) => format!("step {step} and its failure record"),
            (Some(step), _) => format!("step {step} and its failure records"),
            (None, 1) => "a failure record".to_string(),
            (None, _) => "failure records".to_string(),
        };
        match self.run {
            Some(_) => format!("{records} with the run record"),
            None => records,
        }
    }

    /// The step the write belongs to: its turn's, else its last failure's; `None` when there is
    /// nothing to write.
    pub fn step(&self) -> Option<u32> {
        let turn = self.turns.last().map(|t| t.turn.step);
        turn.or_else(|| self.failures.last().map(|f| f.step))
    }
}

/// A step's records written one by one, turns first, the run record last, each write started when
/// the last ended: every record is tried, and the first error is the result (a
/// [`StoreError::Pruned`] only if nothing failed outright). What [`Store::put_step`] does unless a
/// store writes them together.
pub fn put_each<'a, S: Store + ?Sized>(
    store: &'a S,
    step: &'a StepWrite,
) -> LocalBoxFuture<'a, Result<(), StoreError>> {
    async move {
        let mut first: Option<StoreError> = None;
        let turns = step.turns.iter().map(|t| store.put_turn(t));
        let failures = step.failures.iter().map(|f| store.put_failure(f));
        let run = step.run.iter().map(|r| store.put_run(r));
        for write in turns.chain(failures).chain(run) {
            if let Err(e) = write.await {
                first = match first {
                    Some(StoreError::Pruned(_)) | None => Some(e),
                    kept => kept,
                };
            }
        }
        first.map_or(Ok(()), Err)
    }
    .boxed_local()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::{ErrorCode, FailureClass};
    use crate::store::{MemoryStore, RunStatus};
    use crate::turn::Turn;

    fn failure(step: u32) -> FailureRecord {
        FailureRecord {
            id: format!("r:{step}:1"),
            run_id: "r".into(),
            session: "s".into(),
            step,
            tool: None,
            args_digest: None,
            class: FailureClass::Persistent,
            code: ErrorCode::InvalidOutput,
            attempt: 1,
            message: "unreadable".into(),
            retried: false,
            recovered: false,
            recovery_call: None,
            idempotency_key: None,
            at_ms: 1,
        }
    }

    fn turn(step: u32) -> TurnRecord {
        TurnRecord {
            run_id: "r".into(),
            session: "s".into(),
            at_ms: 1,
            turn: Turn::final_answer(step, String::new(), "done".into()),
            counts: None,
            idempotency_key: None,
        }
    }

    #[test]
    fn a_write_names_its_step_and_its_failure_records() {
        let mut write = StepWrite { turns: vec![turn(1), turn(3)], ..StepWrite::default() };
        assert_eq!(write.describe(), "step 3");
        write.failures = vec![failure(3)];
        assert_eq!((write.describe(), write.step()), ("step 3 and its failure record".into(), Some(3)));
        write.turns.clear();
        assert_eq!((write.describe(), write.step()), ("a failure record".into(), Some(3)));
        write.turns = vec![turn(4)];
        write.run = Some(run());
        let said = "step 4 and its failure record with the run record";
        assert_eq!((write.describe(), write.step()), (said.into(), Some(4)));
        assert_eq!(StepWrite::default().step(), None);
    }

    fn run() -> RunRecord {
        crate::store::fixtures::run("r", "s", 1, RunStatus::Succeeded)
    }

    #[test]
    fn each_record_is_written() {
        let store = MemoryStore::new();
        let write = StepWrite { turns: vec![turn(1)], failures: vec![failure(1)], run: Some(run()) };
        futures_executor::block_on(store.put_step(&write)).unwrap();
        let export = store.export_session("s");
        assert_eq!((export.turns.len(), export.failures.len()), (1, 1));
        assert_eq!(export.runs.iter().map(|r| r.status).collect::<Vec<_>>(), [RunStatus::Succeeded]);
    }
}
