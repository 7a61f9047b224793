//! A run as OTLP/JSON spans: structure, parent links, time order, status and failure events.

use keel::engine::{Action, Outcome, Turn};
use keel::errors::{ErrorCode, FailureClass};
use keel::store::otlp::run_to_otlp;
use keel::store::session::Export;
use keel::store::{EndReason, FailureRecord, RunCounts, RunRecord, RunStatus, TurnRecord};
use serde_json::{json, Value};

fn run(id: &str, status: RunStatus, reason: Option<EndReason>) -> RunRecord {
    RunRecord {
        id: id.into(),
        session: "s".into(),
        task: "find the weather".into(),
        status,
        started_ms: 1_000,
        ended_ms: Some(5_000),
        answer: None,
        reason,
        counts: RunCounts { steps: 3, model_calls: 4, tool_calls: 3, ..RunCounts::default() },
        pending_approval: None,
        intent: None,
    }
}

fn turn(run_id: &str, step: u32, at_ms: u64, tool: Option<&str>, outcome: Outcome) -> TurnRecord {
    let action = tool.map(|t| Action { tool: t.into(), args: json!({"city": "Oslo"}) });
    let turn =
        Turn { step, thought: "t".into(), action, observation: format!("obs {step}"), outcome, reply: None };
    // A step that ran a tool stores the key its call ran with.
    let idempotency_key = tool.map(|_| format!("{run_id}:{step}"));
    TurnRecord { run_id: run_id.into(), session: "s".into(), at_ms, turn, counts: None, idempotency_key }
}

fn failure(run_id: &str, step: u32, attempt: u32, recovered: bool) -> FailureRecord {
    FailureRecord {
        id: format!("{run_id}:{step}:{attempt}"),
        run_id: run_id.into(),
        session: "s".into(),
        step,
        tool: Some("weather".into()),
        args_digest: Some("abc".into()),
        class: FailureClass::Transient,
        code: ErrorCode::Timeout,
        attempt,
        message: "timed out".into(),
        retried: attempt == 1,
        recovered,
        recovery_call: None,
        idempotency_key: Some(format!("{run_id}:{step}")),
        at_ms: 1_500 + u64::from(attempt),
    }
}

/// Runs r1 (three steps: a tool call that failed twice, a tool call, the answer) and r2 (other).
fn export(status: RunStatus, reason: Option<EndReason>) -> Export {
    Export {
        session: None,
        runs: vec![run("r1", status, reason), run("r2", RunStatus::Succeeded, None)],
        turns: vec![
            turn("r1", 2, 3_000, Some("search"), Outcome::Ok),
            turn("r1", 1, 2_000, Some("weather"), Outcome::Failed),
            turn("r1", 3, 4_000, None, Outcome::Final),
            turn("r2", 1, 2_500, Some("x"), Outcome::Ok),
        ],
        failures: vec![failure("r1", 1, 1, false), failure("r1", 1, 2, false), failure("r2", 1, 1, true)],
        skipped: 0,
    }
}

fn spans(doc: &Value) -> Vec<Value> {
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap().clone()
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    let attrs = span["attributes"].as_array().unwrap();
    &attrs.iter().find(|a| a["key"] == key).unwrap_or_else(|| panic!("no attribute {key}"))["value"]
}

fn nanos(span: &Value, field: &str) -> u128 {
    span[field].as_str().unwrap().parse().unwrap()
}

#[test]
fn resource_scope_and_span_tree() {
    let doc = run_to_otlp(&export(RunStatus::Succeeded, Some(EndReason::FinalAnswer)), "r1");
    let resource = &doc["resourceSpans"][0]["resource"]["attributes"][0];
    assert_eq!(resource, &json!({"key": "service.name", "value": {"stringValue": "keel"}}));
    assert_eq!(doc["resourceSpans"][0]["scopeSpans"][0]["scope"]["name"], "keel");
    let spans = spans(&doc);
    // run + 3 steps + 2 tool calls; nothing from r2.
    assert_eq!(spans.len(), 6);
    let root = &spans[0];
    assert_eq!(root["name"], "run");
    assert!(root.get("parentSpanId").is_none());
    let trace = root["traceId"].as_str().unwrap();
    assert_eq!(trace.len(), 32);
    assert!(trace.chars().all(|c| c.is_ascii_hexdigit()));
    for span in &spans {
        assert_eq!(span["traceId"], trace);
        assert_eq!(span["spanId"].as_str().unwrap().len(), 16);
    }
    let ids: std::collections::HashSet<_> = spans.iter().map(|s| s["spanId"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), spans.len(), "span ids are unique");
    let steps: Vec<&Value> =
        spans.iter().filter(|s| s["name"].as_str().unwrap().starts_with("step")).collect();
    assert_eq!(steps.len(), 3);
    for step in &steps {
        assert_eq!(step["parentSpanId"], root["spanId"]);
    }
    let tools: Vec<&Value> =
        spans.iter().filter(|s| s["name"].as_str().unwrap().starts_with("tool")).collect();
    assert_eq!(tools.len(), 2);
    let weather = tools.iter().find(|t| t["name"] == "tool weather").unwrap();
    let step1 = steps.iter().find(|s| s["name"] == "step 1").unwrap();
    assert_eq!(weather["parentSpanId"], step1["spanId"]);
    assert_eq!(attr(weather, "keel.tool.name"), &json!({"stringValue": "weather"}));
    let digest = keel::engine::digest(&json!({"city": "Oslo"}));
    assert_eq!(attr(weather, "keel.tool.args_digest"), &json!({"stringValue": digest}));
    assert_eq!(attr(step1, "keel.step"), &json!({"intValue": "1"}));
    assert_eq!(attr(root, "keel.run.status"), &json!({"stringValue": "succeeded"}));
    // Same run, same ids.
    assert_eq!(doc, run_to_otlp(&export(RunStatus::Succeeded, Some(EndReason::FinalAnswer)), "r1"));
    assert_ne!(spans[0]["traceId"], spans_of_r2()[0]["traceId"]);
}

