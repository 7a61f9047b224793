//! A session's newest runs, a page at a time ([`Store::session_tail`]): what a run's start reads
//! of its session. The runs come from [`layout::RUNS_BY_SESSION`] walked backwards from the
//! session's newest, each run's turns from its primary keys (`[runId, step]`), all in one
//! read-only transaction, so a page costs the runs it holds, not the session.
//!
//! [`Store::session_tail`]: crate::store::Store::session_tail

use std::collections::HashSet;

use serde_json::json;

use super::read::all;
use super::tx::{from_js, idb_error, query, read_all, Tx};
use super::IdbStore;
use crate::store::layout::{self, KeyRange, RUNS, TURNS};
use crate::store::{RunRecord, SavedRun, SessionTail, StoreError, TurnRecord};

fn fail(doing: &'static str) -> impl Fn(idb::Error) -> StoreError {
    move |e| idb_error(doing, &e)
}

impl IdbStore {
    /// The runs among the `limit` records after the `skip` newest of `session`, newest first,
    /// with their turns; and once the walk reaches the session's start, the session's turns whose
    /// run record it does not hold. Records that do not read back are skipped and counted.
    pub async fn tail_of_session(
        &self,
        session: &str,
        skip: usize,
        limit: usize,
    ) -> Result<SessionTail, StoreError> {
        let result = async {
            let tx = Tx::begin(&self.db().await?, &[RUNS, TURNS], None)?;
            let (records, more, mut skipped) = newest_runs(&tx, session, skip, limit).await?;
            let turns = tx.store(TURNS)?;
            // Every run's request is made before any is awaited: they are answered in one go.
            let mut requests = Vec::with_capacity(records.len());
            for run in &records {
                requests
                    .push(turns.get_all(query(&layout::run_turns(&run.id))?, None).map_err(fail("read"))?);
            }
            let mut runs = Vec::with_capacity(records.len());
            for (run, request) in records.into_iter().zip(requests) {
                let (turns, bad) = read_all::<TurnRecord>(&request.await.map_err(fail("read"))?);
                skipped += bad;
                runs.push(SavedRun { run, turns });
            }
            let orphans = if more { Vec::new() } else { orphans(&tx, session, &mut skipped).await? };
            Ok((SessionTail { runs, more, orphans }, skipped))
        }
        .await;
        match result {
            Ok((tail, skipped)) => {
                self.count_skipped(skipped);
                Ok(tail)
            }
            Err(e) => Err(self.after(e)),
        }
    }
}

/// The runs among the `limit` records after the `skip` newest of `session`, newest first, whether
/// older records remain, and how many of those walked did not read back.
async fn newest_runs(
    tx: &Tx,
    session: &str,
    skip: usize,
    limit: usize,
) -> Result<(Vec<RunRecord>, bool, u32), StoreError> {
    let index = tx.store(RUNS)?.index(layout::RUNS_BY_SESSION).map_err(fail("open an index"))?;
    let range = query(&KeyRange::prefix(&[json!(session)]))?;
    let opened = index.open_cursor(range, Some(idb::CursorDirection::Prev)).map_err(fail("read"))?;
    let (mut runs, mut skipped) = (Vec::new(), 0);
    let Some(cursor) = opened.await.map_err(fail("read"))? else { return Ok((runs, false, 0)) };
    let mut cursor = cursor.into_managed();
    if skip > 0 {
        let skip = u32::try_from(skip).unwrap_or(u32::MAX);
        cursor.advance(skip).await.map_err(fail("read"))?;
    }
    let mut walked = 0;
    while let Some(value) = cursor.value().map_err(fail("read"))? {
        if walked == limit {
            return Ok((runs, true, skipped));
        }
        walked += 1;
        match from_js::<RunRecord>(&value) {
            Some(run) => runs.push(run),
            None => skipped += 1,
        }
        cursor.next(None).await.map_err(fail("read"))?;
    }
    Ok((runs, false, skipped))
}

/// The turns of `session` whose run record it does not hold, in the order they were written. Read
/// only by the page that reaches the session's start: a session whose runs all fit the window, or
/// one read to its start anyway.
async fn orphans(tx: &Tx, session: &str, skipped: &mut u32) -> Result<Vec<TurnRecord>, StoreError> {
    let prefix = KeyRange::prefix(&[json!(session)]);
    let runs = all::<RunRecord>(tx, RUNS, Some(layout::RUNS_BY_SESSION), &prefix).await?;
    let turns = all::<TurnRecord>(tx, TURNS, Some(layout::TURNS_BY_SESSION), &prefix).await?;
    *skipped += runs.skipped + turns.skipped;
    let held: HashSet<String> = runs.records.into_iter().map(|r| r.id).collect();
    Ok(turns.records.into_iter().filter(|t| !held.contains(&t.run_id)).collect())
}
