#![cfg(not(target_arch = "wasm32"))]
//! The worker host driven natively: messages in as JSON, posted messages recorded, time virtual.
//! Covers init, a run with a tool retry, timeouts and cancellation reaching the page as aborts,
//! the per-session queue, malformed messages and dispose.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures_executor::LocalPool;
use futures_util::future::LocalBoxFuture;
use futures_util::task::LocalSpawnExt;
use futures_util::FutureExt;
use keel::engine::{Clock, Random};
use keel::web::host::{Control, WorkerHost};
use keel::web::protocol::WorkerMessage;
use keel::web::rpc::Transport;
use serde_json::{json, Value};

#[derive(Default)]
struct Recorder(RefCell<Vec<Value>>);

impl Transport for Recorder {
    fn post(&self, message: &WorkerMessage) {
        self.0.borrow_mut().push(serde_json::from_str(&message.to_json()).unwrap());
    }
}

type Timer = (u64, Rc<RefCell<(bool, Option<Waker>)>>);

/// Virtual time: sleeps fire when the test advances past them.
#[derive(Default)]
struct VirtualClock {
    now: Cell<u64>,
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
        self.now.get()
    }
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let state = Rc::new(RefCell::new((false, None)));
        self.timers.borrow_mut().push((self.now.get() + ms, state.clone()));
        Wait(state).boxed_local()
    }
}

impl VirtualClock {
    fn advance(&self, ms: u64) {
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

struct Half;
impl Random for Half {
    fn unit(&self) -> f64 {
        0.5
    }
}

struct Worker {
    pool: LocalPool,
    host: Rc<WorkerHost>,
    posted: Rc<Recorder>,
    clock: Rc<VirtualClock>,
    seen: usize,
}

impl Worker {
    fn new() -> Worker {
        let pool = LocalPool::new();
        let spawner = pool.spawner();
        let posted = Rc::new(Recorder::default());
        let clock = Rc::new(VirtualClock { now: Cell::new(1_000), ..Default::default() });
        let spawn = Rc::new(move |f: LocalBoxFuture<'static, ()>| spawner.spawn_local(f).unwrap());
        let host = WorkerHost::new(posted.clone(), clock.clone(), Rc::new(Half), spawn);
        Worker { pool, host, posted, clock, seen: 0 }
    }

    fn ready(config: Value) -> Worker {
        let mut w = Worker::new();
        w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": config, "tools": [
            {"name": "get_weather", "description": "Weather.", "timeoutMs": 300,
             "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}));
        assert_eq!(w.next()["type"], "ready");
        w
    }

    fn send(&mut self, message: Value) -> Control {
        let control = self.host.handle(&message.to_string());
        self.pool.run_until_stalled();
        control
    }

    /// The next posted message that is not an `event`.
    fn next(&mut self) -> Value {
        let posted = self.posted.0.borrow();
        let found = posted[self.seen..].iter().position(|m| m["type"] != "event");
        let index = self.seen + found.unwrap_or_else(|| panic!("nothing more posted after {}", self.seen));
        self.seen = index + 1;
        posted[index].clone()
    }

    fn nothing_more(&self) -> bool {
        self.posted.0.borrow()[self.seen..].iter().all(|m| m["type"] == "event")
    }

    fn events(&self, run_id: &str) -> Vec<Value> {
        let posted = self.posted.0.borrow();
        posted
            .iter()
            .filter(|m| m["type"] == "event" && m["runId"] == run_id)
            .map(|m| m["event"].clone())
            .collect()
    }

    fn answer_model(&mut self, id: &Value, text: Value) {
        self.send(json!({"type": "modelResult", "id": id, "ok": true, "text": text.to_string()}));
    }
}

fn act(city: &str) -> Value {
    json!({"thought": "look it up", "action": {"tool": "get_weather", "args": {"city": city}}})
}

fn done(answer: &str) -> Value {
    json!({"thought": "done", "final_answer": answer})
}

#[test]
fn a_run_calls_the_page_for_the_model_and_tools_and_retries_a_503() {
    let mut w = Worker::ready(json!({"retry": {"baseDelayMs": 100, "jitter": 0}}));
    w.send(json!({"type": "run", "runId": "r1", "task": "Weather in Paris?", "session": "s"}));
    let call = w.next();
    assert_eq!((call["type"].as_str(), call["runId"].as_str()), (Some("modelCall"), Some("r1")));
    assert_eq!(call["request"]["messages"][0]["role"], "system");
    w.answer_model(&call["id"], act("Paris"));

    let tool = w.next();
    assert_eq!(
        tool,
        json!({"type": "toolCall", "id": tool["id"], "runId": "r1", "tool": "get_weather",
                           "args": {"city": "Paris"}, "attempt": 1, "timeoutMs": 300})
    );
    w.send(json!({"type": "toolResult", "id": tool["id"], "ok": false,
                  "error": {"message": "Service Unavailable", "status": 503}}));
    assert!(w.nothing_more(), "the retry waits for its delay");
    w.clock.advance(100);
    w.pool.run_until_stalled();
    let retry = w.next();
    assert_eq!((retry["tool"].as_str(), retry["attempt"].as_u64()), (Some("get_weather"), Some(2)));
    w.send(json!({"type": "toolResult", "id": retry["id"], "ok": true, "value": {"temp": 21}}));
    let call = w.next();
    w.answer_model(&call["id"], done("21 °C"));
    let ended = w.next();
    assert_eq!(ended["type"], "runEnded");
    assert_eq!(
        (ended["result"]["answer"].as_str(), ended["result"]["success"].as_bool()),
        (Some("21 °C"), Some(true))
    );
    let kinds: Vec<_> = w.events("r1").iter().map(|e| e["type"].as_str().unwrap().to_string()).collect();
    assert!(kinds.contains(&"retryScheduled".to_string()), "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("runEnded"));
    assert_eq!(w.host.rpc().pending_count(), 0);
}

#[test]
fn a_timeout_and_a_cancel_reach_the_page_as_aborts() {
    let mut w = Worker::ready(json!({"retry": {"maxAttempts": 1}}));
    w.send(json!({"type": "run", "runId": "r1", "task": "t"}));
    let call = w.next();
    w.answer_model(&call["id"], act("Oslo"));
    let tool = w.next();
    w.clock.advance(300);
    w.pool.run_until_stalled();
    assert_eq!(w.next(), json!({"type": "toolAbort", "id": tool["id"]}));
    // The timed-out call's late answer is ignored.
    w.send(json!({"type": "toolResult", "id": tool["id"], "ok": true, "value": 1}));
    let call = w.next();
    assert_eq!(call["type"], "modelCall");
    w.send(json!({"type": "cancel", "runId": "r1"}));
    assert_eq!(w.next(), json!({"type": "modelAbort", "id": call["id"]}));
    let ended = w.next();
    assert_eq!(ended["result"]["reason"]["kind"], "cancelled");
    // Cancelling an ended run is not an error.
    w.send(json!({"type": "cancel", "runId": "r1"}));
    assert!(w.nothing_more());
}

#[test]
fn runs_of_one_session_queue_and_other_sessions_interleave() {
    let mut w = Worker::ready(json!({}));
    w.send(json!({"type": "run", "runId": "a", "task": "first", "session": "s"}));
    w.send(json!({"type": "run", "runId": "b", "task": "second", "session": "s"}));
    w.send(json!({"type": "run", "runId": "c", "task": "other", "session": "t"}));
    let (first, other) = (w.next(), w.next());
    assert_eq!((first["runId"].as_str(), other["runId"].as_str()), (Some("a"), Some("c")));
    assert!(w.nothing_more(), "b waits for a");
    w.answer_model(&first["id"], done("the-first-answer"));
    assert_eq!(w.next()["type"], "runEnded");
    let second = w.next();
    assert_eq!((second["type"].as_str(), second["runId"].as_str()), (Some("modelCall"), Some("b")));
    // b sees a's turn in its prompt: the session's history.
    assert!(second["request"].to_string().contains("the-first-answer"));
    w.answer_model(&second["id"], done("two"));
    assert_eq!(w.next()["runId"], "b");
    w.answer_model(&other["id"], done("three"));
    assert_eq!(w.next()["runId"], "c");
}

#[test]
fn init_and_run_failures_are_structured() {
    let mut w = Worker::new();
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    let failed = w.next();
    assert_eq!(
        (failed["type"].as_str(), failed["error"]["code"].as_str()),
        (Some("runFailed"), Some("PROTOCOL_ERROR"))
    );
    w.send(json!({"type": "init", "model": {"kind": "wllama", "modelUrl": "m.gguf"}}));
    let failed = w.next();
    assert_eq!(
        (failed["type"].as_str(), failed["error"]["code"].as_str()),
        (Some("initFailed"), Some("MODEL_UNAVAILABLE"))
    );
    assert_eq!(failed["error"]["name"], "NotSupportedError");
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "tools": [{"name": "bad name!", "description": ""}]}));
    assert_eq!(w.next()["error"]["code"], "INVALID_TOOLS");
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"maxSteps": "many"}}));
    assert_eq!(w.next()["error"]["code"], "INVALID_CONFIG");
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.next()["type"], "ready");
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.next()["type"], "initFailed");
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    assert_eq!(w.next()["type"], "modelCall");
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    assert_eq!(w.next()["error"]["code"], "DUPLICATE_RUN_ID");
}

