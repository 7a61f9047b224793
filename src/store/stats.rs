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
