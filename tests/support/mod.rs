//! Fakes for driving the loop natively: a scripted model, a tool host that fails on purpose, a
//! virtual clock and a fixed random source.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;
use keel::engine::{
    Agent, AgentConfig, Clock, Effects, Event, Model, ModelReply, ModelRequest, Random, ReplySink,
    RunOptions, RunResult, ToolCall, ToolHost, ToolOutput, Turn,
};
use keel::errors::RawFailure;
use keel::store::redact::Redactor;
use keel::store::{MemoryStore, RunRecord};
use keel::tools::ToolSpec;
use serde_json::{json, Value};

/// One scripted answer of the model.
pub enum Reply {
    /// The model writes this text.
    Text(String),
    /// The backend fails with this.
    Fail(RawFailure),
    /// A streaming backend hands these chunks over, then answers with their text (`None`), fails
    /// (`Some(Ok(failure))`) or never finishes (`Some(Err(()))`). Asked without a sink, it answers
    /// whole (or fails, or hangs).
    Stream(Vec<String>, Option<Result<RawFailure, ()>>),
}

/// A reply streamed in `chunks` that completes.
pub fn streamed(chunks: &[&str]) -> Reply {
    Reply::Stream(chunks.iter().map(|c| c.to_string()).collect(), None)
}

/// `text` cut into chunks of `size` characters.
pub fn chunked(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// Replies in order; records every request.
#[derive(Default)]
pub struct ScriptedModel {
    replies: RefCell<VecDeque<Reply>>,
    pub requests: RefCell<Vec<ModelRequest>>,
    /// What it says of its decoding (`Model::greedy`).
    greedy: bool,
}

impl ScriptedModel {
    pub fn new<I: IntoIterator<Item = Reply>>(replies: I) -> Rc<Self> {
        Rc::new(ScriptedModel { replies: RefCell::new(replies.into_iter().collect()), ..Default::default() })
    }

    /// A script that says it decodes greedily, as the OpenAI-compatible backend does.
    pub fn greedy<I: IntoIterator<Item = Reply>>(replies: I) -> Rc<Self> {
        Rc::new(ScriptedModel {
            replies: RefCell::new(replies.into_iter().collect()),
            greedy: true,
            ..Default::default()
        })
    }
}

impl Model for ScriptedModel {
    fn greedy(&self) -> bool {
        self.greedy
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        self.requests.borrow_mut().push(request.clone());
        let next = self.replies.borrow_mut().pop_front();
        let reply = match next {
            Some(Reply::Text(text)) => Ok(ModelReply { text, usage: None }),
            Some(Reply::Fail(raw)) => Err(raw),
            Some(Reply::Stream(chunks, end)) => {
                if let Some(sink) = sink {
                    // Handed over when polled, as a real stream's chunks arrive while it is awaited.
                    return async move {
                        for chunk in &chunks {
                            sink.text(chunk);
                        }
                        match end {
                            None => Ok(ModelReply { text: chunks.concat(), usage: None }),
                            Some(Ok(failure)) => Err(failure),
                            Some(Err(())) => future::pending().await,
                        }
                    }
                    .boxed_local();
                }
                match end {
                    None => Ok(ModelReply { text: chunks.concat(), usage: None }),
                    Some(Ok(failure)) => Err(failure),
                    Some(Err(())) => return future::pending().boxed_local(),
                }
            }
            None => Err(RawFailure::named("NotSupportedError", "the script has no more replies")),
        };
        future::ready(reply).boxed_local()
    }
}

/// A step calling `tool` with `args`.
pub fn act(tool: &str, args: Value) -> Reply {
    Reply::Text(
        json!({"thought": format!("I will call {tool}."), "action": {"tool": tool, "args": args}})
            .to_string(),
    )
}

/// A final answer step.
pub fn answer(text: &str) -> Reply {
    Reply::Text(json!({"thought": "I have what I need.", "final_answer": text}).to_string())
}

/// What a fake tool does on one attempt.
#[derive(Clone)]
pub enum Behaviour {
    Ok(Value),
    Warn(Value, Vec<String>),
    /// A result that lists ids anew (`ToolOutput::lists`).
    Lists(Value),
    Fail(RawFailure),
    /// Never finishes; the drop of its future is recorded as an abort.
    Hang,
}

/// Whether a call with these arguments needs approval (a page's `needsApproval` function).
pub type ApprovalRule = fn(&Value) -> bool;

/// Tools whose attempts follow a script per tool; the last behaviour repeats.
#[derive(Default)]
pub struct FakeTools {
    scripts: RefCell<HashMap<String, VecDeque<Behaviour>>>,
    pub calls: RefCell<Vec<ToolCall>>,
    pub aborted: Rc<Cell<u32>>,
    /// Per tool: whether a call needs approval (the page's `needsApproval` function), for tools
    /// declared `perCall`; every call it was asked about.
    approval_rules: RefCell<HashMap<String, ApprovalRule>>,
    pub approval_checks: RefCell<Vec<ToolCall>>,
}

impl FakeTools {
    pub fn new() -> Rc<Self> {
        Rc::new(FakeTools::default())
    }

    pub fn script(self: &Rc<Self>, tool: &str, behaviours: Vec<Behaviour>) -> Rc<Self> {
        self.scripts.borrow_mut().insert(tool.to_string(), behaviours.into());
        self.clone()
    }

    /// Decides per call whether `tool` needs approval.
    pub fn approval_rule(self: &Rc<Self>, tool: &str, rule: ApprovalRule) -> Rc<Self> {
        self.approval_rules.borrow_mut().insert(tool.to_string(), rule);
        self.clone()
    }

    pub fn calls_to(&self, tool: &str) -> usize {
        self.calls.borrow().iter().filter(|c| c.tool == tool).count()
    }
}

struct AbortOnDrop(Rc<Cell<u32>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.set(self.0.get() + 1);
    }
}

