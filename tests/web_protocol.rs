#![cfg(not(target_arch = "wasm32"))]
//! The page↔worker messages: their JSON spelling (what `js/agent.js` sends and reads), round trips,
//! and clear structured failures for malformed messages.

use keel::engine::{Event, Message, ModelRequest, Role, Usage};
use keel::errors::{KeelErrorCode, RawFailure};
use keel::web::protocol::{ModelChoice, PageMessage, RedactValue, Reply, ToolValue, WorkerMessage};
use serde_json::{json, Value};

fn page(value: Value) -> PageMessage {
    PageMessage::from_json(&value.to_string()).expect("a valid message")
}

fn round_trip(message: &PageMessage) {
    let text = serde_json::to_string(message).unwrap();
    assert_eq!(&PageMessage::from_json(&text).unwrap(), message, "{text}");
}

#[test]
fn init_reads_tool_specs_the_model_choice_and_a_partial_config() {
    let message = page(json!({
        "type": "init",
        "tools": [{"name": "click", "description": "Click.", "inputSchema": {"type": "object"},
                   "timeoutMs": 300, "maxAttempts": 2, "refsFrom": ["snapshot"]}],
        "model": {"kind": "custom"},
        "config": {"maxSteps": 4, "retry": {"baseDelayMs": 10}}
    }));
    let PageMessage::Init(init) = &message else { panic!("not init: {message:?}") };
    let tools = init.read_tools().unwrap();
    assert_eq!(tools[0].timeout_ms, Some(300));
    assert_eq!(tools[0].max_attempts, Some(2));
    assert_eq!(tools[0].refs_from, vec!["snapshot".to_string()]);
    assert_eq!(init.read_model().unwrap(), ModelChoice::Custom { greedy: false });
    assert_eq!(init.read_config().unwrap().max_steps, 4);
    assert_eq!(init.config["maxSteps"], 4);
    round_trip(&message);
}

#[test]
fn a_custom_model_may_say_it_decodes_greedily_and_nothing_else() {
    let greedy = page(json!({"type": "init", "model": {"kind": "custom", "greedy": true}}));
    let PageMessage::Init(init) = &greedy else { panic!() };
    assert_eq!(init.read_model().unwrap(), ModelChoice::Custom { greedy: true });
    round_trip(&greedy);
    let typo = page(json!({"type": "init", "model": {"kind": "custom", "greddy": true}}));
    let PageMessage::Init(init) = &typo else { panic!() };
    let error = init.read_model().unwrap_err();
    assert!(format!("{error:?}").contains("greddy"), "{error:?}");
}

#[test]
fn the_reserved_model_kinds_are_spelled_for_later_backends() {
    let openai = page(json!({"type": "init", "model":
        {"kind": "fallback", "chain": [{"kind": "promptApi"},
         {"kind": "openai", "baseUrl": "http://127.0.0.1:1/v1", "model": "m"}]}}));
    let PageMessage::Init(init) = &openai else { panic!() };
    let model = init.read_model().unwrap();
    let ModelChoice::Fallback { chain } = &model else { panic!("{model:?}") };
    assert_eq!(chain[0].kind(), "promptApi");
    assert!(
        matches!(&chain[1], ModelChoice::Openai { base_url, api_key: None, .. } if base_url.ends_with("/v1"))
    );
    round_trip(&openai);
}

#[test]
fn run_cancel_and_dispose() {
    let run = page(json!({"type": "run", "runId": "r1", "task": "t"}));
    let PageMessage::Run(r) = &run else { panic!() };
    assert_eq!((r.run_id.as_str(), r.session.as_str()), ("r1", "default"));
    round_trip(&run);
    assert_eq!(page(json!({"type": "cancel", "runId": "r1"})), PageMessage::Cancel { run_id: "r1".into() });
    assert_eq!(page(json!({"type": "dispose"})), PageMessage::Dispose);
    assert_eq!(page(json!({"type": "warm"})), PageMessage::Warm);
}

