//! Committing each step before the next model reply is acted on, and ending a run: the forced
//! final answer when a budget is spent, and the run record's last write.

use crate::store::{EndReason, RunStatus, StepWrite, StoreError, TurnRecord};

use super::agent::RunResult;
use super::model_turn::Ask;
use super::run::{RunState, Stop};
use super::step_write::store_warning;
use super::unreturned_item::Unfounded;
use super::{parse_step, Event, Outcome, Step, Turn};

impl RunState<'_> {
    /// Ends the step: the turn is kept, shown to the page, and written (with the idempotency key of
    /// the tool call it ran, if any) with the failures it produced, in one write that is complete
    /// before the next model reply is acted on, so a killed worker loses at most the step under
    /// way; the next prompt is built, and the model asked, while it completes (`step_write.rs`). The run record is not written again:
    /// it is written when the run starts and when it ends, and while it runs its progress is its
    /// turns (stores report a `running` run's steps from them).
    pub(crate) async fn commit(&mut self, turn: Turn) {
        let step = turn.step;
        if turn.outcome != Outcome::Final {
            (self.emit)(&Event::Observation { step, text: turn.observation.clone(), outcome: turn.outcome });
        }
        self.turns.push(turn.clone());
        self.withhold_thought();
        let record = TurnRecord {
            run_id: self.record.id.clone(),
            session: self.record.session.clone(),
            at_ms: self.effects.clock.now_ms(),
            turn,
            counts: Some(self.record.counts),
            idempotency_key: self.ran_key.take(),
        };
        let turns = self.turns_to_write(record).await;
        let failures = self.unsaved_failures();
        let write = StepWrite { turns, failures, run: None };
        match write.turns.last().map(|t| t.turn.outcome) {
            // The answer's step ends the run: written with the run's end, in `finish_in`.
            Some(Outcome::Final) => self.final_write = Some(write),
            _ => self.start_write(write).await,
        }
    }

    /// A budget is spent: one last call where only a final answer is allowed, then the run ends
    /// unsuccessfully, with the model's account of what it found or, failing that, the runtime's.
    pub(crate) async fn forced_final(mut self, reason: EndReason) -> RunResult {
        let step = self.begin_step();
        let text = match self.ask(step, Ask::FinalOnly(&reason.describe())).await {
            Ok(text) => text,
            Err(Stop::Cancelled) => {
                return self
                    .finish("The run was cancelled before it finished.".into(), false, EndReason::Cancelled)
                    .await;
            }
            Err(Stop::Fatal { .. }) => String::new(),
        };
        // The answer a user reads says what failed, from the failure log; the model's account
        // follows only if the facts it states were seen (otherwise they are withheld and listed
        // in the result's `ungrounded`).
        let (thought, answer) = match parse_step(&text).map(|p| p.step) {
            Ok(Step::Final { thought, answer }) => {
                let unfounded = if self.agent.config.grounding { self.unfounded(&answer) } else { None };
                let account = self.account(&reason);
                let said = match &unfounded {
                    None => format!("What the model reported: {answer}"),
                    Some(Unfounded::Values(_)) => {
                        "The model's answer stated values that no tool returned, so it is not given.".to_string()
                    }
                    Some(Unfounded::Item(item)) => format!(
                        "The model's answer was about '{item}', of which no tool returned anything, so it is not given."
                    ),
                };
                if let Some(unfounded) = unfounded {
                    self.ungrounded = unfounded.into_values();
                }
                (thought, format!("{account}\n{said}"))
            }
            _ => (String::new(), self.account(&reason)),
        };
        self.say_thought(step, &thought);
        self.commit(Turn::final_answer(step, thought, answer.clone())).await;
        self.finish(answer, false, reason).await
    }

    /// The runtime's own honest answer: why the run stopped and the last failure left unrecovered.
    fn account(&self, reason: &EndReason) -> String {
        format!("I could not complete the task. {}{}", reason.describe(), self.last_failure_said())
    }

    /// " The last failure was CODE from `tool`: message", for an answer the runtime writes; empty
    /// when every failure was recovered.
    pub(crate) fn last_failure_said(&self) -> String {
        let Some(last) = self.log.last_unrecovered() else { return String::new() };
        let tool = last.tool.as_deref().map(|t| format!(" from `{t}`")).unwrap_or_default();
        format!(" The last failure was {}{tool}: {}", last.code, last.message)
    }

    /// Ends the run: the answer is shown in the step the run is in (the last begun, committed or
    /// not), the run record gets its last write (with the answering step's records, when the run
    /// answered: one write), and the page its totals.
    pub(crate) async fn finish(self, answer: String, success: bool, reason: EndReason) -> RunResult {
        let step = self.current_step();
        self.finish_in(step, answer, success, reason).await
    }

    /// [`Self::finish`] with the answer shown in `step`: an abandoned run's is the step it was cut
    /// off in, which this run never began.
    pub(crate) async fn finish_in(
        mut self,
        step: u32,
        answer: String,
        success: bool,
        reason: EndReason,
    ) -> RunResult {
        if reason != EndReason::Cancelled {
            (self.emit)(&Event::FinalAnswer { step, answer: answer.clone(), success });
        }
        self.record.status = match (&reason, success) {
            (_, true) => RunStatus::Succeeded,
            (EndReason::Cancelled, _) => RunStatus::Cancelled,
            (EndReason::Interrupted, _) => RunStatus::Interrupted,
            _ => RunStatus::Failed,
        };
        self.record.ended_ms = Some(self.effects.clock.now_ms());
        self.record.answer = Some(answer.clone());
        self.record.reason = Some(reason.clone());
        self.record.pending_approval = None;
        self.record.intent = None;
        match self.final_write.take() {
            Some(write) => self.write_end(write).await,
            None => {
                self.save_failures().await;
                self.save_run().await;
            }
        }
        let stats = self.log.stats();
        (self.emit)(&Event::RunEnded { reason: reason.clone(), success, stats });
        // The lines the run showed and their parts, moved to the agent for the session's next run
        // (`memory_parts.rs`), rather than dropped here.
        let shown = self.memory.split_off(self.memory_shown_from);
        let parts = std::mem::take(&mut self.memory_text).into_parts();
        self.agent.memory_parts.keep(&self.record.session, shown, parts);
        RunResult {
            run_id: self.record.id.clone(),
            answer,
            success,
            reason,
            turns: self.turns,
            failures: self.log.records().to_vec(),
            stats,
            counts: self.record.counts,
            ungrounded: self.ungrounded,
        }
    }

    /// Writes the answering step's records `write` with the failures left and the run's end, in
    /// one write; if it fails, the run record alone is tried again, so that a lost answer does not
    /// also leave the run `running`, to be offered for resume.
    async fn write_end(&mut self, mut write: StepWrite) {
        write.failures.extend(self.unsaved_failures());
        write.run = Some(self.stored_run().into_owned());
        self.settle_write().await;
        let step = write.step();
        let result = self.effects.store.put_step(&write).await;
        if let Err(e) = result {
            self.warn(step, store_warning(&write.describe(), &e));
            if !matches!(e, StoreError::Pruned(_)) {
                self.save_run().await;
            }
        }
    }
}
