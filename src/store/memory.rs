//! An in-memory [`Store`]: for tests, the native demo, and pages that want no persistence.

use std::cell::RefCell;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;

use super::{FailureRecord, RunRecord, RunStatus, SavedRun, Store, StoreError, TurnRecord};

/// Keeps everything in memory, in insertion order, upserting by id.
#[derive(Debug, Default)]
pub struct MemoryStore {
    runs: RefCell<Vec<RunRecord>>,
    turns: RefCell<Vec<TurnRecord>>,
    failures: RefCell<Vec<FailureRecord>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every run, in the order first written.
    pub fn runs(&self) -> Vec<RunRecord> {
        self.runs.borrow().clone()
    }

    /// Every turn, in the order written.
    pub fn turns(&self) -> Vec<TurnRecord> {
        self.turns.borrow().clone()
    }

    /// Every failure, in the order first written.
    pub fn failures(&self) -> Vec<FailureRecord> {
        self.failures.borrow().clone()
    }
}

fn upsert<T: Clone>(items: &RefCell<Vec<T>>, item: &T, same: impl Fn(&T) -> bool) {
    let mut items = items.borrow_mut();
    match items.iter_mut().find(|i| same(i)) {
        Some(existing) => *existing = item.clone(),
        None => items.push(item.clone()),
    }
}

impl Store for MemoryStore {
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        upsert(&self.runs, run, |r| r.id == run.id);
        future::ready(Ok(())).boxed_local()
    }

    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        upsert(&self.turns, turn, |t| t.run_id == turn.run_id && t.turn.step == turn.turn.step);
        future::ready(Ok(())).boxed_local()
    }

    fn put_failure<'a>(&'a self, failure: &'a FailureRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        upsert(&self.failures, failure, |f| f.id == failure.id);
        future::ready(Ok(())).boxed_local()
    }

    fn session_turns<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<TurnRecord>, StoreError>> {
        let turns = self.turns.borrow().iter().filter(|t| t.session == session).cloned().collect();
        future::ready(Ok(turns)).boxed_local()
    }

    fn unfinished_runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>, StoreError>> {
        let mut runs: Vec<RunRecord> =
            self.runs.borrow().iter().filter(|r| r.status == RunStatus::Running).cloned().collect();
        runs.sort_by_key(|r| r.started_ms);
        future::ready(Ok(runs)).boxed_local()
    }

    fn load_run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<SavedRun>, StoreError>> {
        let run = self.runs.borrow().iter().find(|r| r.id == run_id).cloned();
        let saved = run.map(|run| {
            let mut turns: Vec<TurnRecord> =
                self.turns.borrow().iter().filter(|t| t.run_id == run_id).cloned().collect();
            turns.sort_by_key(|t| t.turn.step);
            SavedRun { run, turns }
        });
        future::ready(Ok(saved)).boxed_local()
    }
}
