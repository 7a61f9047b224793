//! One run of the loop: thought → action → observation, until a final answer, a spent budget, a
//! fatal failure or cancellation.

use std::collections::BTreeSet;

use crate::errors::render::render;
use crate::errors::{CallContext, Classification, Envelope, ErrorCode, FailureHints, RawFailure};
use crate::store::{EndReason, RunCounts, RunRecord, RunStatus, StepWrite};
use crate::text::clip;

use super::agent::{Agent, Effects, RunOptions, RunResult};
use super::answer_check::{quotes_a_result, Verdict};
use super::failure_log::{FailureLog, NewFailure};
use super::gave_up::says_not_done;
use super::model_turn::Ask;
use super::narrowing::Narrowings;
use super::output::Repair;
use super::page_action::Appeared;
use super::prompt::MemoryLines;
use super::recovering::UnfixedCalls;
use super::save::Redaction;
use super::value_forms::add_other_forms;
use super::{
    parse_step, Action, Approvals, CallKey, CancelToken, Event, Outcome, Remembered, Repeats, Step,
    Transcript, Turn,
};

/// Why the loop stops early.
pub(crate) enum Stop {
    Cancelled,
    Fatal { code: ErrorCode, message: String },
}

/// What one step came to: the loop goes on, the model answered, or the run stops early.
pub(crate) enum StepResult {
    /// The step is committed (or the reply refused) and the loop takes the next one.
    Continue,
    /// The model's final answer (checked, possibly replaced by an honest one), committed.
    Answer(String),
    /// The run stops early: cancelled, or a fatal failure.
    Stop(Stop),
}

impl Stop {
    pub(crate) fn reason(self) -> EndReason {
        match self {
            Stop::Cancelled => EndReason::Cancelled,
            Stop::Fatal { code, message } => EndReason::Fatal { code, message },
        }
    }
}

