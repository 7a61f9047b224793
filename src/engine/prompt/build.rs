//! The prompt for one step of the loop: what goes in, and the messages that come out, fitted to
//! the model's context budget.

use thiserror::Error;

use super::compact::{Fixed, Layout};
use super::history::{Earlier, Latest, MemoryLines, Transcript};
use super::transcript::{final_only_text, next_step_text};
use super::{estimate, Message, Outcome, PastSteps, Remembered, TokenCounter, Turn};
use crate::tools::ToolSpec;

/// Everything one prompt is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptInput<'a> {
    /// The tools the model may call, in the order to list them.
    pub tools: &'a [ToolSpec],
    /// The user's task, shown verbatim.
    pub task: &'a str,
    /// The session's earlier runs, oldest first: what was asked, the steps, the answers
    /// ([`Remembered::of_session`]).
    pub memory: &'a [Remembered],
    /// Turns of this run so far, oldest first.
    pub turns: &'a [Turn],
    /// Steps of this run whose thought is replayed empty, sorted (`replayThoughts`, see
    /// `engine/withheld.rs`): a small model copies earlier thoughts forward.
    pub withheld_thoughts: &'a [u32],
    /// `Some(reason)` on the forced last call once a budget ran out: only a final answer is allowed.
    pub final_only: Option<&'a str>,
    /// The page author's extra system instructions.
    pub instructions: Option<&'a str>,
    /// How the run's earlier steps are shown (`pastSteps`).
    pub past_steps: PastSteps,
}

/// Why no prompt fits the budget.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ContextError {
    /// The parts that are never shrunk (instructions, tools, task) exceed the budget on their own.
    #[error(
        "the instructions, tool list and task alone need about {needed} tokens but the context budget is \
         {budget}: pass fewer tools or shorter descriptions and schemas, shorten the task or instructions, \
         or use a model with a larger context window"
    )]
    FixedPartTooLarge {
        /// Tokens the fixed part needs, as estimated.
        needed: usize,
        /// Tokens available.
        budget: usize,
    },
}

/// The text closing the last user message: the forced-final instruction, else, once there is an
/// observation to act on, the task and the next move.
fn closing_text(input: &PromptInput) -> Option<String> {
    match input.final_only {
        Some(reason) => Some(final_only_text(reason)),
        None => match input.turns.last() {
            Some(turn) if turn.outcome != Outcome::Final => Some(next_step_text(input.task)),
            _ => None,
        },
    }
}

/// How many times to re-fit with a tighter target when the assembled prompt counts more than its
/// pieces did (a counter whose count of a concatenation exceeds the sum of the parts' counts).
const REFITS: usize = 4;

/// Builds the messages for one model call: one system message (role, rules, tools, reply format),
/// a user message with the memory (the session's earlier tasks, steps and answers, in order), the
/// task and summarised steps, then each kept step as an
/// assistant message (its JSON) and a user message (its observation); on a forced final call,
/// the instruction to answer now closes the last user message; on any other step after the first,
/// a reminder of the task and of the next move does.
///
/// `budget_tokens` is the room for the prompt: the context window minus what the reply needs.
/// History is shrunk until the [`estimate`] of the result is within it, least useful first: older
/// observations cut to head and tail, memory summarised then dropped, a huge newest observation
/// capped at half the room left, older steps summarised to one line each, the oldest summaries
/// dropped, and only then the newest step cut further. The system
/// message, tools, task and forced-final text are never shrunk; if they alone exceed the budget
/// this fails with [`ContextError::FixedPartTooLarge`].
pub fn build_messages(
    input: &PromptInput,
    counter: &dyn TokenCounter,
    budget_tokens: usize,
) -> Result<Vec<Message>, ContextError> {
    Transcript::new().build(input, counter, budget_tokens)
}

/// [`build_messages`] from the history as [`Transcript`] rendered it, with `system`, the system
/// message of `input`'s tools and instructions.
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble_fitted(
    input: &PromptInput,
    counter: &dyn TokenCounter,
    budget_tokens: usize,
    system: String,
    memory: &MemoryLines,
    earlier: &[Earlier],
    latest: Option<Latest>,
    base: usize,
) -> Result<Vec<Message>, ContextError> {
    let fixed = Fixed {
        system,
        task: format!("Task: {}", input.task),
        closing: closing_text(input),
        past_steps: input.past_steps,
    };
    let layout = Layout::new(counter, fixed, memory, input.turns, earlier, latest, base);
    let minimal = layout.assemble(&layout.minimal_plan());
    let needed = estimate(&minimal, counter);
    if needed > budget_tokens {
        return Err(ContextError::FixedPartTooLarge { needed, budget: budget_tokens });
    }
    let mut target = budget_tokens;
    for _ in 0..REFITS {
        let (plan, _piecewise) = layout.fit(target);
        let messages = layout.assemble(&plan);
        // The piecewise count can fall a token short of the whole (found by prop_compact: 641
        // tokens for a budget of 640 with the default estimate), so the whole is always counted:
        // it is bounded by the budget, not by the history.
        let used = estimate(&messages, counter);
        if used <= budget_tokens {
            return Ok(messages);
        }
        target = target.saturating_sub(used - budget_tokens);
    }
    Ok(minimal)
}
