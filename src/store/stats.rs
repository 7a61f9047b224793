//! Failure statistics: faults, retried, recovered, and the recovery rate.

use serde::{Deserialize, Serialize};

use super::FailureRecord;

/// Totals over a set of failure records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureStats {
    /// Failures recorded.
    pub faults: u32,
    /// Failures the runtime retried.
    pub retried: u32,
    /// Failures a later retry or step recovered from.
    pub recovered: u32,
}

impl FailureStats {
    /// Totals for `records`.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a FailureRecord>) -> Self {
        records.into_iter().fold(FailureStats::default(), |mut s, r| {
            s.faults += 1;
            s.retried += u32::from(r.retried);
            s.recovered += u32::from(r.recovered);
            s
        })
    }

    /// Recovered over faults, from 0 to 1; 1 when there was no fault.
    pub fn recovery_rate(&self) -> f64 {
        if self.faults == 0 {
            1.0
        } else {
            f64::from(self.recovered) / f64::from(self.faults)
        }
    }
}
