//! What the checks read of each line of a session's memory, kept by the agent across the
//! session's runs: each run shows the newest lines of its session (`recall.rs`), nearly all of
//! them lines the run before it showed, and reading them again at each run made a run's last step
//! (the answer's checks) cost the whole window. A line's parts are made the first time a check
//! reads them; when a run ends, the lines it showed and their parts are kept (moved, not copied:
//! the run is done with them), and the session's next run takes the parts of each line it shows
//! that is equal to a kept one, and makes the others'. Only equal lines share parts, so a session
//! whose memory changed (a run resumed, records deleted, another tab's runs) reads what it shows,
//! never what it showed before.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use super::memory_text::Reading;
use super::misread::UnitFacts;
use super::Remembered;

/// The sessions whose lines are kept: the agent's most recently ended runs'.
const SESSIONS: usize = 8;

/// How far past the last line matched a line is looked for among the kept ones: lines dropped
/// from the window's start, or changed, are skipped up to this many.
const LOOKAHEAD: usize = 64;

/// The slot of [`LineParts::texts`] holding what the user asked.
const ASKED: usize = 4;

/// One memory line's parts of the checks' texts, each made when first read.
#[derive(Debug, Default)]
pub(crate) struct LineParts {
    /// The text of each [`Reading`] of a step; what the user asked at slot [`ASKED`].
    texts: [OnceCell<String>; 5],
    facts: OnceCell<UnitFacts>,
}

impl LineParts {
    /// What the user asked on `line` (these parts' line), lowercased after a newline; empty for
    /// other lines.
    pub(crate) fn asked(&self, line: &Remembered) -> &str {
        match line {
            Remembered::Asked(task) => self.texts[ASKED].get_or_init(|| format!("\n{}", task.to_lowercase())),
            _ => "",
        }
    }

    /// What `reading` takes of `line`'s step; empty for other lines.
    pub(crate) fn step(&self, line: &Remembered, reading: Reading) -> &str {
        match line {
            Remembered::Step(turn) => self.texts[reading.slot()].get_or_init(|| {
                let mut text = String::new();
                reading.add(&mut text, turn);
                text
            }),
            _ => "",
        }
    }

    /// The units and numbers of `line`'s part of the text of all the run has seen
    /// (`RunState::seen_text(true)`): its task, or its step's observation and arguments.
    pub(crate) fn seen_facts(&self, line: &Remembered) -> &UnitFacts {
        self.facts.get_or_init(|| match line {
            Remembered::Asked(_) => UnitFacts::of(self.asked(line)),
            Remembered::Step(_) => UnitFacts::of(self.step(line, Reading::Seen { args: true })),
            Remembered::Ended(_) => UnitFacts::default(),
        })
    }
}

/// The lines a session's last ended run showed, with their parts.
#[derive(Debug)]
struct Kept {
    session: String,
    lines: Vec<Remembered>,
    parts: Vec<Rc<LineParts>>,
}

/// The lines each session's last ended run showed, and their parts; the most recent last.
#[derive(Debug, Default)]
pub(crate) struct KeptParts {
    sessions: RefCell<Vec<Kept>>,
}

impl KeptParts {
    /// The parts of `shown` (the lines a run of `session` shows, oldest first): those of the lines
    /// equal to lines `session`'s last ended run showed, in order, are that run's; the rest are
    /// new. The kept lines are let go: the run gives its own back when it ends ([`Self::keep`]).
    pub(crate) fn parts(&self, session: &str, shown: &[Remembered]) -> Vec<Rc<LineParts>> {
        let kept = {
            let mut sessions = self.sessions.borrow_mut();
            sessions.iter().position(|k| k.session == session).map(|at| sessions.remove(at))
        };
        match kept {
            Some(kept) => align(&kept.lines, &kept.parts, shown),
            None => shown.iter().map(|_| Rc::default()).collect(),
        }
    }

    /// Keeps `lines`, the lines an ended run of `session` showed, with their `parts`, for the
    /// session's next run.
    pub(crate) fn keep(&self, session: &str, lines: Vec<Remembered>, parts: Vec<Rc<LineParts>>) {
        let mut sessions = self.sessions.borrow_mut();
        sessions.retain(|k| k.session != session);
        if sessions.len() == SESSIONS {
            sessions.remove(0);
        }
        sessions.push(Kept { session: session.to_string(), lines, parts });
    }
}

