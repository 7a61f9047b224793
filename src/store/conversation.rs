//! A session as a conversation: its runs in the order they started, each with what the user asked,
//! the steps taken and what came back. The next run's prompt remembers it (`engine::memory`) and
//! the page reads it (`agent.history(session)`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{RunRecord, RunStatus, TurnRecord};
use crate::turn::Turn;

/// One exchange of a session's conversation: one run, from the task to its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    /// The run.
    pub run_id: String,
    /// What the user asked, as given (as stored, when the agent redacts).
    pub task: String,
    /// The answer the user got: the model's, or the runtime's account of why there is none.
    /// Null while the run is under way, or when it was cut off before it ended.
    pub answer: Option<String>,
    /// Where the run stands: `succeeded` for a real answer, else why not.
    pub status: RunStatus,
    /// When it started, ms since the epoch.
    pub started_ms: u64,
    /// When it ended.
    pub ended_ms: Option<u64>,
    /// Steps taken (for a run still under way or cut off, the steps it committed).
    pub steps: u32,
}

/// A session's runs, each with its turns in step order, runs in the order they started. Turns
/// whose run record is gone (a store that lost it) come first, in the order written, under `None`.
pub fn by_run(mut runs: Vec<RunRecord>, turns: Vec<TurnRecord>) -> Vec<(Option<RunRecord>, Vec<Turn>)> {
    crate::order::sort_by_key(&mut runs, |r| r.started_ms);
    let at: HashMap<String, usize> = runs.iter().enumerate().map(|(i, r)| (r.id.clone(), i)).collect();
    let mut grouped: Vec<Vec<Turn>> = vec![Vec::new(); runs.len()];
    let mut orphans = Vec::new();
    for record in turns {
        match at.get(&record.run_id) {
            Some(&i) => grouped[i].push(record.turn),
            None => orphans.push(record.turn),
        }
    }
    let mut out = Vec::with_capacity(runs.len() + 1);
    if !orphans.is_empty() {
        out.push((None, orphans));
    }
    for (run, mut turns) in runs.into_iter().zip(grouped) {
        crate::order::sort_by_key(&mut turns, |t| t.step);
        out.push((Some(run), turns));
    }
    out
}

/// The conversation a session's runs and turns hold, oldest exchange first.
pub fn conversation(runs: Vec<RunRecord>, turns: Vec<TurnRecord>) -> Vec<Exchange> {
    by_run(runs, turns)
        .into_iter()
        .filter_map(|(run, turns)| {
            let run = run?;
            let committed = turns.iter().map(|t| t.step).max().unwrap_or(0);
            Some(Exchange {
                steps: run.counts.steps.max(committed),
                run_id: run.id,
                task: run.task,
                answer: run.answer,
                status: run.status,
                started_ms: run.started_ms,
                ended_ms: run.ended_ms,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{fixtures, RunCounts};

    fn run(id: &str, started_ms: u64, answer: Option<&str>) -> RunRecord {
        let status = if answer.is_some() { RunStatus::Succeeded } else { RunStatus::Running };
        RunRecord {
            ended_ms: answer.map(|_| started_ms + 5),
            answer: answer.map(str::to_string),
            counts: RunCounts { steps: u32::from(answer.is_some()) * 2, ..RunCounts::default() },
            ..fixtures::run(id, "s", started_ms, status)
        }
    }

    fn turn(run_id: &str, step: u32) -> TurnRecord {
        fixtures::turn(run_id, "s", step, 0, format!("{run_id}/{step}"))
    }

    #[test]
    fn runs_come_in_start_order_with_their_turns_and_orphans_first() {
        let runs = vec![run("b", 20, None), run("a", 10, Some("A"))];
        let turns = vec![turn("b", 2), turn("a", 1), turn("gone", 1), turn("b", 1), turn("a", 2)];
        let grouped = by_run(runs.clone(), turns.clone());
        let shape: Vec<(Option<String>, Vec<String>)> = grouped
            .iter()
            .map(|(r, t)| {
                (r.as_ref().map(|r| r.id.clone()), t.iter().map(|t| t.observation.clone()).collect())
            })
            .collect();
        assert_eq!(
            shape,
            [
                (None, vec!["gone/1".to_string()]),
                (Some("a".into()), vec!["a/1".into(), "a/2".into()]),
                (Some("b".into()), vec!["b/1".into(), "b/2".into()]),
            ]
        );
        let exchanges = conversation(runs, turns);
        assert_eq!(exchanges.iter().map(|e| e.run_id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(exchanges[0].answer.as_deref(), Some("A"));
        assert_eq!(exchanges[1].answer, None);
        assert_eq!(exchanges[1].steps, 2, "a running run counts the steps it committed");
        assert_eq!(exchanges[1].task, "task of b");
    }
}
