//! Failure-log queries: what the page asks for (`agent.failures({session, runId, tool, code, since,
//! until, limit})`), and the plan that answers it from one index and a key range, filtering the
//! rest in Rust. Pure: the plan is chosen and tested natively.

use super::layout::{self, KeyRange};
use super::FailureRecord;
use crate::errors::ErrorCode;
use serde::{Deserialize, Serialize};

/// Which failures to list. Every field narrows; none given lists all. Times are ms since the epoch,
/// `since` inclusive and `until` exclusive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct FailureQuery {
    /// Only this session's.
    #[cfg_attr(test, ts(optional))]
    pub session: Option<String>,
    /// Only this run's.
    #[cfg_attr(test, ts(optional))]
    pub run_id: Option<String>,
    /// Only this tool's.
    #[cfg_attr(test, ts(optional))]
    pub tool: Option<String>,
    /// Only this code.
    #[cfg_attr(test, ts(optional))]
    pub code: Option<ErrorCode>,
    /// At or after this time.
    #[cfg_attr(test, ts(optional))]
    pub since: Option<u64>,
    /// Before this time.
    #[cfg_attr(test, ts(optional))]
    pub until: Option<u64>,
    /// At most this many, the newest (or, ordered `oldest`, the oldest).
    #[cfg_attr(test, ts(optional))]
    pub limit: Option<u32>,
    /// Newest first (the default) or oldest first.
    #[cfg_attr(test, ts(as = "Option<Order>", optional))]
    pub order: Order,
}

/// The order failures come back in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Order {
    /// Most recent first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
}

/// How to answer a query: walk `index` over `range` in the query's order, keep the records
/// [`FailureQuery::matches`] accepts, stop at the limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The failures index to walk.
    pub index: &'static str,
    /// The key range on it.
    pub range: KeyRange,
}

impl FailureQuery {
    /// Picks the index that narrows most: a run, then a session, a tool, a code, else time alone.
    /// Each is `[field, atMs]`, so the time range is part of the key range and results come back in
    /// time order whichever is used.
    pub fn plan(&self) -> Plan {
        let code = self.code.as_ref().map(|c| c.as_str().to_string());
        let keyed = [
            (layout::FAILURES_BY_RUN, &self.run_id),
            (layout::FAILURES_BY_SESSION, &self.session),
            (layout::FAILURES_BY_TOOL, &self.tool),
            (layout::FAILURES_BY_CODE, &code),
        ];
        for (index, value) in keyed {
            if let Some(value) = value {
                return Plan { index, range: KeyRange::prefix_between(value, self.since, self.until) };
            }
        }
        Plan { index: layout::FAILURES_BY_TIME, range: KeyRange::between(self.since, self.until) }
    }

    /// Whether `record` meets every condition (the index meets some; this checks them all).
    pub fn matches(&self, r: &FailureRecord) -> bool {
        let same =
            |want: &Option<String>, have: Option<&str>| want.as_deref().is_none_or(|w| have == Some(w));
        same(&self.session, Some(&r.session))
            && same(&self.run_id, Some(&r.run_id))
            && same(&self.tool, r.tool.as_deref())
            && self.code.as_ref().is_none_or(|c| *c == r.code)
            && self.since.is_none_or(|t| r.at_ms >= t)
            && self.until.is_none_or(|t| r.at_ms < t)
    }

    /// A query for one session's failures.
    pub fn session(session: &str) -> Self {
        FailureQuery { session: Some(session.to_string()), ..Self::default() }
    }

    /// A query for one run's failures.
    pub fn run(run_id: &str) -> Self {
        FailureQuery { run_id: Some(run_id.to_string()), ..Self::default() }
    }
}

/// Records read back, and how many stored records could not be read (a corrupt or foreign value
/// is skipped and counted, never a panic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Found<T> {
    /// What was read.
    pub records: Vec<T>,
    /// Stored values that did not read as `T`.
    pub skipped: u32,
}

impl<T> Default for Found<T> {
    fn default() -> Self {
        Found { records: Vec::new(), skipped: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::FailureClass;
    use serde_json::json;

    fn record(session: &str, run: &str, tool: Option<&str>, code: ErrorCode, at_ms: u64) -> FailureRecord {
        FailureRecord {
            id: format!("{run}:{at_ms}"),
            run_id: run.into(),
            session: session.into(),
            step: 1,
            tool: tool.map(Into::into),
            args_digest: None,
            class: FailureClass::Transient,
            code,
            attempt: 1,
            message: "m".into(),
            retried: false,
            recovered: false,
            recovery_call: None,
            idempotency_key: None,
            at_ms,
        }
    }

    #[test]
    fn the_narrowest_index_is_walked_with_the_time_range_in_its_key() {
        let q = FailureQuery {
            session: Some("s".into()),
            tool: Some("t".into()),
            since: Some(5),
            ..Default::default()
        };
        let plan = q.plan();
        assert_eq!(plan.index, layout::FAILURES_BY_SESSION);
        assert_eq!(plan.range.lower, Some(json!(["s", 5])));
        assert_eq!(plan.range.upper, Some(json!(["s", []])));
        let run = FailureQuery { run_id: Some("r".into()), ..q.clone() };
        assert_eq!(run.plan().index, layout::FAILURES_BY_RUN);
        let code = FailureQuery { code: Some(ErrorCode::Timeout), ..Default::default() };
        assert_eq!(code.plan().range.lower, Some(json!(["TIMEOUT"])));
        let time = FailureQuery { since: Some(1), until: Some(9), ..Default::default() };
        assert_eq!(
            time.plan(),
            Plan { index: layout::FAILURES_BY_TIME, range: KeyRange::between(Some(1), Some(9)) }
        );
        assert!(FailureQuery::default().plan().range.is_all());
    }

    #[test]
    fn matches_checks_every_condition_with_since_inclusive_and_until_exclusive() {
        let q = FailureQuery {
            session: Some("s".into()),
            tool: Some("fetch".into()),
            code: Some(ErrorCode::Timeout),
            since: Some(10),
            until: Some(20),
            ..Default::default()
        };
        assert!(q.matches(&record("s", "r", Some("fetch"), ErrorCode::Timeout, 10)));
        assert!(!q.matches(&record("s", "r", Some("fetch"), ErrorCode::Timeout, 20)));
        assert!(!q.matches(&record("s", "r", None, ErrorCode::Timeout, 12)));
        assert!(!q.matches(&record("x", "r", Some("fetch"), ErrorCode::Timeout, 12)));
        assert!(!q.matches(&record("s", "r", Some("fetch"), ErrorCode::RateLimited, 12)));
        assert!(FailureQuery::default().matches(&record("x", "y", None, ErrorCode::Timeout, 0)));
    }

    #[test]
    fn a_page_query_reads_from_camel_case_json_with_defaults() {
        let q: FailureQuery =
            serde_json::from_value(json!({"runId": "r", "code": "TIMEOUT", "limit": 5, "order": "oldest"}))
                .unwrap();
        assert_eq!(q.run_id.as_deref(), Some("r"));
        assert_eq!((q.code, q.limit, q.order), (Some(ErrorCode::Timeout), Some(5), Order::Oldest));
        assert_eq!(serde_json::from_value::<FailureQuery>(json!({})).unwrap(), FailureQuery::default());
    }
}
