//! The texts the checks read (what the run has seen, what worked, what an answer can be about),
//! each made of what the user asked, then every step's part — the session's remembered steps
//! first, then this run's. The memory a prompt of a run can show is fixed once the run has read
//! its session (`run.rs`, `remember`), so its part of each text is made once a run, when a check
//! first reads it, not at every check: a check costs the run's own steps, not the window.

use std::cell::OnceCell;

use super::memory::steps;
use super::{Outcome, Remembered, Turn};

/// What a text takes of each step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Every observation, a failed call's less the values it sent; with `args`, the arguments of
    /// the calls that worked too (`seen.rs`, `seen_text`).
    Seen {
        /// Whether the arguments of the calls that worked are read.
        args: bool,
    },
    /// The arguments and results of the calls that worked (`worked_text`).
    Worked,
    /// Every call's arguments, and the results of those that worked (`results_text`).
    Results,
}

impl Reading {
    fn slot(self) -> usize {
        match self {
            Reading::Seen { args: false } => 0,
            Reading::Seen { args: true } => 1,
            Reading::Worked => 2,
            Reading::Results => 3,
        }
    }

    /// Adds what this reading takes of `turn` to `text`.
    pub(crate) fn add(self, text: &mut String, turn: &Turn) {
        let Some(action) = &turn.action else {
            // A final answer, or a reply refused with its envelope (which quotes the reply): the
            // model's own text, not a source.
            return;
        };
        let worked = matches!(turn.outcome, Outcome::Ok | Outcome::Warning);
        match self {
            Reading::Seen { args } => {
                text.push('\n');
                if worked {
                    text.push_str(&turn.observation.to_lowercase());
                } else {
                    text.push_str(&without_sent(&turn.observation, &action.args));
                }
                if args && worked {
                    text.push('\n');
                    text.push_str(&action.args.to_string().to_lowercase());
                }
            }
            Reading::Worked if worked => {
                text.push('\n');
                text.push_str(&action.args.to_string().to_lowercase());
                text.push('\n');
                text.push_str(&turn.observation.to_lowercase());
            }
            Reading::Worked => {}
            Reading::Results => {
                text.push('\n');
                text.push_str(&action.args.to_string().to_lowercase());
                if worked {
                    text.push('\n');
                    text.push_str(&turn.observation.to_lowercase());
                }
            }
        }
    }
}

/// The parts of the texts a run's shown memory gives, each made when first read.
#[derive(Debug, Default)]
pub(crate) struct MemoryText {
    /// The earlier tasks, lowercased, each after a newline.
    asked: OnceCell<String>,
    /// The steps' part, per [`Reading`].
    steps: [OnceCell<String>; 4],
}

impl MemoryText {
    /// What the user asked in the earlier runs of `memory`, lowercased, each after a newline.
    pub(crate) fn asked(&self, memory: &[Remembered]) -> &str {
        self.asked.get_or_init(|| {
            let mut text = String::new();
            for asked in memory.iter().filter_map(|m| match m {
                Remembered::Asked(task) => Some(task),
                _ => None,
            }) {
                text.push('\n');
                text.push_str(&asked.to_lowercase());
            }
            text
        })
    }

    /// What `reading` takes of the steps of `memory`.
    pub(crate) fn steps(&self, memory: &[Remembered], reading: Reading) -> &str {
        self.steps[reading.slot()].get_or_init(|| {
            let mut text = String::new();
            for turn in steps(memory) {
                reading.add(&mut text, turn);
            }
            text
        })
    }
}

/// `observation` lowercased, with each string value of `args` (its message quotes them) blanked.
fn without_sent(observation: &str, args: &serde_json::Value) -> String {
    let mut text = observation.to_lowercase();
    if let serde_json::Value::Object(args) = args {
        for value in args.values().filter_map(serde_json::Value::as_str) {
            let value = value.trim().to_lowercase();
            if value.chars().count() >= 2 {
                text = text.replace(&value, " ");
            }
        }
    }
    text
}
