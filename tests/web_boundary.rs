#![cfg(not(target_arch = "wasm32"))]
//! The page→worker boundary under bad input: every request gets its answer at once, a tool whose
//! reply cannot be read is not run again, text is made valid Unicode with a warning, and numbers
//! no field can hold are clamped.

mod worker_harness;

use serde_json::{json, Value};
use worker_harness::{act, done, Worker};

/// A run `r1` that has reached its first tool call; returns the call.
fn at_tool_call(w: &mut Worker) -> Value {
    w.send(json!({"type": "run", "runId": "r1", "task": "Weather in Oslo?"}));
    w.model(act("Oslo"));
    let call = w.next();
    assert_eq!(call["type"], "toolCall", "{call}");
    call
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn a_lone_surrogate_in_the_task_is_replaced_and_said_in_a_warning() {
    let mut w = Worker::ready(json!({}));
    w.send_text(r#"{"type":"run","runId":"r1","task":"summarise: \ud83d\ude00\ud83d"}"#);
    let call = w.next();
    assert_eq!(call["type"], "modelCall", "the run starts: {call}");
    let prompt = call["request"]["messages"].to_string();
    assert!(prompt.contains("summarise: \u{1F600}\u{FFFD}"), "{prompt}");
    let warning = &w.events_of("r1")[0];
    assert_eq!(warning["type"], "warning");
    assert!(warning["message"].as_str().unwrap().contains("lone UTF-16 surrogate"), "{warning}");
}

#[test]
fn a_tool_result_with_a_lone_surrogate_is_read_once_with_a_warning() {
    let mut w = Worker::ready(json!({}));
    let call = at_tool_call(&mut w);
    let id = &call["id"];
    w.send_text(&format!(r#"{{"type":"toolResult","id":{id},"ok":true,"value":{{"note":"cut \udc00"}}}}"#));
    let next = w.next();
    assert_eq!(next["type"], "modelCall", "the run goes on: {next}");
    assert!(next["request"]["messages"].to_string().contains("cut \u{FFFD}"));
    assert_eq!(w.count("toolCall"), 1);
    let warned = w.events_of("r1").iter().any(|e| {
        e["type"] == "warning" && e["message"].as_str().unwrap().starts_with("the tool's reply held")
    });
    assert!(warned, "{:?}", w.events_of("r1"));
}

#[test]
fn an_unreadable_tool_result_fails_the_call_at_once_and_the_tool_is_not_run_again() {
    let mut w = Worker::ready(json!({}));
    let call = at_tool_call(&mut w);
    let deep = nested(200);
    w.send_text(&format!(r#"{{"type":"toolResult","id":{},"ok":true,"value":{deep}}}"#, call["id"]));
    let next = w.next();
    assert_eq!(next["type"], "modelCall", "no timeout, no retry: {next}");
    assert_eq!((w.count("toolCall"), w.count("toolAbort")), (1, 0));
    let failure = w.events_of("r1").into_iter().find(|e| e["type"] == "failure").expect("a failure event");
    assert_eq!(
        (failure["code"].as_str(), failure["class"].as_str()),
        (Some("PROTOCOL_ERROR"), Some("persistent"))
    );
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("the tool ran, but its reply could not be read"), "{message}");
    assert!(message.contains("recursion limit") && message.contains("not run again"), "{message}");
    w.answer_model(&next["id"], done("no data"));
    assert_eq!(w.next()["type"], "runEnded");
}

#[test]
fn a_retry_after_no_field_can_hold_is_clamped_and_handed_to_the_model() {
    for error in [
        json!({"message": "slow down", "status": 429, "retryAfterMs": 1e300}),
        json!({"message": "slow down", "status": 429, "retryAfterMs": 99_999_999_999_999_999_999.0_f64}),
    ] {
        let mut w = Worker::ready(json!({}));
        let call = at_tool_call(&mut w);
        w.send(json!({"type": "toolResult", "id": call["id"], "ok": false, "error": error}));
        let next = w.next();
        assert_eq!(next["type"], "modelCall", "not waited out, not retried: {next}");
        assert_eq!(w.count("toolCall"), 1);
        let failure = w.events_of("r1").into_iter().find(|e| e["type"] == "failure").unwrap();
        assert_eq!(failure["code"], "RATE_LIMITED", "{failure}");
    }
    let raw: keel::errors::RawFailure =
        serde_json::from_str(r#"{"message":"m","retryAfterMs":1e300,"status":70000}"#).unwrap();
    assert_eq!((raw.retry_after_ms, raw.status), (Some(keel::errors::MAX_RETRY_AFTER_MS), None));
    let raw: keel::errors::RawFailure = serde_json::from_str(r#"{"message":"m","retryAfterMs":-5}"#).unwrap();
    assert_eq!(raw.retry_after_ms, None);
    assert_eq!(
        keel::errors::parse_retry_after("99999999999999999999", 0),
        Some(keel::errors::MAX_RETRY_AFTER_MS)
    );
}

#[test]
fn an_unreadable_model_reply_fails_the_run_at_once_saying_what_was_wrong() {
    let mut w = Worker::ready(json!({}));
    w.send(json!({"type": "run", "runId": "r1", "task": "t"}));
    let call = w.next();
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": true, "text": "x",
                  "usage": {"promptTokens": -1, "completionTokens": 3}}));
    let ended = w.next();
    assert_eq!(ended["type"], "runEnded", "{ended}");
    assert_eq!(w.count("modelCall"), 1, "not asked again");
    let said = ended["result"]["reason"]["message"].as_str().unwrap();
    assert!(said.contains("the model's reply could not be read") && said.contains("integer `-1`"), "{said}");
}

#[test]
fn every_page_request_that_cannot_be_read_gets_its_own_failed_answer() {
    let mut w = Worker::new();
    let schema = format!(r#"{{"type":"object","properties":{{"a":{}}}}}"#, nested(200));
    w.send_text(&format!(
        r#"{{"type":"init","model":{{"kind":"custom"}},"tools":[{{"name":"t","inputSchema":{schema}}}]}}"#
    ));
    let failed = w.next();
    assert_eq!(
        (failed["type"].as_str(), failed["error"]["code"].as_str()),
        (Some("initFailed"), Some("PROTOCOL_ERROR"))
    );
    assert!(failed["error"]["message"].as_str().unwrap().contains("recursion limit"), "{failed}");

    let mut w = Worker::ready(json!({}));
    w.send(json!({"type": "query", "id": 4, "query": {"kind": "failures", "limit": "ten"}}));
    let answer = w.next();
    assert_eq!(
        (answer["type"].as_str(), answer["id"].as_u64(), answer["ok"].as_bool()),
        (Some("queryResult"), Some(4), Some(false))
    );
    w.send_text(&format!(r#"{{"type":"unfinishedRuns","id":5,"extra":{}}}"#, nested(300)));
    let answer = w.next();
    assert_eq!((answer["type"].as_str(), answer["id"].as_u64()), (Some("unfinishedRuns"), Some(5)));
    assert_eq!(answer["error"]["code"], "PROTOCOL_ERROR");
    w.send(json!({"type": "ping", "id": 9}));
    assert_eq!(w.next(), json!({"type": "pong", "id": 9}));
}
