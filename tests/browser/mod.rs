//! Browser tests shared by `web_window.rs` (a window) and `web_worker.rs` (a dedicated worker):
//! the clock's timers, the RPC table with a recording transport, the worker host under real
//! timers, thrown JS values read as structured failures, and the Prompt API backend (`prompt_api`).
#![allow(dead_code)]

mod prompt_api;
pub use prompt_api::*;

/// The wrappers `wasm_bindgen_test` needs in each file: one per shared test, named alike.
macro_rules! browser_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test::wasm_bindgen_test]
            async fn $name() {
                browser::$name().await;
            }
        )*
    };
}

/// Every shared test, for [`browser_tests!`].
macro_rules! all_browser_tests {
    () => {
        browser_tests!(
            sleep_resolves_after_its_delay,
            dropping_a_sleep_clears_its_timer,
            a_shorter_sleep_started_later_ends_first_and_the_longer_still_ends,
            replies_are_matched_by_id_and_a_dropped_request_posts_its_abort,
            a_hung_tool_times_out_under_real_timers_and_is_aborted,
            thrown_js_values_cross_as_structured_failures,
            fetch_failures_are_network_failures_with_where_and_why,
            prompt_api_availability_states_and_download_progress,
            prompt_api_sessions_context_accounting_and_overflow,
            prompt_api_streams_each_chunk_and_a_broken_stream_fails_classified,
            each_prompt_api_error_name_is_classified,
            a_dropped_prompt_api_call_is_aborted_and_dispose_destroys_the_sessions,
            the_worker_calls_the_prompt_api_itself_when_it_has_language_model,
        );
    };
}

use std::cell::RefCell;
use std::rc::Rc;

use futures_util::future::{join, select, Either};
use keel::engine::{Clock, ToolCall, ToolHost};
use keel::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};
use keel::web::clock::{WebClock, WebRandom};
use keel::web::host::WorkerHost;
use keel::web::js_error::raw_failure;
use keel::web::protocol::{Reply, ToolValue, WorkerMessage};
use keel::web::rpc::{PageReply, Rpc, Transport};
use keel::web::tool_host::{RpcToolHost, Timeouts};
use serde_json::{json, Value};
use wasm_bindgen::JsValue;

/// Records what would be posted to the page.
#[derive(Default)]
pub struct Recorder(pub RefCell<Vec<Value>>);

impl Transport for Recorder {
    fn post(&self, message: &WorkerMessage) {
        self.0.borrow_mut().push(serde_json::from_str(&message.to_json()).unwrap());
    }
}

fn now() -> f64 {
    js_sys::Date::now()
}

pub async fn sleep_resolves_after_its_delay() {
    let clock = WebClock::new();
    let start = now();
    clock.sleep(30).await;
    assert!(now() - start >= 25.0, "slept {} ms", now() - start);
    assert_eq!(clock.pending_timers(), 0);
}

pub async fn dropping_a_sleep_clears_its_timer() {
    let clock = WebClock::new();
    let short = clock.sleep(10);
    let long = clock.sleep(20);
    assert_eq!(clock.pending_timers(), 2);
    drop(long);
    assert_eq!(clock.pending_timers(), 1);
    // A cleared timer never fires: were it to, its dropped closure would throw in the test page.
    match select(short, clock.sleep(1_000)).await {
        Either::Left((_, slow)) => drop(slow),
        Either::Right(_) => panic!("the 10 ms sleep lost to the 1 s one"),
    }
    assert_eq!(clock.pending_timers(), 0, "the fired timer is uncounted, the dropped ones cleared");
    // Past the cleared 20 ms timer: had it fired anyway, its freed closure would have thrown.
    clock.sleep(40).await;
    assert_eq!(clock.pending_timers(), 0);
}

/// A clock's sleeps share one timer (`web/clock.rs`): a shorter sleep started after a longer one
/// sets it earlier, and the longer one, still pending when it fires, is waited for after.
pub async fn a_shorter_sleep_started_later_ends_first_and_the_longer_still_ends() {
    let clock = WebClock::new();
    let start = now();
    let long = clock.sleep(80);
    let short = clock.sleep(10);
    // Polled first, the long sleep wins only if both end at once: the timer waited for it alone.
    match select(long, short).await {
        Either::Left(_) => panic!("the 10 ms sleep ended with the 80 ms one"),
        Either::Right((_, long)) => {
            assert_eq!(clock.pending_timers(), 1);
            long.await;
        }
    }
    assert!(now() - start >= 75.0, "the 80 ms sleep ended after {} ms", now() - start);
    assert_eq!(clock.pending_timers(), 0);
}

