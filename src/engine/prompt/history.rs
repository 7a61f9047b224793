//! The history's rendered pieces, kept from one step to the next so a step renders only what is
//! new: each earlier step of the run is rendered and counted once, when it stops being the newest;
//! the session's memory (its earlier tasks, steps and answers) once per run, newest first and only
//! as far back as could ever fit.
//!
//! What can never fit is not rendered at all. A memory line is shown only if it and every newer
//! line fit at their shortest; a step of this run only if it and every newer step but the last do.
//! So once the shortest forms of the newer ones exceed the budget, the older ones are known to be
//! dropped (memory) or counted in the "omitted" marker (steps) in whatever prompt fits, and
//! [`super::compact`] treats them as present-but-too-big until then, which gives the very plans a
//! full rendering would: the prompt is byte-identical, and a step costs what the budget holds, not
//! what the history holds.

use super::build::{assemble_fitted, ContextError, PromptInput};
use super::system_prompt::system_message;
use super::transcript::{one_line, replayed_thought, reply_to, step_text, summary_line};
use super::{
    Message, Outcome, PastSteps, Remembered, TokenCounter, Turn, MESSAGE_OVERHEAD_TOKENS as OVERHEAD,
};
use crate::text::cut_middle_keeping;
use crate::tools::ToolSpec;

/// A rendered piece of the prompt and its token count.
pub(super) type Piece = (String, usize);

/// Characters of observation in a memory line before it is summarised.
const MEMORY_OBSERVATION_CHARS: usize = 200;
/// Characters of an earlier task or answer in a memory line, in full and summarised: what the
/// user asked and was told is what a follow-up is read against, so it keeps more than a step.
const CONVERSATION_CHARS: [usize; 2] = [600, 160];
/// Characters of observation in a summary line.
pub(super) const SUMMARY_OBSERVATION_CHARS: usize = 60;
/// Characters of an older observation kept once it is cut: enough for a result's gist or a
/// failure's code, message and first recovery steps.
const OLD_OBSERVATION_CHARS: usize = 300;

/// A step of this run that is not the newest, in every form the prompt may show it.
pub(super) struct Earlier {
    /// Its step number: a check that the cache still describes the same history.
    number: u32,
    /// The assistant message (or log line) and its cost with the message overhead.
    pub(super) step: Piece,
    /// The user message after it (or the observation under the log line) and its cost with the overhead.
    pub(super) reply: Piece,
    /// Its observation cut to head and tail, with its cost, when that is cheaper than `reply`.
    pub(super) cut: Option<Piece>,
    /// Its summary line (starting with its newline) and that line's cost.
    pub(super) summary: Piece,
}

/// The newest step: its reply depends on being the last, and it may still change (an observation
/// withheld after a safety block), so it is rendered for each prompt.
pub(super) struct Latest {
    /// The assistant message and its cost with the overhead.
    pub(super) step: Piece,
    /// The user message after it, if any, and its cost (see [`super::compact::Layout`]).
    pub(super) reply: Option<Piece>,
    /// Its summary line.
    pub(super) summary: Piece,
    /// The thought it is replayed with (empty where it is withheld), for a cut of the step.
    pub(super) thought: String,
}

/// Memory lines that could fit, oldest first, in full and summarised.
pub(crate) struct MemoryLines {
    /// How many memory turns and which budget they were rendered for.
    key: Option<(usize, usize)>,
    pub(super) lines: Vec<[Piece; 2]>,
    /// Whether older lines were left out as too big to ever fit.
    pub(super) pruned: bool,
}

/// [`MemoryLines`] built from the newest line back, as a run's start reads its session
/// (`engine::recall`): it knows when older lines can no longer be shown.
pub(crate) struct NewestFirst {
    budget: usize,
    /// The lines kept so far, newest first.
    lines: Vec<[Piece; 2]>,
    /// Their shortest forms' tokens, added up.
    least: usize,
    pruned: bool,
}

/// The rendered history of one run, reused from one prompt to the next.
///
/// One value serves one run with one token counter: its memory does not change, and its turns
/// only grow, the newest alone changing in place. [`super::build_messages`] uses a fresh one, and
/// for the same input the two give the same messages.
pub struct Transcript {
    memory: MemoryLines,
    earlier: Vec<Earlier>,
    /// The form `earlier` is rendered in.
    form: PastSteps,
    /// The system message last rendered, with the tools and instructions it was rendered from:
    /// the same for every step of a run unless the tools offered change.
    system: Option<System>,
}

