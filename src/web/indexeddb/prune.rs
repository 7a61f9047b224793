//! Deleting history: the retention policy (on demand, every N writes, and harder when the storage
//! is full) and clearing a session. Each is one `relaxed` read-write transaction: a lost deletion
//! only brings old records back, and the next pruning removes them again. Retention never drops a
//! run still marked `running` (see [`Retention::victims`]).

use std::collections::HashSet;

use serde_json::json;
use wasm_bindgen::JsValue;

use super::tx::{idb_error, now_ms, query, Durability, Tx};
use super::IdbStore;
use crate::store::layout::{self, KeyRange, FAILURES, RUNS, SESSIONS, TURNS};
use crate::store::retention::{Pruned, Retention, RunAge};
use crate::store::StoreError;

fn fail(doing: &'static str) -> impl Fn(idb::Error) -> StoreError {
    move |e| idb_error(doing, &e)
}

/// The primary keys (run ids) an index of `runs` holds in `range`, in index order.
async fn run_ids(tx: &Tx, index: &str, range: &KeyRange) -> Result<Vec<String>, StoreError> {
    let index = tx.store(RUNS)?.index(index).map_err(fail("open an index"))?;
    let keys = index.get_all_keys(query(range)?, None).map_err(fail("read"))?;
    Ok(keys.await.map_err(fail("read"))?.iter().filter_map(JsValue::as_string).collect())
}

impl IdbStore {
    /// Applies the retention policy now: drops the oldest finished runs over the count limit and
    /// those past the age limit (each with its turns and failures), and failures past the age limit.
    pub async fn apply_retention(&self) -> Result<Pruned, StoreError> {
        let retention = self.options.retention;
        self.prune(move |runs| retention.excess(runs)).await
    }

    /// Makes room after a `QuotaExceededError`, in the `round`-th try for one write: the policy,
    /// and a share of the finished runs that grows with each round
    /// ([`Retention::under_pressure`]).
    pub(super) async fn prune_for_space(&self, round: u32) -> Result<Pruned, StoreError> {
        let retention = self.options.retention;
        self.prune(move |runs| retention.under_pressure(runs, round)).await
    }

    async fn prune(&self, oldest: impl Fn(u32) -> u32) -> Result<Pruned, StoreError> {
        // What the writes know of sessions is read afresh after records are deleted.
        self.known.borrow_mut().clear();
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS, TURNS, FAILURES], Some(Durability::Relaxed))?;
            let by_start = run_ids(&tx, layout::RUNS_BY_START, &KeyRange::ALL).await?;
            let running: HashSet<String> =
                run_ids(&tx, layout::RUNS_BY_STATUS, &KeyRange::prefix(&[json!("running")]))
                    .await?
                    .into_iter()
                    .collect();
            let cutoff = self.options.retention.cutoff(now_ms());
            let past_age: HashSet<String> = match cutoff {
                Some(cutoff) => {
                    run_ids(&tx, layout::RUNS_BY_START, &KeyRange::below(cutoff)).await?.into_iter().collect()
                }
                None => HashSet::new(),
            };
            let runs: Vec<RunAge> = by_start
                .into_iter()
                .map(|id| RunAge { running: running.contains(&id), past_age: past_age.contains(&id), id })
                .collect();
            let mut pruned = Pruned::default();
            for id in Retention::victims(&runs, oldest) {
                delete_run(&tx, &id, &mut pruned).await?;
            }
            if let Some(cutoff) = cutoff {
                // Failures whose run record was never written go by age alone.
                let by_time =
                    tx.store(FAILURES)?.index(layout::FAILURES_BY_TIME).map_err(fail("open an index"))?;
                let old =
                    by_time.get_all_keys(query(&KeyRange::below(cutoff))?, None).map_err(fail("read"))?;
                pruned.failures += delete_keys(&tx, FAILURES, old.await.map_err(fail("read"))?)?;
            }
            tx.done().await?;
            Ok(pruned)
        }
        .await;
        result.map_err(|e| self.after(e))
    }

    /// Deletes a session: its runs, turns, failures and its own record.
    pub async fn clear_session(&self, session: &str) -> Result<Pruned, StoreError> {
        self.known.borrow_mut().remove(session);
        let result = async {
            let tx = Tx::begin(&self.db().await?, &layout::ALL_STORES, Some(Durability::Relaxed))?;
            let prefix = query(&KeyRange::prefix(&[json!(session)]))?;
            let mut counts = [0; 3];
            let indexes = [
                (RUNS, layout::RUNS_BY_SESSION),
                (TURNS, layout::TURNS_BY_SESSION),
                (FAILURES, layout::FAILURES_BY_SESSION),
            ];
            for ((store, index), count) in indexes.into_iter().zip(&mut counts) {
                let index = tx.store(store)?.index(index).map_err(fail("open an index"))?;
                let keys = index.get_all_keys(prefix.clone(), None).map_err(fail("read"))?;
                *count = delete_keys(&tx, store, keys.await.map_err(fail("read"))?)?;
            }
            tx.store(SESSIONS)?.delete(JsValue::from_str(session)).map_err(fail("delete"))?;
            tx.done().await?;
            let [runs, turns, failures] = counts;
            Ok(Pruned { runs, turns, failures })
        }
        .await;
        result.map_err(|e| self.after(e))
    }
}

/// Deletes one run with its turns and failures, inside `tx`.
async fn delete_run(tx: &Tx, id: &str, pruned: &mut Pruned) -> Result<(), StoreError> {
    tx.store(RUNS)?.delete(JsValue::from_str(id)).map_err(fail("delete"))?;
    let turns = tx.store(TURNS)?;
    if let Some(range) = query(&layout::run_turns(id))? {
        pruned.turns +=
            turns.count(Some(range.clone())).map_err(fail("count"))?.await.map_err(fail("count"))?;
        turns.delete(range).map_err(fail("delete"))?;
    }
    let by_run = tx.store(FAILURES)?.index(layout::FAILURES_BY_RUN).map_err(fail("open an index"))?;
    let keys = by_run.get_all_keys(query(&KeyRange::prefix(&[json!(id)]))?, None).map_err(fail("read"))?;
    pruned.failures += delete_keys(tx, FAILURES, keys.await.map_err(fail("read"))?)?;
    pruned.runs += 1;
    Ok(())
}

/// Issues a deletion per key (they run in order in the transaction; its `complete` confirms them).
fn delete_keys(tx: &Tx, store: &str, keys: Vec<JsValue>) -> Result<u32, StoreError> {
    let store = tx.store(store)?;
    for key in &keys {
        store.delete(key.clone()).map_err(fail("delete"))?;
    }
    Ok(keys.len() as u32)
}
