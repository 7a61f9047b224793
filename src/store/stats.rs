//! Failure statistics: faults, retried, recovered, and the recovery rate.
//!
//! A fault is one failed call — the failures of one step and one tool (or of the model's reply)
//! together — however many attempts the runtime made at it. Counting attempts instead would
//! credit the runtime with a recovery for every retry.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::FailureRecord;

/// Totals over a set of failure records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FailureStats {
    /// Failed calls.
    pub faults: u32,
    /// Failed attempts, retries included.
    pub failed_attempts: u32,
    /// Faults the runtime retried.
    pub retried: u32,
    /// Faults a later retry or step recovered from.
    pub recovered: u32,
    /// Recovered over faults, from 0 to 1; 1 when there was no fault.
    pub recovery_rate: f64,
}

impl FailureStats {
    /// Totals for `records`.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a FailureRecord>) -> Self {
        // (retried, recovered) per call: a call recovered when its last attempt's failure did.
        let mut calls: BTreeMap<(&str, u32, Option<&str>), (bool, bool)> = BTreeMap::new();
        let mut failed_attempts = 0;
        for r in records {
            failed_attempts += 1;
            let call = calls.entry((r.run_id.as_str(), r.step, r.tool.as_deref())).or_default();
            call.0 |= r.retried;
            call.1 = r.recovered;
        }
        let faults = calls.len() as u32;
        let retried = calls.values().filter(|c| c.0).count() as u32;
        let recovered = calls.values().filter(|c| c.1).count() as u32;
        let recovery_rate = if faults == 0 { 1.0 } else { f64::from(recovered) / f64::from(faults) };
        FailureStats { faults, failed_attempts, retried, recovered, recovery_rate }
    }
}

/// Tool key for failures with no tool (the model's reply could not be read).
pub const NO_TOOL: &str = "(none)";

/// Stats over a set of failures, in total and broken down by tool and by code.
///
/// A call that failed with several codes (a timeout, then a 503) is a fault under each of them, so
/// the per-code faults can add up to more than the total; per tool they add up exactly.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureBreakdown {
    /// Over every record.
    pub total: FailureStats,
    /// Per tool name ([`NO_TOOL`] for failures of the model's reply).
    pub by_tool: BTreeMap<String, FailureStats>,
    /// Per error code.
    pub by_code: BTreeMap<String, FailureStats>,
}

impl FailureStats {
    /// Stats per tool ([`NO_TOOL`] for none).
    pub fn by_tool<'a>(
        records: impl IntoIterator<Item = &'a FailureRecord>,
    ) -> BTreeMap<String, FailureStats> {
        grouped(records, |r| r.tool.as_deref().unwrap_or(NO_TOOL).to_string())
    }

    /// Stats per error code.
    pub fn by_code<'a>(
        records: impl IntoIterator<Item = &'a FailureRecord>,
    ) -> BTreeMap<String, FailureStats> {
        grouped(records, |r| r.code.as_str().to_string())
    }
}

impl FailureBreakdown {
    /// The total and both breakdowns of `records`.
    pub fn of(records: &[FailureRecord]) -> Self {
        FailureBreakdown {
            total: FailureStats::of(records),
            by_tool: FailureStats::by_tool(records),
            by_code: FailureStats::by_code(records),
        }
    }
}

fn grouped<'a>(
    records: impl IntoIterator<Item = &'a FailureRecord>,
    key: impl Fn(&FailureRecord) -> String,
) -> BTreeMap<String, FailureStats> {
    let mut groups: BTreeMap<String, Vec<&FailureRecord>> = BTreeMap::new();
    for r in records {
        groups.entry(key(r)).or_default().push(r);
    }
    let mut stats = BTreeMap::new();
    stats.extend(groups.into_iter().map(|(k, rs)| (k, FailureStats::of(rs))));
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::{ErrorCode, FailureClass};

    fn attempt(
        run: &str,
        step: u32,
        tool: Option<&str>,
        code: ErrorCode,
        retried: bool,
        recovered: bool,
    ) -> FailureRecord {
        FailureRecord {
            id: format!("{run}:{step}:{code}:{retried}"),
            run_id: run.into(),
            session: "s".into(),
            step,
            tool: tool.map(Into::into),
            args_digest: None,
            class: FailureClass::Transient,
            code,
            attempt: 1,
            message: String::new(),
            retried,
            recovered,
            recovery_call: None,
            idempotency_key: None,
            at_ms: 0,
        }
    }

    #[test]
    fn per_tool_faults_add_up_to_the_total_and_per_code_counts_each_code_of_a_call() {
        let records = [
            // fetch at step 1: a timeout, retried, then a 503 it recovered from.
            attempt("r", 1, Some("fetch"), ErrorCode::Timeout, true, true),
            attempt("r", 1, Some("fetch"), ErrorCode::Unavailable, true, true),
            // fetch at step 2: a timeout never recovered.
            attempt("r", 2, Some("fetch"), ErrorCode::Timeout, false, false),
            // unreadable model output at step 3, recovered by the next step.
            attempt("r", 3, None, ErrorCode::InvalidOutput, false, true),
        ];
        let b = FailureBreakdown::of(&records);
        assert_eq!((b.total.faults, b.total.failed_attempts, b.total.recovered), (3, 4, 2));
        let fetch = b.by_tool["fetch"];
        assert_eq!((fetch.faults, fetch.retried, fetch.recovered, fetch.recovery_rate), (2, 1, 1, 0.5));
        assert_eq!(b.by_tool[NO_TOOL].faults, 1);
        assert_eq!(b.by_tool.values().map(|s| s.faults).sum::<u32>(), b.total.faults);
        let timeout = b.by_code["TIMEOUT"];
        assert_eq!((timeout.faults, timeout.recovered), (2, 1));
        assert_eq!(b.by_code["UNAVAILABLE"].faults, 1);
        assert!(FailureBreakdown::of(&[]).by_tool.is_empty());
    }
}
