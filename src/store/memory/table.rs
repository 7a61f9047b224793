//! The memory store's tables, and where each session's and each run's records are in them, so
//! that reading a session (or its newest runs, or a run) costs what it holds, not what the store
//! holds.

use std::collections::HashMap;
use std::hash::Hash;

use crate::store::{RunRecord, RunStatus, TurnRecord};

/// Records in the order first written, and where each key's record is: a write costs the same
/// however many records the store holds.
#[derive(Debug)]
pub(super) struct Table<K, T> {
    pub(super) items: Vec<T>,
    pub(super) at: HashMap<K, usize>,
}

impl<K, T> Default for Table<K, T> {
    fn default() -> Self {
        Table { items: Vec::new(), at: HashMap::new() }
    }
}

impl<K: Hash + Eq, T: Clone> Table<K, T> {
    pub(super) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Replaces the record under `key`, else appends it: where it is, and the record it replaced.
    pub(super) fn upsert(&mut self, key: K, item: &T) -> (usize, Option<T>) {
        match self.at.get(&key) {
            Some(&i) => (i, Some(std::mem::replace(&mut self.items[i], item.clone()))),
            None => {
                self.at.insert(key, self.items.len());
                self.items.push(item.clone());
                (self.items.len() - 1, None)
            }
        }
    }

    /// Drops the records `gone` picks; how many went.
    pub(super) fn remove(&mut self, gone: impl Fn(&T) -> bool, key: impl Fn(&T) -> K) -> u32 {
        let before = self.items.len();
        self.items.retain(|i| !gone(i));
        self.at = self.items.iter().enumerate().map(|(i, item)| (key(item), i)).collect();
        (before - self.items.len()) as u32
    }
}

/// Where the runs and turns of each session and each run are in their tables, kept up to date
/// by every write.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// Per session, its runs' places in the order they started (ties: first written first), the
    /// order [`crate::store::Store::session_runs`] gives.
    runs: HashMap<String, Vec<usize>>,
    /// Per session, its turns' places, first written first.
    session_turns: HashMap<String, Vec<usize>>,
    /// Per run id, its turns' places.
    run_turns: HashMap<String, Vec<usize>>,
    /// The places of the runs marked `running`, first written first (a few at any time).
    running: Vec<usize>,
}

impl Index {
    /// The index of tables as they stand (after records were removed).
    pub(super) fn of(runs: &[RunRecord], turns: &[TurnRecord]) -> Index {
        let mut index = Index::default();
        for at in 0..runs.len() {
            index.run_written(runs, at, None);
        }
        for (at, turn) in turns.iter().enumerate() {
            index.turn_written(at, turn, None);
        }
        index
    }

    /// The run at `at` of `runs` was written, replacing `old` if it was there before.
    pub(super) fn run_written(&mut self, runs: &[RunRecord], at: usize, old: Option<&RunRecord>) {
        let run = &runs[at];
        let moved = old.is_none_or(|old| old.session != run.session || old.started_ms != run.started_ms);
        if moved {
            if let Some(old) = old {
                remove_place(self.runs.get_mut(&old.session), at);
            }
            let places = self.runs.entry(run.session.clone()).or_default();
            let key = (run.started_ms, at);
            let i = places.partition_point(|&j| (runs[j].started_ms, j) < key);
            places.insert(i, at);
        }
        let i = self.running.partition_point(|&j| j < at);
        let listed = self.running.get(i) == Some(&at);
        match (run.status == RunStatus::Running, listed) {
            (true, false) => self.running.insert(i, at),
            (false, true) => {
                self.running.remove(i);
            }
            _ => {}
        }
    }

    /// `turn`, at `at` of its table, was written, replacing `old` if it was there before (a turn's
    /// key holds its run, so only its session can have changed).
    pub(super) fn turn_written(&mut self, at: usize, turn: &TurnRecord, old: Option<&TurnRecord>) {
        match old {
            None => {
                // Appended: the last place of its session and of its run.
                self.session_turns.entry(turn.session.clone()).or_default().push(at);
                self.run_turns.entry(turn.run_id.clone()).or_default().push(at);
            }
            Some(old) if old.session != turn.session => {
                remove_place(self.session_turns.get_mut(&old.session), at);
                let places = self.session_turns.entry(turn.session.clone()).or_default();
                let i = places.partition_point(|&j| j < at);
                places.insert(i, at);
            }
            Some(_) => {}
        }
    }

    /// The places of `session`'s runs, in the order they started.
    pub(super) fn session_runs(&self, session: &str) -> &[usize] {
        self.runs.get(session).map_or(&[], Vec::as_slice)
    }

    /// The places of `session`'s turns, first written first.
    pub(super) fn session_turns(&self, session: &str) -> &[usize] {
        self.session_turns.get(session).map_or(&[], Vec::as_slice)
    }

    /// The places of a run's turns, first written first.
    pub(super) fn run_turns(&self, run_id: &str) -> &[usize] {
        self.run_turns.get(run_id).map_or(&[], Vec::as_slice)
    }

    /// The places of the runs marked `running`, first written first.
    pub(super) fn running(&self) -> impl Iterator<Item = usize> + '_ {
        self.running.iter().copied()
    }
}

fn remove_place(places: Option<&mut Vec<usize>>, at: usize) {
    if let Some(places) = places {
        places.retain(|&j| j != at);
    }
}
