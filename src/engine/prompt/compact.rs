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
//! Every piece is counted once, when it is rendered (see [`super::history`]), and a running total
//! is kept (see [`super::shrink`]), so fitting is linear in what the budget can hold plus a binary
//! search per cut. Pieces are counted separately, which for the character estimate bounds the
//! count of their concatenation from above; the caller still checks the assembled prompt exactly,
//! so counters without that property cannot overflow the budget either.

use super::history::{Earlier, Latest, MemoryLines, Piece};
use super::shrink::Fitting;
use super::{Message, PastSteps, Role, TokenCounter, Turn, MESSAGE_OVERHEAD_TOKENS as OVERHEAD};

const MEMORY_HEADER: &str = "Earlier in this conversation:";
const STEPS_HEADER: &str = "\n\nSteps so far (summarised):";
/// Above the steps shown in full, in the log form (`pastSteps: "log"`).
const LOG_HEADER: &str = "\n\nYour steps so far:";

/// The prompt's parts, rendered and counted.
pub(crate) struct Layout<'a> {
    pub(super) counter: &'a dyn TokenCounter,
    pub(super) turns: &'a [Turn],
    system: String,
    /// The task, as the first user message carries it.
    task: String,
    /// The text closing the last user message (forced-final instruction or next-step reminder).
    closing: Option<String>,
    /// Whether steps shown in full are assistant/user message pairs or lines of the log.
    pub(super) past_steps: PastSteps,
    /// Memory lines that could fit, in full and summarised, each starting with its newline.
    pub(super) memory: &'a [[Piece; 2]],
    /// Whether older memory lines were left out as too big to ever fit: while the plan keeps
    /// them, nothing fits.
    pub(super) memory_pruned: bool,
    pub(super) memory_header_cost: usize,
    pub(super) steps_header_cost: usize,
    /// Every step but the newest, rendered.
    earlier: &'a [Earlier],
    /// The newest step. Its reply's cost, when it has no reply but a closing text follows, is the
    /// overhead of the message that text then needs.
    latest: Option<(Latest, usize)>,
    /// Steps before this index are too big to ever be shown: while the plan has not omitted them,
    /// nothing fits.
    pub(super) base: usize,
    /// System message, first user message's overhead, task and closing text.
    pub(super) fixed_cost: usize,
}

/// The form a step's user message takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReplyForm {
    /// As rendered.
    Full,
    /// The older observation's head and tail ([`Earlier::cut`]).
    Cut,
    /// Cut to fit what was left.
    Fitted(String),
}

/// Which form each part takes. History is always shrunk from the oldest end, so a few counters
/// describe it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Memory lines before this index are summarised.
    pub(super) memory_short: usize,
    /// Memory lines before this index are dropped.
    pub(super) memory_dropped: usize,
    /// The form of each user message from the layout's `base` on.
    pub(super) replies: Vec<ReplyForm>,
    /// A cut replacement for the newest step's assistant message.
    pub(super) latest_step: Option<String>,
    /// Turns before this index are summary lines rather than messages.
    pub(super) summarised: usize,
    /// Summary lines before this index are counted in the "omitted" marker instead.
    pub(super) omitted: usize,
    /// Whether even the marker had to go.
    pub(super) steps_section_dropped: bool,
}

/// What [`Layout::new`] is made of besides the history.
pub(crate) struct Fixed {
    pub(crate) system: String,
    pub(crate) task: String,
    pub(crate) closing: Option<String>,
    pub(crate) past_steps: PastSteps,
}

impl<'a> Layout<'a> {
    /// Counts the fixed parts around the rendered history. `earlier` renders every turn but the
    /// newest, `latest` the newest; steps before `base` are too big to ever be shown.
    pub(crate) fn new(
        counter: &'a dyn TokenCounter,
        fixed: Fixed,
        memory: &'a MemoryLines,
        turns: &'a [Turn],
        earlier: &'a [Earlier],
        latest: Option<Latest>,
        base: usize,
    ) -> Self {
        let Fixed { system, task, closing, past_steps } = fixed;
        let count = |s: &str| counter.count(s);
        let any_memory = !memory.lines.is_empty() || memory.pruned;
        let memory_header_cost = if any_memory { count(&format!("{MEMORY_HEADER}\n\n")) } else { 0 };
        let latest = latest.map(|l| {
            let cost = match &l.reply {
                Some((_, cost)) => *cost,
                None if closing.is_some() => OVERHEAD,
                None => 0,
            };
            (l, cost)
        });
        // What the closing adds where it lands, at the end of the newest reply when there is one:
        // counted apart, the rounding of two counts could make a prompt that fits look too big.
        let newest_reply = latest.as_ref().and_then(|(l, _)| l.reply.as_ref());
        let closing_cost = match (closing.as_deref(), newest_reply) {
            (Some(text), Some((reply, _))) => {
                count(&format!("{reply}\n\n{text}")).saturating_sub(count(reply))
            }
            (Some(text), None) => count(&format!("\n\n{text}")),
            (None, _) => 0,
        };
        // The log's header, counted whenever there is a step it may stand above.
        let log_header_cost = match past_steps {
            PastSteps::Log if !turns.is_empty() => count(LOG_HEADER),
            _ => 0,
        };
        let fixed_cost = 2 * OVERHEAD + count(&system) + count(&task) + closing_cost + log_header_cost;
        Layout {
            counter,
            turns,
            system,
            task,
            closing,
            past_steps,
            memory: &memory.lines,
            memory_pruned: memory.pruned,
            memory_header_cost,
            steps_header_cost: count(STEPS_HEADER),
            earlier,
            latest,
            base,
            fixed_cost,
        }
    }