/// The state of one run. Owned by the run's future, never shared: nothing is borrowed across an await.
pub(crate) struct RunState<'a> {
    pub(crate) agent: &'a Agent,
    /// What this run runs on: its model, tool host, store, clock and randomness.
    pub(crate) effects: &'a Effects,
    pub(crate) emit: &'a dyn Fn(&Event),
    pub(crate) cancel: CancelToken,
    /// Where the user's decisions on calls waiting for approval come in.
    pub(crate) approvals: Approvals,
    pub(crate) task: String,
    pub(crate) record: RunRecord,
    /// The session's earlier runs, as far back as a prompt of this run can show (`recall.rs`):
    /// their tasks, steps and answers.
    pub(crate) memory: Vec<Remembered>,
    /// Where in `memory` the lines a prompt of this run can show begin ([`Self::shown_memory`]).
    pub(crate) memory_shown_from: usize,
    /// Those lines' part of the texts the checks read, joined once a run from parts kept across
    /// the session's runs (`memory_text.rs`, `memory_parts.rs`): the run's end gives them and the
    /// lines back to the agent.
    pub(crate) memory_text: super::memory_text::MemoryText,
    pub(crate) turns: Vec<Turn>,
    /// The task's names no call has sent nor result held yet (`answer_after_result.rs`).
    pub(crate) names_left: super::answer_after_result::NamesLeft,
    pub(crate) log: FailureLog,
    pub(crate) repeats: Repeats,
    /// The run's history as rendered for the prompt, kept from one step to the next.
    pub(crate) transcript: Transcript,
    /// The prompt's token budget; lowered for the rest of the run when the model overflows.
    pub(crate) context_tokens: usize,
    /// What the store gets of the run, when the agent redacts.
    pub(crate) redaction: Option<Redaction>,
    /// The steps whose call only acknowledged a page action (`page_action.rs`, `acknowledges_only`),
    /// judged when the call returned, against the listing it acted on (`seen.rs`).
    pub(crate) acknowledged: BTreeSet<u32>,
    /// The latest step whose page action showed the answer appear, with the line (`page_action.rs`,
    /// `answer_appeared`), judged when the call returned, against the listing it acted on (a
    /// result that lists the page it opened is its own next listing). Not known after a resume.
    pub(crate) appeared: Option<Appeared>,
    /// Tools whose identical call returned an identical result again, or was refused as a repeat
    /// of a failed call, since the last new call: left out of the constrained step schema until a
    /// new call succeeds or fails, so a greedy model cannot loop on them (nor alternate between two).
    pub(crate) spent_tools: BTreeSet<String>,
    /// Arguments narrowed to the options their tool said it takes, for constrained decoding.
    pub(crate) narrowings: Narrowings,
    /// Each tool's latest successful output as the model saw it: where ids come from.
    pub(crate) outputs: super::outputs::Outputs,
    /// The calls made with listed ids, and how they went: what `most_named` no longer offers first.
    pub(crate) acted_on: super::acted_on::ActedOn,
    /// Replies refused as steps, by text, with how often each was sent.
    pub(crate) replies: std::collections::HashMap<String, u32>,
    /// A greedy backend's replies, by request: a request sent again gets its reply from here.
    pub(crate) greedy_replies: super::greedy_replies::GreedyReplies,
    /// Whether an answer already got the `UNGROUNDED_ANSWER` envelope.
    pub(crate) ungrounded_warned: bool,
    /// The values of the answer the model persisted with though no tool gave them.
    pub(crate) ungrounded: Vec<String>,
    /// Whether an answer already was refused as no answer (a placeholder, keel's own words).
    pub(crate) non_answer_warned: bool,
    /// Whether a grounded answer already got the `ANSWER_MISMATCH` envelope (`answer_shape.rs`).
    pub(crate) mismatch_warned: bool,
    /// Whether an answer saying the task was not done already was sent back, a result at hand
    /// (`answer_check.rs`).
    pub(crate) gave_up_warned: bool,
    /// Whether an answer leaving out a part of the task (a tool it names, never called) already
    /// was sent back (`task_parts.rs`).
    pub(crate) part_warned: bool,
    /// Whether the next model call asks for the answer alone (`focused_answer.rs`): the last
    /// answer was no answer and a tool has answered.
    pub(crate) focus_answer: bool,
    /// Whether a focused answer was asked for already this run: a greedy model is asked the next
    /// one with other instructions (`focused_answer::INSTRUCTIONS_AGAIN`).
    pub(crate) answered_alone: bool,
    /// The answer the next step gives without asking the model (`thought_answer.rs`): the thought
    /// of a call made again that gave the same result, when it states that result.
    pub(crate) answer_from_thought: Option<String>,
    /// The tool whose call's arguments the next model call asks for alone (`focused_call.rs`): the
    /// last reply called it with an argument copied from the reply format's example.
    pub(crate) focus_call: Option<String>,
    /// Whether the model's final answer was replaced by an honest one (it persisted with values
    /// no tool gave, or with no answer): the run is then unsuccessful.
    pub(crate) answer_withheld: bool,
    /// Steps whose thought later prompts replay empty: it invented values (`withheld.rs`). Sorted.
    pub(crate) withheld_thoughts: Vec<u32>,
    /// What keel itself wrote into the prompt (notes, the causes and plans of envelopes): an
    /// answer made of it is no answer (`parrot.rs`).
    pub(crate) runtime_text: String,
    /// Calls whose results a later call replaces in the focused requests (`focused_answer.rs`):
    /// the call whose result gave another unit than the task asks for (`answer_shape.rs`).
    pub(crate) superseded: Vec<CallKey>,
    /// Calls that failed and that no later call of their tool fixed (`recovering.rs`).
    pub(crate) unfixed: UnfixedCalls,
    /// The idempotency keys of calls whose outcome is unknown (cut off by a reload), by call: the
    /// same call made again keeps its key (`intent.rs`).
    pub(crate) unknown_keys: std::collections::HashMap<CallKey, String>,
    /// The idempotency key of the tool call the step under way ran, taken into its turn record
    /// when the step commits (`tool_turn.rs`, `finish.rs`).
    pub(crate) ran_key: Option<String>,
    /// The last step's write, started and not yet waited for (`step_write.rs`): settled before
    /// anything but the next prompt's build and the model call, whose reply waits for it.
    pub(crate) pending_write: Option<super::step_write::PendingWrite<'a>>,
    /// The answering step's records, held by `commit` so that the run's end is stored with them,
    /// in one write (`finish.rs`).
    pub(crate) final_write: Option<StepWrite>,
    /// A step begun while the last step's write was in flight: the page is told it started once
    /// that write is settled, so that `stepStarted` still follows the last step's storing.
    pub(crate) unannounced: Option<u32>,
    /// Calls refused once as contradicting the task (`task_values.rs`), with what they contradicted:
    /// sent again unchanged, they run.
    pub(crate) contradicted: std::collections::HashMap<CallKey, Vec<super::task_values::Contradiction>>,
}

