//! Persistence: the `Store` trait the engine writes through, the records it writes, and an
//! in-memory store for tests and pages that need no durability.
//!
//! The durable store (IndexedDB, `web::indexeddb`) is built on pure parts kept here and tested
//! natively: its [`layout`] (stores, indexes, migrations, key ranges), failure-log [`query`]
//! plans, the [`retention`] policy, the [`session`] record and export, what it knows of a session
//! a run [`held`] (so a step is written without reads, its turn alone), a session as a
//! [`conversation`], the newest runs of a session a page at a time ([`SessionTail`]), and a run's
//! [`otlp`] trace. A step's records are handed over together ([`StepWrite`]), so that a durable
//! store puts them in one transaction.
//!
//! What a store is given can first be [`redact`]ed: secrets masked in the arguments and scrubbed
//! from the text, by a declarative policy or the page's own function.

pub mod conversation;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod held;
pub mod layout;
mod memory;
mod options;
pub mod otlp;
pub mod query;
mod records;
pub mod redact;
pub mod retention;
pub mod session;
mod stats;
mod step;
mod tail;

use futures_util::future::LocalBoxFuture;

pub use memory::MemoryStore;
pub use options::{IdbOptions, StoreChoice};
pub use records::{
    ApprovalRequest, EndReason, FailureRecord, Intent, PendingApproval, RunCounts, RunRecord, RunStatus,
    TurnRecord,
};
pub use stats::{FailureBreakdown, FailureStats, NO_TOOL};
pub use step::{put_each, StepWrite};
pub use tail::SessionTail;

/// A storage failure. The engine reports it as a warning and keeps running: losing a record is
/// better than losing the run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The storage is full.
    #[error("storage is full: {0}")]
    QuotaExceeded(String),
    /// The storage cannot be used (closed, blocked, not supported).
    #[error("storage is unavailable: {0}")]
    Unavailable(String),
    /// The storage was full: older history was pruned by the retention policy and the write went
    /// through on a second try. Still an error, so that the page is warned that history was lost.
    #[error("storage was full, so older history was pruned: {0}")]
    Pruned(String),
    /// A record could not be written or read.
    #[error("storage failed: {0}")]
    Failed(String),
}

/// Where runs, turns and failures go. Writes are upserts by id, so a record can be written again
/// as it changes (a run's status, a failure's `recovered`).
///
/// A write makes its requests when its future is first polled and resolves once they are stored:
/// the engine polls a step's write ([`Store::put_step`]) once, builds the next prompt and asks the
/// model while the store completes it, and waits for it before acting on the model's reply.
pub trait Store {
    /// Writes a run record.
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>>;
    /// Writes one turn.
    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>>;
    /// Writes a failure record.
    fn put_failure<'a>(&'a self, failure: &'a FailureRecord) -> LocalBoxFuture<'a, Result<(), StoreError>>;
    /// Writes what a step commits, its turn and its failures, and for the step that answers the
    /// run record's last write ([`StepWrite::run`]); the engine waits for it before it acts on the
    /// next model reply. A durable store writes them in one transaction, stored whole or not at
    /// all; the default writes each record in turn, the run record last ([`put_each`]). A store
    /// that writes a step itself must write `run` too: it is the run's end.
    fn put_step<'a>(&'a self, step: &'a StepWrite) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        put_each(self, step)
    }
    /// A session's turns from earlier runs, oldest first, to feed the next run.
    fn session_turns<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<TurnRecord>, StoreError>>;
    /// A session's runs, in the order they started: with [`Store::session_turns`], the
    /// conversation the next run remembers (what was asked, what came back).
    fn session_runs<'a>(&'a self, session: &'a str)
        -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>>;
    /// A session's runs from the newest back, each with its turns: the runs among the `limit`
    /// records after the `skip` newest (a record that does not read back is skipped), newest
    /// first, and whether older ones remain. A run's start reads its memory a page at a time and
    /// stops once the window is full (`engine::recall`), so what it reads is bounded by what its
    /// prompt can show, not by the session. A store may give more than `limit`: the default reads
    /// the whole session and gives every run from `skip` on.
    fn session_tail<'a>(
        &'a self,
        session: &'a str,
        skip: usize,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<SessionTail, StoreError>> {
        let _ = limit;
        Box::pin(async move {
            let read =
                futures_util::future::try_join(self.session_runs(session), self.session_turns(session));
            let (runs, turns) = read.await?;
            Ok(SessionTail::of_session(runs, turns, skip, None))
        })
    }
    /// Runs still marked `running`, oldest first: cut off by a terminated worker, a reload or a
    /// crash (or, in another tab, still under way). The engine writes a run's record when it starts
    /// and when it ends, so a store reports a running run's `counts.steps` from its committed
    /// turns. A store that keeps nothing across restarts has none, which is the default.
    fn unfinished_runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>, StoreError>> {
        Box::pin(futures_util::future::ready(Ok(Vec::new())))
    }
    /// One run's record and its turns in step order, for resuming it; `None` if the store does not
    /// have it (the default, for stores that keep nothing).
    fn load_run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<SavedRun>, StoreError>> {
        let _ = run_id;
        Box::pin(futures_util::future::ready(Ok(None)))
    }
}

/// A run as the store kept it: its record and its committed turns, in step order.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedRun {
    /// The run record.
    pub run: RunRecord,
    /// Its turns, step 1 first.
    pub turns: Vec<TurnRecord>,
}

impl SavedRun {
    /// The run as its last committed step left it, and its steps: what `Agent::resume` and
    /// `Agent::abandon` take. The record is written when a run starts and ends, not at each step,
    /// so a cut-off run's record counts nothing yet; the counts its last turn stored are put back.
    pub fn into_parts(self) -> (RunRecord, Vec<crate::turn::Turn>) {
        let mut run = self.run;
        if let Some(counts) = self.turns.iter().rev().find_map(|t| t.counts) {
            run.counts = RunCounts { steps: run.counts.steps, ..counts };
        }
        (run, self.turns.into_iter().map(|t| t.turn).collect())
    }
}
