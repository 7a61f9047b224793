//! Fitting the prompt to the token budget by shrinking history, least useful first:
//!
//! 1. observations of older steps are cut to their head and tail, oldest first;
//! 2. memory (earlier runs) is summarised to short lines, then dropped, oldest first;
//! 3. the newest observation is capped at half the room left, so one huge tool result cannot wipe
//!    out the whole history;
//! 4. older steps of this run become one-line summaries, oldest first;
//! 5. the oldest summaries are dropped, leaving "(N earlier steps omitted)";
//! 6. the newest observation, then the newest thought, are cut to what fits;
//! 7. as a last resort the newest step is summarised or omitted too.
//!
//! Every piece is counted once up front and a running total is kept (see [`super::shrink`]), so
//! fitting is linear in the history plus a binary search per cut. Pieces are counted separately,
//! which for the character estimate bounds the count of their concatenation from above; the
//! caller still checks the assembled prompt exactly, so counters without that property cannot
//! overflow the budget either.

use super::shrink::Fitting;
use super::transcript::{reply_to, step_json, summary_line};
use super::{Message, Role, TokenCounter, Turn, MESSAGE_OVERHEAD_TOKENS as OVERHEAD};

const MEMORY_HEADER: &str = "Earlier in this conversation:";
const STEPS_HEADER: &str = "\n\nSteps so far (summarised):";
/// Characters of observation in a memory line before it is summarised.
const MEMORY_OBSERVATION_CHARS: usize = 200;
/// Characters of observation in a summary line.
const SUMMARY_OBSERVATION_CHARS: usize = 60;

/// A rendered piece of the prompt and its token count.
pub(super) type Piece = (String, usize);

/// The prompt's parts, rendered and counted once.
pub(crate) struct Layout<'a> {
    pub(super) counter: &'a dyn TokenCounter,
    pub(super) turns: &'a [Turn],
    /// Steps whose thought is not replayed (it stated values nothing had shown), sorted.
    withheld_thoughts: &'a [u32],
    system: String,
    /// The task, as the first user message carries it.
    task: String,
    /// The text closing the last user message (forced-final instruction or next-step reminder).
    closing: Option<String>,
    /// Memory lines in full and summarised, each starting with its newline.
    pub(super) memory: Vec<[Piece; 2]>,
    pub(super) memory_header_cost: usize,
    /// This run's summary lines, each starting with its newline.
    pub(super) summaries: Vec<Piece>,
    pub(super) steps_header_cost: usize,
    /// Per turn: the assistant message and its cost (with the message overhead).
    pub(super) steps: Vec<Piece>,
    /// Per turn: the user message that follows, if any, and its cost. After a final last step with
    /// a closing text the cost is the overhead of the message that text then needs.
    pub(super) replies: Vec<(Option<String>, usize)>,
    /// System message, first user message's overhead, task and closing text.
    pub(super) fixed_cost: usize,
}

/// Which form each part takes. History is always shrunk from the oldest end, so a few counters
/// describe it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Memory lines before this index are summarised.
    pub(super) memory_short: usize,
    /// Memory lines before this index are dropped.
    pub(super) memory_dropped: usize,
    /// Cut replacements for turns' user messages.
    pub(super) replies: Vec<Option<String>>,
    /// A cut replacement for the newest step's assistant message.
    pub(super) latest_step: Option<String>,
    /// Turns before this index are summary lines rather than messages.
    pub(super) summarised: usize,
    /// Summary lines before this index are counted in the "omitted" marker instead.
    pub(super) omitted: usize,
    /// Whether even the marker had to go.
    pub(super) steps_section_dropped: bool,
}

impl<'a> Layout<'a> {
    /// Renders and counts every part.
    pub(crate) fn new(
        counter: &'a dyn TokenCounter,
        system: String,
        task: String,
        closing: Option<String>,
        memory: &[Turn],
        turns: &'a [Turn],
        withheld_thoughts: &'a [u32],
    ) -> Self {
        let count = |s: &str| counter.count(s);
        let piece = |s: String| {
            let c = count(&s);
            (s, c)
        };
        let memory = memory
            .iter()
            .map(|t| {
                [MEMORY_OBSERVATION_CHARS, SUMMARY_OBSERVATION_CHARS]
                    .map(|chars| piece(format!("\n- {}", summary_line(t, chars))))
            })
            .collect::<Vec<_>>();
        let memory_header_cost = if memory.is_empty() { 0 } else { count(&format!("{MEMORY_HEADER}\n\n")) };
        let summaries = turns
            .iter()
            .map(|t| piece(format!("\n{}. {}", t.step, summary_line(t, SUMMARY_OBSERVATION_CHARS))))
            .collect();
        let steps = turns
            .iter()
            .map(|t| {
                let (step, cost) = piece(step_json(t, replayed_thought(t, withheld_thoughts)));
                (step, cost + OVERHEAD)
            })
            .collect();
        let last = turns.len().saturating_sub(1);
        let replies = turns
            .iter()
            .enumerate()
            .map(|(i, t)| match reply_to(t, i == last) {
                Some(reply) => {
                    let cost = OVERHEAD + count(&reply);
                    (Some(reply), cost)
                }
                None => (None, if closing.is_some() { OVERHEAD } else { 0 }),
            })
            .collect::<Vec<_>>();
        // What the closing adds where it lands, at the end of the newest reply when there is one:
        // counted apart, the rounding of two counts could make a prompt that fits look too big.
        let closing_cost = match (closing.as_deref(), replies.last()) {
            (Some(text), Some((Some(reply), _))) => {
                count(&format!("{reply}\n\n{text}")).saturating_sub(count(reply))
            }
            (Some(text), _) => count(&format!("\n\n{text}")),
            (None, _) => 0,
        };
        let fixed_cost = 2 * OVERHEAD + count(&system) + count(&task) + closing_cost;
        Layout {
            counter,
            turns,
            withheld_thoughts,
            system,
            task,
            closing,
            memory,
            memory_header_cost,
            summaries,
            steps_header_cost: count(STEPS_HEADER),
            steps,
            replies,
            fixed_cost,
        }
    }

