//! Writes: each record, or a step's records together (its turn and the failures it recorded, and
//! for the step that answers the run record's last write), is one short read-write transaction,
//! complete before the engine acts on the next model reply. Only IndexedDB requests are awaited
//! inside, so the transaction never outlives the write. The requests are made when the write is
//! first polled (the engine builds the next prompt and asks the model while it completes).
//!
//! A run's first write of its record reads the record it replaces, the session's record and the
//! session's newest turn, and puts the record and the session's; the store then keeps what it
//! knows of the session in memory ([`HeldSession`]): the run holds its session's lock
//! (`web::locks`) from that first write to its last, so nobody else writes the session meanwhile.
//! The run's later writes read nothing, and a step's is one put: its turn, numbered from the
//! session's count in memory, which the run's last write stores with the session's record (a
//! run cut off before then is counted again from its turns by the next reader, see
//! [`crate::store::held`]). A new failure puts the session's record with it: a failing step is
//! one transaction of three puts (its turn, its failure, the session's record).
//!
//! Durability, per record:
//! - a **turn** is `strict`: it is the step the engine resumes from, and the engine spends its next
//!   model call (seconds, and tokens) only once the step is committed; one flush per step is
//!   nothing next to that call;
//! - a **run** is `strict` when it ends (its final status, answer and reason are written once and
//!   are what resume and the history view decide on) and `relaxed` when it starts (it is written
//!   again at its end, and its progress meanwhile is its turns);
//! - a **failure** is `relaxed` on its own: the log is for diagnosis, written per attempt (several
//!   per step), and rewritten when `recovered` flips; losing the last ones to a power cut loses a
//!   log line, never a step. Written with its step's turn (`put_step`), it is in the turn's
//!   `strict` transaction: one flush for the step, not two transactions.
//!
//! `relaxed` still survives a closed tab, a reload, a killed worker and a browser crash: the data is
//! the OS's once `complete` fires. Only an OS crash or power loss in the next seconds loses it.

use serde::Serialize;
use wasm_bindgen::JsValue;

use super::tx::{idb_error, js_error, now_ms, to_js, Durability, Tx};
use super::IdbStore;
use crate::store::held::{HeldSession, Kind};
use crate::store::layout::{FAILURES, RUNS, SESSIONS, TURNS};
use crate::store::retention::Pruned;
use crate::store::{FailureRecord, RunRecord, RunStatus, StepWrite, StoreError, TurnRecord};

/// One upsert: the record, its key, and how it is written.
struct Put<'a> {
    store: &'static str,
    key: JsValue,
    /// The key as [`HeldSession`] names it.
    name: String,
    kind: Kind,
    /// Whether this is a run's last write: the session is then no longer held.
    ends_run: bool,
    /// The record's serde JSON: an object.
    json: String,
    session: &'a str,
    durability: Durability,
}

/// The record's JSON, encoded once for every try of its write.
fn json_of(record: &impl Serialize) -> Result<String, StoreError> {
    serde_json::to_string(record).map_err(|e| StoreError::Failed(format!("could not encode: {e}")))
}

/// A record as stored: its JSON, with `seq` first for a turn.
fn stored(json: &str, seq: Option<u64>) -> Result<JsValue, StoreError> {
    let text = match (seq, json.strip_prefix('{')) {
        (Some(seq), Some("}")) => format!("{{\"seq\":{seq}}}"),
        (Some(seq), Some(fields)) => format!("{{\"seq\":{seq},{fields}"),
        _ => return js_sys::JSON::parse(json).map_err(|e| js_error("encode", &e)),
    };
    js_sys::JSON::parse(&text).map_err(|e| js_error("encode", &e))
}

