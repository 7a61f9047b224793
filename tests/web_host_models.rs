#![cfg(not(target_arch = "wasm32"))]
//! The worker host with the `openai` and `fallback` model choices: a run against a scripted HTTP
//! server (a 429 retried after its Retry-After, then steps), a chain handing over to the page's
//! custom model with a warning event, and the init checks.

mod worker_harness;

use serde_json::{json, Value};
use worker_harness::{VirtualClock, Worker};

/// Time that never passes: retry waits (a few seconds at most here) end at once, and timeouts
/// (15 s and more) never fire. The delays are read from the events. The server answers `script`.
fn worker(script: Vec<(u16, Option<&'static str>, String)>) -> Worker {
    Worker::with(VirtualClock::instant_up_to(5_000)).serving(script)
}

fn completion(step: Value) -> String {
    json!({"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": step.to_string()}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20}})
    .to_string()
}

fn init(model: Value) -> Value {
    json!({"type": "init", "model": model, "config": {"retry": {"jitter": 0}, "toolChoice": "auto"},
        "tools": [{"name": "get_weather", "description": "Weather.", "inputSchema": {"type": "object"}}]})
}

const OPENAI: &str = "http://127.0.0.1:8080/v1";

#[test]
fn an_openai_run_retries_a_429_after_its_retry_after_and_sends_the_step_schema() {
    let act = json!({"thought": "look", "action": {"tool": "get_weather", "args": {"city": "Paris"}}});
    let mut w = worker(vec![
        (429, Some("1"), r#"{"error":{"message":"slow down","code":"rate_limit_exceeded"}}"#.into()),
        (503, None, "".into()),
        (200, None, completion(act)),
        (200, None, completion(json!({"thought": "done", "final_answer": "Sunny."}))),
    ]);
    w.send(init(json!({"kind": "openai", "baseUrl": OPENAI, "model": "m"})));
    assert_eq!(w.last()["type"], "ready");
    w.send(json!({"type": "run", "runId": "r1", "task": "Weather in Paris?"}));
    let call = w.last();
    assert_eq!((call["type"].as_str(), call["tool"].as_str()), (Some("toolCall"), Some("get_weather")));
    w.send(json!({"type": "toolResult", "id": call["id"], "ok": true, "value": {"temp": 21}}));
    let ended = w.last();
    assert_eq!(ended["type"], "runEnded");
    assert_eq!(
        (ended["result"]["answer"].as_str(), ended["result"]["success"].as_bool()),
        (Some("Sunny."), Some(true))
    );
    let retries: Vec<Value> = w.events().into_iter().filter(|e| e["type"] == "retryScheduled").collect();
    assert_eq!(retries[0]["code"], "RATE_LIMITED");
    assert_eq!(retries[0]["delayMs"], 1_000, "the Retry-After, not the backoff");
    assert_eq!(retries[1]["code"], "UNAVAILABLE");
    let sent = w.server.sent.borrow();
    assert_eq!(sent.len(), 4);
    let format = &sent[0]["response_format"];
    assert_eq!(
        (format["type"].as_str(), format["json_schema"]["name"].as_str()),
        (Some("json_schema"), Some("step"))
    );
    let branches = format["json_schema"]["schema"]["anyOf"].as_array().expect("the step schema's branches");
    assert_eq!(branches[0]["properties"]["action"]["properties"]["tool"]["const"], "get_weather");
    assert_eq!(ended["result"]["counts"]["promptTokens"], 200, "usage counted: {}", ended["result"]);
}

#[test]
fn a_chain_hands_over_from_an_unauthorised_server_to_the_custom_model_with_a_warning() {
    let mut w = worker(vec![(401, None, r#"{"error":{"message":"Incorrect API key"}}"#.into())]);
    w.send(init(json!({"kind": "fallback", "chain": [
        {"kind": "openai", "baseUrl": OPENAI, "model": "m", "apiKey": "bad"}, {"kind": "custom"}]})));
    assert_eq!(w.last()["type"], "ready");
    w.send(json!({"type": "run", "runId": "r1", "task": "Hi"}));
    let call = w.last();
    assert_eq!((call["type"].as_str(), call["runId"].as_str()), (Some("modelCall"), Some("r1")));
    let warning = w.events().into_iter().find(|e| e["type"] == "warning").expect("a warning");
    let text = warning["message"].as_str().unwrap();
    assert!(
        text.starts_with(
            "Model backend 1 of 2 (openai m at http://127.0.0.1:8080/v1) failed with MODEL_UNAVAILABLE"
        ),
        "{text}"
    );
    assert!(text.contains("Falling back to backend 2 (custom)"), "{text}");
    let step = json!({"thought": "", "final_answer": "Hello."}).to_string();
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": true, "text": step}));
    assert_eq!(w.last()["result"]["success"], true);
}

#[test]
fn init_checks_the_model_option() {
    let mut w = worker(vec![]);
    w.send(init(json!({"kind": "openai", "baseUrl": "127.0.0.1:8080", "model": "m"})));
    let failed = w.last();
    assert_eq!(
        (failed["type"].as_str(), failed["error"]["code"].as_str()),
        (Some("initFailed"), Some("INVALID_MODEL"))
    );
    assert!(failed["error"]["message"].as_str().unwrap().contains("baseUrl"));
    w.send(init(json!({"kind": "openai", "baseUrl": OPENAI, "model": " "})));
    assert_eq!(w.last()["error"]["code"], "INVALID_MODEL");
    w.send(init(
        json!({"kind": "fallback", "chain": [{"kind": "wllama", "modelUrl": "x"}, {"kind": "wllama", "modelUrl": "y"}]}),
    ));
    assert_eq!(w.last()["error"]["code"], "MODEL_UNAVAILABLE");
    w.send(init(json!({"kind": "fallback", "chain": []})));
    assert_eq!(w.last()["error"]["code"], "MODEL_UNAVAILABLE");
    // A member this build lacks is skipped at run time, with a warning; the chain still builds.
    w.send(init(
        json!({"kind": "fallback", "chain": [{"kind": "wllama", "modelUrl": "x"}, {"kind": "custom"}]}),
    ));
    assert_eq!(w.last()["type"], "ready");
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    assert_eq!(w.last()["type"], "modelCall");
    let warning = w.events().into_iter().find(|e| e["type"] == "warning").expect("a warning");
    assert!(warning["message"].as_str().unwrap().contains("(wllama) failed with MODEL_UNAVAILABLE"));
    assert_eq!(w.last()["backend"], "custom", "the page is told which of its backends answers");
}

#[test]
fn a_chain_of_the_prompt_api_and_a_custom_function_names_the_page_backend_of_each_call() {
    let mut w = worker(vec![]);
    w.send(init(json!({"kind": "fallback", "chain": [{"kind": "promptApi"}, {"kind": "custom"}]})));
    assert_eq!(w.last()["type"], "ready");
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    let call = w.last();
    assert_eq!((call["type"].as_str(), call["backend"].as_str()), (Some("modelCall"), Some("promptApi")));
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": false,
                  "error": {"name": "NotSupportedError", "message": "no Gemini Nano here"}}));
    let call = w.last();
    assert_eq!((call["type"].as_str(), call["backend"].as_str()), (Some("modelCall"), Some("custom")));
}

#[test]
fn a_custom_model_answering_http_400_stops_the_run_as_a_rejected_request_naming_the_backend() {
    let mut w = worker(vec![]);
    w.send(init(json!({"kind": "custom"})));
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    let call = w.last();
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": false,
                  "error": {"message": "400 Bad Request", "status": 400}}));
    let ended = w.last();
    assert_eq!(ended["type"], "runEnded");
    let reason = &ended["result"]["reason"];
    assert_eq!(reason["code"], "MODEL_REQUEST_REJECTED", "not a tool's INVALID_ARGS: {reason}");
    assert_eq!(
        reason["message"],
        "The `custom` model backend rejected the request with HTTP 400: 400 Bad Request"
    );
}

