#![cfg(not(target_arch = "wasm32"))]
//! Human approval through the worker host, natively: a call of a `needsApproval` tool waits until
//! the page's `decide`; `pendingApprovals` lists it; a `perCall` tool asks the page's function;
//! a decision nothing waits on is refused with `APPROVAL_NOT_PENDING`.

mod worker_harness;

use serde_json::{json, Value};
use worker_harness::{done, Worker};

/// A worker with `send_email` (always approved first) and `pay` (the page decides per call).
fn worker() -> Worker {
    let mut w = Worker::new();
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"store": "memory"}, "tools": [
        {"name": "send_email", "description": "Send an email.", "needsApproval": true,
         "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}}},
        {"name": "pay", "description": "Pay.", "needsApproval": "perCall"}]}));
    assert_eq!(w.next()["type"], "ready");
    w
}

fn call(tool: &str, args: Value) -> Value {
    json!({"thought": format!("call {tool}"), "action": {"tool": tool, "args": args}})
}

fn decide(w: &mut Worker, id: u64, call_id: &str, approved: bool) -> Value {
    w.send(json!({"type": "decide", "id": id, "callId": call_id, "approved": approved, "reason": "not now"}));
    let answer = w.next();
    assert_eq!((answer["type"].as_str(), answer["id"].as_u64()), (Some("decided"), Some(id)), "{answer}");
    answer
}

fn pending(w: &mut Worker, id: u64) -> Value {
    w.send(json!({"type": "pendingApprovals", "id": id}));
    let answer = w.next();
    assert_eq!(
        (answer["type"].as_str(), answer["id"].as_u64()),
        (Some("pendingApprovals"), Some(id)),
        "{answer}"
    );
    answer["approvals"].clone()
}

#[test]
fn a_waiting_call_is_listed_decided_by_the_page_and_then_runs() {
    let mut w = worker();
    w.send(json!({"type": "run", "runId": "r1", "task": "Email Ann", "session": "s"}));
    w.model(call("send_email", json!({"to": "ann"})));
    assert!(w.nothing_more(), "no toolCall before the decision");
    let asked = w.events_of("r1").into_iter().find(|e| e["type"] == "approvalRequested").expect("asked");
    assert_eq!(
        asked,
        json!({"type": "approvalRequested", "step": 1, "callId": "r1:1", "tool": "send_email",
               "args": {"to": "ann"}, "thought": "call send_email"})
    );
    let listed = pending(&mut w, 1);
    assert_eq!(
        (listed[0]["callId"].as_str(), listed[0]["live"].as_bool()),
        (Some("r1:1"), Some(true)),
        "{listed}"
    );
    assert_eq!(listed[0]["task"], "Email Ann");

    let refused = decide(&mut w, 2, "r1:7", true);
    assert_eq!(refused["error"]["code"], "APPROVAL_NOT_PENDING", "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("r1:7"));
    let accepted = decide(&mut w, 3, "r1:1", true);
    assert!(accepted.get("error").is_none(), "{accepted}");
    w.tool(json!({"ok": true, "value": "sent"}));
    w.model(done("Sent."));
    assert_eq!(w.next()["type"], "runEnded");
    assert_eq!(pending(&mut w, 4), json!([]));
    assert_eq!(decide(&mut w, 5, "r1:1", true)["error"]["code"], "APPROVAL_NOT_PENDING");
}

#[test]
fn a_rejected_call_never_reaches_the_page_and_the_model_hears_why() {
    let mut w = worker();
    w.send(json!({"type": "run", "runId": "r1", "task": "Email Ann"}));
    w.model(call("send_email", json!({"to": "ann"})));
    decide(&mut w, 1, "r1:1", false);
    let next = w.next();
    assert_eq!(next["type"], "modelCall", "the tool was not called: {next}");
    let prompt = next["request"]["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(
        prompt.contains("APPROVAL_REJECTED") && prompt.contains("not now") && prompt.contains("pay"),
        "{prompt}"
    );
    assert_eq!(w.count("toolCall"), 0);
}

#[test]
fn a_per_call_tool_asks_the_page_whether_this_call_needs_approval() {
    let mut w = worker();
    w.send(json!({"type": "run", "runId": "r1", "task": "Pay"}));
    w.model(call("pay", json!({"amount": 5})));
    let ask = w.next();
    assert_eq!(
        ask,
        json!({"type": "needsApproval", "id": ask["id"], "runId": "r1", "tool": "pay", "args": {"amount": 5}})
    );
    w.send(json!({"type": "needsApprovalResult", "id": ask["id"], "ok": true, "needsApproval": false}));
    w.tool(json!({"ok": true, "value": "paid"}));
    w.model(call("pay", json!({"amount": 500})));
    let ask = w.next();
    w.send(json!({"type": "needsApprovalResult", "id": ask["id"], "ok": true, "needsApproval": true}));
    assert!(w.nothing_more(), "the large payment waits");
    assert!(w.events_of("r1").iter().any(|e| e["type"] == "approvalRequested" && e["callId"] == "r1:2"));
    w.send(json!({"type": "cancel", "runId": "r1"}));
    let ended = w.next();
    assert_eq!(ended["result"]["reason"]["kind"], "cancelled");
    assert_eq!(w.count("toolCall"), 1);
}

#[test]
fn a_decision_goes_with_resume_continue_only() {
    let mut w = worker();
    w.send(json!({"type": "run", "runId": "r1", "task": "t",
                  "decision": {"callId": "r1:1", "approved": true}}));
    let failed = w.next();
    assert_eq!(
        (failed["type"].as_str(), failed["error"]["code"].as_str()),
        (Some("runFailed"), Some("PROTOCOL_ERROR"))
    );
}

#[test]
fn an_unreadable_decide_or_listing_is_answered_with_its_failure() {
    let mut w = worker();
    w.send(json!({"type": "decide", "id": 6, "approved": "yes"}));
    let answer = w.next();
    assert_eq!((answer["type"].as_str(), answer["id"].as_u64()), (Some("decided"), Some(6)), "{answer}");
    assert_eq!(answer["error"]["code"], "PROTOCOL_ERROR");
    w.send(json!({"type": "pendingApprovals", "id": "seven"}));
    let answer = w.next();
    assert_eq!(answer["type"], "error", "an id that is not a number cannot be answered: {answer}");
}
