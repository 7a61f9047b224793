//! The texts the checks read (what the run has seen, what worked, what an answer can be about),
//! each made of what the user asked, then every step's part — the session's remembered steps
//! first, then this run's. The memory a prompt of a run can show is fixed once the run has read
//! its session (`run.rs`, `remember`), so its part of each text is joined once a run, when a check
//! first reads it, not at every check, from the parts of its lines, which are made once a session
//! (`memory_parts.rs`): a check costs the run's own steps, not the window.

use std::cell::OnceCell;
use std::rc::Rc;

use super::memory_parts::LineParts;
use super::misread::UnitFacts;
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
    pub(crate) fn slot(self) -> usize {
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

/// The parts of the texts a run's shown memory gives, each joined when first read from its lines'
/// parts, which the agent keeps across the session's runs (`memory_parts.rs`).
#[derive(Debug, Default)]
pub(crate) struct MemoryText {
    /// The parts of the lines the run shows, oldest first.
    parts: Vec<Rc<LineParts>>,
    /// The earlier tasks, lowercased, each after a newline.
    asked: OnceCell<String>,
    /// The steps' part, per [`Reading`].
    steps: [OnceCell<String>; 4],
}

impl MemoryText {
    /// The texts of the shown lines whose parts are `parts`.
    pub(crate) fn new(parts: Vec<Rc<LineParts>>) -> MemoryText {
        MemoryText { parts, ..MemoryText::default() }
    }

    /// The parts of the lines, for the session's next run (`memory_parts.rs`).
    pub(crate) fn into_parts(self) -> Vec<Rc<LineParts>> {
        self.parts
    }

    /// What the user asked in the earlier runs shown (`shown`, the lines of these parts),
    /// lowercased, each after a newline.
    pub(crate) fn asked(&self, shown: &[Remembered]) -> &str {
        self.asked.get_or_init(|| self.parts.iter().zip(shown).map(|(p, line)| p.asked(line)).collect())
    }

    /// What `reading` takes of the steps shown (`shown`, the lines of these parts).
    pub(crate) fn steps(&self, shown: &[Remembered], reading: Reading) -> &str {
        self.steps[reading.slot()]
            .get_or_init(|| self.parts.iter().zip(shown).map(|(p, line)| p.step(line, reading)).collect())
    }

    /// The units and numbers of each part of [`Self::asked`], then of [`Self::steps`] read as
    /// `Seen { args: true }`, in order (`misread.rs`).
    pub(crate) fn seen_facts<'a>(&'a self, shown: &'a [Remembered]) -> impl Iterator<Item = &'a UnitFacts> {
        let lines = || self.parts.iter().zip(shown);
        let asked = lines().filter(|(_, line)| matches!(line, Remembered::Asked(_)));
        let steps = lines().filter(|(_, line)| matches!(line, Remembered::Step(_)));
        asked.chain(steps).map(|(p, line)| p.seen_facts(line))
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