    /// The thought `turn` is replayed with: its own, or empty where it is withheld.
    pub(super) fn thought_of<'t>(&self, turn: &'t Turn) -> &'t str {
        replayed_thought(turn, self.withheld_thoughts)
    }

    /// The plan keeping only the system message, the task and the closing text.
    pub(crate) fn minimal_plan(&self) -> Plan {
        let n = self.turns.len();
        Plan {
            memory_short: self.memory.len(),
            memory_dropped: self.memory.len(),
            replies: vec![None; n],
            latest_step: None,
            summarised: n,
            omitted: n,
            steps_section_dropped: true,
        }
    }

    /// The plan keeping as much as fits in `target` tokens, and its token count, both as counted
    /// piecewise.
    pub(crate) fn fit(&self, target: usize) -> (Plan, usize) {
        Fitting::new(self, target).run()
    }

    /// The messages a plan describes: system, user (memory, task, summaries), then the kept steps
    /// as assistant/user pairs, the closing text last.
    pub(crate) fn assemble(&self, plan: &Plan) -> Vec<Message> {
        let mut first = String::new();
        if plan.memory_dropped < self.memory.len() {
            first.push_str(MEMORY_HEADER);
            for (i, forms) in self.memory.iter().enumerate().skip(plan.memory_dropped) {
                first.push_str(&forms[usize::from(i < plan.memory_short)].0);
            }
            first.push_str("\n\n");
        }
        first.push_str(&self.task);
        if plan.summarised > 0 && !plan.steps_section_dropped {
            first.push_str(STEPS_HEADER);
            if plan.omitted > 0 {
                first.push_str(&omitted_marker(plan.omitted));
            }
            for (line, _) in self.summaries.iter().take(plan.summarised).skip(plan.omitted) {
                first.push_str(line);
            }
        }
        let mut messages =
            vec![Message::new(Role::System, self.system.clone()), Message::new(Role::User, first)];
        let last = self.turns.len().saturating_sub(1);
        let kept = self.steps.iter().zip(&self.replies).zip(&plan.replies).enumerate().skip(plan.summarised);
        for (i, (((step, _), (reply, _)), cut_reply)) in kept {
            let step = plan.latest_step.as_ref().filter(|_| i == last).unwrap_or(step);
            messages.push(Message::new(Role::Assistant, step.clone()));
            if let Some(reply) = cut_reply.as_ref().or(reply.as_ref()) {
                messages.push(Message::new(Role::User, reply.clone()));
            }
        }
        if let Some(text) = &self.closing {
            match messages.last_mut() {
                Some(m) if m.role == Role::User => {
                    m.content.push_str("\n\n");
                    m.content.push_str(text);
                }
                _ => messages.push(Message::new(Role::User, text.clone())),
            }
        }
        messages
    }
}

/// A step's thought as the prompt replays it: empty when it is withheld, because it stated values
/// that no tool had returned and the task did not give. A small model copies its earlier thoughts
/// into later steps, so a value invented in a thought before any call (Qwen's "I have 10 vacation
/// days left" ahead of the tool's 13.5) would otherwise become the final answer.
fn replayed_thought<'t>(turn: &'t Turn, withheld: &[u32]) -> &'t str {
    if withheld.binary_search(&turn.step).is_ok() {
        ""
    } else {
        &turn.thought
    }
}

/// The line standing for the oldest steps once even their summaries are dropped.
pub(super) fn omitted_marker(omitted: usize) -> String {
    let noun = if omitted == 1 { "step" } else { "steps" };
    format!("\n({omitted} earlier {noun} omitted)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{estimate, Action, CharEstimate, Outcome};

    fn turns(n: u32, size: usize) -> Vec<Turn> {
        (1..=n)
            .map(|step| Turn {
                step,
                thought: "é".repeat(step as usize * 7),
                action: Some(Action { tool: "t".into(), args: serde_json::json!({ "k": step }) }),
                observation: "ñx\n".repeat(size / 3 + step as usize),
                outcome: if step % 3 == 0 { Outcome::Failed } else { Outcome::Ok },
                reply: None,
            })
            .collect()
    }

    /// For the character estimate, counting pieces never undercounts the assembled prompt, and
    /// overcounts by at most a token per piece: the first fit is always the one used.
    #[test]
    fn piecewise_totals_bound_the_exact_count_from_above() {
        let counter = CharEstimate::default();
        let memory = turns(5, 400);
        let run = turns(12, 900);
        let layout = Layout::new(
            &counter,
            "system".repeat(50),
            "Task: do it".into(),
            Some("Stop now.".into()),
            &memory,
            &run,
            &[],
        );
        for target in (0..6_000).step_by(37) {
            let (plan, total) = layout.fit(target);
            let messages = layout.assemble(&plan);
            let exact = estimate(&messages, &counter);
            assert!(exact <= total, "target {target}: exact {exact} > piecewise {total}");
            let pieces = messages.len() + memory.len() + run.len() + 4;
            assert!(
                total - exact <= pieces,
                "target {target}: {total} overcounts {exact} by more than {pieces}"
            );
            if total > target {
                assert_eq!(plan.summarised, run.len(), "only the minimal plan may miss the target");
            }
        }
    }
}