fn spans_of_r2() -> Vec<Value> {
    spans(&run_to_otlp(&export(RunStatus::Succeeded, None), "r2"))
}

#[test]
fn times_follow_the_steps() {
    let spans = spans(&run_to_otlp(&export(RunStatus::Succeeded, None), "r1"));
    let root = &spans[0];
    assert_eq!(root["startTimeUnixNano"], "1000000000");
    assert_eq!(root["endTimeUnixNano"], "5000000000");
    let mut steps: Vec<&Value> =
        spans.iter().filter(|s| s["name"].as_str().unwrap().starts_with("step")).collect();
    steps.sort_by_key(|s| nanos(s, "startTimeUnixNano"));
    let mut previous_end = nanos(root, "startTimeUnixNano");
    for step in &steps {
        assert_eq!(nanos(step, "startTimeUnixNano"), previous_end, "a step starts where the last ended");
        assert!(nanos(step, "endTimeUnixNano") >= nanos(step, "startTimeUnixNano"));
        previous_end = nanos(step, "endTimeUnixNano");
    }
    assert!(previous_end <= nanos(root, "endTimeUnixNano"));
    assert_eq!(steps[0]["name"], "step 1");
    assert_eq!(steps[0]["endTimeUnixNano"], "2000000000");
}

#[test]
fn failed_steps_and_runs_are_errors_with_failure_events() {
    let reason = EndReason::MaxSteps { steps: 3 };
    let spans = spans(&run_to_otlp(&export(RunStatus::Failed, Some(reason.clone())), "r1"));
    let root = &spans[0];
    assert_eq!(root["status"], json!({"code": 2, "message": reason.describe()}));
    let step1 = spans.iter().find(|s| s["name"] == "step 1").unwrap();
    assert_eq!(step1["status"], json!({"code": 2, "message": "timed out"}));
    let step2 = spans.iter().find(|s| s["name"] == "step 2").unwrap();
    assert_eq!(step2["status"]["code"], 1);
    let weather = spans.iter().find(|s| s["name"] == "tool weather").unwrap();
    assert_eq!(weather["status"]["code"], 2);
    let events = weather["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "both attempts, none from r2");
    assert_eq!(events[0]["name"], "failure");
    assert_eq!(attr(&events[0], "keel.failure.class"), &json!({"stringValue": "transient"}));
    assert_eq!(attr(&events[0], "keel.failure.code"), &json!({"stringValue": "TIMEOUT"}));
    assert_eq!(attr(&events[1], "keel.failure.attempt"), &json!({"intValue": "2"}));
    assert_eq!(attr(&events[1], "keel.failure.recovered"), &json!({"boolValue": false}));
    assert_eq!(events[0]["timeUnixNano"], "1501000000");
}

#[test]
fn failures_without_a_step_land_on_the_run_and_unknown_runs_are_empty() {
    let mut export = export(RunStatus::Interrupted, Some(EndReason::Interrupted));
    export.failures.push(failure("r1", 4, 1, false));
    let spans = spans(&run_to_otlp(&export, "r1"));
    assert_eq!(spans[0]["status"]["code"], 2);
    assert_eq!(spans[0]["events"].as_array().unwrap().len(), 1);
    let mut running = export.clone();
    running.runs[0].status = RunStatus::Running;
    running.runs[0].ended_ms = None;
    let root = &self::spans(&run_to_otlp(&running, "r1"))[0];
    assert_eq!(root["status"], json!({"code": 0}));
    assert_eq!(root["endTimeUnixNano"], "4000000000", "an unfinished run ends at its last step");
    assert_eq!(run_to_otlp(&export, "missing"), json!({"resourceSpans": []}));
}

#[test]
fn a_tool_call_and_its_failures_carry_the_calls_idempotency_key() {
    let mut export = export(RunStatus::Succeeded, None);
    // A record written before keel stored the key: its tool span has no key attribute.
    export.turns[0].idempotency_key = None;
    let spans = spans(&run_to_otlp(&export, "r1"));
    let weather = spans.iter().find(|s| s["name"] == "tool weather").unwrap();
    assert_eq!(attr(weather, "keel.tool.idempotency_key"), &json!({"stringValue": "r1:1"}));
    for event in weather["events"].as_array().unwrap() {
        assert_eq!(attr(event, "keel.tool.idempotency_key"), &json!({"stringValue": "r1:1"}));
    }
    let search = spans.iter().find(|s| s["name"] == "tool search").unwrap();
    let keys =
        search["attributes"].as_array().unwrap().iter().filter(|a| a["key"] == "keel.tool.idempotency_key");
    assert_eq!(keys.count(), 0, "no key stored, none exported");
    let step1 = spans.iter().find(|s| s["name"] == "step 1").unwrap();
    let on_step =
        step1["attributes"].as_array().unwrap().iter().filter(|a| a["key"] == "keel.tool.idempotency_key");
    assert_eq!(on_step.count(), 0, "the key is the tool call's, on its span");
}
