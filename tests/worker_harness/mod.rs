//! The worker host driven natively, shared by the `web_host*` and `web_models` tests: messages in
//! as JSON, posted messages recorded, time virtual, randomness fixed, HTTP scripted on demand.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures_executor::LocalPool;
use futures_util::future::LocalBoxFuture;
use futures_util::task::LocalSpawnExt;
use futures_util::FutureExt;
use keel::engine::{Clock, Random};
use keel::errors::RawFailure;
use keel::web::host::{Control, WorkerHost};
use keel::web::openai::{Http, HttpRequest, HttpResponse};
use keel::web::protocol::WorkerMessage;
use keel::web::rpc::Transport;
use serde_json::{json, Value};

/// Every message the worker posts, as JSON, and as the page reads it: a `modelCall`'s
/// `request.messages` is its whole prompt, rebuilt as `js/agent.js` does from the `keep` leading
/// messages of the run's previous call to that backend (`prompts`) and the messages it carries,
/// and its `request.schema` the previous call's when it says `sameSchema` (`schemas`).
#[derive(Default)]
pub struct Recorder(
    pub RefCell<Vec<Value>>,
    pub RefCell<HashMap<(String, String), Vec<Value>>>,
    pub RefCell<HashMap<(String, String), Value>>,
);

impl Transport for Recorder {
    fn post(&self, message: &WorkerMessage) {
        let mut value: Value = serde_json::from_str(&message.to_json()).unwrap();
        if value["type"] == "modelCall" {
            let key = (
                value["runId"].as_str().unwrap().to_string(),
                value["backend"].as_str().unwrap().to_string(),
            );
            let keep = value["keep"].as_u64().unwrap_or(0) as usize;
            let mut prompts = self.1.borrow_mut();
            let before = prompts.entry(key.clone()).or_default();
            assert!(keep <= before.len(), "keep {keep} of a prompt of {}: {value}", before.len());
            let whole = rebuilt(before, &value);
            *before = whole;
            value["request"]["messages"] = Value::Array(before.clone());
            let mut schemas = self.2.borrow_mut();
            let schema = schemas.entry(key).or_default();
            if value["sameSchema"] == true {
                assert!(!schema.is_null(), "sameSchema with no schema kept: {value}");
                value["request"]["schema"] = schema.clone();
            } else {
                *schema = value["request"]["schema"].clone();
            }
        }
        self.0.borrow_mut().push(value);
    }
}

/// A `modelCall`'s whole prompt as the page rebuilds it (`js/agent.js`) from the previous call's
/// prompt `before`: its first `keep` messages, the first message carried (with an `edit`, the
/// middle of `before[keep]`), `again` messages of `before` from `keep + 1`, the rest carried.
pub fn rebuilt(before: &[Value], call: &Value) -> Vec<Value> {
    let keep = call["keep"].as_u64().unwrap_or(0) as usize;
    let again = call["again"].as_u64().unwrap_or(0) as usize;
    let skip = call["skip"].as_u64().unwrap_or(0) as usize;
    let tail = call["request"]["messages"].as_array().unwrap();
    let mut out = before[..keep].to_vec();
    if let Some(first) = tail.first() {
        let mut first = first.clone();
        if let Some(edit) = call.get("edit") {
            first["content"] = Value::from(edited(&before[keep]["content"], &first["content"], edit));
        }
        out.push(first);
        out.extend(before.iter().skip(keep + 1 + skip).take(again).cloned());
        out.extend_from_slice(&tail[1..]);
    }
    out
}

/// A message's content as the page rebuilds it from an `edit` (`js/agent.js`): the previous
/// content's first `head` and last `tail` UTF-16 units around the middle carried, and with a
/// `span`, the previous content's units `from..to` placed after the carried middle's first `at`.
pub fn edited(before: &Value, middle: &Value, edit: &Value) -> String {
    let units: Vec<u16> = before.as_str().unwrap().encode_utf16().collect();
    let (head, tail) = (edit["head"].as_u64().unwrap() as usize, edit["tail"].as_u64().unwrap() as usize);
    assert!(head + tail <= units.len(), "an edit keeps more than the message: {edit}");
    let carried: Vec<u16> = middle.as_str().unwrap().encode_utf16().collect();
    let mut out = units[..head].to_vec();
    match edit.get("span") {
        Some(span) => {
            let at = |k: &str| span[k].as_u64().unwrap() as usize;
            assert!(at("from") <= at("to") && at("to") <= units.len() && at("at") <= carried.len(), "{edit}");
            out.extend_from_slice(&carried[..at("at")]);
            out.extend_from_slice(&units[at("from")..at("to")]);
            out.extend_from_slice(&carried[at("at")..]);
        }
        None => out.extend_from_slice(&carried),
    }
    out.extend_from_slice(&units[units.len() - tail..]);
    String::from_utf16(&out).unwrap()
}

