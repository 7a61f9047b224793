//! An in-memory [`Store`]: for tests, the native demo, and pages that want no persistence.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;

use super::conversation::{conversation, Exchange};
use super::query::{FailureQuery, Order};
use super::retention::Pruned;
use super::session::{Export, SessionRecord};
use super::{FailureRecord, RunRecord, RunStatus, SavedRun, Store, StoreError, TurnRecord};

/// Keeps everything in memory, in insertion order, upserting by id.
#[derive(Debug, Default)]
pub struct MemoryStore {
    runs: RefCell<Table<String, RunRecord>>,
    turns: RefCell<Table<(String, u32), TurnRecord>>,
    failures: RefCell<Table<String, FailureRecord>>,
}

/// Records in the order first written, and where each key's record is: a write costs the same
/// however many records the store holds.
#[derive(Debug)]
struct Table<K, T> {
    items: Vec<T>,
    at: HashMap<K, usize>,
}

impl<K, T> Default for Table<K, T> {
    fn default() -> Self {
        Table { items: Vec::new(), at: HashMap::new() }
    }
}

impl<K: Hash + Eq, T: Clone> Table<K, T> {
    fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Replaces the record under `key`, else appends it.
    fn upsert(&mut self, key: K, item: &T) {
        match self.at.get(&key) {
            Some(&i) => self.items[i] = item.clone(),
            None => {
                self.at.insert(key, self.items.len());
                self.items.push(item.clone());
            }
        }
    }

    /// Drops the records `gone` picks; how many went.
    fn remove(&mut self, gone: impl Fn(&T) -> bool, key: impl Fn(&T) -> K) -> u32 {
        let before = self.items.len();
        self.items.retain(|i| !gone(i));
        self.at = self.items.iter().enumerate().map(|(i, item)| (key(item), i)).collect();
        (before - self.items.len()) as u32
    }
}

fn turn_key(turn: &TurnRecord) -> (String, u32) {
    (turn.run_id.clone(), turn.turn.step)
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every run, in the order first written.
    pub fn runs(&self) -> Vec<RunRecord> {
        self.runs.borrow().items.clone()
    }

    /// Every turn, in the order written.
    pub fn turns(&self) -> Vec<TurnRecord> {
        self.turns.borrow().items.clone()
    }

    /// Every failure, in the order first written.
    pub fn failures(&self) -> Vec<FailureRecord> {
        self.failures.borrow().items.clone()
    }

    /// The failures `q` asks for, in its order (by time), up to its limit: what the IndexedDB store
    /// answers, by a scan.
    pub fn query_failures(&self, q: &FailureQuery) -> Vec<FailureRecord> {
        let mut found: Vec<FailureRecord> =
            self.failures.borrow().iter().filter(|f| q.matches(f)).cloned().collect();
        crate::order::sort_by_key(&mut found, |f| f.at_ms);
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
        crate::order::sort_by_key(&mut turns, |t| t.turn.step);
        let failures =
            self.query_failures(&FailureQuery { order: Order::Oldest, ..FailureQuery::run(run_id) });
        Export { session: None, runs, turns, failures, skipped: 0 }
    }

    /// A session as an export; its record is made up from what is held (no record is kept apart).
    pub fn export_session(&self, session: &str) -> Export {
        let mut runs: Vec<RunRecord> =
            self.runs.borrow().iter().filter(|r| r.session == session).cloned().collect();
        crate::order::sort_by_key(&mut runs, |r| r.started_ms);
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

    /// A session's conversation, oldest exchange first (see [`conversation`]).
    pub fn history(&self, session: &str) -> Vec<Exchange> {
        let runs = self.runs.borrow().iter().filter(|r| r.session == session).cloned().collect();
        let turns = self.turns.borrow().iter().filter(|t| t.session == session).cloned().collect();
        conversation(runs, turns)
    }

    /// Deletes a session's runs, turns and failures; what went.
    pub fn clear_session(&self, session: &str) -> Pruned {
        Pruned {
            runs: self.runs.borrow_mut().remove(|r| r.session == session, |r| r.id.clone()),
            turns: self.turns.borrow_mut().remove(|t| t.session == session, turn_key),
            failures: self.failures.borrow_mut().remove(|f| f.session == session, |f| f.id.clone()),
        }
    }
}

impl Store for MemoryStore {
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.runs.borrow_mut().upsert(run.id.clone(), run);
        future::ready(Ok(())).boxed_local()
    }

    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.turns.borrow_mut().upsert(turn_key(turn), turn);
        future::ready(Ok(())).boxed_local()
    }

    fn put_failure<'a>(&'a self, failure: &'a FailureRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.failures.borrow_mut().upsert(failure.id.clone(), failure);
        future::ready(Ok(())).boxed_local()
    }

    fn session_turns<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<TurnRecord>, StoreError>> {
        let turns = self.turns.borrow().iter().filter(|t| t.session == session).cloned().collect();
        future::ready(Ok(turns)).boxed_local()
    }

    fn session_runs<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>> {
        let mut runs: Vec<RunRecord> =
            self.runs.borrow().iter().filter(|r| r.session == session).cloned().collect();
        crate::order::sort_by_key(&mut runs, |r| r.started_ms);
        future::ready(Ok(runs)).boxed_local()
    }

    fn unfinished_runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>, StoreError>> {
        let mut runs: Vec<RunRecord> =
            self.runs.borrow().iter().filter(|r| r.status == RunStatus::Running).cloned().collect();
        crate::order::sort_by_key(&mut runs, |r| r.started_ms);
        // A running run's record is written when it starts: its progress is its turns.
        let turns = self.turns.borrow();
        for run in &mut runs {
            let steps = turns.iter().filter(|t| t.run_id == run.id).map(|t| t.turn.step).max();
            run.counts.steps = run.counts.steps.max(steps.unwrap_or(0));
        }
        future::ready(Ok(runs)).boxed_local()
    }

    fn load_run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<SavedRun>, StoreError>> {
        let runs = self.runs.borrow();
        let run = runs.at.get(run_id).map(|&i| runs.items[i].clone());
        let saved = run.map(|run| {
            let mut turns: Vec<TurnRecord> =
                self.turns.borrow().iter().filter(|t| t.run_id == run_id).cloned().collect();
            crate::order::sort_by_key(&mut turns, |t| t.turn.step);
            SavedRun { run, turns }
        });
        future::ready(Ok(saved)).boxed_local()
    }
}
