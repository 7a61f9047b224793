//! Resuming a run that was cut off (a terminated worker, a reload, a crash) from the steps it had
//! committed, or giving it up as interrupted.
//!
//! Each step is committed before the next model reply is acted on (`finish.rs`), so a cut-off run
//! lost at most the step under way. Resuming continues the same run id at the step after the last committed
//! one, with the committed turns as the run's history and the session's other turns as its
//! memory. What was only in memory starts afresh: the failure log (the stored failures stay in the
//! store; new ones get new ids, `<run>:<step>:…`, since their steps are new) and repeat detection.

use crate::store::{EndReason, RunRecord};

use super::agent::{Agent, Effects, RunOptions, RunResult};
use super::run::RunState;
use super::{Event, Outcome, Turn};

impl Agent {
    /// Continues `run` (as stored, status `running`) from its committed `turns` over `effects`,
    /// built as a fresh run is ([`Agent::run`]): the next step is the last committed one + 1. `options.cancel` cancels it; the session and the id
    /// are the record's (`options.session` and `options.run_id` are ignored).
    ///
    /// A run whose last committed step is its final answer only lacked its last record write (a
    /// store that writes a step's records one by one, cut off between them, or a run stored
    /// before the answer and the run's end were one write): it ends at once with that answer. A
    /// run cut off while a call waited for approval (its record's
    /// `pending_approval`) picks up at that call: the decision in `options.approvals`, if given
    /// ahead, else asked for again (`approval.rs`).
    pub async fn resume(
        &self,
        effects: &Effects,
        run: RunRecord,
        turns: Vec<Turn>,
        options: RunOptions,
        on_event: &dyn Fn(&Event),
    ) -> RunResult {
        let state = RunState::open(self, effects, run, turns, true, options, on_event).await;
        let last_final = state.turns.last().filter(|t| t.outcome == Outcome::Final).cloned();
        match last_final {
            Some(turn) => {
                let forced = state.step() > self.config.max_steps;
                let reason = if forced {
                    EndReason::MaxSteps { steps: self.config.max_steps }
                } else {
                    EndReason::FinalAnswer
                };
                let success = !forced && !state.answered_after_failure();
                state.finish(turn.observation, success, reason).await
            }
            None => state.drive().await,
        }
    }

    /// Gives up a cut-off run instead: it ends now as `interrupted`, with the steps it had
    /// committed (they stay in the store) and the runtime's account as its answer. The answer
    /// belongs to the step the run was cut off in, the one after its last committed step (each
    /// step is committed before the next begins): step 1 for a run that committed none, never 0.
    pub async fn abandon(
        &self,
        effects: &Effects,
        run: RunRecord,
        turns: Vec<Turn>,
        on_event: &dyn Fn(&Event),
    ) -> RunResult {
        let state = RunState::open(self, effects, run, turns, true, RunOptions::default(), on_event).await;
        let committed = state.step();
        let cut_in = committed + 1;
        let kept = match committed {
            0 => "before it committed a step".to_string(),
            1 => "after committing step 1".to_string(),
            n => format!("after committing steps 1 to {n}"),
        };
        let mut answer = format!(
            "I could not complete the task. The run was cut off in step {cut_in}, {kept}, and not resumed."
        );
        if let Some(intent) = state.unknown_outcome(cut_in) {
            answer.push_str(&format!(
                " The call to `{}` (idempotency key {}) was cut off before its result was stored: it may or may not have taken effect.",
                intent.tool, intent.idempotency_key
            ));
        }
        state.finish_in(cut_in, answer, false, EndReason::Interrupted).await
    }
}
