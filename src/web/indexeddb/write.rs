//! Writes: each record is one short read-write transaction, awaited to its `complete` before the
//! engine goes on. Only IndexedDB requests are awaited inside, so the transaction never outlives
//! the write.
//!
//! A run's first write of its record reads the record it replaces and the session's record, and
//! puts both; the store then keeps the session's record, and which records it wrote since, in
//! memory ([`Known`]). A run holds its session's lock (`web::locks`) from that first write to its
//! last, so nobody else writes the session meanwhile, and the run's steps, failures and later
//! writes of its own record (a call's intent, its end) are written without reading anything: two
//! puts (the record and the session's counters) in one transaction.
//!
//! Durability, per record:
//! - a **turn** is `strict`: it is the step the engine resumes from, and the engine spends its next
//!   model call (seconds, and tokens) only once the step is committed; one flush per step is
//!   nothing next to that call;
//! - a **run** is `strict` when it ends (its final status, answer and reason are written once and
//!   are what resume and the history view decide on) and `relaxed` when it starts (it is written
//!   again at its end, and its progress meanwhile is its turns);
//! - a **failure** is `relaxed`: the log is for diagnosis, written per attempt (several per step),
//!   and rewritten when `recovered` flips; losing the last ones to a power cut loses a log line,
//!   never a step.
//!
//! `relaxed` still survives a closed tab, a reload, a killed worker and a browser crash: the data is
//! the OS's once `complete` fires. Only an OS crash or power loss in the next seconds loses it.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::JsValue;

use super::tx::{idb_error, now_ms, to_js, Durability, Tx};
use super::IdbStore;
use crate::store::layout::{FAILURES, RUNS, SESSIONS, TURNS};
use crate::store::retention::Pruned;
use crate::store::session::SessionRecord;
use crate::store::{FailureRecord, RunRecord, RunStatus, StoreError, TurnRecord};

/// Which session counter a new record adds to.
#[derive(Clone, Copy)]
enum Counter {
    Runs,
    Turns,
    Failures,
}

/// A session as this store last wrote it, and the records it wrote since with their `seq` (turns)
/// : what a write would otherwise read back. Refreshed by each run record's write, dropped when a
/// write fails or the store prunes or clears.
#[derive(Default)]
pub(super) struct Known {
    session: SessionRecord,
    written: HashMap<String, Option<u64>>,
}

/// One upsert: the record, its key, and how it is written.
struct Put<'a> {
    store: &'static str,
    key: JsValue,
    /// The key as the [`Known`] records name it.
    name: String,
    /// Whether this is a run's last write: the session is then no longer held.
    ends_run: bool,
    value: Value,
    session: &'a str,
    counter: Counter,
    durability: Durability,
}

