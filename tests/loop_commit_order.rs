//! When a step's write happens against the rest of the loop: it starts when the step commits, the
//! next prompt is built and the model asked while the store completes it, and the model's reply is
//! acted on (a tool run, an answer accepted, the page told the next step started and what the model
//! streamed) only once it is stored; a failing step's turn and failure go to the store as one
//! write; a write that fails, even while the model call is in flight, is told to the page before
//! the next step starts.

mod support;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use keel::engine::{
    Agent, AgentConfig, Effects, Event, Model, ModelReply, ModelRequest, ReplySink, RunOptions, RunResult,
    TokenCounter, ToolCall, ToolHost, ToolOutput,
};
use keel::errors::RawFailure;
use keel::store::{
    FailureRecord, MemoryStore, RunRecord, RunStatus, StepWrite, Store, StoreError, TurnRecord,
};
use serde_json::json;
use support::*;

/// What happened, in order, as the store, the model, the token counter and the page saw it.
type Log = Rc<RefCell<Vec<String>>>;

/// A future that is pending `polls` times (waking its task each time) before it is ready: a write
/// the store completes later, as IndexedDB does.
struct Later {
    polls: u32,
}

impl Future for Later {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.polls == 0 {
            return Poll::Ready(());
        }
        self.polls -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// A memory store whose step writes complete a few polls after they start, and log both; the write
/// of `fail_step` fails. It logs the run record's writes too.
struct SlowStore {
    inner: MemoryStore,
    log: Log,
    fail_step: Option<u32>,
    /// How many polls a step's write takes.
    polls: u32,
    /// Every step write it was handed: how many turns and failures each held.
    steps: RefCell<Vec<(usize, usize)>>,
    /// Writes of single turns or failures, outside `put_step`.
    single: Cell<u32>,
}

impl SlowStore {
    fn new(log: &Log, fail_step: Option<u32>) -> Rc<SlowStore> {
        SlowStore::taking(log, fail_step, 3)
    }

    /// The same, each step's write taking `polls` polls.
    fn taking(log: &Log, fail_step: Option<u32>, polls: u32) -> Rc<SlowStore> {
        Rc::new(SlowStore {
            inner: MemoryStore::new(),
            log: log.clone(),
            fail_step,
            polls,
            steps: RefCell::default(),
            single: Cell::new(0),
        })
    }
}

impl Store for SlowStore {
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.log.borrow_mut().push("run record written".into());
        self.inner.put_run(run)
    }
    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.single.set(self.single.get() + 1);
        self.inner.put_turn(turn)
    }
    fn put_failure<'a>(&'a self, failure: &'a FailureRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.single.set(self.single.get() + 1);
        self.inner.put_failure(failure)
    }
    fn put_step<'a>(&'a self, step: &'a StepWrite) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        async move {
            let n = step.turns.last().map_or(0, |t| t.turn.step);
            self.steps.borrow_mut().push((step.turns.len(), step.failures.len()));
            self.log.borrow_mut().push(format!("write {n} started"));
            Later { polls: self.polls }.await;
            if self.fail_step == Some(n) {
                self.log.borrow_mut().push(format!("write {n} failed"));
                return Err(StoreError::Failed("the disk is gone".into()));
            }
            for turn in &step.turns {
                self.inner.put_turn(turn).await?;
            }
            for failure in &step.failures {
                self.inner.put_failure(failure).await?;
            }
            if let Some(run) = &step.run {
                self.inner.put_run(run).await?;
                self.log.borrow_mut().push(format!("write {n} stored with the run record"));
                return Ok(());
            }
            self.log.borrow_mut().push(format!("write {n} stored"));
            Ok(())
        }
        .boxed_local()
    }
    fn session_turns<'a>(&'a self, s: &'a str) -> LocalBoxFuture<'a, Result<Vec<TurnRecord>, StoreError>> {
        self.inner.session_turns(s)
    }
    fn session_runs<'a>(&'a self, s: &'a str) -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>> {
        self.inner.session_runs(s)
    }
}

/// The scripted model, logging each time it is asked.
struct LoggedModel {
    inner: Rc<ScriptedModel>,
    log: Log,
}

impl Model for LoggedModel {
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let n = self.inner.requests.borrow().len() + 1;
        self.log.borrow_mut().push(format!("model asked {n}"));
        self.inner.complete(request, sink)
    }
}

/// Counts as the default estimate does, logging (once in a row) that a prompt is being built.
struct LoggedCounter(Log);