#[test]
fn tool_results_succeed_or_carry_a_structured_failure() {
    let ok =
        page(json!({"type": "toolResult", "id": 7, "ok": true, "value": {"t": 21}, "warnings": ["stale"]}));
    let PageMessage::ToolResult(reply) = ok.clone() else { panic!() };
    let output = reply.into_tool_output().unwrap();
    assert_eq!((output.value, output.warnings), (json!({"t": 21}), vec!["stale".to_string()]));
    round_trip(&ok);

    // `undefined` results arrive without `value`.
    let PageMessage::ToolResult(bare) = page(json!({"type": "toolResult", "id": 8, "ok": true})) else {
        panic!()
    };
    assert_eq!(bare.into_tool_output().unwrap().value, Value::Null);

    let failed = page(json!({"type": "toolResult", "id": 9, "ok": false, "error": {
        "name": "ToolError", "message": "e5 is gone", "code": "STALE_REFERENCE", "status": 409,
        "retryAfterMs": 1500, "hints": {"recovery": ["Call snapshot"], "severity": "error",
        "class": "persistent", "details": {"ref": "e5"}}}}));
    let PageMessage::ToolResult(reply) = failed.clone() else { panic!() };
    let raw = reply.into_tool_output().unwrap_err();
    assert_eq!(raw.code.as_deref(), Some("STALE_REFERENCE"));
    assert_eq!((raw.status, raw.retry_after_ms), (Some(409), Some(1500)));
    assert_eq!(raw.hints.recovery.as_deref(), Some(&["Call snapshot".to_string()][..]));
    assert_eq!(raw.hints.details["ref"], "e5");
    round_trip(&failed);
}

#[test]
fn model_results_carry_text_and_usage() {
    let message = page(json!({"type": "modelResult", "id": 1, "ok": true, "text": "{}",
        "usage": {"promptTokens": 5, "completionTokens": 2}}));
    let PageMessage::ModelResult(reply) = message.clone() else { panic!() };
    let reply = reply.into_model_reply().unwrap();
    assert_eq!(reply.usage, Some(Usage { prompt_tokens: 5, completion_tokens: 2 }));
    round_trip(&message);
    // An `ok: false` without an `error` is no reply: refused as a whole, as a protocol error.
    let without_error = json!({"type": "modelResult", "id": 2, "ok": false}).to_string();
    let refused = PageMessage::from_json(&without_error).unwrap_err();
    assert_eq!(refused.code.as_deref(), Some(KeelErrorCode::ProtocolError.as_str()));
    assert!(refused.message.contains("ok: false but carried no error"), "{}", refused.message);
    let failed = Reply::<ToolValue>::failed(3, RawFailure::named("AbortError", "stop"));
    assert_eq!(failed.into_result().unwrap_err().name.as_deref(), Some("AbortError"));
}

#[test]
fn redaction_asks_with_the_call_and_the_answer_keeps_args_or_null() {
    let ask = WorkerMessage::Redact { id: 6, tool: "login".into(), args: json!({"password": "p"}) };
    let value: Value = serde_json::from_str(&ask.to_json()).unwrap();
    assert_eq!(value, json!({"type": "redact", "id": 6, "tool": "login", "args": {"password": "p"}}));
    let kept = page(json!({"type": "redactResult", "id": 6, "ok": true, "args": {"password": "***"}}));
    let PageMessage::RedactResult(reply) = kept.clone() else { panic!("a redactResult") };
    assert_eq!(reply.into_result().unwrap(), RedactValue { args: json!({"password": "***"}) });
    round_trip(&kept);
    for dropped in [
        json!({"type": "redactResult", "id": 7, "ok": true, "args": null}),
        json!({"type": "redactResult", "id": 7, "ok": true}),
    ] {
        let PageMessage::RedactResult(reply) = page(dropped) else { panic!("a redactResult") };
        assert_eq!(reply.into_result().unwrap().args, Value::Null);
    }
}

