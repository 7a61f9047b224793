//! The retention policy: how much history to keep, and which runs to drop. Pure decisions; the
//! store fetches the candidates and deletes them.
//!
//! Retention works on whole runs, oldest start first: a run goes with its turns and failures, so
//! what is kept always exports whole. Failures without a run record (their run was never saved)
//! go by age alone. A run still marked `running` is never dropped: it is live (in this tab or
//! another) or cut off and waiting for `resume` or `abandon`, and its committed steps are what
//! either needs.

use serde::{Deserialize, Serialize};

/// How much to keep. Applied on demand, every [`Retention::every_writes`] writes, and harder when
/// the storage is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
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

    /// How many of the oldest runs are over the count limit when `runs` finished runs are stored.
    pub fn excess(&self, runs: u32) -> u32 {
        self.max_runs.map_or(0, |max| runs.saturating_sub(max))
    }

    /// Runs (and orphan failures) older than this, in ms since the epoch, are dropped.
    pub fn cutoff(&self, now_ms: u64) -> Option<u64> {
        self.max_age_ms.map(|age| now_ms.saturating_sub(age))
    }

    /// Whether the policy is due after the `writes`-th write.
    pub fn due(&self, writes: u64) -> bool {
        self.every_writes > 0 && writes > 0 && writes % u64::from(self.every_writes) == 0
    }

    /// How many of the oldest `runs` (finished ones) to drop in the `round`-th pruning (0 first)
    /// for one write that failed for lack of space: what the policy would drop anyway, and at
    /// least a tenth of them (at least one) in round 0, a fifth of those left in round 1, two
    /// fifths in round 2, and so on, until the write fits; never the newest.
    ///
    /// Rounds, because the space a write needs is not known: the browser only says it did not fit
    /// (Chromium checks the usage plus the transaction's size against the quota), and the runs
    /// dropped may be small.
    pub fn under_pressure(&self, runs: u32, round: u32) -> u32 {
        let share = u64::from(runs) << round.min(8);
        let share = share.div_ceil(10).max(1).min(u64::from(u32::MAX)) as u32;
        self.excess(runs).max(share).min(runs.saturating_sub(1))
    }

    /// The ids of the runs to drop, from `runs` (every stored run, oldest start first, each with
    /// whether it is still `running` and whether it started before [`Retention::cutoff`]): the
    /// `oldest(n)` oldest of the `n` finished runs (the count limit, or a round of
    /// [`Retention::under_pressure`]), and every finished run past the age limit. Running runs
    /// are never chosen.
    pub fn victims(runs: &[RunAge], oldest: impl Fn(u32) -> u32) -> Vec<String> {
        let finished: Vec<&RunAge> = runs.iter().filter(|r| !r.running).collect();
        let n = oldest(finished.len() as u32) as usize;
        finished.iter().enumerate().filter(|(i, r)| *i < n || r.past_age).map(|(_, r)| r.id.clone()).collect()
    }
}

/// What retention needs to know of a stored run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunAge {
    /// The run's id.
    pub id: String,
    /// Still marked `running`: never dropped.
    pub running: bool,
    /// Started before the age limit's cutoff.
    pub past_age: bool,
}

/// What a pruning removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
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
    /// Adds what another pruning removed.
    pub fn add(&mut self, more: Pruned) {
        self.runs += more.runs;
        self.turns += more.turns;
        self.failures += more.failures;
    }

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
        assert_eq!(r.under_pressure(40, 0), 4, "a tenth");
        assert_eq!(r.under_pressure(45, 0), 5, "rounded up");
        assert_eq!(r.under_pressure(80, 0), 30, "the excess when larger");
        assert_eq!(r.under_pressure(3, 0), 1, "at least one");
        assert_eq!(r.under_pressure(1, 0), 0, "the newest run stays");
        assert_eq!(r.under_pressure(0, 0), 0);
    }

    #[test]
    fn each_round_for_the_same_write_drops_twice_the_share_of_what_is_left() {
        let r = Retention::KEEP_ALL;
        // 40 runs: 4, then a fifth of the 36 left, two fifths of the 28 left, ..., all but the newest.
        let mut left = 40;
        let mut dropped = Vec::new();
        for round in 0..5 {
            let n = r.under_pressure(left, round);
            dropped.push(n);
            left -= n;
        }
        assert_eq!(dropped, [4, 8, 12, 13, 2]);
        assert_eq!(left, 1, "the newest run stays");
        assert_eq!(r.under_pressure(u32::MAX, u32::MAX), u32::MAX - 1, "no overflow");
    }

    fn ages(runs: &[(&str, bool, bool)]) -> Vec<RunAge> {
        runs.iter().map(|&(id, running, past_age)| RunAge { id: id.into(), running, past_age }).collect()
    }

    #[test]
    fn victims_are_the_oldest_finished_runs_and_those_past_the_age_never_a_running_one() {
        // Oldest first: a0 is running (live, or waiting for resume), a1 is past the age limit.
        let runs = ages(&[
            ("a0", true, true),
            ("a1", false, true),
            ("b", false, false),
            ("c", true, false),
            ("d", false, false),
            ("e", false, false),
        ]);
        let none = Retention::victims(&runs, |_| 0);
        assert_eq!(none, ["a1"], "only the age limit");
        let two = Retention::victims(&runs, |finished| {
            assert_eq!(finished, 4, "running runs are not counted");
            2
        });
        assert_eq!(two, ["a1", "b"]);
        let all = Retention::victims(&runs, |n| n);
        assert_eq!(all, ["a1", "b", "d", "e"]);
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