impl IdbStore {
    pub(super) async fn write_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        let durability =
            if run.status == RunStatus::Running { Durability::Relaxed } else { Durability::Strict };
        let put = || {
            let key = JsValue::from_str(&run.id);
            let put = Put::new(RUNS, key, run.id.clone(), run, &run.session, Counter::Runs, durability)?;
            Ok(Put { ends_run: run.status != RunStatus::Running, ..put })
        };
        self.write(put).await
    }

    pub(super) async fn write_turn(&self, turn: &TurnRecord) -> Result<(), StoreError> {
        let key: JsValue =
            js_sys::Array::of2(&JsValue::from_str(&turn.run_id), &JsValue::from(turn.turn.step)).into();
        let name = format!("{}\u{0}{}", turn.run_id, turn.turn.step);
        let put = || {
            Put::new(
                TURNS,
                key.clone(),
                name.clone(),
                turn,
                &turn.session,
                Counter::Turns,
                Durability::Strict,
            )
        };
        self.write(put).await
    }

    pub(super) async fn write_failure(&self, failure: &FailureRecord) -> Result<(), StoreError> {
        let key = JsValue::from_str(&failure.id);
        let put = || {
            let name = failure.id.clone();
            Put::new(
                FAILURES,
                key.clone(),
                name,
                failure,
                &failure.session,
                Counter::Failures,
                Durability::Relaxed,
            )
        };
        self.write(put).await
    }

    /// Writes, and on a full storage prunes by the retention policy and tries again, pruning harder
    /// each round, until the write fits or only runs that are never pruned are left (the newest,
    /// and those still `running`). A write that went through only after pruning is still reported
    /// (as [`StoreError::Pruned`]) so the engine warns the page that history was dropped.
    async fn write<'a>(&self, put: impl Fn() -> Result<Put<'a>, StoreError>) -> Result<(), StoreError> {
        let first = match self.put_once(put()?).await {
            Err(StoreError::QuotaExceeded(why)) => why,
            Err(e) => return Err(self.after(e)),
            Ok(()) => return self.counted().await,
        };
        let mut pruned = Pruned::default();
        for round in 0.. {
            match self.prune_for_space(round).await {
                Ok(more) if more.runs > 0 => pruned.add(more),
                Ok(_) => break,
                Err(e) => {
                    let so_far = if pruned.runs > 0 {
                        format!(" after deleting {}", pruned.describe())
                    } else {
                        String::new()
                    };
                    return Err(StoreError::QuotaExceeded(format!("{first}; pruning failed{so_far}: {e}")));
                }
            }
            match self.put_once(put()?).await {
                Ok(()) => {
                    return Err(StoreError::Pruned(format!(
                        "the oldest {} were deleted to make room, and the record was saved",
                        pruned.describe()
                    )))
                }
                Err(StoreError::QuotaExceeded(_)) => {}
                Err(e) => {
                    let e = self.after(e);
                    return Err(StoreError::Failed(format!(
                        "{first}; the oldest {} were deleted, but the write then failed: {e}",
                        pruned.describe()
                    )));
                }
            }
        }
        Err(StoreError::QuotaExceeded(match pruned.runs {
            0 => format!("{first}; there is no older history to prune"),
            _ => format!(
                "{first}; the oldest {} were deleted, and the record still does not fit",
                pruned.describe()
            ),
        }))
    }

    /// Counts a successful write, and applies the retention policy when it is due.
    async fn counted(&self) -> Result<(), StoreError> {
        let writes = self.writes.get() + 1;
        self.writes.set(writes);
        if self.options.retention.due(writes) {
            // The write itself succeeded: a retention failure is retried at the next due write.
            let _ = self.apply_retention().await;
        }
        Ok(())
    }

    /// One upsert transaction: the record keeps the `seq` it was first given (turns), and the
    /// session's counter goes up only for a record not seen before. A run's write reads both; a
    /// step's or a failure's takes them from [`Known`] when the run's write left it there.
    async fn put_once(&self, put: Put<'_>) -> Result<(), StoreError> {
        let db = self.db().await?;
        let tx = Tx::begin(&db, &[SESSIONS, put.store], Some(put.durability))?;
        let records = tx.store(put.store)?;
        let sessions = tx.store(SESSIONS)?;
        let fail = |doing: &'static str| move |e: idb::Error| idb_error(doing, &e);
        let cached = self.known.borrow_mut().remove(put.session);
        // A run's first write reads; its later ones (a call's intent, its end) are known, as its
        // steps are: the run has held the session since that first write.
        let mut known = match cached {
            Some(known) if put.store != RUNS || known.written.contains_key(&put.name) => known,
            cached => {
                let existing =
                    records.get(put.key.clone()).map_err(fail("read"))?.await.map_err(fail("read"))?;
                let stored = sessions
                    .get(JsValue::from_str(put.session))
                    .map_err(fail("read"))?
                    .await
                    .map_err(fail("read"))?;
                // A session record that does not read back is rebuilt rather than failing every write.
                let session = stored
                    .and_then(|v| super::tx::from_js::<SessionRecord>(&v))
                    .unwrap_or_else(|| SessionRecord::new(put.session, now_ms()));
                // What this store wrote stays known if nobody else wrote the session since.
                let mut written = match cached {
                    Some(known) if known.session == session => known.written,
                    _ => HashMap::new(),
                };
                if let Some(existing) = existing {
                    let seq = js_sys::Reflect::get(&existing, &JsValue::from_str("seq")).ok();
                    written.insert(put.name.clone(), seq.and_then(|s| s.as_f64()).map(|s| s as u64));
                }
                Known { session, written }
            }
        };
        known.session.updated_ms = now_ms();
        let mut value = put.value;
        match known.written.get(&put.name) {
            None => {
                let counter = match put.counter {
                    Counter::Runs => &mut known.session.runs,
                    Counter::Turns => &mut known.session.turns,
                    Counter::Failures => &mut known.session.failures,
                };
                let seq = matches!(put.counter, Counter::Turns).then_some(*counter);
                if let Some(seq) = seq {
                    value["seq"] = Value::from(seq);
                }
                *counter += 1;
                known.written.insert(put.name.clone(), seq);
            }
            Some(Some(seq)) => value["seq"] = Value::from(*seq),
            Some(None) => {}
        }
        // Requests run in order within the transaction; `done` reports any that failed.
        records.put(&to_js(&value)?, None).map_err(fail("write"))?;
        sessions.put(&to_js(&known.session)?, None).map_err(fail("write"))?;
        tx.done().await?;
        // Only what committed is known, and only while a run holds the session: a failed write,
        // and the first write after a run's end, read afresh.
        if !put.ends_run {
            self.known.borrow_mut().insert(put.session.to_string(), known);
        }
        Ok(())
    }
}

impl<'a> Put<'a> {
    fn new(
        store: &'static str,
        key: JsValue,
        name: String,
        record: &impl Serialize,
        session: &'a str,
        counter: Counter,
        durability: Durability,
    ) -> Result<Self, StoreError> {
        let value =
            serde_json::to_value(record).map_err(|e| StoreError::Failed(format!("could not encode: {e}")))?;
        Ok(Put { store, key, name, ends_run: false, value, session, counter, durability })
    }
}
