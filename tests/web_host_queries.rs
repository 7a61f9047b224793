#![cfg(not(target_arch = "wasm32"))]
//! The failure log from the page, natively: `query` messages answered with `queryResult` from the
//! store the agent wrote to (the memory store here; the browser's IndexedDB answers the same
//! queries in the end-to-end test). Lists by session and code, stats with a recovery rate, the
//! export of a run and of a session, clearing a session, retention, and the failure replies.

mod worker_harness;

use serde_json::json;
use worker_harness::{act, done, VirtualClock, Worker};

/// A worker that ran two runs: `r1` in session `s` (a 503 from the tool, then a success for another city), `r2` in
/// session `t` (an unreadable model reply, then an answer).
fn worker_with_failures() -> Worker {
    let mut w = Worker::with(VirtualClock::ticking(10));
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"retry": {"maxAttempts": 1}, "toolChoice": "auto"},
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
fn a_run_and_a_session_export_with_their_turns_the_history_and_a_cleared_session_is_empty() {
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
    let history = w.value(json!({"kind": "history", "session": "s"}));
    let exchange = &history[0];
    assert_eq!(history.as_array().unwrap().len(), 1, "{history}");
    assert_eq!(
        (&exchange["runId"], &exchange["task"], &exchange["answer"], &exchange["status"], &exchange["steps"]),
        (&json!("r1"), &json!("Weather in Paris?"), &json!("21 °C"), &json!("succeeded"), &json!(3)),
        "{history}"
    );
    assert!(exchange["endedMs"].as_u64() > exchange["startedMs"].as_u64(), "{history}");

    let cleared = w.value(json!({"kind": "clearSession", "session": "s"}));
    assert_eq!(cleared, json!({"runs": 1, "turns": 3, "failures": 1}));
    assert_eq!(w.value(json!({"kind": "failures", "session": "s"})), json!([]));
    let empty = w.value(json!({"kind": "exportSession", "session": "s"}));
    assert_eq!((empty["session"].is_null(), empty["runs"].clone()), (true, json!([])));
    assert_eq!(w.value(json!({"kind": "history", "session": "s"})), json!([]));
    assert_eq!(w.value(json!({"kind": "history", "session": "t"}))[0]["task"], "Hi");
    assert_eq!(w.value(json!({"kind": "failures", "session": "t"})).as_array().unwrap().len(), 1);
    assert_eq!(w.value(json!({"kind": "applyRetention"})), json!({"runs": 0, "turns": 0, "failures": 0}));
}

#[test]
fn a_query_before_init_or_unreadable_is_answered_with_a_structured_failure() {
    let mut w = Worker::with(VirtualClock::ticking(10));
    let early = w.query(json!({"kind": "failures"}));
    assert_eq!(
        (early["ok"].as_bool(), early["error"]["code"].as_str()),
        (Some(false), Some("PROTOCOL_ERROR"))
    );
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.next()["type"], "ready");
    let bad = w.query(json!({"kind": "everything"}));
    assert_eq!((bad["ok"].as_bool(), bad["error"]["code"].as_str()), (Some(false), Some("INVALID_CONFIG")));
    assert!(bad["error"]["message"].as_str().unwrap().contains("unknown variant `everything`"), "{bad}");
    let bad = w.query(json!({"kind": "failures", "limit": "ten"}));
    assert_eq!(bad["ok"], false);
    assert_eq!(w.value(json!({"kind": "failures"})), json!([]));
}