impl<'a> RunState<'a> {
    /// A fresh run of `task`: its record is made here (its id from the clock and the random
    /// source unless `options` gives one), then it is opened like a resumed run.
    pub(crate) async fn start(
        agent: &'a Agent,
        effects: &'a Effects,
        task: &str,
        options: RunOptions,
        emit: &'a dyn Fn(&Event),
    ) -> RunState<'a> {
        let now = effects.clock.now_ms();
        let id = options.run_id.clone().unwrap_or_else(|| {
            format!("run-{now:x}-{:08x}", (effects.random.unit() * f64::from(u32::MAX)) as u32)
        });
        let record = RunRecord {
            id,
            session: options.session.clone(),
            task: task.to_string(),
            status: RunStatus::Running,
            started_ms: now,
            ended_ms: None,
            answer: None,
            reason: None,
            counts: RunCounts::default(),
            pending_approval: None,
            intent: None,
        };
        RunState::open(agent, effects, record, Vec::new(), false, options, emit).await
    }

    /// The one way a run is built, fresh (no `turns`) or `resumed` (the `turns` it had committed,
    /// in any order): the run is `running` at the step after its last committed one, each tool's
    /// latest successful output among those turns is where ids come from, and what was only in
    /// memory starts afresh (the failure log, repeat detection). Tells the page the run started,
    /// reads the session's runs into its memory (less a resumed run's own), and writes the run's
    /// record.
    pub(crate) async fn open(
        agent: &'a Agent,
        effects: &'a Effects,
        mut record: RunRecord,
        mut turns: Vec<Turn>,
        resumed: bool,
        options: RunOptions,
        emit: &'a dyn Fn(&Event),
    ) -> RunState<'a> {
        crate::order::sort_by_key(&mut turns, |t| t.step);
        record.status = RunStatus::Running;
        record.counts.steps = turns.last().map_or(0, |t| t.step);
        let (run_id, task) = (record.id.clone(), record.task.clone());
        // Where ids came from: each tool's latest successful output among the committed steps.
        let mut outputs = super::outputs::Outputs::default();
        for turn in turns.iter().filter(|t| matches!(t.outcome, Outcome::Ok | Outcome::Warning)) {
            if let Some(action) = &turn.action {
                outputs.insert(&action.tool, turn.observation.clone(), turn.step, false);
            }
        }
        let mut state = RunState {
            agent,
            effects,
            emit,
            cancel: options.cancel,
            approvals: options.approvals,
            task: task.clone(),
            log: FailureLog::new(&run_id, &record.session),
            record,
            memory: Vec::new(),
            memory_shown_from: 0,
            memory_text: Default::default(),
            turns,
            names_left: Default::default(),
            repeats: Repeats::default(),
            context_tokens: agent.config.context_tokens,
            spent_tools: BTreeSet::new(),
            acknowledged: BTreeSet::new(),
            appeared: None,
            narrowings: Narrowings::default(),
            transcript: Transcript::new(),
            outputs,
            acted_on: Default::default(),
            replies: Default::default(),
            greedy_replies: Default::default(),
            ungrounded_warned: false,
            ungrounded: Vec::new(),
            non_answer_warned: false,
            mismatch_warned: false,
            gave_up_warned: false,
            part_warned: false,
            focus_answer: false,
            answered_alone: false,
            focus_call: None,
            superseded: Vec::new(),
            answer_from_thought: None,
            answer_withheld: false,
            withheld_thoughts: Vec::new(),
            runtime_text: String::new(),
            unfixed: UnfixedCalls::default(),
            unknown_keys: Default::default(),
            ran_key: None,
            pending_write: None,
            final_write: None,
            unannounced: None,
            contradicted: Default::default(),
            redaction: Redaction::of(agent.redactor.as_ref()),
        };
        (state.emit)(&Event::RunStarted { run_id: run_id.clone(), task });
        state.remember(resumed.then_some(run_id.as_str())).await;
        state.withhold_resumed_thoughts();
        state.save_run().await;
        state
    }

    pub(crate) async fn drive(mut self) -> RunResult {
        let config = &self.agent.config;
        let stop = loop {
            if self.cancel.is_cancelled() {
                break Stop::Cancelled;
            }
            let failing = self.failing_streak();
            if failing >= config.max_consecutive_failures {
                return self.forced_final(EndReason::ConsecutiveFailures { failures: failing }).await;
            }
            if self.step() >= config.max_steps {
                return self.forced_final(EndReason::MaxSteps { steps: config.max_steps }).await;
            }
            match self.step_once().await {
                StepResult::Answer(answer) => {
                    let success = !self.answered_after_failure()
                        && !self.answer_withheld
                        && !self.answer_gives_up(&answer)
                        && !self.ran_against_task();
                    return self.finish(answer, success, EndReason::FinalAnswer).await;
                }
                StepResult::Continue => {}
                StepResult::Stop(stop) => break stop,
            }
        };
        let answer = match &stop {
            Stop::Cancelled => "The run was cancelled before it finished.".to_string(),
            Stop::Fatal { code, message } => {
                format!(
                    "I could not complete the task. The run stopped on a fatal failure ({code}): {message}"
                )
            }
        };
        self.finish(answer, false, stop.reason()).await
    }

    /// Reads the session's earlier runs into `memory` (as far back as a prompt of this run can
    /// show, `recall.rs`), leaving out the run `except` (a resumed run's own; a fresh run is not
    /// written yet, so it is not among them).
    pub(crate) async fn remember(&mut self, except: Option<&str>) {
        let store = self.effects.store.as_ref();
        let counter = self.agent.counter.as_ref();
        let budget = self.context_tokens;
        let lines = match super::recall::recall(store, &self.record.session, except, counter, budget).await {
            Ok(recalled) => {
                self.memory = recalled.memory;
                recalled.lines
            }
            Err(e) => {
                self.warn(None, format!("Could not read the session's history: {e}"));
                MemoryLines::render(&self.memory, counter, budget)
            }
        };
        self.memory_shown_from = self.memory.len() - lines.shown();
        let parts = self.agent.memory_parts.parts(&self.record.session, self.shown_memory());
        self.memory_text = super::memory_text::MemoryText::new(parts);
        self.transcript.seed_memory(lines);
    }

    /// The lines of the session's memory a prompt of this run can show: the newest, as many as fit
    /// the window (the prompt's budget only shrinks as the run goes on). What the model was given
    /// is read from these, not the whole session: the older lines were never shown to it, and a
    /// session of a thousand runs would otherwise be read again at each check.
    pub(crate) fn shown_memory(&self) -> &[Remembered] {
        &self.memory[self.memory_shown_from..]
    }

    /// The number of the last step committed.
    pub(crate) fn step(&self) -> u32 {
        self.turns.len() as u32
    }

    /// Begins the step after the last committed one: counted in the run's `counts.steps` and told
    /// to the page (once the last step's write is settled, if it is in flight: `step_write.rs`).
    /// A step begun counts whether or not it is committed: a model call that fails for good, or a
    /// cancel while the model writes, stops the run inside it, and its failures, the final answer
    /// and the page's trace all belong to it.
    pub(crate) fn begin_step(&mut self) -> u32 {
        let step = self.step() + 1;
        self.record.counts.steps = step;
        if self.pending_write.is_some() {
            self.unannounced = Some(step);
        } else {
            (self.emit)(&Event::StepStarted { step });
        }
        step
    }

    /// The step the run is in: the last one begun (0 before the first).
    pub(crate) fn current_step(&self) -> u32 {
        self.record.counts.steps
    }

    /// Steps at the end of the run that failed or made no progress: the budget is decided from
    /// what the turns recorded, not from a counter kept beside them.
    fn failing_streak(&self) -> u32 {
        self.turns.iter().rev().take_while(|t| t.outcome == Outcome::Failed).count() as u32
    }

    /// Whether the final answer (the last turn) came straight after a call that failed and stayed
    /// unrecovered: the model gave up rather than finished, so the run is reported unsuccessful
    /// though the model answered. Not a failure here: an unreadable reply (a readable answer
    /// recovers it) or a repeat of a call that had worked (no progress, but nothing failed).
    pub(crate) fn answered_after_failure(&self) -> bool {
        // Steps without a call (a reply refused as a step, an answer sent back as ungrounded) and
        // no-progress repeats (failed steps with no failure of their own) are looked past: a failed
        // call before them still stands (SmolLM2 repeated a snapshot after a failed click, then
        // gave up, and was reported successful).
        // So is a call refused for contradicting the task: it never ran, and an answer without it
        // is checked like any (Qwen had the latest invoice, tried the older one, was refused, and
        // answered the latest's total: recovery bench not-found-list-first, 8393167).
        let failures_at = |step: u32| self.log.records().iter().filter(move |f| f.step == step);
        let no_progress = |t: &Turn| {
            t.outcome == Outcome::Failed && failures_at(t.step).all(|f| f.code == ErrorCode::ContradictsTask)
        };
        let Some(previous) = self.turns.iter().rev().skip(1).find(|t| t.action.is_some() && !no_progress(t))
        else {
            return false;
        };
        previous.outcome == Outcome::Failed && failures_at(previous.step).any(|f| !f.recovered)
    }

    /// Whether the model's own answer says the task was not done (`gave_up.rs`): the run is then
    /// unsuccessful, with that answer, and the page is told why.
    fn answer_gives_up(&self, answer: &str) -> bool {
        let gives_up = self.agent.config.grounding && !self.answer_withheld && says_not_done(answer);
        if gives_up {
            self.warn(
                Some(self.step()),
                "The answer says the task was not done: the run is reported unsuccessful.".to_string(),
            );
        }
        gives_up
    }

    /// One step: ask, parse, check, act, observe.
    async fn step_once(&mut self) -> StepResult {
        let step = self.begin_step();
        if let Some(intent) = self.unknown_outcome(step) {
            // A resumed run whose call was cut off before its outcome was stored.
            return self.unknown_outcome_step(step, intent).await;
        }
        if let Some(pending) = self.record.pending_approval.clone().filter(|p| p.step == step) {
            // A resumed run that was waiting on this call: the call is the step, not a new reply.
            return self.resume_pending(step, pending).await;
        }
        // After a call with an argument copied from the format's example, the step asks for that
        // call's arguments alone (`focused_call.rs`).
        if let Some(tool) = self.focus_call.take() {
            return self.focused_call_step(step, tool).await;
        }
        // After a call made again whose thought states its result, the thought is the answer.
        if let Some(answer) = self.answer_from_thought.take() {
            // No model call to overlap with the last step's write: it settles first, so the page
            // hears of a failed write and of this step's start before the step's own events.
            self.settle_write().await;
            self.warn(
                Some(step),
                "The model made a call again that gave the same result, and its thought states that result: the thought is taken as the answer, without asking the model again.".to_string(),
            );
            let reply = serde_json::json!({ "thought": "", "final_answer": answer }).to_string();
            return self.final_step(step, String::new(), answer, reply, false).await;
        }
        // After an answer that was no answer, the step asks for the answer alone, which has no
        // thought (`focused_answer.rs`).
        let focused = std::mem::take(&mut self.focus_answer);
        let ask = if focused { Ask::AnswerAlone } else { Ask::Step };
        let text = match self.ask(step, ask).await {
            Ok(text) => text,
            Err(stop) => return StepResult::Stop(stop),
        };
        self.answered_alone |= focused;
        let parsed = match parse_step(&text) {
            Ok(parsed) => parsed,
            // A placeholder answer whose thought states a result: the thought is the answer.
            Err(error) => match self.placeholder_reply_answered(step, &error) {
                Some(parsed) => parsed,
                None => {
                    let no_answer = error.is_no_answer();
                    let copied_into = self.copied_into_call(&error, &text);
                    self.reject_unreadable(step, error).await;
                    if no_answer {
                        self.focus_answer_next();
                    }
                    if copied_into.is_some() {
                        self.focus_call = copied_into;
                    }
                    return StepResult::Continue;
                }
            },
        };
        let repairs = parsed.repairs.iter().filter(|r| !(focused && matches!(r, Repair::MissingThought)));
        let repairs: Vec<String> = repairs.map(ToString::to_string).collect();
        if !repairs.is_empty() {
            self.warn(Some(step), format!("The model's reply was repaired: {}.", repairs.join("; ")));
        }
        let called = match &parsed.step {
            Step::Final { .. } => None,
            Step::Action { tool, .. } => Some(tool.as_str()),
        };
        if let Some((summary, recovery)) = self.choice_refuses(called) {
            let hints = FailureHints { recovery: Some(recovery), ..Default::default() };
            let raw = RawFailure::message(summary).with_hints(hints);
            let envelope = self.envelope(ErrorCode::InvalidOutput, &raw, None, CallContext::default());
            self.reject_reply(step, String::new(), envelope, text).await;
            return StepResult::Continue;
        }
        match parsed.step {
            Step::Final { thought, answer } => {
                self.say_thought(step, &thought);
                let answer = self.answer_in_thought(step, &thought, answer);
                self.final_step(step, thought, answer, text, focused).await
            }
            Step::Action { thought, tool, args } => {
                self.call_step(step, thought, Action { tool, args }).await
            }
        }
    }

    /// A step that answers: the answer is checked, then committed as the run's last turn, or sent
    /// back (`reply` is what the model wrote, kept with a refused, replaced or tidied answer).
    /// `focused`: the answer to the request for the answer alone, tidied once accepted
    /// (`answer_tidy.rs`).
    async fn final_step(
        &mut self,
        step: u32,
        thought: String,
        answer: String,
        reply: String,
        focused: bool,
    ) -> StepResult {
        let answer = match self.check_answer(step, &thought, &answer, &reply).await {
            Verdict::Retry => return StepResult::Continue,
            Verdict::Accept => answer,
            Verdict::Replace(honest) => {
                let turn = Turn { reply: Some(reply), ..Turn::final_answer(step, thought, honest.clone()) };
                self.commit(turn).await;
                return StepResult::Answer(honest);
            }
        };
        self.log.recover(None);
        let tidied = if focused { self.tidied_answer(&answer) } else { None };
        let (answer, reply) = match tidied {
            Some(tidied) => {
                self.warn(
                    Some(step),
                    format!(
                        "The model's answer was tidied: text around the answer was left out (it wrote: {}).",
                        clip(&answer, 300)
                    ),
                );
                (tidied, Some(reply))
            }
            None => (answer, None),
        };
        self.commit(Turn { reply, ..Turn::final_answer(step, thought, answer.clone()) }).await;
        StepResult::Answer(answer)
    }

    /// A step that calls a tool: the call is checked, run, observed and committed.
    pub(crate) async fn call_step(&mut self, step: u32, thought: String, action: Action) -> StepResult {
        self.say_thought(step, &thought);
        self.emit_action(step, &action);
        let (observation, outcome, stop) = match self.act(step, &action, &thought).await {
            Ok((observation, outcome)) => (observation, outcome, None),
            Err((observation, stop)) => (observation, Outcome::Failed, Some(stop)),
        };
        let tool = (outcome == Outcome::Ok && stop.is_none()).then(|| action.tool.clone());
        self.commit(Turn { step, thought, action: Some(action), observation, outcome, reply: None }).await;
        if let Some(spec) = tool.and_then(|name| self.agent.tools.get(&name)) {
            self.answer_after_result(spec);
        }
        stop.map_or(StepResult::Continue, StepResult::Stop)
    }

    /// Builds an envelope for a failure the runtime itself detected (`code` is known, not classified).
    pub(crate) fn envelope(
        &self,
        code: ErrorCode,
        raw: &RawFailure,
        action: Option<&Action>,
        ctx: CallContext<'_>,
    ) -> Envelope {
        let tools = &self.agent.tools;
        let declared: Vec<String> = action
            .and_then(|a| tools.get(&a.tool))
            .map(|s| super::provenance::reading_first_of(tools, &s.refs_from))
            .unwrap_or_default();
        let ctx = CallContext {
            tool: action.map(|a| a.tool.as_str()),
            args: action.map(|a| &a.args),
            refs_from: if ctx.refs_from.is_empty() { &declared } else { ctx.refs_from },
            available: tools.names(),
            ..ctx
        };
        let mut envelope = Envelope::from_failure(raw, Classification::of(code), ctx);
        if let Some(action) = action {
            add_other_forms(&mut envelope, &action.args);
        }
        envelope
    }

    /// An invalid call (unknown tool, invalid arguments): never run, shown to the model, escalated
    /// if the model made it before. `ctx` carries the suggestions or the issues.
    pub(crate) fn refuse(
        &mut self,
        step: u32,
        action: &Action,
        key: &CallKey,
        code: ErrorCode,
        message: String,
        ctx: CallContext<'_>,
    ) -> (String, Outcome) {
        let envelope = self.envelope(code, &RawFailure::message(message), Some(action), ctx);
        let now = self.effects.clock.now_ms();
        let envelope = self.repeats.failed(key, envelope, now);
        self.fail(step, Some(&action.tool), Some(key), &envelope, 1);
        (self.show(&envelope), Outcome::Failed)
    }

    /// Renders an envelope for the prompt.
    pub(crate) fn show(&self, envelope: &Envelope) -> String {
        let config = &self.agent.config;
        render(envelope, config.format, config.observation_chars)
    }

    /// Records a failure in the log (the store gets it with the step's commit or the run's end) and
    /// tells it to the page, with the envelope the model is shown if it is shown one: every failure
    /// goes through here, so the page's failures are the log's, attempt for attempt. Returns its
    /// index in the log.
    pub(crate) fn log_failure(&mut self, failure: NewFailure<'_>, envelope: Option<&Envelope>) -> usize {
        let event = Event::Failure {
            step: failure.step,
            tool: failure.tool.map(str::to_string),
            class: failure.class,
            code: failure.code.clone(),
            message: failure.message.to_string(),
            attempt: failure.attempt,
            envelope: envelope.map(|e| Box::new(e.clone())),
        };
        let index = self.log.record(failure);
        (self.emit)(&event);
        index
    }

    /// A failure the model will see: logged and told to the page with its envelope. Returns its
    /// index in the log.
    pub(crate) fn fail(
        &mut self,
        step: u32,
        tool: Option<&str>,
        key: Option<&CallKey>,
        envelope: &Envelope,
        attempt: u32,
    ) -> usize {
        let now = self.effects.clock.now_ms();
        for line in envelope.causes.iter().chain(&envelope.recovery).filter(|l| !quotes_a_result(l)) {
            self.runtime_text.push_str(line);
            self.runtime_text.push('\n');
        }
        if let Some(tool) = tool {
            if envelope.code == ErrorCode::StaleReference {
                self.listing_went_stale(tool, envelope);
            }
            self.unfixed.failed(step, tool, envelope);
        }
        let failure = NewFailure {
            step,
            tool,
            args_digest: key.map(|k| k.args_digest.as_str()),
            class: envelope.class,
            code: &envelope.code,
            attempt,
            message: &envelope.message,
            at_ms: now,
        };
        self.log_failure(failure, Some(envelope))
    }

    pub(crate) fn say_thought(&self, step: u32, thought: &str) {
        if !thought.is_empty() {
            (self.emit)(&Event::Thought { step, text: thought.to_string() });
        }
    }

    pub(crate) fn warn(&self, step: Option<u32>, message: String) {
        (self.emit)(&Event::Warning { step, message });
    }
}
