//! keel's size benchmark: one export, [`keel_size_run`], that drives the whole engine so a wasm32
//! release build keeps everything a real run reaches, and nothing else.
//!
//! Everything the engine sees comes from `scenario.json`, parsed at run time behind
//! [`black_box`]: tool specs (schema compilation and validation), agent configs in all three
//! envelope formats (a small context budget forces prompt compaction), model replies (a backend
//! failure that is retried, a misspelt tool, repairable and unreadable JSON, a final answer) and
//! tool behaviours (transient failures retried with backoff and Retry-After, a stale reference, a
//! not-found with hints, a success with warnings). Events and results are serialised to JSON, as
//! the browser bindings will do. The fakes are minimal on purpose: their bytes are not keel's.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;
use keel::engine::{
    Agent, AgentConfig, Clock, Effects, Event, Model, ModelReply, ModelRequest, Random, ReplySink,
    RunOptions, ToolCall, ToolHost, ToolOutput,
};
use keel::errors::RawFailure;
use keel::store::MemoryStore;
use keel::tools::ToolSpec;
use serde_json::Value;

const SCENARIO: &str = include_str!("scenario.json");

/// Runs the scenario once per config in it (one session, so later runs see earlier turns) and
/// returns the total number of turns, or 0 if the scenario is unusable or a run did not finish.
#[no_mangle]
pub extern "C" fn keel_size_run() -> u32 {
    run_scenario(black_box(SCENARIO)).map_or(0, |report| report.turns)
}

/// What the runs did, for the native test.
#[derive(Debug, Default)]
pub struct Report {
    /// Turns over all runs.
    pub turns: u32,
    /// Runs whose model gave its own final answer.
    pub successes: u32,
    /// Events over all runs.
    pub events: u32,
    /// Bytes of JSON the events and results serialised to.
    pub json_bytes: usize,
    /// Failures over all runs.
    pub failures: u32,
    /// Virtual milliseconds slept (retry delays).
    pub slept_ms: u64,
    /// Per run, the largest prompt sent to the model, in chars.
    pub largest_prompts: Vec<usize>,
}

/// Parses `scenario` and runs it; `None` if it is malformed or a run never finished.
pub fn run_scenario(scenario: &str) -> Option<Report> {
    let scenario: Value = serde_json::from_str(scenario).ok()?;
    let task = scenario["task"].as_str()?;
    let specs: Vec<ToolSpec> = serde_json::from_value(scenario["tools"].clone()).ok()?;
    let store = Rc::new(MemoryStore::new());
    let clock = Rc::new(FakeClock(Cell::new(1_700_000_000_000), Cell::new(0)));
    let random = Rc::new(FixedRandom(scenario["random"].as_f64()?));
    let mut report = Report::default();
    for config in scenario["configs"].as_array()? {
        let config: AgentConfig = serde_json::from_value(config.clone()).ok()?;
        let largest_prompt = Rc::new(Cell::new(0));
        let effects = Effects {
            model: Rc::new(ScriptModel::new(&scenario["replies"], largest_prompt.clone())?),
            tools: Rc::new(ScriptTools::new(&scenario["behaviours"])?),
            store: store.clone(),
            clock: clock.clone(),
            random: random.clone(),
        };
        let agent = Agent::new(specs.clone(), config).ok()?;
        let json_bytes = Cell::new(0);
        let events = Cell::new(0);
        let on_event = |event: &Event| {
            events.set(events.get() + 1);
            json_bytes.set(json_bytes.get() + serde_json::to_string(event).map_or(0, |s| s.len()));
        };
        let options = RunOptions { session: "size".into(), ..Default::default() };
        let result = block_on(agent.run(&effects, task, options, &on_event))?;
        report.turns += result.turns.len() as u32;
        report.successes += u32::from(result.success);
        report.failures += result.failures.len() as u32;
        report.largest_prompts.push(largest_prompt.get());
        report.events += events.get();
        report.json_bytes += json_bytes.get() + serde_json::to_string(&result).ok()?.len();
    }
    report.slept_ms = clock.1.get();
    Some(black_box(report))
}

/// Polls `future` with a waker that does nothing: every fake here is ready at once. `None` if it
/// is still pending after many polls (it never is).
fn block_on<F: Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    (0..1_000).find_map(|_| match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    })
}

