//! An in-memory [`Store`]: for tests, the native demo, and pages that want no persistence.

mod table;
#[cfg(test)]
mod tests;

use std::cell::RefCell;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;

use super::conversation::{conversation, Exchange};
use super::query::{FailureQuery, Order};
use super::retention::Pruned;
use super::session::{Export, SessionRecord};
use super::{FailureRecord, RunRecord, SavedRun, SessionTail, Store, StoreError, TurnRecord};
use table::{Index, Table};

/// Keeps everything in memory, in insertion order, upserting by id, with each session's and each
/// run's records indexed: reading a session's newest runs does not scan other sessions' records,
/// nor its own older ones.
#[derive(Debug, Default)]
pub struct MemoryStore {
    runs: RefCell<Table<String, RunRecord>>,
    turns: RefCell<Table<(String, u32), TurnRecord>>,
    failures: RefCell<Table<String, FailureRecord>>,
    index: RefCell<Index>,
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

    /// A session's runs in the order they started.
    fn runs_of(&self, session: &str) -> Vec<RunRecord> {
        let runs = self.runs.borrow();
        self.index.borrow().session_runs(session).iter().map(|&i| runs.items[i].clone()).collect()
    }

    /// A session's turns, first written first.
    fn turns_of(&self, session: &str) -> Vec<TurnRecord> {
        let turns = self.turns.borrow();
        self.index.borrow().session_turns(session).iter().map(|&i| turns.items[i].clone()).collect()
    }

    /// A run's turns in step order.
    fn steps_of(&self, run_id: &str) -> Vec<TurnRecord> {
        let turns = self.turns.borrow();
        let mut found: Vec<TurnRecord> =
            self.index.borrow().run_turns(run_id).iter().map(|&i| turns.items[i].clone()).collect();
        crate::order::sort_by_key(&mut found, |t| t.turn.step);
        found
    }

    /// The turns of `session` whose run is not one of its runs, first written first.
    fn orphans_of(&self, session: &str) -> Vec<TurnRecord> {
        let (runs, turns) = (self.runs.borrow(), self.turns.borrow());
        let held = |t: &TurnRecord| runs.at.get(&t.run_id).is_some_and(|&i| runs.items[i].session == session);
        let index = self.index.borrow();
        let orphans = index.session_turns(session).iter().map(|&i| &turns.items[i]);
        orphans.filter(|t| !held(t)).cloned().collect()
    }

    /// One run's record, if held.
    fn run(&self, run_id: &str) -> Option<RunRecord> {
        let runs = self.runs.borrow();
        runs.at.get(run_id).map(|&i| runs.items[i].clone())
    }

    /// One run as an export: its record, turns in step order, failures in time order.
    pub fn export_run(&self, run_id: &str) -> Export {
        let runs = self.run(run_id).into_iter().collect();
        let turns = self.steps_of(run_id);
        let failures =
            self.query_failures(&FailureQuery { order: Order::Oldest, ..FailureQuery::run(run_id) });
        Export { session: None, runs, turns, failures, skipped: 0 }
    }

    /// A session as an export; its record is made up from what is held (no record is kept apart).
    pub fn export_session(&self, session: &str) -> Export {
        let runs = self.runs_of(session);
        let turns = self.turns_of(session);
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
        conversation(self.runs_of(session), self.turns_of(session))
    }

    /// Deletes a session's runs, turns and failures; what went.
    pub fn clear_session(&self, session: &str) -> Pruned {
        let pruned = Pruned {
            runs: self.runs.borrow_mut().remove(|r| r.session == session, |r| r.id.clone()),
            turns: self.turns.borrow_mut().remove(|t| t.session == session, turn_key),
            failures: self.failures.borrow_mut().remove(|f| f.session == session, |f| f.id.clone()),
        };
        *self.index.borrow_mut() = Index::of(&self.runs.borrow().items, &self.turns.borrow().items);
        pruned
    }
}

impl Store for MemoryStore {
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        let mut runs = self.runs.borrow_mut();
        let (at, old) = runs.upsert(run.id.clone(), run);
        self.index.borrow_mut().run_written(&runs.items, at, old.as_ref());
        future::ready(Ok(())).boxed_local()
    }

    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        let (at, old) = self.turns.borrow_mut().upsert(turn_key(turn), turn);
        self.index.borrow_mut().turn_written(at, turn, old.as_ref());
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
        future::ready(Ok(self.turns_of(session))).boxed_local()
    }

    fn session_runs<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>> {
        future::ready(Ok(self.runs_of(session))).boxed_local()
    }

    fn session_tail<'a>(
        &'a self,
        session: &'a str,
        skip: usize,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<SessionTail, StoreError>> {
        let places = self.index.borrow().session_runs(session).to_vec();
        let end = places.len().saturating_sub(skip);
        let start = end.saturating_sub(limit);
        let runs: Vec<SavedRun> = places[start..end]
            .iter()
            .rev()
            .map(|&i| {
                let run = self.runs.borrow().items[i].clone();
                let turns = self.steps_of(&run.id);
                SavedRun { run, turns }
            })
            .collect();
        let orphans = if start == 0 { self.orphans_of(session) } else { Vec::new() };
        future::ready(Ok(SessionTail { runs, more: start > 0, orphans })).boxed_local()
    }

    fn unfinished_runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>, StoreError>> {
        let mut runs: Vec<RunRecord> = {
            let all = self.runs.borrow();
            self.index.borrow().running().map(|i| all.items[i].clone()).collect()
        };
        crate::order::sort_by_key(&mut runs, |r| r.started_ms);
        // A running run's record is written when it starts: its progress is its turns.
        let turns = self.turns.borrow();
        let index = self.index.borrow();
        for run in &mut runs {
            let steps = index.run_turns(&run.id).iter().map(|&i| turns.items[i].turn.step).max();
            run.counts.steps = run.counts.steps.max(steps.unwrap_or(0));
        }
        future::ready(Ok(runs)).boxed_local()
    }

    fn load_run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<SavedRun>, StoreError>> {
        let saved = self.run(run_id).map(|run| SavedRun { run, turns: self.steps_of(run_id) });
        future::ready(Ok(saved)).boxed_local()
    }
}