#[test]
fn malformed_messages_get_an_error_reply_and_dispose_closes() {
    let mut w = Worker::ready(json!({}));
    assert_eq!(w.send(json!({"type": "toolResult", "id": -1})), Control::Continue);
    let error = w.next();
    assert_eq!(
        (error["type"].as_str(), error["error"]["code"].as_str()),
        (Some("error"), Some("PROTOCOL_ERROR"))
    );
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    let call = w.next();
    // A model failure arrives structured and is classified: a NotAllowedError stops the run.
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": false,
                  "error": {"name": "NotAllowedError", "message": "no"}}));
    let ended = w.next();
    assert_eq!(ended["result"]["reason"]["code"], "MODEL_UNAVAILABLE");
    w.send(json!({"type": "run", "runId": "r2", "task": "t"}));
    assert_eq!(w.next()["type"], "modelCall");
    assert_eq!(w.send(json!({"type": "dispose"})), Control::Close);
    assert_eq!(w.host.rpc().pending_count(), 0);
    assert_eq!(w.send(json!({"type": "run", "runId": "r3", "task": "t"})), Control::Close);
}

#[test]
fn an_unreadable_init_or_run_is_answered_where_the_page_waits() {
    let mut w = Worker::ready(json!({}));
    w.send(json!({"type": "run", "runId": "r9", "task": 42}));
    let failed = w.next();
    assert_eq!((failed["type"].as_str(), failed["runId"].as_str()), (Some("runFailed"), Some("r9")));
    assert_eq!(failed["error"]["code"], "PROTOCOL_ERROR");
    w.send(json!({"type": "init", "tools": "not a list", "model": {"kind": "custom"}}));
    let failed = w.next();
    assert_eq!(failed["type"], "initFailed");
    assert!(failed["error"]["message"].as_str().unwrap().contains("could not read the `init` message"));
}
