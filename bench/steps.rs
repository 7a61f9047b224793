//! The engine's own cost per step, natively, as a run and a session grow: per step at step 10,
//! 100 and 1,000 of one run, and per step of 10-step runs after 10, 100 and 1,000 earlier runs in
//! their session, and those runs' starts and ends. An instant scripted model (a new call each
//! step, then an answer) and an instant tool, the in-memory store, each configuration on its own store and session; a step's cost is
//! the wall time from one model call to the next (prompt building, parsing, validation, the tool
//! call, the commit). Prints medians and p95 side by side; asserts nothing.
//!
//! Run with `./build.sh bench steps` (or `cargo run --release --example steps -- [--reps N]`).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;
use keel::engine::{
    Agent, AgentConfig, Clock, Effects, Model, ModelReply, ModelRequest, Random, ReplySink, RunOptions,
    ToolCall, ToolHost, ToolOutput, Turn,
};
use keel::errors::RawFailure;
use keel::store::{EndReason, MemoryStore, RunCounts, RunRecord, RunStatus, Store, TurnRecord};
use keel::tools::ToolSpec;
use serde_json::{json, Value};

/// Calls `lookup` with a new argument each step until it has made `steps` calls, then answers;
/// records when each call came.
struct Scripted {
    steps: u32,
    calls: RefCell<Vec<Instant>>,
}

impl Model for Scripted {
    fn complete<'a>(
        &'a self,
        _: &'a ModelRequest,
        _: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let mut calls = self.calls.borrow_mut();
        calls.push(Instant::now());
        let n = calls.len() as u32;
        let text = if n <= self.steps {
            json!({"thought": "look it up", "action": {"tool": "lookup", "args": {"key": format!("k{n}")}}})
        } else {
            json!({"thought": "done", "final_answer": "the values were found"})
        };
        future::ready(Ok(ModelReply { text: text.to_string(), usage: None })).boxed_local()
    }
}

/// Answers at once: with the next of `large`, results built before the run, while any are left
/// (so that building them is not timed), then with a short text.
struct Instant0 {
    large: RefCell<Vec<Value>>,
}

impl ToolHost for Instant0 {
    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>> {
        let value = match self.large.borrow_mut().pop() {
            Some(large) => large,
            None => json!(format!("value of {} is 42", call.args["key"])),
        };
        future::ready(Ok(ToolOutput { value, warnings: Vec::new(), lists: false })).boxed_local()
    }
}

struct Clock0;

impl Clock for Clock0 {
    fn now_ms(&self) -> u64 {
        1_700_000_000_000
    }
    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        future::ready(()).boxed_local()
    }
}

struct Half;

impl Random for Half {
    fn unit(&self) -> f64 {
        0.5
    }
}

/// What one run cost: each step (step 1 first), its start (from the call to run to the first
/// model call: reading the session) and its end (from the model's answer to the run's result).
struct Costs {
    steps: Vec<Duration>,
    start: Duration,
    end: Duration,
}

/// A tool's result of 56 KB of JSON: 930 records, as an API's search might return
/// (bench/browser/commit.js returns the same from the page).
fn large_result() -> Value {
    let records = (0..930)
        .map(|i| json!({"id": i, "name": format!("item {i}"), "price": i as f64 * 1.25, "tags": ["a", "b"]}));
    Value::Array(records.collect())
}

/// Runs one task of `steps` calls in `session` on `store`, each tool result 56 KB of JSON when
/// `large`.
fn run(store: &Rc<MemoryStore>, session: &str, run_id: &str, steps: u32, large: bool) -> Costs {
    let model = Rc::new(Scripted { steps, calls: RefCell::new(Vec::new()) });
    let results = if large { (0..=steps).map(|_| large_result()).collect() } else { Vec::new() };
    let effects = Effects {
        model: model.clone(),
        tools: Rc::new(Instant0 { large: RefCell::new(results) }),
        store: store.clone(),
        clock: Rc::new(Clock0),
        random: Rc::new(Half),
    };
    let spec = ToolSpec::new(
        "lookup",
        "Looks a key up.",
        json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}),
    );
    // The scripted model calls the tool again when asked for the answer alone: `focused_answer`
    // off, so that every step is the whole step (since d0b18de the step after a result that
    // leaves nothing to do asked for the answer alone).
    let config = AgentConfig { max_steps: steps, focused_answer: false, ..AgentConfig::default() };
    let agent = Agent::new(vec![spec], config).expect("a valid agent");
    let options = RunOptions { session: session.into(), run_id: Some(run_id.into()), ..Default::default() };
    let started = Instant::now();
    let result = futures_executor::block_on(agent.run(&effects, "Look up every key.", options, &|_| {}));
    let ended = Instant::now();
    assert!(result.turns.len() as u32 >= steps, "the run took every step: {:?}", result.reason);
    let calls = model.calls.borrow();
    let (first, last) = (calls.first().expect("the model was called"), calls.last().expect("called"));
    Costs {
        steps: calls.windows(2).map(|w| w[1] - w[0]).collect(),
        start: *first - started,
        end: ended - *last,
    }
}

