//! The engine's own cost per step, natively, as a run and a session grow: per step at step 10,
//! 100 and 1,000 of one run, and per step of a 10-step run after 10, 100 and 1,000 earlier runs in
//! its session, and the run's end after those. An instant scripted model (a new call each step, then an answer) and an instant
//! tool, the in-memory store, each configuration on its own store and session; a step's cost is
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
use keel::store::{MemoryStore, Store, TurnRecord};
use keel::tools::ToolSpec;
use serde_json::json;

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

/// Answers at once.
struct Instant0;

impl ToolHost for Instant0 {
    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>> {
        let value = json!(format!("value of {} is 42", call.args["key"]));
        future::ready(Ok(ToolOutput { value, warnings: Vec::new() })).boxed_local()
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

/// Runs one task of `steps` calls in `session` on `store`; the cost of each step, step 1 first,
/// and the run's end: from the model's answer to the run's result.
fn run(store: &Rc<MemoryStore>, session: &str, run_id: &str, steps: u32) -> (Vec<Duration>, Duration) {
    let model = Rc::new(Scripted { steps, calls: RefCell::new(Vec::new()) });
    let effects = Effects {
        model: model.clone(),
        tools: Rc::new(Instant0),
        store: store.clone(),
        clock: Rc::new(Clock0),
        random: Rc::new(Half),
    };
    let spec = ToolSpec::new(
        "lookup",
        "Looks a key up.",
        json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}),
    );
    let config = AgentConfig { max_steps: steps, ..AgentConfig::default() };
    let agent = Agent::new(vec![spec], config).expect("a valid agent");
    let options = RunOptions { session: session.into(), run_id: Some(run_id.into()), ..Default::default() };
    let result = futures_executor::block_on(agent.run(&effects, "Look up every key.", options, &|_| {}));
    let ended = Instant::now();
    assert!(result.turns.len() as u32 >= steps, "the run took every step: {:?}", result.reason);
    let calls = model.calls.borrow();
    let end = ended - *calls.last().expect("the model was called");
    (calls.windows(2).map(|w| w[1] - w[0]).collect(), end)
}

/// A session of `runs` earlier 10-step runs, written straight to the store (what running them
/// would leave behind, without the wait).
fn history(store: &MemoryStore, session: &str, runs: u32) {
    for r in 0..runs {
        for step in 1..=10u32 {
            let turn = Turn {
                step,
                thought: "look it up".into(),
                action: Some(keel::engine::Action {
                    tool: "lookup".into(),
                    args: json!({"key": format!("k{step}")}),
                }),
                observation: format!("\"value of \\\"k{step}\\\" is 42\""),
                outcome: keel::engine::Outcome::Ok,
                reply: None,
            };
            let record = TurnRecord {
                run_id: format!("old-{r}"),
                session: session.into(),
                at_ms: 0,
                turn,
                counts: None,
                idempotency_key: Some(format!("old-{r}:{step}")),
            };
            futures_executor::block_on(store.put_turn(&record)).expect("memory store write");
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
        let (costs, _) = run(&store, &format!("long-{rep}"), &format!("long-{rep}"), 1_000);
        for (i, step) in [10usize, 100, 1_000].into_iter().enumerate() {
            // Steps step-9 ..= step, each the cost from its model call to the next.
            at[i].extend_from_slice(&costs[step - 10..step]);
        }
    }
    for (i, step) in [10, 100, 1_000].into_iter().enumerate() {
        report(&format!("step {step} of one run"), std::mem::take(&mut at[i]));
    }
    // A 10-step run per repetition after `earlier` runs, each on its own store and session;
    // steps 2..=10 are its samples (step 1 pays for reading the history).
    // Its end too (the answer checked, the run record written), which reads what the model was
    // given of the session: one sample per repetition.
    let mut ends = Vec::new();
    for earlier in [10u32, 100, 1_000] {
        let mut samples = Vec::new();
        let mut end_samples = Vec::new();
        for rep in 0..reps {
            let store = Rc::new(MemoryStore::new());
            let session = format!("after-{earlier}-{rep}");
            history(&store, &session, earlier);
            let (costs, end) = run(&store, &session, &format!("new-{rep}"), 10);
            samples.extend_from_slice(&costs[1..10]);
            end_samples.push(end);
        }
        report(&format!("after {earlier} earlier runs (steps 2-10)"), samples);
        ends.push((earlier, end_samples));
    }
    for (earlier, samples) in ends {
        report(&format!("run end after {earlier} earlier runs"), samples);
    }
}
