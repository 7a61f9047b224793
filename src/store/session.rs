//! A session's own record and the JSON export of a run or a session.

use serde::{Deserialize, Serialize};

use super::{FailureRecord, RunRecord, TurnRecord};

/// One session, as the `sessions` store keeps it. Counts are of records ever written in the
/// session (retention does not lower them); `turns` also numbers each new turn, which is how a
/// session's turns come back in the order they were written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// The session's name.
    pub id: String,
    /// First write, ms since the epoch.
    pub created_ms: u64,
    /// Last write.
    pub updated_ms: u64,
    /// Runs written.
    pub runs: u64,
    /// Turns written.
    pub turns: u64,
    /// Failures written.
    pub failures: u64,
}

impl SessionRecord {
    /// A session first written at `now_ms`.
    pub fn new(id: &str, now_ms: u64) -> Self {
        SessionRecord { id: id.to_string(), created_ms: now_ms, updated_ms: now_ms, ..Self::default() }
    }
}

/// A run or a whole session as one JSON document: the session record (for a session), its runs by
/// start, their turns in order and their failures in time order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "StoreExport"))]
#[serde(rename_all = "camelCase")]
pub struct Export {
    /// The session, when a session was exported.
    pub session: Option<SessionRecord>,
    /// The runs.
    pub runs: Vec<RunRecord>,
    /// Their turns.
    pub turns: Vec<TurnRecord>,
    /// Their failures.
    pub failures: Vec<FailureRecord>,
    /// Stored values that could not be read, left out.
    pub skipped: u32,
}