impl TokenCounter for LoggedCounter {
    fn count(&self, text: &str) -> usize {
        let mut log = self.0.borrow_mut();
        if log.last().map(String::as_str) != Some("prompt built") {
            log.push("prompt built".into());
        }
        text.chars().count().div_ceil(4)
    }
}

/// The fake tools, logging each call by its step (from its idempotency key, `<run>:<step>`).
struct LoggedTools {
    inner: Rc<FakeTools>,
    log: Log,
}

impl ToolHost for LoggedTools {
    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>> {
        let step = call.idempotency_key.rsplit(':').next().unwrap_or_default();
        self.log.borrow_mut().push(format!("tool called {step}"));
        self.inner.call(call)
    }
}

/// A run of `replies` over `store` and `tools`, every event logged beside the store's and the
/// model's entries. Each reply is a whole step's: no answer is asked for alone after a result
/// (`focusedAnswer` off), so a run of several calls stays one.
fn run(log: &Log, replies: Vec<Reply>, store: Rc<SlowStore>, tools: Rc<FakeTools>) -> RunResult {
    run_with(log, replies, store, tools, AgentConfig { focused_answer: false, ..classic() })
}

/// The same, with the agent's settings `config`.
fn run_with(
    log: &Log,
    replies: Vec<Reply>,
    store: Rc<SlowStore>,
    tools: Rc<FakeTools>,
    config: AgentConfig,
) -> RunResult {
    let effects = Effects {
        model: Rc::new(LoggedModel { inner: ScriptedModel::new(replies), log: log.clone() }),
        tools: Rc::new(LoggedTools { inner: tools, log: log.clone() }),
        store,
        clock: Rc::new(FakeClock::default()),
        random: Rc::new(FixedRandom(0.0)),
    };
    let agent = Agent::new(specs(), config).unwrap().with_token_counter(Rc::new(LoggedCounter(log.clone())));
    let emit = |e: &Event| {
        let entry = match e {
            Event::StepStarted { step } => format!("step {step} started"),
            Event::Warning { step, message } => format!("warning {step:?}: {message}"),
            Event::Thought { step, .. } => format!("thought {step}"),
            Event::Token { step, .. } => format!("token {step}"),
            Event::FinalAnswer { .. } => "final answer".into(),
            Event::RunEnded { .. } => "runEnded".into(),
            _ => return,
        };
        log.borrow_mut().push(entry);
    };
    futures_executor::block_on(agent.run(&effects, "Weather in Paris?", RunOptions::default(), &emit))
}

fn at(log: &[String], entry: &str) -> usize {
    log.iter().position(|e| e == entry).unwrap_or_else(|| panic!("no `{entry}` in {log:#?}"))
}

fn weather() -> Rc<FakeTools> {
    FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!({"temp": 21}))])
}

#[test]
fn the_model_is_asked_while_the_step_is_written_and_its_reply_is_acted_on_once_it_is_stored() {
    let log = Log::default();
    let replies = vec![
        act("get_weather", json!({"city": "Paris"})),
        act("get_weather", json!({"city": "Lyon"})),
        answer("21 degrees"),
    ];
    let result = run(&log, replies, SlowStore::new(&log, None), weather());
    assert!(result.success, "{}", result.answer);
    let log = log.borrow();
    for step in 1..=2 {
        let (started, stored) =
            (at(&log, &format!("write {step} started")), at(&log, &format!("write {step} stored")));
        let next = step + 1;
        let built = log[started..stored].iter().any(|e| e == "prompt built");
        assert!(built, "step {next}'s prompt is built while step {step} is written: {log:#?}");
        let asked = at(&log, &format!("model asked {next}"));
        assert!(started < asked && asked < stored, "asked while step {step} is written: {log:#?}");
        let announced = at(&log, &format!("step {next} started"));
        assert!(stored < announced, "the page hears the next step started once this one is stored: {log:#?}");
        let thought = at(&log, &format!("thought {next}"));
        assert!(announced < thought, "the reply is told once the step started: {log:#?}");
    }
    // Step 2's call has side effects: its intent (the run record) is written, and the tool run,
    // once step 1 is stored; the answer is accepted once step 2 is.
    let (stored, called) = (at(&log, "write 1 stored"), at(&log, "tool called 2"));
    let intent = log[..called].iter().rposition(|e| e == "run record written").unwrap();
    assert!(stored < intent && intent < called, "the intent is written after step 1: {log:#?}");
    assert!(at(&log, "write 2 stored") < at(&log, "final answer"), "{log:#?}");
}