impl IdbStore {
    pub(super) async fn write_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.write(&[run_put(run)?]).await
    }

    pub(super) async fn write_turn(&self, turn: &TurnRecord) -> Result<(), StoreError> {
        self.write(&[turn_put(turn)?]).await
    }

    pub(super) async fn write_failure(&self, failure: &FailureRecord) -> Result<(), StoreError> {
        self.write(&[failure_put(failure)?]).await
    }

    /// A step's turns and failures, and the run record when the step ends the run, in one
    /// transaction: `strict`, as its turn is.
    pub(super) async fn write_step(&self, step: &StepWrite) -> Result<(), StoreError> {
        let turns = step.turns.iter().map(turn_put);
        let failures = step.failures.iter().map(failure_put);
        let puts =
            turns.chain(failures).chain(step.run.iter().map(run_put)).collect::<Result<Vec<_>, _>>()?;
        let Some(first) = puts.first() else { return Ok(()) };
        if let Some(other) = puts.iter().find(|p| p.session != first.session) {
            return Err(StoreError::Failed(format!(
                "a step's records belong to one session, not to `{}` and `{}`",
                first.session, other.session
            )));
        }
        self.write(&puts).await
    }

    /// Writes, and on a full storage prunes by the retention policy and tries again, pruning harder
    /// each round, until the write fits or only runs that are never pruned are left (the newest,
    /// and those still `running`). A write that went through only after pruning is still reported
    /// (as [`StoreError::Pruned`]) so the engine warns the page that history was dropped.
    async fn write(&self, puts: &[Put<'_>]) -> Result<(), StoreError> {
        let first = match self.put_once(puts).await {
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
            match self.put_once(puts).await {
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

    /// One upsert transaction of `puts`, all of one session: each record keeps the `seq` it was
    /// first given (turns), and the session's counts go up only for records not written before. A
    /// run's first write reads the session (see [`HeldSession::read`]); the run's later writes take
    /// it from memory, and put the session's record only when [`HeldSession::place`] says so for
    /// one of them.
    async fn put_once(&self, puts: &[Put<'_>]) -> Result<(), StoreError> {
        let Some(session) = puts.first().map(|p| p.session) else { return Ok(()) };
        let strict = puts.iter().any(|p| p.durability == Durability::Strict);
        let durability = if strict { Durability::Strict } else { Durability::Relaxed };
        let ends_run = puts.iter().any(|p| p.ends_run);
        let db = self.db().await?;
        let cached = self.known.borrow_mut().remove(session);
        let (tx, mut held, read) = match cached {
            Some(held) if puts.iter().all(|p| held.knows(p.kind, &p.name)) => (None, held, false),
            cached => {
                // The session's record, and its newest turn.
                let tx = Tx::begin(&db, &stores_of(puts, &[SESSIONS, TURNS]), Some(durability))?;
                let held = self.read_session(&tx, puts, cached).await?;
                (Some(tx), held, true)
            }
        };
        let now = now_ms();
        let placed: Vec<_> =
            puts.iter().map(|p| held.place(p.kind, &p.name, now, read, p.ends_run)).collect();
        let with_session = placed.iter().any(|p| p.with_session);
        let tx = match tx {
            Some(tx) => tx,
            None if with_session => Tx::begin(&db, &stores_of(puts, &[SESSIONS]), Some(durability))?,
            None => Tx::begin(&db, &stores_of(puts, &[]), Some(durability))?,
        };
        let fail = |e: idb::Error| idb_error("write", &e);
        for (put, placed) in puts.iter().zip(&placed) {
            let value = stored(&put.json, placed.seq)?;
            tx.store(put.store)?.put(&value, None).map_err(fail)?;
        }
        if with_session {
            tx.store(SESSIONS)?.put(&to_js(held.record())?, None).map_err(fail)?;
        }
        // Requests run in order within the transaction; `commit` reports any that failed.
        tx.commit().await?;
        if with_session {
            held.stored();
        }
        // Only what committed is known, and only while a run holds the session: a failed write,
        // and the first write after a run's end, read afresh.
        if !ends_run {
            self.known.borrow_mut().insert(session.to_string(), held);
        }
        Ok(())
    }

    /// Reads, inside `tx`, what a write that knows nothing of its session needs: the session's
    /// record and newest turn, and the record it replaces.
    async fn read_session(
        &self,
        tx: &Tx,
        puts: &[Put<'_>],
        cached: Option<HeldSession>,
    ) -> Result<HeldSession, StoreError> {
        let fail = |e: idb::Error| idb_error("read", &e);
        let session = puts.first().map_or("", |p| p.session);
        let mut existing = Vec::new();
        for put in puts {
            let found = tx.store(put.store)?.get(put.key.clone()).map_err(fail)?.await.map_err(fail)?;
            if let Some(found) = found {
                let seq = js_sys::Reflect::get(&found, &JsValue::from_str("seq")).ok();
                existing.push((put.name.as_str(), seq.and_then(|s| s.as_f64()).map(|s| s as u64)));
            }
        }
        let stored =
            tx.store(SESSIONS)?.get(JsValue::from_str(session)).map_err(fail)?.await.map_err(fail)?;
        let last_turn = super::read::last_turn(tx, session).await?;
        // A session record that does not read back is rebuilt rather than failing every write.
        let stored = stored.and_then(|v| super::tx::from_js(&v));
        Ok(HeldSession::read(session, now_ms(), stored, last_turn, &existing, cached))
    }
}

/// A run record's put: `strict` when the run ends, `relaxed` while it runs (see the module's
/// durability notes).
fn run_put(run: &RunRecord) -> Result<Put<'_>, StoreError> {
    let ends_run = run.status != RunStatus::Running;
    Ok(Put {
        store: RUNS,
        key: JsValue::from_str(&run.id),
        name: run.id.clone(),
        kind: Kind::Run,
        ends_run,
        json: json_of(run)?,
        session: &run.session,
        durability: if ends_run { Durability::Strict } else { Durability::Relaxed },
    })
}

/// A turn's put: `strict`, as it is the step the engine resumes from.
fn turn_put(turn: &TurnRecord) -> Result<Put<'_>, StoreError> {
    let key = js_sys::Array::of2(&JsValue::from_str(&turn.run_id), &JsValue::from(turn.turn.step));
    Ok(Put {
        store: TURNS,
        key: key.into(),
        name: format!("{}\u{0}{}", turn.run_id, turn.turn.step),
        kind: Kind::Turn,
        ends_run: false,
        json: json_of(turn)?,
        session: &turn.session,
        durability: Durability::Strict,
    })
}

/// A failure's put: `relaxed` on its own (see the module's durability notes).
fn failure_put(failure: &FailureRecord) -> Result<Put<'_>, StoreError> {
    Ok(Put {
        store: FAILURES,
        key: JsValue::from_str(&failure.id),
        name: failure.id.clone(),
        kind: Kind::Failure,
        ends_run: false,
        json: json_of(failure)?,
        session: &failure.session,
        durability: Durability::Relaxed,
    })
}

/// The object stores a transaction of `puts` uses: theirs, and `also`.
fn stores_of(puts: &[Put<'_>], also: &[&'static str]) -> Vec<&'static str> {
    let mut stores: Vec<&'static str> = Vec::new();
    for store in puts.iter().map(|p| p.store).chain(also.iter().copied()) {
        if !stores.contains(&store) {
            stores.push(store);
        }
    }
    stores
}