/// `{"fail": RawFailure}` as an error, anything else through `ok`.
fn scripted<T>(item: &Value, ok: impl FnOnce(&Value) -> Option<T>) -> Option<Result<T, RawFailure>> {
    match item.get("fail") {
        Some(raw) => Some(Err(serde_json::from_value(raw.clone()).ok()?)),
        None => ok(item).map(Ok),
    }
}

/// Replies from the scenario, in order; keeps the size of the largest prompt, in chars.
struct ScriptModel(RefCell<VecDeque<Result<String, RawFailure>>>, Rc<Cell<usize>>);

impl ScriptModel {
    fn new(replies: &Value, largest_prompt: Rc<Cell<usize>>) -> Option<Self> {
        let replies = replies.as_array()?.iter().map(|r| scripted(r, |t| Some(t.as_str()?.to_string())));
        Some(ScriptModel(RefCell::new(replies.collect::<Option<_>>()?), largest_prompt))
    }
}

impl Model for ScriptModel {
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        _: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let chars = request.messages.iter().map(|m| m.content.chars().count()).sum();
        self.1.set(self.1.get().max(chars));
        let next = self.0.borrow_mut().pop_front();
        let reply = next.unwrap_or_else(|| Err(RawFailure::named("NotSupportedError", "no more replies")));
        future::ready(reply.map(|text| ModelReply { text, usage: None })).boxed_local()
    }
}

type Behaviour = Result<ToolOutput, RawFailure>;

/// Per tool, attempts in order; the last one repeats.
struct ScriptTools(RefCell<Vec<(String, VecDeque<Behaviour>)>>);

impl ScriptTools {
    fn new(behaviours: &Value) -> Option<Self> {
        let output = |b: &Value| {
            let warnings =
                b.get("warnings").map_or(Some(Vec::new()), |w| serde_json::from_value(w.clone()).ok());
            Some(ToolOutput { value: b.get("ok")?.clone(), warnings: warnings?, lists: false })
        };
        let tools = behaviours.as_object()?.iter().map(|(tool, script)| {
            let script = script.as_array()?.iter().map(|b| scripted(b, output)).collect::<Option<_>>()?;
            Some((tool.clone(), script))
        });
        Some(ScriptTools(RefCell::new(tools.collect::<Option<_>>()?)))
    }
}

impl ToolHost for ScriptTools {
    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>> {
        let mut tools = self.0.borrow_mut();
        let behaviour = match tools.iter_mut().find(|(name, _)| *name == call.tool) {
            Some((_, script)) if script.len() > 1 => script.pop_front(),
            Some((_, script)) => script.front().cloned(),
            None => None,
        };
        let behaviour = behaviour.unwrap_or_else(|| Err(RawFailure::named("TypeError", "no script")));
        future::ready(behaviour).boxed_local()
    }
}

/// Virtual time: now, and milliseconds slept so far. A sleep returns at once.
struct FakeClock(Cell<u64>, Cell<u64>);

impl Clock for FakeClock {
    fn now_ms(&self) -> u64 {
        self.0.get()
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        self.0.set(self.0.get() + ms);
        self.1.set(self.1.get() + ms);
        future::ready(()).boxed_local()
    }
}

struct FixedRandom(f64);

impl Random for FixedRandom {
    fn unit(&self) -> f64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scenario really goes through the engine: every run answers, after failures, retries
    /// and waits.
    #[test]
    fn the_scenario_drives_the_whole_loop() {
        let report = run_scenario(SCENARIO).expect("the scenario runs");
        eprintln!("{report:?}");
        assert_eq!(report.successes, 3, "{report:?}");
        assert!(report.failures >= 15, "{report:?}");
        assert!(report.slept_ms > 0, "{report:?}");
        assert_eq!(keel_size_run(), report.turns);
        // The third run's small context budget makes the engine compact its prompt.
        let roomy = run_scenario(&SCENARIO.replace(r#""contextTokens": 900"#, r#""contextTokens": 8000"#));
        let roomy = roomy.expect("the roomy scenario runs");
        assert!(report.largest_prompts[2] < roomy.largest_prompts[2], "{report:?} {roomy:?}");
    }
}