#[test]
fn a_tool_runs_only_once_the_last_steps_write_is_stored_however_long_it_takes() {
    let log = Log::default();
    let replies = vec![
        act("get_weather", json!({"city": "Paris"})),
        act("get_weather", json!({"city": "Lyon"})),
        answer("21 degrees"),
    ];
    let result = run(&log, replies, SlowStore::taking(&log, None, 40), weather());
    assert!(result.success, "{}", result.answer);
    let log = log.borrow();
    // The model answered long before the write completed: only the write holds the tool back.
    assert!(at(&log, "model asked 2") < at(&log, "write 1 stored"), "{log:#?}");
    assert!(
        at(&log, "write 1 stored") < at(&log, "tool called 2"),
        "a tool ran before the last step was stored: {log:#?}"
    );
    assert!(at(&log, "write 2 stored") < at(&log, "final answer"), "{log:#?}");
}

#[test]
fn what_the_model_streams_while_the_step_is_written_is_told_after_the_next_steps_start() {
    let log = Log::default();
    let second = act("get_weather", json!({"city": "Lyon"}));
    let Reply::Text(second) = second else { unreachable!("act is a whole reply") };
    let replies = vec![
        act("get_weather", json!({"city": "Paris"})),
        Reply::Stream(chunked(&second, 16), None),
        answer("21 degrees"),
    ];
    let config = AgentConfig { stream: true, ..classic() };
    let result = run_with(&log, replies, SlowStore::new(&log, None), weather(), config);
    assert!(result.success, "{}", result.answer);
    let log = log.borrow();
    assert!(
        at(&log, "model asked 2") < at(&log, "write 1 stored"),
        "streamed while step 1 is written: {log:#?}"
    );
    let announced = at(&log, "step 2 started");
    assert!(at(&log, "write 1 stored") < announced, "{log:#?}");
    assert!(announced < at(&log, "token 2"), "step 2's text comes after its start: {log:#?}");
    let tokens = log.iter().filter(|e| *e == "token 2").count();
    assert_eq!(tokens, chunked(&second, 16).len(), "every chunk told once: {log:#?}");
}

#[test]
fn a_failing_steps_turn_and_failure_are_one_write() {
    let log = Log::default();
    let store = SlowStore::new(&log, None);
    let replies = vec![act("get_weather", json!({"town": "Paris"})), answer("I could not tell.")];
    run(&log, replies, store.clone(), weather());
    assert_eq!(store.steps.borrow()[0], (1, 1), "step 1: its turn and its INVALID_ARGS failure");
    assert_eq!(store.single.get(), 0, "nothing written one by one");
    let export = store.inner.export_session("default");
    assert_eq!((export.turns.len(), export.failures.len()), (2, 1));
}

#[test]
fn a_write_that_fails_while_the_model_is_asked_is_told_before_the_next_step_starts_and_the_run_goes_on() {
    let log = Log::default();
    let replies = vec![
        act("get_weather", json!({"city": "Paris"})),
        act("get_weather", json!({"city": "Lyon"})),
        answer("21 degrees"),
    ];
    let result = run(&log, replies, SlowStore::new(&log, Some(1)), weather());
    assert!(result.success, "a lost record does not lose the run");
    let log = log.borrow();
    let failed = at(&log, "write 1 failed");
    assert!(at(&log, "model asked 2") < failed, "the write failed while the model was asked: {log:#?}");
    let warning = at(&log, "warning Some(1): Could not save step 1: storage failed: the disk is gone");
    assert!(failed < warning);
    for after in ["step 2 started", "thought 2", "tool called 2"] {
        assert!(warning < at(&log, after), "told before `{after}`: {log:#?}");
    }
}

#[test]
fn a_model_call_that_fails_for_good_while_the_step_is_written_stops_the_run_once_it_is_stored() {
    let log = Log::default();
    let gone = RawFailure::named("NotSupportedError", "the model is gone");
    let replies = vec![act("get_weather", json!({"city": "Paris"})), Reply::Fail(gone)];
    let store = SlowStore::new(&log, None);
    let result = run(&log, replies, store.clone(), weather());
    assert!(!result.success);
    let log = log.borrow();
    let stored = at(&log, "write 1 stored");
    assert!(at(&log, "model asked 2") < stored, "{log:#?}");
    assert!(stored < at(&log, "step 2 started"), "{log:#?}");
    let last = log.iter().rposition(|e| e == "run record written").unwrap();
    assert!(stored < last, "the run ends once step 1 is stored: {log:#?}");
    assert_eq!(store.inner.export_session("default").turns.len(), 1);
}

