//! A session's newest runs, read newest first a page at a time: what a run's memory is built from.
//! A prompt shows only the newest lines of a session's memory that fit its window, so a run's
//! start asks for the newest runs and for older ones only while the window is not yet full,
//! instead of reading a session of a thousand runs whole (`engine::recall`).

use std::collections::{HashMap, HashSet};

use super::{RunRecord, SavedRun, TurnRecord};

/// One page of a session's runs, newest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionTail {
    /// The runs, newest first (the reverse of [`super::Store::session_runs`]'s order, ties
    /// included), each with its turns in step order.
    pub runs: Vec<SavedRun>,
    /// Whether the session holds older runs than the page reached.
    pub more: bool,
    /// Once the page reaches the session's start (`more` is false): the session's turns whose run
    /// record it does not hold (a store that lost it), first written first. A session's memory
    /// begins with them (`conversation::by_run`).
    pub orphans: Vec<TurnRecord>,
}

impl SessionTail {
    /// The page `skip`, `limit` of a session read whole: its `runs` in the order they started, and
    /// its `turns` in the order written. A `limit` of `None` takes every run from `skip` on.
    pub fn of_session(
        runs: Vec<RunRecord>,
        turns: Vec<TurnRecord>,
        skip: usize,
        limit: Option<usize>,
    ) -> SessionTail {
        let mut runs = runs;
        crate::order::sort_by_key(&mut runs, |r| r.started_ms);
        let end = runs.len().saturating_sub(skip);
        let start = limit.map_or(0, |limit| end.saturating_sub(limit));
        let page: Vec<RunRecord> = runs.drain(start..end).rev().collect();
        let held: HashSet<String> = runs.drain(..).map(|r| r.id).collect();
        let at: HashMap<&str, usize> = page.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
        let mut grouped: Vec<Vec<TurnRecord>> = vec![Vec::new(); page.len()];
        let mut orphans = Vec::new();
        for turn in turns {
            match at.get(turn.run_id.as_str()) {
                Some(&i) => grouped[i].push(turn),
                None if start == 0 && !held.contains(&turn.run_id) => orphans.push(turn),
                None => {}
            }
        }
        let runs = page
            .into_iter()
            .zip(grouped)
            .map(|(run, mut turns)| {
                crate::order::sort_by_key(&mut turns, |t| t.turn.step);
                SavedRun { run, turns }
            })
            .collect();
        SessionTail { runs, more: start > 0, orphans }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{fixtures, RunStatus};

    fn run(id: &str, started_ms: u64) -> RunRecord {
        fixtures::run(id, "s", started_ms, RunStatus::Succeeded)
    }

    fn turn(run_id: &str, step: u32) -> TurnRecord {
        fixtures::turn(run_id, "s", step, 0, format!("{run_id}/{step}"))
    }

    fn shape(tail: &SessionTail) -> Vec<(String, Vec<u32>)> {
        tail.runs.iter().map(|s| (s.run.id.clone(), s.turns.iter().map(|t| t.turn.step).collect())).collect()
    }

    #[test]
    fn a_page_is_the_newest_runs_after_the_skipped_ones_newest_first_ties_in_reverse() {
        // b and c started together: c, written last, is the newer of the two.
        let runs = vec![run("d", 4), run("a", 1), run("b", 2), run("c", 2)];
        let turns = vec![turn("c", 2), turn("gone", 1), turn("c", 1), turn("b", 1), turn("a", 1)];
        let first = SessionTail::of_session(runs.clone(), turns.clone(), 0, Some(2));
        assert_eq!(shape(&first), [("d".to_string(), vec![]), ("c".to_string(), vec![1, 2])]);
        assert!(first.more && first.orphans.is_empty());
        let second = SessionTail::of_session(runs.clone(), turns.clone(), 2, Some(2));
        assert_eq!(shape(&second), [("b".to_string(), vec![1]), ("a".to_string(), vec![1])]);
        assert!(!second.more, "a is the oldest");
        let orphans: Vec<&str> = second.orphans.iter().map(|t| t.run_id.as_str()).collect();
        assert_eq!(orphans, ["gone"], "the page that reaches the start has the turns of no run");
        let rest = SessionTail::of_session(runs.clone(), turns.clone(), 1, None);
        assert_eq!(rest.runs.len(), 3);
        assert!(!rest.more);
        let past = SessionTail::of_session(runs, turns, 9, Some(2));
        assert!(past.runs.is_empty() && !past.more && past.orphans.len() == 1);
    }
}
