//! The shrinking stages of [`super::compact`], applied in order until the running total of the
//! prompt's token count is within the target.

use super::compact::{omitted_marker, Layout, Plan, ReplyForm};
use super::transcript::{fit_cut, step_text, OBSERVATION_PREFIX};
use super::{Outcome, MESSAGE_OVERHEAD_TOKENS as OVERHEAD};

/// A plan being shrunk, with the running token total it implies. The history the budget can never
/// hold (the layout's pruned memory lines and steps before its `base`) is left out of the total:
/// while the plan still keeps it, nothing fits, which is what counting it would have said.
pub(super) struct Fitting<'l, 'a> {
    layout: &'l Layout<'a>,
    plan: Plan,
    /// Current cost of each turn's assistant message and of the user message after it, from the
    /// layout's `base` on.
    step_cost: Vec<usize>,
    reply_cost: Vec<usize>,
    /// Whether the memory lines too big to ever fit are still kept.
    pruned_memory_kept: bool,
    total: usize,
    target: usize,
}

impl<'l, 'a> Fitting<'l, 'a> {
    /// Starts from everything in full.
    pub(super) fn new(layout: &'l Layout<'a>, target: usize) -> Self {
        let n = layout.turns.len();
        let step_cost: Vec<usize> = (layout.base..n).map(|i| layout.step(i).1).collect();
        let reply_cost: Vec<usize> = (layout.base..n).map(|i| layout.reply(i).1).collect();
        let memory_cost = layout.memory.iter().map(|m| m[0].1).sum::<usize>() + layout.memory_header_cost;
        let total = layout.fixed_cost
            + memory_cost
            + step_cost.iter().sum::<usize>()
            + reply_cost.iter().sum::<usize>();
        let plan = Plan {
            memory_short: 0,
            memory_dropped: 0,
            replies: vec![ReplyForm::Full; n - layout.base],
            latest_step: None,
            summarised: 0,
            omitted: 0,
            steps_section_dropped: false,
        };
        let pruned_memory_kept = layout.memory_pruned;
        Fitting { layout, plan, step_cost, reply_cost, pruned_memory_kept, total, target }
    }

    /// Applies the stages in order, stopping at the first that makes the prompt fit; returns the
    /// plan and its token count as summed piecewise.
    pub(super) fn run(mut self) -> (Plan, usize) {
        let _fits = self.fits()
            || self.cut_older_observations()
            || self.shrink_memory()
            || self.cap_latest_observation()
            || self.summarise_older_steps()
            || self.omit_summaries()
            || self.cut_latest()
            || self.give_up_latest();
        (self.plan, self.total)
    }

    fn fits(&self) -> bool {
        self.total <= self.target && !self.pruned_memory_kept && self.plan.omitted >= self.layout.base
    }

    fn replace(&mut self, old: usize, new: usize) {
        self.total = self.total.saturating_sub(old).saturating_add(new);
    }

    fn count(&self, text: &str) -> usize {
        self.layout.counter.count(text)
    }

    fn latest(&self) -> Option<usize> {
        self.layout.turns.len().checked_sub(1)
    }

    /// Turn `i`'s user message takes `form`, costing `cost` with the overhead.
    fn set_reply(&mut self, i: usize, form: ReplyForm, cost: usize) {
        let j = i - self.layout.base;
        self.replace(self.reply_cost[j], cost);
        self.reply_cost[j] = cost;
        self.plan.replies[j] = form;
    }

    /// Stage 1: older observations to head and tail, oldest first (those cut shorter were cut
    /// when rendered; steps before `base` stay too big whatever their form).
    fn cut_older_observations(&mut self) -> bool {
        let layout = self.layout;
        for i in layout.base..layout.turns.len().saturating_sub(1) {
            if let Some((_, cost)) = layout.cut(i) {
                self.set_reply(i, ReplyForm::Cut, *cost);
                if self.fits() {
                    return true;
                }
            }
        }
        false
    }

    /// Stage 2: memory lines summarised, oldest first, then dropped, oldest first.
    fn shrink_memory(&mut self) -> bool {
        let memory = self.layout.memory;
        // Summarising or dropping lines newer than those too big to keep cannot make the prompt
        // fit while those are kept: they go first of all when lines are dropped.
        for (i, [full, short]) in memory.iter().enumerate() {
            self.replace(full.1, short.1);
            self.plan.memory_short = i + 1;
            if self.fits() {
                return true;
            }
        }
        if self.pruned_memory_kept {
            self.pruned_memory_kept = false;
            if memory.is_empty() {
                self.replace(self.layout.memory_header_cost, 0);
            }
            if self.fits() {
                return true;
            }
        }
        for (i, [_, short]) in memory.iter().enumerate() {
            self.replace(short.1, 0);
            self.plan.memory_dropped = i + 1;
            if i + 1 == memory.len() {
                self.replace(self.layout.memory_header_cost, 0);
            }
            if self.fits() {
                return true;
            }
        }
        false
    }

