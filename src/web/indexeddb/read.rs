//! Reads: a session's turns in order, the failure log (list, stats), and the JSON export of a run
//! or a session. Each read is one read-only transaction over the indexes the query needs.
//!
//! These are the Rust side of the page's future `agent.failures({...})`, `agent.failureStats(...)`
//! and `agent.export(...)`: they take and return plain serde types.

use serde::de::DeserializeOwned;
use serde_json::json;
use wasm_bindgen::JsValue;

use super::tx::{from_js, idb_error, query, read_all, Tx};
use super::IdbStore;
use crate::store::conversation::{conversation, Exchange};
use crate::store::held::{reconcile, LastTurn};
use crate::store::layout::{self, KeyRange, FAILURES, RUNS, SESSIONS, TURNS};
use crate::store::query::{FailureQuery, Found, Order};
use crate::store::session::{Export, SessionRecord};
use crate::store::{FailureBreakdown, FailureRecord, RunRecord, SavedRun, StoreError, TurnRecord};

fn fail(doing: &'static str) -> impl Fn(idb::Error) -> StoreError {
    move |e| idb_error(doing, &e)
}

/// Every record of `store` (or of its `index`) in `range`, in key order.
pub(super) async fn all<T: DeserializeOwned>(
    tx: &Tx,
    store: &str,
    index: Option<&str>,
    range: &KeyRange,
) -> Result<Found<T>, StoreError> {
    let store = tx.store(store)?;
    let values = match index {
        Some(index) => store.index(index).map_err(fail("open an index"))?.get_all(query(range)?, None),
        None => store.get_all(query(range)?, None),
    }
    .map_err(fail("read"))?
    .await
    .map_err(fail("read"))?;
    let (records, skipped) = read_all(&values);
    Ok(Found { records, skipped })
}

/// The newest turn of `session` by `seq`, inside `tx` (which covers the turns): what brings the
/// session's record up to date after a run cut off before its last write (see
/// [`crate::store::held`]).
pub(super) async fn last_turn(tx: &Tx, session: &str) -> Result<Option<LastTurn>, StoreError> {
    let index = tx.store(TURNS)?.index(layout::TURNS_BY_SESSION).map_err(fail("open an index"))?;
    let range = query(&layout::session_turns(session))?;
    let opened = index.open_cursor(range, Some(idb::CursorDirection::Prev)).map_err(fail("read"))?;
    let Some(cursor) = opened.await.map_err(fail("read"))? else { return Ok(None) };
    let value = cursor.value().map_err(fail("read"))?;
    let number = |field: &str| js_sys::Reflect::get(&value, &JsValue::from_str(field)).ok()?.as_f64();
    Ok(number("seq").map(|seq| LastTurn { seq: seq as u64, at_ms: number("atMs").unwrap_or(0.0) as u64 }))
}

/// A session's stored record, up to date with its newest turn.
async fn session_record(tx: &Tx, session: &str) -> Result<(Option<SessionRecord>, bool), StoreError> {
    let record = tx.store(SESSIONS)?.get(JsValue::from_str(session)).map_err(fail("read"))?;
    let record = record.await.map_err(fail("read"))?;
    let mut parsed = record.as_ref().and_then(from_js::<SessionRecord>);
    if let Some(parsed) = &mut parsed {
        reconcile(parsed, last_turn(tx, session).await?);
    }
    let unreadable = record.is_some() && parsed.is_none();
    Ok((parsed, unreadable))
}