type Timer = (u64, Rc<RefCell<(bool, Option<Waker>)>>);

/// Virtual time: sleeps fire when the test advances past them. It can also move `tick` ms at
/// each reading, and end sleeps of at most `instant_up_to` ms at once.
#[derive(Default)]
pub struct VirtualClock {
    now: Cell<u64>,
    tick: u64,
    instant_up_to: Option<u64>,
    timers: RefCell<Vec<Timer>>,
}

struct Wait(Rc<RefCell<(bool, Option<Waker>)>>);

impl Future for Wait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.0.borrow_mut();
        if state.0 {
            return Poll::Ready(());
        }
        state.1 = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Clock for VirtualClock {
    fn now_ms(&self) -> u64 {
        self.now.set(self.now.get() + self.tick);
        self.now.get()
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        if self.instant_up_to.is_some_and(|limit| ms <= limit) {
            return futures_util::future::ready(()).boxed_local();
        }
        let state = Rc::new(RefCell::new((false, None)));
        self.timers.borrow_mut().push((self.now.get() + ms, state.clone()));
        Wait(state).boxed_local()
    }
}

impl VirtualClock {
    /// Time standing at `now` until the test advances it.
    pub fn at(now: u64) -> VirtualClock {
        VirtualClock { now: Cell::new(now), ..Default::default() }
    }

    /// Time that moves `tick` ms at each reading, from 0.
    pub fn ticking(tick: u64) -> VirtualClock {
        VirtualClock { tick, ..Default::default() }
    }

    /// Time standing at 1 000 whose sleeps of at most `limit` ms end at once.
    pub fn instant_up_to(limit: u64) -> VirtualClock {
        VirtualClock { instant_up_to: Some(limit), ..VirtualClock::at(1_000) }
    }

    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
        for (at, state) in self.timers.borrow().iter() {
            if *at <= self.now.get() {
                let mut state = state.borrow_mut();
                state.0 = true;
                if let Some(w) = state.1.take() {
                    w.wake();
                }
            }
        }
    }
}

/// Randomness fixed at one half.
pub struct Half;
impl Random for Half {
    fn unit(&self) -> f64 {
        0.5
    }
}

/// An OpenAI-compatible server as a script of (status, Retry-After, body).
#[derive(Default)]
pub struct Server {
    pub script: RefCell<VecDeque<(u16, Option<&'static str>, String)>>,
    pub sent: RefCell<Vec<Value>>,
}

impl Http for Server {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        self.sent.borrow_mut().push(serde_json::from_str(&request.body).unwrap());
        let (status, retry_after, body) = self.script.borrow_mut().pop_front().expect("scripted");
        let headers = retry_after.map(|v| ("retry-after".to_string(), v.to_string())).into_iter().collect();
        futures_util::future::ready(Ok(HttpResponse { status, headers, body })).boxed_local()
    }
}

pub struct Worker {
    pub pool: LocalPool,
    pub host: Rc<WorkerHost>,
    pub posted: Rc<Recorder>,
    pub clock: Rc<VirtualClock>,
    /// The worker's HTTP once [`Worker::serving`] installed it.
    pub server: Rc<Server>,
    pub seen: usize,
    pub next_query: u64,
}

impl Worker {
    /// A worker whose time stands at 1 000 until advanced.
    pub fn new() -> Worker {
        Worker::with(VirtualClock::at(1_000))
    }