    /// Turn `i`'s assistant message and its cost with the overhead.
    pub(super) fn step(&self, i: usize) -> &Piece {
        match self.earlier.get(i) {
            Some(e) => &e.step,
            None => &self.latest.as_ref().expect("the newest step is rendered").0.step,
        }
    }

    /// Turn `i`'s user message, if any, and its cost.
    pub(super) fn reply(&self, i: usize) -> (Option<&String>, usize) {
        match self.earlier.get(i) {
            Some(e) => (Some(&e.reply.0), e.reply.1),
            None => {
                let (latest, cost) = self.latest.as_ref().expect("the newest step is rendered");
                (latest.reply.as_ref().map(|r| &r.0), *cost)
            }
        }
    }

    /// Turn `i`'s cheaper cut reply, for an older step that has one.
    pub(super) fn cut(&self, i: usize) -> Option<&Piece> {
        self.earlier.get(i).and_then(|e| e.cut.as_ref())
    }

    /// Turn `i`'s summary line and its cost.
    pub(super) fn summary(&self, i: usize) -> &Piece {
        match self.earlier.get(i) {
            Some(e) => &e.summary,
            None => &self.latest.as_ref().expect("the newest step is rendered").0.summary,
        }
    }

    /// The thought the newest step is replayed with: its own, or empty where it is withheld.
    pub(super) fn latest_thought(&self) -> &str {
        self.latest.as_ref().map_or("", |(l, _)| l.thought.as_str())
    }

    /// The plan keeping only the system message, the task and the closing text.
    pub(crate) fn minimal_plan(&self) -> Plan {
        let n = self.turns.len();
        Plan {
            memory_short: self.memory.len(),
            memory_dropped: self.memory.len(),
            replies: vec![ReplyForm::Full; n - self.base],
            latest_step: None,
            summarised: n,
            omitted: n,
            steps_section_dropped: true,
        }
    }

    /// The plan keeping as much as fits in `target` tokens, and its token count, both as counted
    /// piecewise (what the budget can never hold left out of the count).
    pub(crate) fn fit(&self, target: usize) -> (Plan, usize) {
        Fitting::new(self, target).run()
    }

    /// The messages a plan describes: system, user (memory, task, summaries), then the kept steps
    /// as assistant/user pairs or, in the log form, as lines of that user message; the closing
    /// text last.
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
            for i in plan.omitted..plan.summarised {
                first.push_str(&self.summary(i).0);
            }
        }
        let log = self.past_steps == PastSteps::Log;
        if log && plan.summarised < self.turns.len() {
            first.push_str(LOG_HEADER);
        }
        let mut messages =
            vec![Message::new(Role::System, self.system.clone()), Message::new(Role::User, first)];
        let last = self.turns.len().saturating_sub(1);
        for i in plan.summarised..self.turns.len() {
            let step = plan.latest_step.as_ref().filter(|_| i == last).unwrap_or(&self.step(i).0);
            let reply = match &plan.replies[i - self.base] {
                ReplyForm::Full => self.reply(i).0,
                ReplyForm::Cut => self.cut(i).map(|c| &c.0),
                ReplyForm::Fitted(text) => Some(text),
            };
            if log {
                let text = &mut messages[1].content;
                text.push_str("\n\n");
                text.push_str(step);
                if let Some(reply) = reply {
                    text.push('\n');
                    text.push_str(reply);
                }
                continue;
            }
            messages.push(Message::new(Role::Assistant, step.clone()));
            if let Some(reply) = reply {
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

/// The line standing for the oldest steps once even their summaries are dropped.
pub(super) fn omitted_marker(omitted: usize) -> String {
    let noun = if omitted == 1 { "step" } else { "steps" };
    format!("\n({omitted} earlier {noun} omitted)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::prompt::history::first_shown;
    use crate::engine::{estimate, Action, CharEstimate, Outcome, Remembered};

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
        let mut memory: Vec<Remembered> = turns(5, 400).into_iter().map(Remembered::Step).collect();
        memory.insert(0, Remembered::Asked("ñ ask ".repeat(40)));
        memory.push(Remembered::Ended("cancelled".into()));
        let run = turns(12, 900);
        let lines = MemoryLines::render(&memory, &counter, 6_000);
        let earlier: Vec<Earlier> = run[..run.len() - 1]
            .iter()
            .map(|t| Earlier::render(t, &t.thought, PastSteps::Messages, &counter))
            .collect();
        let latest = run.last().map(|t| Latest::render(t, &t.thought, PastSteps::Messages, &counter));
        let fixed = Fixed {
            system: "system".repeat(50),
            task: "Task: do it".into(),
            closing: Some("Stop now.".into()),
            past_steps: PastSteps::Messages,
        };
        let base = first_shown(&earlier, 6_000);
        let layout = Layout::new(&counter, fixed, &lines, &run, &earlier, latest, base);
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