impl IdbStore {
    /// A session's turns from every run, in the order they were written.
    pub async fn turns_of_session(&self, session: &str) -> Result<Found<TurnRecord>, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[TURNS], None)?;
            all(&tx, TURNS, Some(layout::TURNS_BY_SESSION), &layout::session_turns(session)).await
        }
        .await;
        self.found(result)
    }

    /// A session's runs in the order they started, on [`layout::RUNS_BY_SESSION`].
    pub async fn runs_of_session(&self, session: &str) -> Result<Found<RunRecord>, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS], None)?;
            let prefix = KeyRange::prefix(&[json!(session)]);
            all(&tx, RUNS, Some(layout::RUNS_BY_SESSION), &prefix).await
        }
        .await;
        self.found(result)
    }

    /// A session's conversation, oldest exchange first: its runs and turns read in one transaction
    /// (see [`conversation`]).
    pub async fn history(&self, session: &str) -> Result<Vec<Exchange>, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS, TURNS], None)?;
            let prefix = KeyRange::prefix(&[json!(session)]);
            let runs = all::<RunRecord>(&tx, RUNS, Some(layout::RUNS_BY_SESSION), &prefix).await?;
            let turns = all::<TurnRecord>(&tx, TURNS, Some(layout::TURNS_BY_SESSION), &prefix).await?;
            self.count_skipped(runs.skipped + turns.skipped);
            Ok(conversation(runs.records, turns.records))
        }
        .await;
        result.map_err(|e| self.after(e))
    }

    /// Runs still marked `running`, oldest first, on the status index (see [`Store::unfinished_runs`]).
    ///
    /// [`Store::unfinished_runs`]: crate::store::Store::unfinished_runs
    /// A running run's record is written when it starts, so its `steps` are counted from its turns
    /// (one per committed step).
    pub async fn running_runs(&self) -> Result<Found<RunRecord>, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS, TURNS], None)?;
            let running = KeyRange::prefix(&[json!("running")]);
            let mut found = all::<RunRecord>(&tx, RUNS, Some(layout::RUNS_BY_STATUS), &running).await?;
            let turns = tx.store(TURNS)?;
            for run in &mut found.records {
                let range = query(&layout::run_turns(&run.id))?;
                let steps = turns.count(range).map_err(fail("count"))?.await.map_err(fail("count"))?;
                run.counts.steps = run.counts.steps.max(steps);
            }
            Ok(found)
        }
        .await;
        self.found(result)
    }

    /// One run's record and its turns in step order (the primary key is `[runId, step]`).
    pub async fn saved_run(&self, run_id: &str) -> Result<Option<SavedRun>, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS, TURNS], None)?;
            let run = tx.store(RUNS)?.get(JsValue::from_str(run_id)).map_err(fail("read"))?;
            let run = run.await.map_err(fail("read"))?;
            let turns = all::<TurnRecord>(&tx, TURNS, None, &layout::run_turns(run_id)).await?;
            self.count_skipped(turns.skipped);
            Ok(run.as_ref().and_then(from_js::<RunRecord>).map(|run| SavedRun { run, turns: turns.records }))
        }
        .await;
        result.map_err(|e| self.after(e))
    }

    /// The failures `q` asks for, walking the narrowest index over the time range (see
    /// [`FailureQuery::plan`]), newest first unless asked otherwise, up to `q.limit`.
    pub async fn failures(&self, q: &FailureQuery) -> Result<Found<FailureRecord>, StoreError> {
        let result = async {
            let plan = q.plan();
            let tx = Tx::begin(&self.db().await?, &[FAILURES], None)?;
            let index = tx.store(FAILURES)?.index(plan.index).map_err(fail("open an index"))?;
            let direction = match q.order {
                Order::Newest => idb::CursorDirection::Prev,
                Order::Oldest => idb::CursorDirection::Next,
            };
            let opened = index.open_cursor(query(&plan.range)?, Some(direction)).map_err(fail("read"))?;
            let mut found = Found::default();
            let Some(cursor) = opened.await.map_err(fail("read"))? else {
                return Ok(found);
            };
            let mut cursor = cursor.into_managed();
            let limit = q.limit.map_or(usize::MAX, |n| n as usize);
            while found.records.len() < limit {
                let Some(value) = cursor.value().map_err(fail("read"))? else { break };
                match from_js::<FailureRecord>(&value) {
                    Some(record) if q.matches(&record) => found.records.push(record),
                    Some(_) => {}
                    None => found.skipped += 1,
                }
                cursor.next(None).await.map_err(fail("read"))?;
            }
            Ok(found)
        }
        .await;
        self.found(result)
    }

    /// Stats over the failures `q` selects (its limit ignored): faults, retried, recovered and the
    /// recovery rate, in total, per tool and per code.
    pub async fn failure_stats(&self, q: &FailureQuery) -> Result<(FailureBreakdown, u32), StoreError> {
        let all = FailureQuery { limit: None, ..q.clone() };
        let found = self.failures(&all).await?;
        Ok((FailureBreakdown::of(&found.records), found.skipped))
    }

    /// One run as JSON: its record, turns in step order and failures in time order.
    pub async fn export_run(&self, run_id: &str) -> Result<Export, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS, TURNS, FAILURES], None)?;
            let run = tx.store(RUNS)?.get(JsValue::from_str(run_id)).map_err(fail("read"))?;
            let run = run.await.map_err(fail("read"))?;
            let turns = all(&tx, TURNS, None, &layout::run_turns(run_id)).await?;
            let failures =
                all(&tx, FAILURES, Some(layout::FAILURES_BY_RUN), &KeyRange::prefix(&[json!(run_id)]))
                    .await?;
            let (runs, bad_run) = read_all::<RunRecord>(run.as_slice());
            let skipped = bad_run + turns.skipped + failures.skipped;
            Ok(Export { session: None, runs, turns: turns.records, failures: failures.records, skipped })
        }
        .await;
        self.exported(result)
    }

    /// A whole session as JSON: its record, runs by start, turns in order, failures in time order.
    pub async fn export_session(&self, session_name: &str) -> Result<Export, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &layout::ALL_STORES, None)?;
            let (session, unreadable) = session_record(&tx, session_name).await?;
            let prefix = KeyRange::prefix(&[json!(session_name)]);
            let runs = all::<RunRecord>(&tx, RUNS, Some(layout::RUNS_BY_SESSION), &prefix).await?;
            let turns = all(&tx, TURNS, Some(layout::TURNS_BY_SESSION), &prefix).await?;
            let failures = all(&tx, FAILURES, Some(layout::FAILURES_BY_SESSION), &prefix).await?;
            let bad_session = u32::from(unreadable);
            Ok(Export {
                session,
                skipped: bad_session + runs.skipped + turns.skipped + failures.skipped,
                runs: runs.records,
                turns: turns.records,
                failures: failures.records,
            })
        }
        .await;
        self.exported(result)
    }

    /// A session's own record (counts, first and last write), if it has one, counting the turns
    /// of a run under way or cut off (which stores the session's counts when it ends).
    pub async fn session(&self, session: &str) -> Result<Option<SessionRecord>, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[SESSIONS, TURNS], None)?;
            Ok(session_record(&tx, session).await?.0)
        }
        .await;
        result.map_err(|e| self.after(e))
    }

    fn found<T>(&self, result: Result<Found<T>, StoreError>) -> Result<Found<T>, StoreError> {
        match result {
            Ok(found) => {
                self.count_skipped(found.skipped);
                Ok(found)
            }
            Err(e) => Err(self.after(e)),
        }
    }

    fn exported(&self, result: Result<Export, StoreError>) -> Result<Export, StoreError> {
        match result {
            Ok(export) => {
                self.count_skipped(export.skipped);
                Ok(export)
            }
            Err(e) => Err(self.after(e)),
        }
    }
}