#[test]
fn an_answer_taken_from_a_thought_is_told_after_the_last_steps_write_and_the_steps_start() {
    // A call made again with the same result, its thought stating it: the next step answers
    // without a model call (`thought_answer.rs`), so nothing else waits for step 2's write.
    let log = Log::default();
    let call = json!({"city": "Paris"});
    let again =
        json!({"thought": "Paris is 21°C and sunny.", "action": {"tool": "get_weather", "args": call}});
    let replies = vec![act("get_weather", call.clone()), Reply::Text(again.to_string())];
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Paris: 21°C, sunny"))]);
    let result = run_with(&log, replies, SlowStore::new(&log, None), tools, AgentConfig::default());
    assert_eq!(result.answer, "Paris is 21°C and sunny.", "{log:#?}");
    let log = log.borrow();
    let stored = at(&log, "write 2 stored");
    assert!(stored < at(&log, "step 3 started"), "{log:#?}");
    let warning = log.iter().position(|e| e.starts_with("warning Some(3)")).expect("the warning");
    assert!(at(&log, "step 3 started") < warning, "{log:#?}");
}

#[test]
fn the_answering_step_and_the_runs_end_are_one_write() {
    let log = Log::default();
    let replies = vec![act("get_weather", json!({"city": "Paris"})), answer("21 degrees")];
    let store = SlowStore::new(&log, None);
    let result = run(&log, replies, store.clone(), weather());
    assert!(result.success);
    let log = log.borrow();
    let ended = at(&log, "write 2 stored with the run record");
    // The run's start and the call's intent are written before step 1's write, nothing after.
    let alone = log.iter().rposition(|e| e == "run record written").unwrap();
    assert!(alone < at(&log, "write 1 started"), "{log:#?}");
    assert_eq!(store.steps.borrow().len(), 2, "one write a step: {log:#?}");
    assert!(ended < at(&log, "runEnded"), "the page hears the run ended once it is stored: {log:#?}");
    let export = store.inner.export_session("default");
    assert_eq!(export.runs.iter().map(|r| r.status).collect::<Vec<_>>(), [RunStatus::Succeeded]);
    assert_eq!(export.runs[0].answer.as_deref(), Some("21 degrees"));
    assert_eq!(export.turns.len(), 2);
}

#[test]
fn a_run_that_ends_without_answering_writes_its_end_alone() {
    // Cancelled before its first step: no answering step to carry the run's end.
    let log = Log::default();
    let store = SlowStore::new(&log, None);
    let effects = Effects {
        model: Rc::new(LoggedModel { inner: ScriptedModel::new(vec![]), log: log.clone() }),
        tools: Rc::new(LoggedTools { inner: weather(), log: log.clone() }),
        store: store.clone(),
        clock: Rc::new(FakeClock::default()),
        random: Rc::new(FixedRandom(0.0)),
    };
    let agent = Agent::new(specs(), classic()).unwrap();
    let cancel = keel::engine::CancelToken::new();
    cancel.cancel();
    let options = RunOptions { cancel, ..RunOptions::default() };
    let result = futures_executor::block_on(agent.run(&effects, "Weather in Paris?", options, &|_| {}));
    assert!(!result.success);
    assert_eq!(log.borrow().iter().filter(|e| *e == "run record written").count(), 2, "{:#?}", log.borrow());
    assert!(store.steps.borrow().is_empty());
    let export = store.inner.export_session("default");
    assert_eq!(export.runs.iter().map(|r| r.status).collect::<Vec<_>>(), [RunStatus::Cancelled]);
}

#[test]
fn a_failed_last_write_is_told_and_the_runs_end_is_written_alone() {
    let log = Log::default();
    let replies = vec![act("get_weather", json!({"city": "Paris"})), answer("21 degrees")];
    let store = SlowStore::new(&log, Some(2));
    let result = run(&log, replies, store.clone(), weather());
    assert_eq!(result.answer, "21 degrees");
    let log = log.borrow();
    let warning =
        "warning Some(2): Could not save step 2 with the run record: storage failed: the disk is gone";
    assert!(at(&log, "write 2 failed") < at(&log, warning), "{log:#?}");
    // The answer's turn is lost, not the run's end: the run is not left `running`, for resume.
    let alone = log.iter().rposition(|e| e == "run record written").unwrap();
    assert!(at(&log, warning) < alone && alone < at(&log, "runEnded"), "{log:#?}");
    let export = store.inner.export_session("default");
    assert_eq!(export.runs.iter().map(|r| r.status).collect::<Vec<_>>(), [RunStatus::Succeeded]);
    assert_eq!(export.turns.len(), 1);
}