#[test]
fn worker_messages_are_tagged_and_camel_cased() {
    let call = WorkerMessage::ToolCall {
        id: 4,
        run_id: "r".into(),
        tool: "t".into(),
        args: json!({"a": 1}),
        attempt: 2,
        timeout_ms: 300,
        idempotency_key: "r:3".into(),
    };
    let value: Value = serde_json::from_str(&call.to_json()).unwrap();
    assert_eq!(
        value,
        json!({"type": "toolCall", "id": 4, "runId": "r", "tool": "t", "args": {"a": 1},
                             "attempt": 2, "timeoutMs": 300, "idempotencyKey": "r:3"})
    );
    let model = WorkerMessage::ModelCall {
        id: 5,
        run_id: "r".into(),
        backend: "promptApi".into(),
        request: ModelRequest {
            messages: vec![Message::new(Role::System, "s")],
            schema: None,
            max_tokens: 64,
        },
        keep: 0,
        edit: None,
        again: 0,
        skip: 0,
        same_schema: false,
        stream: false,
    };
    let value: Value = serde_json::from_str(&model.to_json()).unwrap();
    assert_eq!(value["request"]["messages"][0], json!({"role": "system", "content": "s"}));
    assert_eq!(value["backend"], "promptApi");
    assert_eq!(value.get("sameSchema"), None, "left out unless set");
    let event = WorkerMessage::Event { run_id: "r".into(), event: Event::StepStarted { step: 1 } };
    let value: Value = serde_json::from_str(&event.to_json()).unwrap();
    assert_eq!(value, json!({"type": "event", "runId": "r", "event": {"type": "stepStarted", "step": 1}}));
    let aborts = [
        WorkerMessage::ToolAbort { id: 1 },
        WorkerMessage::ModelAbort { id: 2 },
        WorkerMessage::Ready { warnings: vec![] },
    ];
    let tags: Vec<Value> =
        aborts.iter().map(|m| serde_json::from_str::<Value>(&m.to_json()).unwrap()["type"].clone()).collect();
    assert_eq!(tags, [json!("toolAbort"), json!("modelAbort"), json!("ready")]);
}

#[test]
fn malformed_messages_become_protocol_failures_that_say_what_was_wrong() {
    let cases = [
        ("not json", "a message"),
        ("null", "a message"),
        (r#"{"type": "launch"}"#, "`launch`"),
        (r#"{"type": "run", "task": "t"}"#, "runId"),
        (r#"{"type": "toolResult", "id": "seven", "ok": true}"#, "`toolResult`"),
        (r#"{"type": "toolResult", "id": 1, "ok": false, "error": {"hints": {"class": "weird"}}}"#, "weird"),
        (r#"{"type": "init", "tools": []}"#, "model"),
        (r#"["run", "r1", "t"]"#, "got an array; expected an object"),
        // The place runs on into the parts read by hand: a decision's fields, a reply's payload.
        (
            r#"{"type": "run", "runId": "r", "task": "t", "resume": "continue",
                "decision": {"callId": "c", "approved": true, "reason": 5}}"#,
            "at `decision.reason`",
        ),
        (r#"{"type": "run", "runId": "r", "task": "t", "decision": {"callId": 3}}"#, "at `decision.callId`"),
        (r#"{"type": "toolResult", "id": 1, "ok": true, "warnings": [1]}"#, "at `warnings[0]`"),
        (r#"{"type": "decide", "id": "x", "callId": "c", "approved": true}"#, "at `id`"),
    ];
    for (text, mention) in cases {
        let failure = PageMessage::from_json(text).unwrap_err();
        assert_eq!(failure.code.as_deref(), Some(KeelErrorCode::ProtocolError.as_str()), "{text}");
        assert_eq!(failure.name.as_deref(), Some("DataError"));
        assert!(failure.message.contains(mention), "{text}: {}", failure.message);
    }
}