/// The parts of `shown`, taken from `parts` (those of `kept`) where a line is equal, in order:
/// the first line is looked for among all of `kept` (the window's start moves by the lines it
/// dropped), each next one from the line after the last found, up to [`LOOKAHEAD`] lines on.
fn align(kept: &[Remembered], parts: &[Rc<LineParts>], shown: &[Remembered]) -> Vec<Rc<LineParts>> {
    let mut from = 0;
    let mut ahead = kept.len();
    shown
        .iter()
        .map(|line| {
            let window = &kept[from..kept.len().min(from + ahead)];
            ahead = LOOKAHEAD;
            match window.iter().position(|k| k == line) {
                Some(at) => {
                    from += at + 1;
                    parts[from - 1].clone()
                }
                None => Rc::default(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Action, Outcome, Turn};

    fn call(step: u32, id: u32) -> Remembered {
        Remembered::Step(Turn {
            step,
            thought: String::new(),
            action: Some(Action { tool: "lookup".into(), args: serde_json::json!({ "id": id }) }),
            observation: format!("Item {id}: 25 days"),
            outcome: Outcome::Ok,
            reply: None,
        })
    }

    fn run(task: &str, ids: &[u32]) -> Vec<Remembered> {
        let mut lines = vec![Remembered::Asked(task.into())];
        lines.extend(ids.iter().enumerate().map(|(i, id)| call(i as u32 + 1, *id)));
        lines
    }

    /// A run of `session` showing `shown`: its parts, each line's `Worked` text read, then kept.
    fn shown_by_a_run(kept: &KeptParts, session: &str, shown: Vec<Remembered>) -> Vec<Rc<LineParts>> {
        let parts = kept.parts(session, &shown);
        for (part, line) in parts.iter().zip(&shown) {
            part.step(line, Reading::Worked);
        }
        kept.keep(session, shown, parts.clone());
        parts
    }

    fn same(a: &Rc<LineParts>, b: &Rc<LineParts>) -> bool {
        Rc::ptr_eq(a, b)
    }

    #[test]
    fn a_sliding_window_keeps_the_parts_of_the_lines_it_still_shows() {
        let kept = KeptParts::default();
        let first: Vec<Remembered> = [run("a", &[1, 2]), run("b", &[3])].concat();
        let before = shown_by_a_run(&kept, "s", first.clone());
        assert_eq!(before[1].step(&first[1], Reading::Worked), "\n{\"id\":1}\nitem 1: 25 days");
        // The window dropped run a and gained run c.
        let second: Vec<Remembered> = [run("b", &[3]), run("c", &[4])].concat();
        let after = shown_by_a_run(&kept, "s", second.clone());
        assert!(same(&after[0], &before[3]) && same(&after[1], &before[4]), "run b's lines are kept");
        assert!(after[2..].iter().all(|p| !before.iter().any(|b| same(p, b))), "run c's are new");
        assert_eq!(after[3].step(&second[3], Reading::Worked), "\n{\"id\":4}\nitem 4: 25 days");
    }

    #[test]
    fn a_changed_line_or_another_session_gets_parts_of_its_own() {
        let kept = KeptParts::default();
        let before = shown_by_a_run(&kept, "s", run("a", &[1, 2]));
        // Run a's step 1 was rewritten (its record changed between runs): its part is its own.
        let changed = vec![Remembered::Asked("a".into()), call(1, 9), call(2, 2)];
        let after = shown_by_a_run(&kept, "s", changed.clone());
        assert!(same(&after[0], &before[0]) && same(&after[2], &before[2]));
        assert!(!same(&after[1], &before[1]));
        assert_eq!(after[1].step(&changed[1], Reading::Results), "\n{\"id\":9}\nitem 9: 25 days");
        // Another session's equal lines are not this one's.
        let other = shown_by_a_run(&kept, "t", run("a", &[1, 2]));
        assert!(other.iter().zip(&after).all(|(o, a)| !same(o, a)));
    }

    #[test]
    fn only_the_newest_sessions_are_kept_and_a_run_that_never_ended_keeps_nothing() {
        let kept = KeptParts::default();
        let first = shown_by_a_run(&kept, "s0", run("a", &[1]));
        for s in 1..=SESSIONS {
            shown_by_a_run(&kept, &format!("s{s}"), run("a", &[1]));
        }
        assert!(!same(&kept.parts("s0", &run("a", &[1]))[0], &first[0]), "s0 was dropped");
        // s1's lines were taken by a run that did not end: the next run makes its own.
        let s1 = kept.parts("s1", &run("a", &[1]));
        assert!(!same(&kept.parts("s1", &run("a", &[1]))[0], &s1[0]));
    }
}
