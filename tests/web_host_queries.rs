#![cfg(not(target_arch = "wasm32"))]
//! The failure log from the page, natively: `query` messages answered with `queryResult` from the
//! store the agent wrote to (the memory store here; the browser's IndexedDB answers the same
//! queries in the end-to-end test). Lists by session and code, stats with a recovery rate, the
//! export of a run and of a session, clearing a session, retention, and the failure replies.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_executor::LocalPool;
use futures_util::future::{self, LocalBoxFuture};
use futures_util::task::LocalSpawnExt;
use futures_util::FutureExt;
use keel::engine::{Clock, Random};
use keel::web::host::WorkerHost;
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

/// Time that moves 10 ms at each reading; sleeps never end (no retries are scripted).
#[derive(Default)]
struct Ticking(Cell<u64>);

impl Clock for Ticking {
    fn now_ms(&self) -> u64 {
        self.0.set(self.0.get() + 10);
        self.0.get()
    }
    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        future::pending().boxed_local()
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
    seen: usize,
    next_query: u64,
}

impl Worker {
    fn new() -> Worker {
        let pool = LocalPool::new();
        let spawner = pool.spawner();
        let posted = Rc::new(Recorder::default());
        let spawn = Rc::new(move |f: LocalBoxFuture<'static, ()>| spawner.spawn_local(f).unwrap());
        let host = WorkerHost::new(posted.clone(), Rc::new(Ticking::default()), Rc::new(Half), spawn);
        Worker { pool, host, posted, seen: 0, next_query: 1 }
    }

    fn send(&mut self, message: Value) {
        self.host.handle(&message.to_string());
        self.pool.run_until_stalled();
    }

    /// The next posted message that is not an `event`.
    fn next(&mut self) -> Value {
        let posted = self.posted.0.borrow();
        let found = posted[self.seen..].iter().position(|m| m["type"] != "event");
        let index = self.seen + found.unwrap_or_else(|| panic!("nothing more posted after {}", self.seen));
        self.seen = index + 1;
        posted[index].clone()
    }

    fn model(&mut self, step: Value) {
        let call = self.next();
        assert_eq!(call["type"], "modelCall", "{call}");
        let text = if step.is_string() { step.as_str().unwrap().to_string() } else { step.to_string() };
        self.send(json!({"type": "modelResult", "id": call["id"], "ok": true, "text": text}));
    }

    fn tool(&mut self, reply: Value) {
        let call = self.next();
        assert_eq!(call["type"], "toolCall", "{call}");
        let mut reply = reply;
        reply["type"] = json!("toolResult");
        reply["id"] = call["id"].clone();
        self.send(reply);
    }

    /// Sends a query and returns its `queryResult`.
    fn query(&mut self, query: Value) -> Value {
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
    fn value(&mut self, query: Value) -> Value {
        let result = self.query(query);
        assert_eq!(result["ok"], true, "{result}");
        result["value"].clone()
    }
}

fn act(city: &str) -> Value {
    json!({"thought": "look it up", "action": {"tool": "get_weather", "args": {"city": city}}})
}

fn done(answer: &str) -> Value {
    json!({"thought": "done", "final_answer": answer})
}

/// A worker that ran two runs: `r1` in session `s` (a 503 from the tool, then a success for another city), `r2` in
/// session `t` (an unreadable model reply, then an answer).
fn worker_with_failures() -> Worker {
    let mut w = Worker::new();
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"retry": {"maxAttempts": 1}},
                  "tools": [{"name": "get_weather", "description": "Weather.",
                             "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}));
    assert_eq!(w.next()["type"], "ready");
    w.send(json!({"type": "run", "runId": "r1", "task": "Weather in Paris?", "session": "s"}));
    w.model(act("Paris"));
    w.tool(json!({"ok": false, "error": {"message": "Service Unavailable", "status": 503}}));
    w.model(act("Lyon"));
    w.tool(json!({"ok": true, "value": {"temp": 21}}));
    w.model(done("21 °C"));
    assert_eq!(w.next()["type"], "runEnded");
    w.send(json!({"type": "run", "runId": "r2", "task": "Hi", "session": "t"}));
    w.model(json!("this is not a step"));
    w.model(done("hello"));
    assert_eq!(w.next()["type"], "runEnded");
    w
}

#[test]
fn the_page_lists_failures_by_session_tool_and_code() {
    let mut w = worker_with_failures();
    let s = w.value(json!({"kind": "failures", "session": "s"}));
    assert_eq!(s.as_array().unwrap().len(), 1, "{s}");
    assert_eq!((s[0]["runId"].as_str(), s[0]["tool"].as_str()), (Some("r1"), Some("get_weather")));
    assert_eq!(s[0]["code"], "UNAVAILABLE");
    let by_tool = w.value(json!({"kind": "failures", "tool": "get_weather"}));
    assert_eq!(by_tool, s);
    let invalid = w.value(json!({"kind": "failures", "code": "INVALID_OUTPUT"}));
    assert_eq!((invalid[0]["session"].as_str(), invalid[0]["tool"].is_null()), (Some("t"), true));
    let all = w.value(json!({"kind": "failures"}));
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert!(all[0]["atMs"].as_u64() > all[1]["atMs"].as_u64(), "newest first: {all}");
    let oldest = w.value(json!({"kind": "failures", "order": "oldest", "limit": 1}));
    assert_eq!(oldest[0], all[1]);
    let later = all[0]["atMs"].as_u64().unwrap();
    assert_eq!(w.value(json!({"kind": "failures", "since": later})).as_array().unwrap().len(), 1);
    assert_eq!(w.value(json!({"kind": "failures", "until": later})).as_array().unwrap().len(), 1);
}

#[test]
fn stats_give_faults_and_the_recovery_rate_by_tool_and_code() {
    let mut w = worker_with_failures();
    let stats = w.value(json!({"kind": "stats"}));
    assert_eq!(stats["totals"]["faults"], 2, "{stats}");
    assert_eq!(stats["byTool"]["get_weather"]["faults"], 1);
    assert_eq!(stats["byTool"]["(none)"]["faults"], 1);
    assert_eq!(stats["byCode"]["UNAVAILABLE"]["faults"], 1);
    assert_eq!(stats["byCode"]["INVALID_OUTPUT"]["faults"], 1);
    let rate = stats["totals"]["recoveryRate"].as_f64().unwrap();
    let recovered = stats["totals"]["recovered"].as_f64().unwrap();
    assert_eq!(rate, recovered / 2.0);
    let one = w.value(json!({"kind": "stats", "session": "s", "limit": 0}));
    assert_eq!(one["totals"]["faults"], 1, "the limit is ignored: {one}");
}

#[test]
fn a_run_and_a_session_export_with_their_turns_and_a_cleared_session_is_empty() {
    let mut w = worker_with_failures();
    let run = w.value(json!({"kind": "exportRun", "runId": "r1"}));
    assert_eq!(run["runs"][0]["id"], "r1");
    let steps: Vec<_> = run["turns"].as_array().unwrap().iter().map(|t| t["turn"]["step"].clone()).collect();
    assert_eq!(steps, [json!(1), json!(2), json!(3)], "{run}");
    assert_eq!(run["failures"].as_array().unwrap().len(), 1);
    let otlp = w.value(json!({"kind": "exportRunOtlp", "runId": "r1"}));
    let spans = otlp["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap();
    assert_eq!(spans[0]["name"], "run", "{otlp}");
    assert_eq!(spans.iter().filter(|s| s["name"].as_str().unwrap().starts_with("step")).count(), 3);
    let session = w.value(json!({"kind": "exportSession", "session": "s"}));
    assert_eq!(
        (session["session"]["id"].as_str(), session["session"]["runs"].as_u64()),
        (Some("s"), Some(1))
    );
    assert_eq!(session["turns"], run["turns"]);

    let cleared = w.value(json!({"kind": "clearSession", "session": "s"}));
    assert_eq!(cleared, json!({"runs": 1, "turns": 3, "failures": 1}));
    assert_eq!(w.value(json!({"kind": "failures", "session": "s"})), json!([]));
    let empty = w.value(json!({"kind": "exportSession", "session": "s"}));
    assert_eq!((empty["session"].is_null(), empty["runs"].clone()), (true, json!([])));
    assert_eq!(w.value(json!({"kind": "failures", "session": "t"})).as_array().unwrap().len(), 1);
    assert_eq!(w.value(json!({"kind": "applyRetention"})), json!({"runs": 0, "turns": 0, "failures": 0}));
}

#[test]
fn a_query_before_init_or_unreadable_is_answered_with_a_structured_failure() {
    let mut w = Worker::new();
    let early = w.query(json!({"kind": "failures"}));
    assert_eq!(
        (early["ok"].as_bool(), early["error"]["code"].as_str()),
        (Some(false), Some("PROTOCOL_ERROR"))
    );
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.next()["type"], "ready");
    let bad = w.query(json!({"kind": "everything"}));
    assert_eq!((bad["ok"].as_bool(), bad["error"]["code"].as_str()), (Some(false), Some("PROTOCOL_ERROR")));
    assert!(bad["error"]["message"].as_str().unwrap().contains("`query`"), "{bad}");
    let bad = w.query(json!({"kind": "failures", "limit": "ten"}));
    assert_eq!(bad["ok"], false);
    assert_eq!(w.value(json!({"kind": "failures"})), json!([]));
}