pub async fn replies_are_matched_by_id_and_a_dropped_request_posts_its_abort() {
    let posted = Rc::new(Recorder::default());
    let rpc = Rpc::new(posted.clone());
    let host = RpcToolHost::new(rpc.clone(), "r1", Rc::new(Timeouts::new(&[], 5_000)));
    let (a, b) = (call("a"), call("b"));
    let (first, second) = (host.call(&a), host.call(&b));
    let ids: Vec<u64> = posted.0.borrow().iter().map(|m| m["id"].as_u64().unwrap()).collect();
    assert_eq!(posted.0.borrow()[1]["tool"], "b");
    assert_eq!(posted.0.borrow()[1]["timeoutMs"], 5_000);
    // Answered out of order, each reaches its own caller.
    assert!(rpc.resolve(PageReply::Tool(Reply::ok(
        ids[1],
        ToolValue { value: json!("B"), warnings: vec![], lists: false }
    ))));
    assert!(rpc.resolve(PageReply::Tool(Reply::failed(ids[0], RawFailure::http(503, "down")))));
    assert!(!rpc.resolve(PageReply::Tool(Reply::failed(999, RawFailure::message("late")))));
    let (first, second) = join(first, second).await;
    assert_eq!(first.unwrap_err().status, Some(503));
    assert_eq!(second.unwrap().value, json!("B"));
    // A request dropped while pending (a timeout, a cancel) posts its abort; an answered one does not.
    let c = call("c");
    let pending = host.call(&c);
    let id = posted.0.borrow().last().unwrap()["id"].clone();
    drop(pending);
    assert_eq!(posted.0.borrow().last().unwrap(), &json!({"type": "toolAbort", "id": id}));
    assert_eq!(posted.0.borrow().len(), 4);
    assert_eq!(rpc.pending_count(), 0);
}

fn call(tool: &str) -> ToolCall {
    ToolCall { tool: tool.into(), args: json!({}), attempt: 1, idempotency_key: format!("{tool}:1") }
}

/// Waits (on real timers) until the page side has been sent a message of `kind`.
pub async fn next(posted: &Recorder, seen: &mut usize, kind: &str) -> Value {
    for _ in 0..500 {
        let found = posted.0.borrow()[*seen..].iter().position(|m| m["type"] == kind);
        if let Some(i) = found {
            *seen += i + 1;
            return posted.0.borrow()[*seen - 1].clone();
        }
        WebClock::new().sleep(2).await;
    }
    panic!("no `{kind}` posted: {:?}", posted.0.borrow());
}

/// A worker host on the browser's real timers and event loop, posting into `posted`.
pub fn web_host(posted: &Rc<Recorder>) -> Rc<WorkerHost> {
    WorkerHost::new(
        posted.clone(),
        Rc::new(WebClock::new()),
        Rc::new(WebRandom),
        Rc::new(wasm_bindgen_futures::spawn_local),
    )
}

pub async fn a_hung_tool_times_out_under_real_timers_and_is_aborted() {
    let posted = Rc::new(Recorder::default());
    let host = web_host(&posted);
    let init = json!({"type": "init", "model": {"kind": "custom"}, "config": {"retry": {"maxAttempts": 1}},
        "tools": [{"name": "hang", "description": "Never answers.", "timeoutMs": 40}]});
    host.handle(&init.to_string());
    host.handle(&json!({"type": "run", "runId": "r", "task": "t"}).to_string());
    let mut seen = 0;
    assert_eq!(next(&posted, &mut seen, "ready").await["type"], "ready");
    let step = json!({"thought": "try", "action": {"tool": "hang", "args": {}}}).to_string();
    let model = next(&posted, &mut seen, "modelCall").await;
    host.handle(&json!({"type": "modelResult", "id": model["id"], "ok": true, "text": step}).to_string());
    let tool = next(&posted, &mut seen, "toolCall").await;
    let start = now();
    let abort = next(&posted, &mut seen, "toolAbort").await;
    assert_eq!(abort["id"], tool["id"]);
    assert!(now() - start < 1_000.0);
    let model = next(&posted, &mut seen, "modelCall").await;
    let failure = posted.0.borrow().iter().find(|m| m["event"]["type"] == "failure").cloned().unwrap();
    assert_eq!(failure["event"]["code"], "TIMEOUT");
    let last = json!({"thought": "give up", "final_answer": "It hung."}).to_string();
    host.handle(&json!({"type": "modelResult", "id": model["id"], "ok": true, "text": last}).to_string());
    let ended = next(&posted, &mut seen, "runEnded").await;
    assert_eq!(ended["result"]["failures"][0]["code"], "TIMEOUT");
}