    /// Stage 3: the newest observation to at most half the room the fixed part leaves.
    fn cap_latest_observation(&mut self) -> bool {
        if let Some(last) = self.latest() {
            let free = self.target.saturating_sub(self.layout.fixed_cost);
            self.cut_observation(last, free / 2);
        }
        self.fits()
    }

    /// Cuts turn `i`'s observation so its message costs at most `max_cost`, if it has one and the
    /// cut marker fits.
    fn cut_observation(&mut self, i: usize, max_cost: usize) {
        let turn = &self.layout.turns[i];
        if self.reply_cost[i - self.layout.base] <= max_cost || turn.outcome == Outcome::Final {
            return;
        }
        let Some(room) = max_cost.checked_sub(OVERHEAD) else { return };
        let observe = |cut: &str| format!("{OBSERVATION_PREFIX}{cut}");
        if let Some(cut) = fit_cut(&turn.observation, room, self.layout.counter, observe) {
            let cost = OVERHEAD + self.count(&cut);
            self.set_reply(i, ReplyForm::Fitted(cut), cost);
        }
    }

    /// Stage 4: older steps of this run to summary lines, oldest first.
    fn summarise_older_steps(&mut self) -> bool {
        while self.plan.summarised < self.layout.turns.len().saturating_sub(1) {
            self.summarise_next();
            if self.fits() {
                return true;
            }
        }
        false
    }

    /// The oldest step still a message to its summary line; the steps before `base`, left out
    /// of the total, all at once.
    fn summarise_next(&mut self) {
        let i = self.plan.summarised;
        let base = self.layout.base;
        if i == 0 {
            self.replace(0, self.layout.steps_header_cost);
        }
        if i < base {
            self.plan.summarised = base;
            return;
        }
        self.replace(self.step_cost[i - base] + self.reply_cost[i - base], self.layout.summary(i).1);
        self.plan.summarised += 1;
    }

    /// Stage 5: the oldest summary lines to the "omitted" marker.
    fn omit_summaries(&mut self) -> bool {
        while self.plan.omitted < self.plan.summarised {
            let i = self.plan.omitted;
            // Steps before `base` are out of the total: the marker takes them at once.
            let (summary, next) = match i < self.layout.base {
                true => (0, self.layout.base),
                false => (self.layout.summary(i).1, i + 1),
            };
            let old = summary + self.marker_cost(i);
            let new = self.marker_cost(next);
            self.replace(old, new);
            self.plan.omitted = next;
            if self.fits() {
                return true;
            }
        }
        self.fits()
    }

    fn marker_cost(&self, omitted: usize) -> usize {
        if omitted == 0 {
            0
        } else {
            self.count(&omitted_marker(omitted))
        }
    }

    /// Stage 6: the newest observation, then the newest thought, cut to what fits.
    fn cut_latest(&mut self) -> bool {
        let Some(last) = self.latest().filter(|&last| self.plan.summarised <= last) else {
            return self.fits();
        };
        let j = last - self.layout.base;
        let room = self.target.saturating_sub(self.total.saturating_sub(self.reply_cost[j]));
        self.cut_observation(last, room);
        if self.fits() {
            return true;
        }
        let turn = &self.layout.turns[last];
        let room = self.target.saturating_sub(self.total.saturating_sub(self.step_cost[j]));
        let Some(room) = room.checked_sub(OVERHEAD) else { return false };
        let render = |cut: &str| step_text(turn, cut, self.layout.past_steps);
        if let Some(step) = fit_cut(self.layout.latest_thought(), room, self.layout.counter, render) {
            let cost = OVERHEAD + self.count(&step);
            self.replace(self.step_cost[j], cost);
            self.step_cost[j] = cost;
            self.plan.latest_step = Some(step);
        }
        self.fits()
    }

    /// Stage 7: the newest step to a summary line, then to the marker, then the marker itself.
    fn give_up_latest(&mut self) -> bool {
        if self.plan.summarised < self.layout.turns.len() {
            self.summarise_next();
            if self.fits() {
                return true;
            }
        }
        if self.omit_summaries() {
            return true;
        }
        if self.plan.summarised > 0 {
            let section = self.layout.steps_header_cost + self.marker_cost(self.plan.omitted);
            self.replace(section, 0);
            self.plan.steps_section_dropped = true;
        }
        self.fits()
    }
}