impl ToolHost for FakeTools {
    fn needs_approval<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<bool, RawFailure>> {
        self.approval_checks.borrow_mut().push(call.clone());
        let rule = self.approval_rules.borrow().get(&call.tool).copied();
        let answer = match rule {
            Some(rule) => Ok(rule(&call.args)),
            None => Err(RawFailure::named("TypeError", format!("no approval rule for {}", call.tool))),
        };
        future::ready(answer).boxed_local()
    }

    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>> {
        self.calls.borrow_mut().push(call.clone());
        let behaviour = {
            let mut scripts = self.scripts.borrow_mut();
            match scripts.get_mut(&call.tool) {
                Some(queue) if queue.len() > 1 => queue.pop_front(),
                Some(queue) => queue.front().cloned(),
                None => None,
            }
        };
        match behaviour {
            Some(Behaviour::Ok(value)) => {
                future::ready(Ok(ToolOutput { value, warnings: vec![], lists: false })).boxed_local()
            }
            Some(Behaviour::Lists(value)) => {
                future::ready(Ok(ToolOutput { value, warnings: vec![], lists: true })).boxed_local()
            }
            Some(Behaviour::Warn(value, warnings)) => {
                future::ready(Ok(ToolOutput { value, warnings, lists: false })).boxed_local()
            }
            Some(Behaviour::Fail(raw)) => future::ready(Err(raw)).boxed_local(),
            Some(Behaviour::Hang) => {
                let guard = AbortOnDrop(self.aborted.clone());
                async move {
                    let _guard = guard;
                    future::pending::<()>().await;
                    unreachable!("a pending future never resolves")
                }
                .boxed_local()
            }
            None => {
                future::ready(Err(RawFailure::named("TypeError", format!("no script for {}", call.tool))))
                    .boxed_local()
            }
        }
    }
}

/// Virtual time: a sleep returns at once and moves the clock forward; every sleep is recorded.
#[derive(Default)]
pub struct FakeClock {
    pub now: Rc<Cell<u64>>,
    pub sleeps: Rc<RefCell<Vec<u64>>>,
}

impl Clock for FakeClock {
    fn now_ms(&self) -> u64 {
        self.now.get()
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        self.sleeps.borrow_mut().push(ms);
        self.now.set(self.now.get() + ms);
        future::ready(()).boxed_local()
    }
}

/// Time that never passes and waits that never end: a hung tool or model stays hung (no timeout
/// fires), as a killed worker leaves it; only cancellation ends the wait.
pub struct StuckClock;

impl Clock for StuckClock {
    fn now_ms(&self) -> u64 {
        1_700_000_000_000
    }

    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        future::pending().boxed_local()
    }
}

/// Always the same number, so jittered delays are exact.
pub struct FixedRandom(pub f64);

impl Random for FixedRandom {
    fn unit(&self) -> f64 {
        self.0
    }
}

/// Everything a test needs to drive one agent and inspect what happened.
pub struct Harness {
    pub model: Rc<ScriptedModel>,
    pub tools: Rc<FakeTools>,
    pub store: Rc<MemoryStore>,
    pub clock: Rc<FakeClock>,
    pub agent: Agent,
    /// What each of the harness's runs runs on: the fakes above.
    pub effects: Effects,
}

impl Harness {
    pub fn new(
        model: Rc<ScriptedModel>,
        tools: Rc<FakeTools>,
        specs: Vec<ToolSpec>,
        config: AgentConfig,
    ) -> Self {
        let store = Rc::new(MemoryStore::new());
        let clock = Rc::new(FakeClock { now: Rc::new(Cell::new(1_700_000_000_000)), ..Default::default() });
        let effects = Effects {
            model: model.clone(),
            tools: tools.clone(),
            store: store.clone(),
            clock: clock.clone(),
            random: Rc::new(FixedRandom(0.0)),
        };
        let agent = Agent::new(specs, config).expect("valid tool specs");
        Harness { model, tools, store, clock, agent, effects }
    }