fn thrown(js: &str) -> JsValue {
    js_sys::Function::new_no_args(&format!("return ({js});")).call0(&JsValue::NULL).unwrap()
}

pub async fn thrown_js_values_cross_as_structured_failures() {
    let tool = |raw: &RawFailure| {
        let c = classify(raw, Origin::Tool);
        (c.class, c.code)
    };
    let error = raw_failure(&thrown("Object.assign(new Error('boom'), {status: 503, retryAfter: '2'})"));
    assert_eq!(
        (error.message.as_str(), error.status, error.retry_after_ms),
        ("boom", Some(503), Some(2_000))
    );
    assert_eq!(tool(&error), (FailureClass::Transient, ErrorCode::Unavailable));

    let dom = raw_failure(&thrown("new DOMException('disk full', 'QuotaExceededError')"));
    assert_eq!((dom.name.as_deref(), dom.code.as_deref()), (Some("QuotaExceededError"), None));
    assert_eq!(classify(&dom, Origin::Model).code, ErrorCode::ContextOverflow);

    let tool_error = raw_failure(&thrown(
        "Object.assign(new Error('e5 is gone'), {name: 'ToolError', code: 'STALE_REFERENCE', \
         recovery: ['Call snapshot', 'Click the new ref'], causes: 'navigation', severity: 'error', \
         availableActions: ['snapshot'], details: {ref: 'e5', when: undefined}, expected: true, retryable: false})",
    ));
    assert_eq!(tool_error.name.as_deref(), Some("ToolError"));
    assert_eq!(tool(&tool_error), (FailureClass::Persistent, ErrorCode::StaleReference));
    let hints = &tool_error.hints;
    assert_eq!(hints.recovery.as_ref().unwrap().len(), 2);
    assert_eq!(hints.causes.as_deref(), Some(&["navigation".to_string()][..]));
    assert_eq!((hints.expected, hints.class), (Some(true), Some(FailureClass::Persistent)));
    assert_eq!(hints.details.get("ref"), Some(&json!("e5")));

    let response = raw_failure(&thrown("new Response('', {status: 429, headers: {'Retry-After': '3'}})"));
    assert_eq!((response.status, response.retry_after_ms), (Some(429), Some(3_000)));
    assert_eq!(tool(&response), (FailureClass::Transient, ErrorCode::RateLimited));
    let date = raw_failure(&thrown(
        "({status: 503, headers: {'retry-after': new Date(Date.now() + 5000).toUTCString()}})",
    ));
    assert!(date.retry_after_ms.is_some_and(|ms| (3_000..=5_000).contains(&ms)), "{date:?}");

    let fetch = raw_failure(&thrown("new TypeError('Failed to fetch')"));
    assert_eq!(tool(&fetch), (FailureClass::Transient, ErrorCode::Network));
    assert_eq!(raw_failure(&JsValue::from_str("plain")).message, "plain");
    assert!(raw_failure(&JsValue::UNDEFINED).message.contains("undefined"));
}

pub async fn fetch_failures_are_network_failures_with_where_and_why() {
    use keel::engine::{Message, Model, ModelRequest, Role};
    use keel::web::openai::{platform_http, OpenaiConfig, OpenaiModel, ResponseFormat};
    // Port 1 is refused (and on Chromium's blocked list): fetch rejects with its network TypeError.
    let config = OpenaiConfig {
        base_url: "http://127.0.0.1:1/v1".into(),
        model: "m".into(),
        api_key: None,
        response_format: ResponseFormat::JsonSchema,
        stream: true,
    };
    let model = OpenaiModel::new(config, platform_http(), Rc::new(WebClock::new()));
    let request =
        ModelRequest { messages: vec![Message::new(Role::User, "hi")], schema: None, max_tokens: 64 };
    let failure = model.complete(&request, None).await.unwrap_err();
    assert_eq!(failure.name.as_deref(), Some("TypeError"), "{failure:?}");
    assert!(failure.message.contains("http://127.0.0.1:1/v1/chat/completions"), "{}", failure.message);
    let found = classify(&failure, Origin::Model);
    assert_eq!((found.class, found.code), (FailureClass::Transient, ErrorCode::Network));
}
