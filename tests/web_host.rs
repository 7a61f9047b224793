#![cfg(not(target_arch = "wasm32"))]
//! The worker host driven natively: messages in as JSON, posted messages recorded, time virtual.
//! Covers init, a run with a tool retry, timeouts and cancellation reaching the page as aborts,
//! the per-session queue, malformed messages and dispose, and `init`'s answer leaving at once.

mod worker_harness;

use std::cell::RefCell;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use keel::web::host::{Control, WorkerHost};
use keel::web::protocol::WorkerMessage;
use keel::web::rpc::Transport;
use serde_json::{json, Value};
use worker_harness::{act, done, Half, VirtualClock, Worker};

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
                           "args": {"city": "Paris"}, "attempt": 1, "timeoutMs": 300,
                           "idempotencyKey": "r1:1"})
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
    let kinds: Vec<_> = w.events_of("r1").iter().map(|e| e["type"].as_str().unwrap().to_string()).collect();
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
    let mut w = Worker::ready(json!({"toolChoice": "auto"}));
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
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"maxSteps": 0}}));
    let failed = w.next();
    assert_eq!(
        failed["error"]["code"], "INVALID_CONFIG",
        "a setting out of range is a config error: {failed}"
    );
    assert!(failed["error"]["message"].as_str().unwrap().contains("`maxSteps`"));
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.next()["type"], "ready");
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.next()["type"], "initFailed");
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    assert_eq!(w.next()["type"], "modelCall");
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    assert_eq!(w.next()["error"]["code"], "DUPLICATE_RUN_ID");
    // Resuming (or abandoning) a run this worker is still running is refused: it was not cut off.
    for mode in ["continue", "abandon"] {
        w.send(json!({"type": "run", "runId": "r", "task": "", "resume": mode}));
        let refused = w.next();
        assert_eq!((refused["type"].as_str(), refused["runId"].as_str()), (Some("runFailed"), Some("r")));
        assert_eq!(
            (refused["error"]["name"].as_str(), refused["error"]["code"].as_str()),
            (None, Some("RUN_LIVE"))
        );
        assert!(refused["error"]["message"].as_str().unwrap().contains("still under way in this agent"));
    }
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

#[test]
fn a_warmed_worker_keeps_nothing_and_builds_its_agent_on_init() {
    let mut w = Worker::new();
    w.send(json!({"type": "warm"}));
    assert_eq!(w.next(), json!({"type": "warmed"}));
    // The warm-up built no agent: a run before `init` fails as on any fresh worker.
    w.send(json!({"type": "run", "runId": "r0", "task": "t"}));
    let failed = w.next();
    assert_eq!((failed["type"].as_str(), failed["runId"].as_str()), (Some("runFailed"), Some("r0")));
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"store": "memory"}, "tools": [
        {"name": "get_weather", "description": "Weather.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}));
    assert_eq!(w.next()["type"], "ready");
    w.send(json!({"type": "run", "runId": "r1", "task": "Weather in Oslo?"}));
    let call = w.next();
    let tools = call["request"]["schema"].to_string();
    assert!(tools.contains("get_weather") && !tools.contains("warm_up"), "only the agent's tools: {tools}");
    w.answer_model(&call["id"], act("Oslo"));
    let tool = w.next();
    assert_eq!((tool["type"].as_str(), tool["tool"].as_str()), (Some("toolCall"), Some("get_weather")));
    w.send(json!({"type": "toolResult", "id": tool["id"], "ok": true, "value": {"temp": 3}}));
    let call = w.next();
    w.answer_model(&call["id"], done("3 °C"));
    assert_eq!(w.last_of("runEnded")["result"]["answer"], "3 °C");
}

/// A transport that holds what is posted until it is flushed, as the browser's outbox does until
/// the end of the turn (src/web/worker.rs): `held`, then `sent`.
#[derive(Default)]
struct Batching {
    held: RefCell<Vec<Value>>,
    sent: RefCell<Vec<Value>>,
}

impl Transport for Batching {
    fn post(&self, message: &WorkerMessage) {
        self.held.borrow_mut().push(serde_json::from_str(&message.to_json()).unwrap());
    }

    fn flush(&self) {
        let held = std::mem::take(&mut *self.held.borrow_mut());
        self.sent.borrow_mut().extend(held);
    }
}

#[test]
fn init_answers_the_page_before_the_work_it_spawned_runs() {
    let transport = Rc::new(Batching::default());
    // Spawned work never runs here: what `init` answers must be on its way when `handle` returns,
    // not wait for the end of the turn, where the work `init` spawned (the database's open) runs first.
    let spawn = Rc::new(|_: LocalBoxFuture<'static, ()>| {});
    let host = WorkerHost::new(transport.clone(), Rc::new(VirtualClock::at(1_000)), Rc::new(Half), spawn);
    let init = json!({"type": "init", "model": {"kind": "custom"}, "config": {}, "tools": []});
    assert_eq!(host.handle(&init.to_string()), Control::Continue);
    let sent: Vec<_> = transport.sent.borrow().iter().map(|m| m["type"].clone()).collect();
    assert_eq!(sent, [json!("ready")]);
    assert!(transport.held.borrow().is_empty());
}