    /// The same harness, its agent redacting what it stores through `redactor`.
    pub fn redacting(mut self, redactor: Rc<dyn Redactor>) -> Self {
        self.agent = self.agent.with_redactor(redactor);
        self
    }

    /// Runs a task in session "s" and returns the result with every event emitted.
    pub fn run(&self, task: &str) -> (RunResult, Vec<Event>) {
        self.run_with(task, RunOptions { session: "s".into(), ..Default::default() })
    }

    pub fn run_with(&self, task: &str, options: RunOptions) -> (RunResult, Vec<Event>) {
        let events = RefCell::new(Vec::new());
        let on_event = |e: &Event| events.borrow_mut().push(e.clone());
        let result = futures_executor::block_on(self.agent.run(&self.effects, task, options, &on_event));
        (result, events.into_inner())
    }
}

/// An agent with the effects each of a test's runs brings: runs, resumes and abandons over them.
pub struct Bound {
    pub agent: Agent,
    pub effects: Effects,
}

impl Bound {
    /// The agent with these tools and settings (they must be valid), its runs over `effects`.
    pub fn new(effects: Effects, specs: Vec<ToolSpec>, config: AgentConfig) -> Bound {
        Bound { agent: Agent::new(specs, config).expect("valid tool specs"), effects }
    }

    pub async fn run(&self, task: &str, options: RunOptions, on_event: &dyn Fn(&Event)) -> RunResult {
        self.agent.run(&self.effects, task, options, on_event).await
    }

    pub async fn resume(
        &self,
        run: RunRecord,
        turns: Vec<Turn>,
        options: RunOptions,
        on_event: &dyn Fn(&Event),
    ) -> RunResult {
        self.agent.resume(&self.effects, run, turns, options, on_event).await
    }

    pub async fn abandon(&self, run: RunRecord, turns: Vec<Turn>, on_event: &dyn Fn(&Event)) -> RunResult {
        self.agent.abandon(&self.effects, run, turns, on_event).await
    }
}

/// A shop's orders: a listing of ids with their dates, and one order's details by id.
pub fn order_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new("list_orders", "Lists the customer's orders, newest first.", json!({"type": "object"})),
        ToolSpec::new(
            "get_order",
            "An order's details.",
            json!({"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}),
        ),
    ]
}

/// The demo's tools: weather, a page with element references, invoices.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "get_weather",
            "Current weather for a city.",
            json!({"type": "object", "properties": {
                "city": {"type": "string", "minLength": 1},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7}
            }, "required": ["city"], "additionalProperties": false}),
        ),
        ToolSpec::new(
            "snapshot",
            "List the page's interactive elements with their refs.",
            json!({"type": "object"}),
        ),
        ToolSpec::new(
            "click",
            "Click an element by ref.",
            json!({"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot"]),
        ToolSpec::new("list_invoices", "List invoice ids.", json!({"type": "object"})),
        ToolSpec::new(
            "get_invoice",
            "Get an invoice by id.",
            json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}),
        )
        .with_refs_from(["list_invoices"]),
    ]
}

/// The settings before tool choice, grounded answers, id provenance and recovery before the answer: for tests that pin the
/// mechanisms under them with scripted steps that answer at once, use made-up ids or state values
/// no fake tool returned. Each has tests of its own (loop_recovery.rs).
pub fn classic() -> AgentConfig {
    AgentConfig {
        tool_choice: Some(keel::engine::ToolChoice::Auto),
        grounding: false,
        id_provenance: false,
        task_values: false,
        recover_before_answer: false,
        ..AgentConfig::default()
    }
}

/// The tools the model's request `n` offered: those listed in its system message and those in its
/// step schema (the constrained step's `action.tool` constants).
pub fn offered_tools(model: &ScriptedModel, n: usize) -> (Vec<String>, Vec<String>) {
    let requests = model.requests.borrow();
    let system = &requests[n].messages[0].content;
    let tools =
        system.split("\nTools:").nth(1).expect("a tool list").split("\n\nOutput").next().unwrap_or("");
    let listed = tools
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| l.split(':').next().unwrap_or(l).to_string())
        .collect();
    let schema = requests[n].schema.clone().expect("constrained");
    let branches = match schema.get("anyOf") {
        Some(Value::Array(branches)) => branches.clone(),
        _ => vec![schema],
    };
    let in_schema = branches
        .iter()
        .filter_map(|b| b.pointer("/properties/action/properties/tool/const")?.as_str().map(str::to_string))
        .collect();
    (listed, in_schema)
}

/// The values the step schema of the model's request `n` allows `tool`'s `ref` argument (its
/// `enum`; null when not narrowed), if the step offers the tool.
pub fn refs_offered(model: &ScriptedModel, n: usize, tool: &str) -> Option<Value> {
    let schema = model.requests.borrow()[n].schema.clone().expect("constrained");
    schema["anyOf"].as_array()?.iter().find_map(|branch| {
        let action = &branch["properties"]["action"]["properties"];
        (action["tool"]["const"] == tool).then(|| action["args"]["properties"]["ref"]["enum"].clone())
    })
}