/// A rendered system message and what it was rendered from.
struct System {
    tools: Vec<ToolSpec>,
    instructions: Option<String>,
    text: String,
}

impl Default for Transcript {
    fn default() -> Self {
        Transcript {
            memory: MemoryLines { key: None, lines: Vec::new(), pruned: false },
            earlier: Vec::new(),
            form: PastSteps::default(),
            system: None,
        }
    }
}

impl Transcript {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// [`super::build_messages`] for `input`, rendering only the turns not rendered before.
    pub fn build(
        &mut self,
        input: &PromptInput,
        counter: &dyn TokenCounter,
        budget_tokens: usize,
    ) -> Result<Vec<Message>, ContextError> {
        self.sync_memory(input.memory, counter, budget_tokens);
        let earlier = input.turns.len().saturating_sub(1);
        let stale = self.earlier.len() > earlier
            || self.form != input.past_steps
            || self.earlier.last().is_some_and(|e| e.number != input.turns[self.earlier.len() - 1].step);
        if stale {
            self.earlier.clear();
            self.form = input.past_steps;
        }
        for turn in &input.turns[self.earlier.len()..earlier] {
            self.earlier.push(Earlier::render(
                turn,
                replayed_thought(turn, input.withheld_thoughts),
                input.past_steps,
                counter,
            ));
        }
        let base = first_shown(&self.earlier, budget_tokens);
        let latest = input.turns.last().map(|t| {
            Latest::render(t, replayed_thought(t, input.withheld_thoughts), input.past_steps, counter)
        });
        let system = self.system_message(input.tools, input.instructions);
        assemble_fitted(input, counter, budget_tokens, system, &self.memory, &self.earlier, latest, base)
    }

    /// The system message for `tools` and `instructions`, rendered again only when they differ
    /// from the last prompt's (comparing them costs a fraction of rendering the tools' schemas).
    fn system_message(&mut self, tools: &[ToolSpec], instructions: Option<&str>) -> String {
        match &self.system {
            Some(last) if last.tools == tools && last.instructions.as_deref() == instructions => {
                last.text.clone()
            }
            _ => {
                let text = system_message(tools, instructions);
                self.system = Some(System {
                    tools: tools.to_vec(),
                    instructions: instructions.map(str::to_string),
                    text: text.clone(),
                });
                text
            }
        }
    }

    /// The memory's lines as a run's start rendered them for its budget: the first prompt does
    /// not render them again.
    pub(crate) fn seed_memory(&mut self, lines: MemoryLines) {
        self.memory = lines;
    }

    fn sync_memory(&mut self, memory: &[Remembered], counter: &dyn TokenCounter, budget: usize) {
        let fresh = match self.memory.key {
            Some((len, rendered_for)) => len == memory.len() && budget <= rendered_for,
            None => false,
        };
        if !fresh {
            self.memory = MemoryLines::render(memory, counter, budget);
        }
    }
}

impl NewestFirst {
    /// No lines yet, for a prompt of `budget` tokens.
    pub(crate) fn new(budget: usize) -> NewestFirst {
        NewestFirst { budget, lines: Vec::new(), least: 0, pruned: false }
    }

    /// Takes the line before those taken so far, rendered, if it and every newer line fit the
    /// budget at their shortest; once one does not, it and every older line are left out.
    pub(crate) fn push_older(&mut self, line: &Remembered, counter: &dyn TokenCounter) {
        if self.pruned {
            return;
        }
        let forms = memory_forms(line).map(|text| piece(text, counter));
        self.least = self.least.saturating_add(forms[0].1.min(forms[1].1));
        if self.least > self.budget {
            self.pruned = true;
        } else {
            self.lines.push(forms);
        }
    }

    /// Whether a line was left out: older lines could not be shown either.
    pub(crate) fn full(&self) -> bool {
        self.pruned
    }

    /// The tokens the lines taken take at their shortest.
    pub(crate) fn least(&self) -> usize {
        self.least
    }

