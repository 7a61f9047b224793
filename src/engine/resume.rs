//! Resuming a run that was cut off (a terminated worker, a reload, a crash) from the steps it had
//! committed, or giving it up as interrupted.
//!
//! Each step is committed before the next model call (`finish.rs`), so a cut-off run lost at most
//! the step under way. Resuming continues the same run id at the step after the last committed
//! one, with the committed turns as the run's history and the session's other turns as its
//! memory. What was only in memory starts afresh: the failure log (the stored failures stay in the
//! store; new ones get new ids, `<run>:<step>:…`, since their steps are new) and repeat detection.

use std::collections::{BTreeMap, BTreeSet};

use crate::store::{EndReason, RunRecord, RunStatus};

use super::agent::{Agent, RunOptions, RunResult};
use super::failure_log::FailureLog;
use super::narrowing::Narrowings;
use super::run::RunState;
use super::save::Redaction;
use super::{Event, Outcome, Repeats, Transcript, Turn};

impl Agent {
    /// Continues `run` (as stored, status `running`) from its committed `turns`, step 1 first: the
    /// next step is the last committed one + 1. `options.cancel` cancels it; the session and the id
    /// are the record's (`options.session` and `options.run_id` are ignored).
    ///
    /// A run whose last committed step is its final answer only lacked its last record write: it
    /// ends at once with that answer. A run cut off while a call waited for approval (its record's
    /// `pending_approval`) picks up at that call: the decision in `options.approvals`, if given
    /// ahead, else asked for again (`approval.rs`).
    pub async fn resume(
        &self,
        run: RunRecord,
        turns: Vec<Turn>,
        options: RunOptions,
        on_event: &dyn Fn(&Event),
    ) -> RunResult {
        let state = RunState::resume(self, run, turns, options, on_event).await;
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
    pub async fn abandon(&self, run: RunRecord, turns: Vec<Turn>, on_event: &dyn Fn(&Event)) -> RunResult {
        let state = RunState::resume(self, run, turns, RunOptions::default(), on_event).await;
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

impl<'a> RunState<'a> {
    /// The state of a run picked up from its record and committed turns.
    pub(crate) async fn resume(
        agent: &'a Agent,
        mut record: RunRecord,
        mut turns: Vec<Turn>,
        options: RunOptions,
        emit: &'a dyn Fn(&Event),
    ) -> RunState<'a> {
        crate::order::sort_by_key(&mut turns, |t| t.step);
        record.status = RunStatus::Running;
        record.counts.steps = turns.last().map_or(0, |t| t.step);
        let (run_id, session, task) = (record.id.clone(), record.session.clone(), record.task.clone());
        // Where ids came from: each tool's latest successful output among the committed steps.
        let mut outputs = BTreeMap::new();
        outputs.extend(
            turns
                .iter()
                .filter(|t| matches!(t.outcome, Outcome::Ok | Outcome::Warning))
                .filter_map(|t| Some((t.action.as_ref()?.tool.clone(), t.observation.clone()))),
        );
        let mut state = RunState {
            agent,
            emit,
            cancel: options.cancel,
            approvals: options.approvals,
            task: task.clone(),
            log: FailureLog::new(&run_id, &session),
            record,
            memory: Vec::new(),
            turns,
            repeats: Repeats::default(),
            context_tokens: agent.config.context_tokens,
            spent_tools: BTreeSet::new(),
            narrowings: Narrowings::default(),
            transcript: Transcript::new(),
            outputs,
            replies: Default::default(),
            ungrounded_warned: false,
            ungrounded: Vec::new(),
            non_answer_warned: false,
            mismatch_warned: false,
            focus_answer: false,
            answer_withheld: false,
            withheld_thoughts: Vec::new(),
            runtime_text: String::new(),
            unfixed: Default::default(),
            unknown_keys: Default::default(),
            contradicted: Default::default(),
            redaction: Redaction::of(agent.redactor.as_ref()),
        };
        (state.emit)(&Event::RunStarted { run_id: run_id.clone(), task });
        state.remember(Some(&run_id)).await;
        state.withhold_resumed_thoughts();
        state.save_run().await;
        state
    }
}
