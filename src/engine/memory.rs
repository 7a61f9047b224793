//! What a run remembers of the session's earlier runs: for each, in the order they started, what
//! the user asked, the steps taken (the last one the answer) and, for a run that ended without an
//! answer step, how it ended. A follow-up ("and in Oslo?") is read against it.

use crate::store::conversation::by_run;
use crate::store::{RunRecord, RunStatus, TurnRecord};

use super::{Outcome, Turn};

/// The account of a run that was cut off (a reload, a crash) and never ended.
const CUT_OFF: &str = "The run was cut off before it finished.";

/// One line of the session's memory, as the prompt shows it (oldest first).
#[derive(Debug, Clone, PartialEq)]
pub enum Remembered {
    /// What the user asked in an earlier run.
    Asked(String),
    /// A step of an earlier run: a call and what it observed, or the run's final answer.
    Step(Turn),
    /// How an earlier run that has no answer step ended: cancelled, stopped on a fatal failure,
    /// or cut off.
    Ended(String),
}

impl Remembered {
    /// The step, for a line that is one.
    pub fn step(&self) -> Option<&Turn> {
        match self {
            Remembered::Step(turn) => Some(turn),
            _ => None,
        }
    }

    /// The session's memory from its runs and turns as the store gave them, leaving out the run
    /// `except` (the one being resumed).
    pub fn of_session(runs: Vec<RunRecord>, turns: Vec<TurnRecord>, except: Option<&str>) -> Vec<Remembered> {
        let mut memory = Vec::new();
        for (run, turns) in by_run(runs, turns) {
            match run {
                Some(run) if Some(run.id.as_str()) == except => {}
                Some(run) => memory.extend(Remembered::of_run(&run, turns)),
                // Turns whose run record is gone: their steps alone.
                None => memory.extend(turns.into_iter().map(Remembered::Step)),
            }
        }
        memory
    }

    /// One earlier run's lines: what was asked, its steps (`turns`, in step order) and, if none
    /// of them answered, how it ended.
    pub fn of_run(run: &RunRecord, turns: Vec<Turn>) -> Vec<Remembered> {
        let mut lines = Vec::with_capacity(turns.len() + 2);
        lines.push(Remembered::Asked(run.task.clone()));
        let answered = turns.iter().any(|t| t.outcome == Outcome::Final);
        lines.extend(turns.into_iter().map(Remembered::Step));
        if !answered {
            let cut_off = matches!(run.status, RunStatus::Running | RunStatus::Interrupted);
            let account = run.answer.clone().filter(|_| !cut_off).unwrap_or_else(|| CUT_OFF.to_string());
            lines.push(Remembered::Ended(account));
        }
        lines
    }
}

/// The steps in a session's memory, oldest first.
pub(crate) fn steps(memory: &[Remembered]) -> impl DoubleEndedIterator<Item = &Turn> {
    memory.iter().filter_map(Remembered::step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Action;
    use crate::store::fixtures;

    fn run(id: &str, started_ms: u64, status: RunStatus, answer: Option<&str>) -> RunRecord {
        RunRecord {
            task: format!("ask {id}"),
            answer: answer.map(str::to_string),
            ..fixtures::run(id, "s", started_ms, status)
        }
    }

    fn turn(run_id: &str, turn: Turn) -> TurnRecord {
        TurnRecord {
            run_id: run_id.into(),
            session: "s".into(),
            at_ms: 0,
            turn,
            counts: None,
            idempotency_key: None,
        }
    }

    fn call(step: u32) -> Turn {
        let action = Some(Action { tool: "t".into(), args: serde_json::json!({}) });
        Turn {
            step,
            thought: String::new(),
            action,
            observation: "ok".into(),
            outcome: Outcome::Ok,
            reply: None,
        }
    }

    #[test]
    fn each_run_is_its_task_then_its_steps_then_how_it_ended_without_an_answer() {
        let runs = vec![
            run("c", 3, RunStatus::Running, None),
            run("a", 1, RunStatus::Succeeded, Some("A")),
            run("b", 2, RunStatus::Cancelled, Some("The run was cancelled before it finished.")),
            run("now", 4, RunStatus::Running, None),
        ];
        let answer = Turn::final_answer(2, String::new(), "A".into());
        let turns =
            vec![turn("a", call(1)), turn("b", call(1)), turn("a", answer.clone()), turn("now", call(1))];
        let memory = Remembered::of_session(runs, turns, Some("now"));
        assert_eq!(
            memory,
            [
                Remembered::Asked("ask a".into()),
                Remembered::Step(call(1)),
                Remembered::Step(answer.clone()),
                Remembered::Asked("ask b".into()),
                Remembered::Step(call(1)),
                Remembered::Ended("The run was cancelled before it finished.".into()),
                Remembered::Asked("ask c".into()),
                Remembered::Ended(CUT_OFF.into()),
            ]
        );
        assert_eq!(steps(&memory).count(), 3);
    }
}