    /// The lines taken, oldest first, for a memory of `len` lines.
    pub(crate) fn finish(mut self, len: usize) -> MemoryLines {
        self.lines.reverse();
        MemoryLines { key: Some((len, self.budget)), lines: self.lines, pruned: self.pruned }
    }
}

impl MemoryLines {
    /// The newest lines whose shortest forms together fit `budget`, oldest first.
    pub(crate) fn render(memory: &[Remembered], counter: &dyn TokenCounter, budget: usize) -> MemoryLines {
        let mut lines = NewestFirst::new(budget);
        for line in memory.iter().rev() {
            lines.push_older(line, counter);
            if lines.full() {
                break;
            }
        }
        lines.finish(memory.len())
    }

    /// How many lines can be shown: the memory's newest, the older ones never.
    pub(crate) fn shown(&self) -> usize {
        self.lines.len()
    }
}

impl Earlier {
    /// `turn` rendered in `form` with `thought` (its own, or empty where it is withheld).
    pub(super) fn render(turn: &Turn, thought: &str, form: PastSteps, counter: &dyn TokenCounter) -> Earlier {
        let (step, cost) = piece(step_text(turn, thought, form), counter);
        let (reply, reply_cost) = piece(reply_to(turn, false).unwrap_or_default(), counter);
        let reply = (reply, reply_cost + OVERHEAD);
        let cut = (turn.outcome != Outcome::Final)
            .then(|| {
                let cut = cut_middle_keeping(&turn.observation, OLD_OBSERVATION_CHARS);
                let (text, cost) = piece(format!("{}{cut}", super::transcript::OBSERVATION_PREFIX), counter);
                (text, cost + OVERHEAD)
            })
            .filter(|(_, cost)| *cost < reply.1);
        Earlier {
            number: turn.step,
            step: (step, cost + OVERHEAD),
            reply,
            cut,
            summary: summary_piece(turn, counter),
        }
    }
}

impl Latest {
    /// `turn` rendered in `form` with `thought` (its own, or empty where it is withheld).
    pub(super) fn render(turn: &Turn, thought: &str, form: PastSteps, counter: &dyn TokenCounter) -> Latest {
        let (step, cost) = piece(step_text(turn, thought, form), counter);
        let reply = reply_to(turn, true).map(|reply| {
            let (text, cost) = piece(reply, counter);
            (text, cost + OVERHEAD)
        });
        Latest {
            step: (step, cost + OVERHEAD),
            reply,
            summary: summary_piece(turn, counter),
            thought: thought.to_string(),
        }
    }
}

/// A memory line in full and summarised, each starting with its newline.
fn memory_forms(line: &Remembered) -> [String; 2] {
    match line {
        Remembered::Asked(task) => {
            CONVERSATION_CHARS.map(|n| format!("\n- User asked: {}", one_line(task, n)))
        }
        Remembered::Step(turn) if turn.outcome == Outcome::Final => {
            CONVERSATION_CHARS.map(|n| format!("\n- You answered: {}", one_line(&turn.observation, n)))
        }
        Remembered::Step(turn) => [MEMORY_OBSERVATION_CHARS, SUMMARY_OBSERVATION_CHARS]
            .map(|n| format!("\n- {}", summary_line(turn, n))),
        Remembered::Ended(account) => [MEMORY_OBSERVATION_CHARS, SUMMARY_OBSERVATION_CHARS]
            .map(|n| format!("\n- The run ended without an answer: {}", one_line(account, n))),
    }
}

fn piece(text: String, counter: &dyn TokenCounter) -> Piece {
    let cost = counter.count(&text);
    (text, cost)
}

fn summary_piece(turn: &Turn, counter: &dyn TokenCounter) -> Piece {
    piece(format!("\n{}. {}", turn.step, summary_line(turn, SUMMARY_OBSERVATION_CHARS)), counter)
}

/// The index of the oldest earlier step that could be shown: it and every newer earlier step fit
/// `budget` at their shortest (summary line, or message without its reply).
pub(super) fn first_shown(earlier: &[Earlier], budget: usize) -> usize {
    let mut least = 0usize;
    for (i, e) in earlier.iter().enumerate().rev() {
        least = least.saturating_add(e.summary.1.min(e.step.1));
        if least > budget {
            return i + 1;
        }
    }
    0
}