#[test]
fn a_page_model_streams_through_model_chunks_and_the_run_tells_them_as_token_events() {
    let mut w = worker(vec![]);
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"grounding": false}, "tools": []}));
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    let call = w.last();
    assert_eq!((call["type"].as_str(), call["stream"].as_bool()), (Some("modelCall"), Some(true)));
    let step = json!({"thought": "done", "final_answer": "Sunny, 21 °C."}).to_string();
    let (a, b) = step.split_at(step.find("Sunny").unwrap() + 3);
    for piece in [a, b] {
        w.send(json!({"type": "modelChunk", "id": call["id"], "text": piece}));
    }
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": true, "text": step}));
    // A chunk for a call no longer waited on is ignored.
    w.send(json!({"type": "modelChunk", "id": call["id"], "text": "late"}));
    assert_eq!(w.last_of("runEnded")["result"]["answer"], "Sunny, 21 °C.");
    let told: Vec<(String, String)> = w
        .events_of("r")
        .into_iter()
        .filter(|e| ["token", "answerDelta"].contains(&e["type"].as_str().unwrap()))
        .map(|e| (e["type"].as_str().unwrap().to_string(), e["text"].as_str().unwrap().to_string()))
        .collect();
    let expected = [("token", a), ("answerDelta", "Sun"), ("token", b), ("answerDelta", "ny, 21 °C.")];
    assert_eq!(told, expected.map(|(k, t)| (k.to_string(), t.to_string())));
}

#[test]
fn with_config_stream_off_a_page_model_is_asked_whole() {
    let mut w = worker(vec![]);
    w.send(json!({"type": "init", "model": {"kind": "custom"}, "config": {"stream": false}, "tools": []}));
    w.send(json!({"type": "run", "runId": "r", "task": "t"}));
    let call = w.last();
    assert_eq!(call["type"], "modelCall");
    assert!(call.get("stream").is_none(), "{call}");
}