    pub fn with(clock: VirtualClock) -> Worker {
        let pool = LocalPool::new();
        let spawner = pool.spawner();
        let posted = Rc::new(Recorder::default());
        let clock = Rc::new(clock);
        let spawn = Rc::new(move |f: LocalBoxFuture<'static, ()>| spawner.spawn_local(f).unwrap());
        let host = WorkerHost::new(posted.clone(), clock.clone(), Rc::new(Half), spawn);
        Worker { pool, host, posted, clock, server: Rc::default(), seen: 0, next_query: 1 }
    }

    /// Answers the worker's HTTP requests from `script`.
    pub fn serving(self, script: Vec<(u16, Option<&'static str>, String)>) -> Worker {
        *self.server.script.borrow_mut() = script.into();
        self.host.set_http(self.server.clone());
        self
    }

    /// A worker initialised with `config` and a `get_weather` tool timing out after 300 ms.
    pub fn ready(config: Value) -> Worker {
        let mut w = Worker::new();
        w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": config, "tools": [
            {"name": "get_weather", "description": "Weather.", "timeoutMs": 300,
             "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}));
        assert_eq!(w.next()["type"], "ready");
        w
    }

    /// Sends JSON text as it is (lone surrogate escapes, nesting no `Value` can hold).
    pub fn send_text(&mut self, text: &str) -> Control {
        let control = self.host.handle(text);
        self.pool.run_until_stalled();
        control
    }

    pub fn send(&mut self, message: Value) -> Control {
        let control = self.host.handle(&message.to_string());
        self.pool.run_until_stalled();
        control
    }

    /// The next posted message that is not an `event`.
    pub fn next(&mut self) -> Value {
        let posted = self.posted.0.borrow();
        let found = posted[self.seen..].iter().position(|m| m["type"] != "event");
        let index = self.seen + found.unwrap_or_else(|| panic!("nothing more posted after {}", self.seen));
        self.seen = index + 1;
        posted[index].clone()
    }

    pub fn nothing_more(&self) -> bool {
        self.posted.0.borrow()[self.seen..].iter().all(|m| m["type"] == "event")
    }

    /// The last posted message.
    pub fn last(&self) -> Value {
        self.posted.0.borrow().last().cloned().unwrap()
    }

    /// The last posted message of type `kind`.
    pub fn last_of(&self, kind: &str) -> Value {
        let posted = self.posted.0.borrow();
        posted
            .iter()
            .rev()
            .find(|m| m["type"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind}: {posted:?}"))
    }

    /// How many messages of type `kind` were posted.
    pub fn count(&self, kind: &str) -> usize {
        self.posted.0.borrow().iter().filter(|m| m["type"] == kind).count()
    }

    /// Every event posted.
    pub fn events(&self) -> Vec<Value> {
        self.posted.0.borrow().iter().filter(|m| m["type"] == "event").map(|m| m["event"].clone()).collect()
    }

    /// The events posted for run `run_id`.
    pub fn events_of(&self, run_id: &str) -> Vec<Value> {
        let posted = self.posted.0.borrow();
        posted
            .iter()
            .filter(|m| m["type"] == "event" && m["runId"] == run_id)
            .map(|m| m["event"].clone())
            .collect()
    }

    pub fn answer_model(&mut self, id: &Value, text: Value) {
        self.send(json!({"type": "modelResult", "id": id, "ok": true, "text": text.to_string()}));
    }

    /// Answers the next message, a `modelCall`, with `step` (a string as is, else as JSON).
    pub fn model(&mut self, step: Value) {
        let call = self.next();
        assert_eq!(call["type"], "modelCall", "{call}");
        let text = if step.is_string() { step.as_str().unwrap().to_string() } else { step.to_string() };
        self.send(json!({"type": "modelResult", "id": call["id"], "ok": true, "text": text}));
    }

    /// Answers the next message, a `toolCall`, with `reply`.
    pub fn tool(&mut self, reply: Value) {
        let call = self.next();
        assert_eq!(call["type"], "toolCall", "{call}");
        let mut reply = reply;
        reply["type"] = json!("toolResult");
        reply["id"] = call["id"].clone();
        self.send(reply);
    }

    /// Sends a query and returns its `queryResult`.
    pub fn query(&mut self, query: Value) -> Value {
        let id = self.next_query;
        self.next_query += 1;
        self.send(json!({"type": "query", "id": id, "query": query}));
        let result = self.next();
        assert_eq!(
            (result["type"].as_str(), result["id"].as_u64()),
            (Some("queryResult"), Some(id)),
            "{result}"
        );
        result
    }

    /// A query's value, which must have succeeded.
    pub fn value(&mut self, query: Value) -> Value {
        let result = self.query(query);
        assert_eq!(result["ok"], true, "{result}");
        result["value"].clone()
    }
}

/// A step calling `get_weather` for `city`.
pub fn act(city: &str) -> Value {
    json!({"thought": "look it up", "action": {"tool": "get_weather", "args": {"city": city}}})
}

/// A final step answering `answer`.
pub fn done(answer: &str) -> Value {
    json!({"thought": "done", "final_answer": answer})
}
