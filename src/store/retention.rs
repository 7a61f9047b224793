//! The retention policy: how much history to keep, and which runs to drop. Pure decisions; the
//! store fetches the candidates and deletes them.
//!
//! Retention works on whole runs, oldest start first: a run goes with its turns and failures, so
//! what is kept always exports whole. Failures without a run record (their run was never saved)
//! go by age alone.

use serde::{Deserialize, Serialize};

/// How much to keep. Applied on demand, every [`Retention::every_writes`] writes, and harder when
/// the storage is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Retention {
    /// Runs kept at most (`None`: no limit).
    pub max_runs: Option<u32>,
    /// Runs started longer ago than this are dropped (`None`: no limit).
    pub max_age_ms: Option<u64>,
    /// Apply the policy after this many writes (0: only on demand and when full).
    pub every_writes: u32,
}

const DAY_MS: u64 = 24 * 60 * 60 * 1000;

impl Default for Retention {
    /// A thousand runs or 90 days, checked every 200 writes: years of ordinary use stays well under
    /// Chrome's per-origin quota, and a check costs two index reads.
    fn default() -> Self {
        Retention { max_runs: Some(1_000), max_age_ms: Some(90 * DAY_MS), every_writes: 200 }
    }
}

impl Retention {
    /// Keeps everything; prunes only when the storage is full.
    pub const KEEP_ALL: Retention = Retention { max_runs: None, max_age_ms: None, every_writes: 0 };

    /// How many of the oldest runs are over the count limit when `runs` are stored.
    pub fn excess(&self, runs: u32) -> u32 {
        self.max_runs.map_or(0, |max| runs.saturating_sub(max))
    }

    /// Runs (and orphan failures) older than this, in ms since the epoch, are dropped.
    pub fn cutoff(&self, now_ms: u64) -> Option<u64> {
        self.max_age_ms.map(|age| now_ms.saturating_sub(age))
    }

    /// How many of the oldest runs to drop when a write failed for lack of space: what the policy
    /// would drop anyway, and at least a tenth of the runs (at least one), so that the retry has
    /// room; never the newest run, which is usually the one being written.
    pub fn under_pressure(&self, runs: u32) -> u32 {
        let tenth = runs.div_ceil(10).max(1);
        self.excess(runs).max(tenth).min(runs.saturating_sub(1))
    }

    /// Whether the policy is due after the `writes`-th write.
    pub fn due(&self, writes: u64) -> bool {
        self.every_writes > 0 && writes > 0 && writes % u64::from(self.every_writes) == 0
    }
}

/// What a pruning removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    /// Runs removed with their turns and failures.
    pub runs: u32,
    /// Turns removed.
    pub turns: u32,
    /// Failures removed (of those runs, and orphans past the age limit).
    pub failures: u32,
}

impl Pruned {
    /// "3 runs (12 turns, 4 failures)", for warnings.
    pub fn describe(&self) -> String {
        format!("{} runs ({} turns, {} failures)", self.runs, self.turns, self.failures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_limit_drops_only_the_runs_over_it() {
        let r = Retention { max_runs: Some(100), ..Retention::KEEP_ALL };
        assert_eq!((r.excess(99), r.excess(100), r.excess(130)), (0, 0, 30));
        assert_eq!(Retention::KEEP_ALL.excess(u32::MAX), 0);
    }

    #[test]
    fn the_age_limit_is_a_cutoff_before_now() {
        let r = Retention { max_age_ms: Some(1_000), ..Retention::KEEP_ALL };
        assert_eq!(r.cutoff(5_000), Some(4_000));
        assert_eq!(r.cutoff(10), Some(0), "no underflow");
        assert_eq!(Retention::KEEP_ALL.cutoff(5_000), None);
    }

    #[test]
    fn a_full_storage_drops_a_tenth_or_the_excess_but_never_the_newest_run() {
        let r = Retention { max_runs: Some(50), ..Retention::KEEP_ALL };
        assert_eq!(r.under_pressure(40), 4, "a tenth");
        assert_eq!(r.under_pressure(45), 5, "rounded up");
        assert_eq!(r.under_pressure(80), 30, "the excess when larger");
        assert_eq!(r.under_pressure(3), 1, "at least one");
        assert_eq!(r.under_pressure(1), 0, "the newest run stays");
        assert_eq!(r.under_pressure(0), 0);
    }

    #[test]
    fn the_policy_runs_every_n_writes_and_never_when_zero() {
        let r = Retention { every_writes: 3, ..Retention::KEEP_ALL };
        let due: Vec<u64> = (0..10).filter(|&w| r.due(w)).collect();
        assert_eq!(due, [3, 6, 9]);
        assert!(!(0..10).any(|w| Retention::KEEP_ALL.due(w)));
    }

    #[test]
    fn the_page_sets_it_in_camel_case_and_missing_fields_keep_their_defaults() {
        let r: Retention = serde_json::from_str(r#"{"maxRuns": 5}"#).unwrap();
        assert_eq!(r.max_runs, Some(5));
        assert_eq!(r.max_age_ms, Retention::default().max_age_ms);
        let none: Retention = serde_json::from_str(r#"{"maxRuns": null, "maxAgeMs": null}"#).unwrap();
        assert_eq!((none.max_runs, none.max_age_ms), (None, None));
    }
}
