//! An in-memory [`Store`]: for tests, the native demo, and pages that want no persistence.

use std::cell::RefCell;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;

use super::query::{FailureQuery, Order};
use super::retention::Pruned;
use super::session::{Export, SessionRecord};
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

    /// The failures `q` asks for, in its order (by time), up to its limit: what the IndexedDB store
    /// answers, by a scan.
    pub fn query_failures(&self, q: &FailureQuery) -> Vec<FailureRecord> {
        let mut found: Vec<FailureRecord> =
            self.failures.borrow().iter().filter(|f| q.matches(f)).cloned().collect();
        found.sort_by_key(|f| f.at_ms);
        if q.order == Order::Newest {
            found.reverse();
        }
        found.truncate(q.limit.map_or(usize::MAX, |n| n as usize));
        found
    }

    /// One run as an export: its record, turns in step order, failures in time order.
    pub fn export_run(&self, run_id: &str) -> Export {
        let runs = self.runs.borrow().iter().filter(|r| r.id == run_id).cloned().collect();
        let mut turns: Vec<TurnRecord> =
            self.turns.borrow().iter().filter(|t| t.run_id == run_id).cloned().collect();
        turns.sort_by_key(|t| t.turn.step);
        let failures =
            self.query_failures(&FailureQuery { order: Order::Oldest, ..FailureQuery::run(run_id) });
        Export { session: None, runs, turns, failures, skipped: 0 }
    }

    /// A session as an export; its record is made up from what is held (no record is kept apart).
    pub fn export_session(&self, session: &str) -> Export {
        let mut runs: Vec<RunRecord> =
            self.runs.borrow().iter().filter(|r| r.session == session).cloned().collect();
        runs.sort_by_key(|r| r.started_ms);
        let turns: Vec<TurnRecord> =
            self.turns.borrow().iter().filter(|t| t.session == session).cloned().collect();
        let failures =
            self.query_failures(&FailureQuery { order: Order::Oldest, ..FailureQuery::session(session) });
        let times = runs.iter().map(|r| r.started_ms).chain(turns.iter().map(|t| t.at_ms));
        let record = (!runs.is_empty() || !turns.is_empty() || !failures.is_empty()).then(|| SessionRecord {
            id: session.to_string(),
            created_ms: times.clone().min().unwrap_or(0),
            updated_ms: times.max().unwrap_or(0),
            runs: runs.len() as u64,
            turns: turns.len() as u64,
            failures: failures.len() as u64,
        });
        Export { session: record, runs, turns, failures, skipped: 0 }
    }

    /// Deletes a session's runs, turns and failures; what went.
    pub fn clear_session(&self, session: &str) -> Pruned {
        fn drop_matching<T>(items: &RefCell<Vec<T>>, gone: impl Fn(&T) -> bool) -> u32 {
            let mut items = items.borrow_mut();
            let before = items.len();
            items.retain(|i| !gone(i));
            (before - items.len()) as u32
        }
        Pruned {
            runs: drop_matching(&self.runs, |r| r.session == session),
            turns: drop_matching(&self.turns, |t| t.session == session),
            failures: drop_matching(&self.failures, |f| f.session == session),
        }
    }
}

/// Replaces the item `same` picks, else appends. Searched newest first: a record written again is
/// nearly always one of the last written (the step just committed, the run under way), so a write
/// costs the same however much the store holds.
fn upsert<T: Clone>(items: &RefCell<Vec<T>>, item: &T, same: impl Fn(&T) -> bool) {
    let mut items = items.borrow_mut();
    match items.iter_mut().rev().find(|i| same(i)) {
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
