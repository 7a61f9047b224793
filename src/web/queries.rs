//! The failure log from the page: `query` messages answered with `queryResult`.
//!
//! The page asks for failures (by session, run, tool, code, time range), their stats (faults,
//! retried, recovered and the recovery rate, in total, by tool and by code), the JSON export of a
//! run or a session, a run as OTLP/JSON trace spans, a session's conversation, and for deletions (a session, the retention policy). The worker answers from
//! the store the agent writes to: IndexedDB by default ([`IdbStore`](super::indexeddb::IdbStore)),
//! or the [`MemoryStore`] when `config.store` is `"memory"` (or IndexedDB does not exist), which
//! answers the same queries by a scan of what this worker wrote.
//!
//! ```json
//! → {"type": "query", "id": 7, "query": {"kind": "failures", "session": "s", "tool": "fetch", "limit": 20}}
//! ← {"type": "queryResult", "id": 7, "ok": true, "value": [{"id": "…", "code": "TIMEOUT", …}]}
//! ```

use std::collections::BTreeMap;
use std::rc::Rc;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::protocol::{protocol_failure, QueryValue, Reply, RequestId, WorkerMessage};
use super::rpc::Rpc;
use super::spawn::Spawner;
use crate::errors::{ErrorCode, KeelErrorCode, RawFailure};
use crate::settings::tagged::Tagged;
use crate::store::otlp::run_to_otlp;
use crate::store::query::FailureQuery;
use crate::store::retention::Pruned;
use crate::store::{FailureBreakdown, FailureStats, MemoryStore, StoreError};

/// What the page asks of the failure log (`query.kind` and its arguments, camelCase).
// Deserialize by hand (below), without serde's `Content` buffering: see crate::settings::tagged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum StoreQuery {
    /// The failures the query selects, newest first unless `order: "oldest"` → `FailureRecord[]`.
    Failures(FailureQuery),
    /// Stats over the failures the query selects (its limit ignored) →
    /// `{totals, byTool, byCode, skipped}`.
    Stats(FailureQuery),
    /// One run with its turns and failures → an `Export`.
    #[serde(rename_all = "camelCase")]
    ExportRun {
        /// The run.
        run_id: String,
    },
    /// One run as OpenTelemetry spans → an OTLP/JSON `TracesData` document
    /// ([`run_to_otlp`]); `{"resourceSpans": []}` for a run the store does not have.
    #[serde(rename_all = "camelCase")]
    ExportRunOtlp {
        /// The run.
        run_id: String,
    },
    /// A whole session → an `Export`.
    ExportSession {
        /// The session.
        session: String,
    },
    /// A session's conversation, oldest exchange first → `Exchange[]` (task, answer, status,
    /// times, steps of each run).
    History {
        /// The session.
        session: String,
    },
    /// Deletes a session's runs, turns and failures → what went (`{runs, turns, failures}`).
    ClearSession {
        /// The session.
        session: String,
    },
    /// Applies the retention policy now → what went (`{runs, turns, failures}`).
    ApplyRetention,
}

/// [`StoreQuery`] externally tagged, read from its `kind` and the rest ([`Tagged::read`]): the
/// same variants, fields and serde attributes.
#[derive(Deserialize)]
#[serde(remote = "StoreQuery", rename_all = "camelCase")]
enum StoreQueryTwin {
    Failures(FailureQuery),
    Stats(FailureQuery),
    #[serde(rename_all = "camelCase")]
    ExportRun {
        run_id: String,
    },
    #[serde(rename_all = "camelCase")]
    ExportRunOtlp {
        run_id: String,
    },
    ExportSession {
        session: String,
    },
    History {
        session: String,
    },
    ClearSession {
        session: String,
    },
    ApplyRetention,
}

impl<'de> Deserialize<'de> for StoreQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const SHAPE: Tagged = Tagged {
            tag: "kind",
            expecting: "internally tagged enum StoreQuery",
            variants: &[
                "failures",
                "stats",
                "exportRun",
                "exportRunOtlp",
                "exportSession",
                "history",
                "clearSession",
                "applyRetention",
            ],
        };
        SHAPE.read(d, |variant| StoreQueryTwin::deserialize(variant))
    }
}

/// A store that answers [`StoreQuery`]s with plain JSON values.
pub(crate) trait FailureLog {
    /// The answer to `query`, as the `value` of its `queryResult`.
    fn answer<'a>(&'a self, query: &'a StoreQuery) -> LocalBoxFuture<'a, Result<Value, StoreError>>;
}

/// JSON of a stored record type; these serialise infallibly (string keys, finite numbers).
/// Written as text and read back, which gives the `Value` `to_value` gives: the record types then
/// need one serializer in the module (their text one, which the worker's messages and the IndexedDB
/// writes use), not a `Value` one beside it (bench/results/wasm-size.md).
fn to_json(value: impl Serialize) -> Result<Value, StoreError> {
    let fail = |e: serde_json::Error| StoreError::Failed(format!("could not write the answer: {e}"));
    serde_json::from_str(&serde_json::to_string(&value).map_err(fail)?).map_err(fail)
}

