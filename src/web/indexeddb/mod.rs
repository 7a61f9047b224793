//! The durable [`Store`]: IndexedDB, written from the worker (the page may read it).
//!
//! - [`open`]: the versioned upgrade (`store::layout::MIGRATIONS`), a bounded wait when another
//!   tab blocks it, closing on `versionchange` (and reopening lazily on next use);
//! - `write`: `put_run` / `put_turn` / `put_failure`, each one short transaction, and `put_step`,
//!   a step's turn and failures (and for the answer's step the run's end) in one, complete before
//!   the engine acts on the next model reply; the session's record is read by a run's first write
//!   and then kept in memory while the run holds its session's lock, so a step is one put (its
//!   turn) and the session's counts are stored when the run ends (`store::held`);
//!   a full storage is pruned by the retention policy, harder each round, until the write fits;
//! - `read`: the failure log (list by session / run / tool / code / time, stats, export), and
//!   runs left `running` with their turns, for resume;
//! - `tail`: a session's newest runs with their turns, a page at a time, for a run's memory;
//! - `prune`: retention (on demand and every N writes) and clearing a session.
//!
//! Records are stored as their serde JSON, so the page can read them with plain IndexedDB calls.
//! A stored value that does not read back is skipped and counted ([`IdbStore::skipped`]), never a
//! panic.

pub mod open;
mod prune;
mod read;
mod tail;
mod tx;
mod write;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use web_sys::IdbDatabase;

use crate::engine::CancelToken;
use crate::store::held::HeldSession;
use crate::store::layout::{Migration, MIGRATIONS};
use crate::store::{
    FailureRecord, IdbOptions, RunRecord, SavedRun, SessionTail, StepWrite, Store, StoreError, TurnRecord,
};

pub use open::delete_database;

/// The connection, shared with its `versionchange` handler, which empties it.
type Connection = Rc<RefCell<Option<IdbDatabase>>>;

/// A [`Store`] on an IndexedDB database. Opens on first use (or [`IdbStore::open`]); if another tab
/// upgrades or deletes the database, the connection closes and the next call reopens it.
pub struct IdbStore {
    options: IdbOptions,
    migrations: &'static [Migration],
    connection: Connection,
    /// Set while an open is under way: later callers wait for it instead of opening a second one.
    opening: RefCell<Option<CancelToken>>,
    writes: Cell<u64>,
    skipped: Cell<u32>,
    /// Per session held by a run, what this store knows of it: steps are written without reads.
    known: RefCell<HashMap<String, HeldSession>>,
}

impl IdbStore {
    /// A store on the database `options.name`, at the current layout.
    pub fn new(options: IdbOptions) -> Self {
        Self::with_migrations(options, MIGRATIONS)
    }

    /// A store whose layout is `migrations` (tests open a database at another version this way).
    pub fn with_migrations(options: IdbOptions, migrations: &'static [Migration]) -> Self {
        IdbStore {
            options,
            migrations,
            connection: Rc::default(),
            opening: RefCell::default(),
            writes: Cell::new(0),
            skipped: Cell::new(0),
            known: RefCell::default(),
        }
    }

    /// Whether this global has IndexedDB at all.
    pub fn available() -> bool {
        open::factory().is_ok()
    }

    /// The settings.
    pub fn options(&self) -> &IdbOptions {
        &self.options
    }

    /// Opens the database now rather than on first use (the worker does this at `init`).
    pub async fn open(&self) -> Result<(), StoreError> {
        self.db().await.map(drop)
    }

    /// Whether a connection is open.
    pub fn is_open(&self) -> bool {
        self.connection.borrow().is_some()
    }

    /// Closes the connection; the next call reopens it.
    pub fn close(&self) {
        if let Some(db) = self.connection.borrow_mut().take() {
            db.close();
        }
    }

    /// Stored values skipped so far because they did not read back as records.
    pub fn skipped(&self) -> u32 {
        self.skipped.get()
    }

    fn count_skipped(&self, n: u32) {
        self.skipped.set(self.skipped.get().saturating_add(n));
    }

    /// The open connection, opening it if need be. One open at a time: concurrent callers wait for
    /// the one under way.
    async fn db(&self) -> Result<IdbDatabase, StoreError> {
        loop {
            if let Some(db) = self.connection.borrow().clone() {
                return Ok(db);
            }
            let waiting = self.opening.borrow().clone();
            match waiting {
                Some(latch) => latch.cancelled().await,
                None => break,
            }
        }
        let latch = CancelToken::new();
        *self.opening.borrow_mut() = Some(latch.clone());
        let cleared = Rc::downgrade(&self.connection);
        let opened =
            open::open(&self.options.name, self.migrations, self.options.blocked_timeout_ms, move || {
                if let Some(connection) = cleared.upgrade() {
                    connection.borrow_mut().take();
                }
            })
            .await;
        self.opening.borrow_mut().take();
        latch.cancel();
        let db = opened?;
        *self.connection.borrow_mut() = Some(db.clone());
        Ok(db)
    }

    /// After an error: a connection that went away (closed under us) is dropped, so the next call
    /// reopens it rather than failing the same way.
    fn after(&self, error: StoreError) -> StoreError {
        if matches!(error, StoreError::Unavailable(_)) {
            self.close();
        }
        error
    }
}

impl Drop for IdbStore {
    fn drop(&mut self) {
        self.close();
    }
}

impl Store for IdbStore {
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.write_run(run).boxed_local()
    }

    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.write_turn(turn).boxed_local()
    }

    fn put_failure<'a>(&'a self, failure: &'a FailureRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.write_failure(failure).boxed_local()
    }

    fn put_step<'a>(&'a self, step: &'a StepWrite) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.write_step(step).boxed_local()
    }

    fn session_turns<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<TurnRecord>, StoreError>> {
        async move { self.turns_of_session(session).await.map(|found| found.records) }.boxed_local()
    }

    fn session_runs<'a>(
        &'a self,
        session: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>> {
        async move { self.runs_of_session(session).await.map(|found| found.records) }.boxed_local()
    }

    fn session_tail<'a>(
        &'a self,
        session: &'a str,
        skip: usize,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<SessionTail, StoreError>> {
        self.tail_of_session(session, skip, limit).boxed_local()
    }

    fn unfinished_runs(&self) -> LocalBoxFuture<'_, Result<Vec<RunRecord>, StoreError>> {
        async move { self.running_runs().await.map(|found| found.records) }.boxed_local()
    }

    fn load_run<'a>(&'a self, run_id: &'a str) -> LocalBoxFuture<'a, Result<Option<SavedRun>, StoreError>> {
        self.saved_run(run_id).boxed_local()
    }
}
