//! Writes: each record is one short read-write transaction — read the existing record and the
//! session, put both — awaited to its `complete` before the engine goes on. Only IndexedDB requests
//! are awaited inside, so the transaction never outlives the write.
//!
//! Durability, per record:
//! - a **turn** is `strict`: it is the step the engine resumes from, and the engine spends its next
//!   model call (seconds, and tokens) only once the step is committed; one flush per step is
//!   nothing next to that call;
//! - a **run** is `strict` when it ends (its final status, answer and reason are written once and
//!   are what resume and the history view decide on) and `relaxed` while it runs (rewritten after
//!   every step with counts the turns already carry);
//! - a **failure** is `relaxed`: the log is for diagnosis, written per attempt (several per step),
//!   and rewritten when `recovered` flips; losing the last ones to a power cut loses a log line,
//!   never a step.
//!
//! `relaxed` still survives a closed tab, a reload, a killed worker and a browser crash: the data is
//! the OS's once `complete` fires. Only an OS crash or power loss in the next seconds loses it.

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

/// One upsert: the record, its key, and how it is written.
struct Put<'a> {
    store: &'static str,
    key: JsValue,
    value: Value,
    session: &'a str,
    counter: Counter,
    durability: Durability,
}

impl IdbStore {
    pub(super) async fn write_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        let durability =
            if run.status == RunStatus::Running { Durability::Relaxed } else { Durability::Strict };
        let put = || Put::new(RUNS, JsValue::from_str(&run.id), run, &run.session, Counter::Runs, durability);
        self.write(put).await
    }

    pub(super) async fn write_turn(&self, turn: &TurnRecord) -> Result<(), StoreError> {
        let key: JsValue =
            js_sys::Array::of2(&JsValue::from_str(&turn.run_id), &JsValue::from(turn.turn.step)).into();
        let put = || Put::new(TURNS, key.clone(), turn, &turn.session, Counter::Turns, Durability::Strict);
        self.write(put).await
    }

    pub(super) async fn write_failure(&self, failure: &FailureRecord) -> Result<(), StoreError> {
        let key = JsValue::from_str(&failure.id);
        let put = || {
            Put::new(FAILURES, key.clone(), failure, &failure.session, Counter::Failures, Durability::Relaxed)
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
    /// session's counter goes up only for a record not seen before.
    async fn put_once(&self, put: Put<'_>) -> Result<(), StoreError> {
        let db = self.db().await?;
        let tx = Tx::begin(&db, &[SESSIONS, put.store], Some(put.durability))?;
        let records = tx.store(put.store)?;
        let sessions = tx.store(SESSIONS)?;
        let fail = |doing: &'static str| move |e: idb::Error| idb_error(doing, &e);
        let existing = records.get(put.key.clone()).map_err(fail("read"))?.await.map_err(fail("read"))?;
        let stored = sessions
            .get(JsValue::from_str(put.session))
            .map_err(fail("read"))?
            .await
            .map_err(fail("read"))?;
        let now = now_ms();
        // A session record that does not read back is rebuilt rather than failing every write.
        let mut session = stored
            .and_then(|v| super::tx::from_js::<SessionRecord>(&v))
            .unwrap_or_else(|| SessionRecord::new(put.session, now));
        session.updated_ms = now;
        let mut value = put.value;
        let seq = existing.as_ref().and_then(|v| js_sys::Reflect::get(v, &JsValue::from_str("seq")).ok());
        if existing.is_none() {
            let counter = match put.counter {
                Counter::Runs => &mut session.runs,
                Counter::Turns => &mut session.turns,
                Counter::Failures => &mut session.failures,
            };
            if let Counter::Turns = put.counter {
                value["seq"] = Value::from(*counter);
            }
            *counter += 1;
        } else if let Some(seq) = seq.and_then(|s| s.as_f64()) {
            value["seq"] = Value::from(seq as u64);
        }
        // Requests run in order within the transaction; `done` reports any that failed.
        records.put(&to_js(&value)?, None).map_err(fail("write"))?;
        sessions.put(&to_js(&session)?, None).map_err(fail("write"))?;
        tx.done().await
    }
}

impl<'a> Put<'a> {
    fn new(
        store: &'static str,
        key: JsValue,
        record: &impl Serialize,
        session: &'a str,
        counter: Counter,
        durability: Durability,
    ) -> Result<Self, StoreError> {
        let value =
            serde_json::to_value(record).map_err(|e| StoreError::Failed(format!("could not encode: {e}")))?;
        Ok(Put { store, key, value, session, counter, durability })
    }
}
