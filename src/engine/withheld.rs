//! Thoughts the prompt does not replay. A small model copies its earlier thoughts into later steps
//! word for word (Qwen2.5-Coder-0.5B repeated its step-1 thought at every step of every recovery
//! bench run at b9eb4d8), so a value it invented in a thought before any tool ran — "I have 10
//! vacation days left" ahead of the tool's 13.5, "23 degrees in München" before the city was found
//! — is carried forward until it becomes the final answer. A committed thought that states values
//! (numbers, amounts, ids, e-mail addresses) found nowhere the run has seen is replayed empty; the
//! turn itself, its events and the store keep it as written. `replayThoughts` chooses: `"none"`
//! (every earlier thought empty, the default: it also stops the copied call that followed the
//! copied thought), `"grounded"` (only those that invent values) or `"all"`.

use super::run::RunState;
use super::{ThoughtReplay, Turn};

impl RunState<'_> {
    /// Whether later prompts replay `turn`'s thought empty: under `"grounded"`, when it states
    /// values nothing the run has seen supports (the task, the session's and this run's
    /// observations and arguments, so far).
    pub(crate) fn thought_withheld(&self, turn: &Turn) -> bool {
        let stated = |c: char| c.is_ascii_digit() || c == '@';
        match self.agent.config.replay_thoughts {
            ThoughtReplay::All => false,
            ThoughtReplay::None => !turn.thought.is_empty(),
            ThoughtReplay::Grounded => {
                turn.thought.chars().any(stated) && !self.ungrounded_here(&turn.thought).is_empty()
            }
        }
    }

    /// Withholds the newest turn's thought from later prompts if `replayThoughts` says so; called once the
    /// turn is in `turns`, so its own observation counts as seen.
    pub(crate) fn withhold_thought(&mut self) {
        let Some(turn) = self.turns.last() else { return };
        if self.thought_withheld(turn) {
            let step = turn.step;
            if self.withheld_thoughts.last().is_none_or(|&last| last < step) {
                self.withheld_thoughts.push(step);
            }
        }
    }

    /// The withheld thoughts of a resumed run's committed turns, judged against all they saw.
    pub(crate) fn withhold_resumed_thoughts(&mut self) {
        self.withheld_thoughts =
            self.turns.iter().filter(|turn| self.thought_withheld(turn)).map(|turn| turn.step).collect();
    }
}