/// The stats answer (`agent.failureStats`): the breakdown under the names the page uses.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FailureStatsReport {
    /// Over every failure the query selects.
    pub totals: FailureStats,
    /// Per tool name (`(none)` for failures of the model's reply).
    pub by_tool: BTreeMap<String, FailureStats>,
    /// Per code: a call that failed with several codes counts under each.
    pub by_code: BTreeMap<String, FailureStats>,
    /// Stored values that could not be read, left out.
    pub skipped: u32,
}

/// The stats answer as JSON.
fn stats_json(breakdown: FailureBreakdown, skipped: u32) -> Result<Value, StoreError> {
    to_json(FailureStatsReport {
        totals: breakdown.total,
        by_tool: breakdown.by_tool,
        by_code: breakdown.by_code,
        skipped,
    })
}

impl FailureLog for MemoryStore {
    /// Everything from a scan of this worker's records. Nothing outlives the worker, so there is no
    /// retention policy: `applyRetention` prunes nothing.
    fn answer<'a>(&'a self, query: &'a StoreQuery) -> LocalBoxFuture<'a, Result<Value, StoreError>> {
        let value = match query {
            StoreQuery::Failures(q) => to_json(self.query_failures(q)),
            StoreQuery::Stats(q) => {
                let all = self.query_failures(&FailureQuery { limit: None, ..q.clone() });
                stats_json(FailureBreakdown::of(&all), 0)
            }
            StoreQuery::ExportRun { run_id } => to_json(self.export_run(run_id)),
            StoreQuery::ExportRunOtlp { run_id } => Ok(run_to_otlp(&self.export_run(run_id), run_id)),
            StoreQuery::ExportSession { session } => to_json(self.export_session(session)),
            StoreQuery::History { session } => to_json(self.history(session)),
            StoreQuery::ClearSession { session } => to_json(self.clear_session(session)),
            StoreQuery::ApplyRetention => to_json(Pruned::default()),
        };
        future::ready(value).boxed_local()
    }
}

#[cfg(all(target_arch = "wasm32", feature = "browser"))]
impl FailureLog for super::indexeddb::IdbStore {
    fn answer<'a>(&'a self, query: &'a StoreQuery) -> LocalBoxFuture<'a, Result<Value, StoreError>> {
        async move {
            match query {
                StoreQuery::Failures(q) => to_json(self.failures(q).await?.records),
                StoreQuery::Stats(q) => {
                    let (breakdown, skipped) = self.failure_stats(q).await?;
                    stats_json(breakdown, skipped)
                }
                StoreQuery::ExportRun { run_id } => to_json(self.export_run(run_id).await?),
                StoreQuery::ExportRunOtlp { run_id } => {
                    Ok(run_to_otlp(&self.export_run(run_id).await?, run_id))
                }
                StoreQuery::ExportSession { session } => to_json(self.export_session(session).await?),
                StoreQuery::History { session } => to_json(self.history(session).await?),
                StoreQuery::ClearSession { session } => to_json(self.clear_session(session).await?),
                StoreQuery::ApplyRetention => to_json(self.apply_retention().await?),
            }
        }
        .boxed_local()
    }
}

/// A store failure as the page sees it: a coded `StoreError`.
pub(crate) fn store_failure(error: &StoreError) -> RawFailure {
    let code = match error {
        StoreError::QuotaExceeded(_) | StoreError::Pruned(_) => ErrorCode::QuotaExceeded,
        StoreError::Unavailable(_) => ErrorCode::Unavailable,
        _ => ErrorCode::Internal,
    };
    RawFailure { name: Some("StoreError".into()), ..RawFailure::coded(code.as_str(), error.to_string()) }
}

/// Answers a `query` message: from the agent's store (`log`) once `init` built it, else a protocol
/// failure. The answer is posted as a `queryResult` when the store has it; nothing is held across
/// the wait but the store itself.
pub(crate) fn answer(
    log: Option<Rc<dyn FailureLog>>,
    rpc: &Rc<Rpc>,
    spawn: &Spawner,
    id: RequestId,
    query: Value,
) {
    let query: StoreQuery = match crate::settings::read(&query, "query", &[]) {
        Ok(query) => query,
        Err(e) => {
            let error = super::init::misread(KeelErrorCode::InvalidConfig, &e, "");
            return rpc.post(&WorkerMessage::QueryResult(Reply::failed(id, error)));
        }
    };
    let Some(log) = log else {
        let error = protocol_failure("the failure log is not open yet: send `init` and wait for `ready`");
        rpc.post(&WorkerMessage::QueryResult(Reply::failed(id, error)));
        return;
    };
    let rpc = rpc.clone();
    spawn(Box::pin(async move {
        let reply = match log.answer(&query).await {
            Ok(value) => Reply::ok(id, QueryValue { value }),
            Err(e) => Reply::failed(id, store_failure(&e)),
        };
        rpc.post(&WorkerMessage::QueryResult(reply));
    }));
}