/// A session of `runs` earlier 10-step runs, written straight to the store as running them would
/// leave them (without the wait): each run's record, its 10 calls and its answer.
fn history(store: &MemoryStore, session: &str, runs: u32) {
    let write = |future: LocalBoxFuture<'_, Result<(), keel::store::StoreError>>| {
        futures_executor::block_on(future).expect("memory store write")
    };
    for r in 0..runs {
        let run_id = format!("old-{r}");
        // Before the new run's start (`Clock0`), in order.
        let started_ms = 1_600_000_000_000 + u64::from(r) * 1_000;
        let answer = "the values were found".to_string();
        let record = RunRecord {
            id: run_id.clone(),
            session: session.into(),
            task: "Look up every key.".into(),
            status: RunStatus::Succeeded,
            started_ms,
            ended_ms: Some(started_ms + 500),
            answer: Some(answer.clone()),
            reason: Some(EndReason::FinalAnswer),
            counts: RunCounts { steps: 11, model_calls: 11, tool_calls: 10, ..RunCounts::default() },
            pending_approval: None,
            intent: None,
        };
        write(store.put_run(&record));
        for step in 1..=11u32 {
            let turn = if step == 11 {
                Turn::final_answer(step, "done".into(), answer.clone())
            } else {
                Turn {
                    step,
                    thought: "look it up".into(),
                    action: Some(keel::engine::Action {
                        tool: "lookup".into(),
                        args: json!({"key": format!("k{step}")}),
                    }),
                    observation: format!("\"value of \\\"k{step}\\\" is 42\""),
                    outcome: keel::engine::Outcome::Ok,
                    reply: None,
                }
            };
            let record = TurnRecord {
                run_id: run_id.clone(),
                session: session.into(),
                at_ms: started_ms + u64::from(step),
                turn,
                counts: None,
                idempotency_key: Some(format!("{run_id}:{step}")),
            };
            write(store.put_turn(&record));
        }
    }
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "| {label:<38} | {:>9.1} | {:>9.1} | {:>5} |",
        us(quantile(&samples, 0.5)),
        us(quantile(&samples, 0.95)),
        samples.len()
    );
}

fn main() {
    let reps: usize = std::env::args()
        .skip_while(|a| a != "--reps")
        .nth(1)
        .map(|n| n.parse().expect("--reps takes a number"))
        .unwrap_or(5);
    println!("keel per-step cost, native (release), memory store; {reps} repetitions of each configuration");
    println!("\n| configuration                          | median µs |    p95 µs |     n |");
    println!("|----------------------------------------|-----------|-----------|-------|");
    // One run of 1,000 steps per repetition; the ten steps at each point are its samples.
    let mut at = [Vec::new(), Vec::new(), Vec::new()];
    for rep in 0..reps {
        let store = Rc::new(MemoryStore::new());
        let costs = run(&store, &format!("long-{rep}"), &format!("long-{rep}"), 1_000, false).steps;
        for (i, step) in [10usize, 100, 1_000].into_iter().enumerate() {
            // Steps step-9 ..= step, each the cost from its model call to the next.
            at[i].extend_from_slice(&costs[step - 10..step]);
        }
    }
    for (i, step) in [10, 100, 1_000].into_iter().enumerate() {
        report(&format!("step {step} of one run"), std::mem::take(&mut at[i]));
    }
    // Ten 10-step runs per repetition after `earlier` runs, each repetition on its own store and
    // session: steps 2..=10 of each are samples, and apart, each run's start (reading the session
    // into its memory) and its end (the answer checked, the run record written, the run's state
    // dropped), one sample a run.
    let mut edges = Vec::new();
    for earlier in [10u32, 100, 1_000] {
        let (mut samples, mut starts, mut ends) = (Vec::new(), Vec::new(), Vec::new());
        for rep in 0..reps {
            let store = Rc::new(MemoryStore::new());
            let session = format!("after-{earlier}-{rep}");
            history(&store, &session, earlier);
            for n in 0..10 {
                let costs = run(&store, &session, &format!("new-{rep}-{n}"), 10, false);
                samples.extend_from_slice(&costs.steps[1..10]);
                starts.push(costs.start);
                ends.push(costs.end);
            }
        }
        report(&format!("after {earlier} earlier runs (steps 2-10)"), samples);
        edges.push((earlier, starts, ends));
    }
    // Ten 10-step runs per repetition, each tool result 56 KB of JSON: steps 2-10 of each.
    let mut samples = Vec::new();
    for rep in 0..reps {
        let store = Rc::new(MemoryStore::new());
        for n in 0..10 {
            samples.extend_from_slice(
                &run(&store, &format!("large-{rep}"), &format!("large-{rep}-{n}"), 10, true).steps[1..10],
            );
        }
    }
    report("56 KB tool results (steps 2-10)", samples);
    for (earlier, starts, _) in &edges {
        report(&format!("run start after {earlier} earlier runs"), starts.clone());
    }
    for (earlier, _, ends) in edges {
        report(&format!("run end after {earlier} earlier runs"), ends);
    }
}
