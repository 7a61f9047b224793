#![cfg(not(target_arch = "wasm32"))]
//! The OpenAI-compatible backend natively: every answer and failure shape a server sends, read and
//! classified as the loop will see it, and the model over a scripted transport.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_executor::block_on;
use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use keel::engine::{Clock, Message, Model, ModelRequest, Role, Usage};
use keel::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};
use keel::web::openai::response::read;
use keel::web::openai::{Http, HttpRequest, HttpResponse, OpenaiConfig, OpenaiModel, ResponseFormat};
use serde_json::{json, Value};

const URL: &str = "http://127.0.0.1:8080/v1/chat/completions";
/// Sun, 06 Nov 1994 08:49:37 GMT.
const NOV_1994: u64 = 784_111_777_000;

fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> HttpResponse {
    HttpResponse {
        status,
        headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        body: body.to_string(),
    }
}

fn failure(status: u16, headers: &[(&str, &str)], body: Value) -> RawFailure {
    read(&answer(status, headers, &body.to_string()), URL, NOV_1994 - 4_000).unwrap_err()
}

fn class(raw: &RawFailure) -> (FailureClass, ErrorCode) {
    let found = classify(raw, Origin::Model);
    (found.class, found.code)
}

fn completion(content: Value, finish: &str) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": finish,
        "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 812, "completion_tokens": 31, "total_tokens": 843}})
    .to_string()
}

#[test]
fn a_completion_gives_the_content_and_the_usage() {
    let step = r#"{"thought":"t","final_answer":"42"}"#;
    let reply = read(&answer(200, &[], &completion(json!(step), "stop")), URL, 0).unwrap();
    assert_eq!(reply.text, step);
    assert_eq!(reply.usage, Some(Usage { prompt_tokens: 812, completion_tokens: 31 }));
    // Content parts, no usage, no reasoning_content: still read.
    let parts = json!({"choices": [{"message": {"content": [{"type": "text", "text": "{\"a\":"},
        {"type": "text", "text": "1}"}]}}]});
    let reply = read(&answer(200, &[], &parts.to_string()), URL, 0).unwrap();
    assert_eq!((reply.text.as_str(), reply.usage), ("{\"a\":1}", None));
}

#[test]
fn a_429_is_transient_with_its_retry_after_in_seconds_ms_or_as_a_date() {
    let body = json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}});
    let seconds = failure(429, &[("retry-after", "1")], body.clone());
    assert_eq!((seconds.status, seconds.retry_after_ms), (Some(429), Some(1_000)));
    assert_eq!(class(&seconds), (FailureClass::Transient, ErrorCode::RateLimited));
    assert!(seconds.message.contains("Rate limit reached (rate_limit_exceeded)"), "{}", seconds.message);
    assert!(seconds.message.contains(URL));
    let date = failure(429, &[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")], body.clone());
    assert_eq!(date.retry_after_ms, Some(4_000));
    let ms = failure(429, &[("retry-after-ms", "250"), ("retry-after", "9")], body.clone());
    assert_eq!(ms.retry_after_ms, Some(250), "retry-after-ms is the more precise");
    let none = failure(429, &[("retry-after", "soon")], body);
    assert_eq!(none.retry_after_ms, None);
}

#[test]
fn a_503_and_an_html_502_from_a_proxy_are_transient() {
    let busy = failure(
        503,
        &[],
        json!({"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}),
    );
    assert_eq!(class(&busy), (FailureClass::Transient, ErrorCode::Unavailable));
    assert!(busy.message.starts_with("HTTP 503 from "), "{}", busy.message);
    let html = read(&answer(502, &[("content-type", "text/html")], "<html>Bad Gateway</html>"), URL, 0);
    let html = html.unwrap_err();
    assert_eq!(class(&html), (FailureClass::Transient, ErrorCode::Unavailable));
    assert!(html.message.contains("<html>Bad Gateway</html>"));
}

#[test]
fn an_oversized_prompt_is_a_context_overflow_with_the_servers_sizes() {
    let openai = failure(
        400,
        &[],
        json!({"error": {"message": "This model's maximum context length is 8192 tokens",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
    );
    assert_eq!(class(&openai), (FailureClass::Persistent, ErrorCode::ContextOverflow));
    let llama = failure(
        400,
        &[],
        json!({"error": {"code": 400, "type": "exceed_context_size_error",
        "message": "request (13392 tokens) exceeds the available context size (8192 tokens), try increasing it",
        "n_prompt_tokens": 13392, "n_ctx": 8192}}),
    );
    assert_eq!(class(&llama), (FailureClass::Persistent, ErrorCode::ContextOverflow));
    assert_eq!(llama.hints.details.get("requested"), Some(&json!(13392)));
    assert_eq!(llama.hints.details.get("quota"), Some(&json!(8192)));
}

#[test]
fn a_wrong_key_an_unknown_model_or_a_spent_account_makes_the_model_unavailable() {
    let key = failure(
        401,
        &[],
        json!({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}),
    );
    assert_eq!(class(&key), (FailureClass::Fatal, ErrorCode::ModelUnavailable));
    let ollama = failure(
        404,
        &[],
        json!({"error": {"message": "model \"llama9\" not found, try pulling it first",
        "type": "api_error"}}),
    );
    assert_eq!(class(&ollama), (FailureClass::Fatal, ErrorCode::ModelUnavailable));
    let quota = failure(
        429,
        &[],
        json!({"error": {"message": "You exceeded your current quota",
        "code": "insufficient_quota"}}),
    );
    assert_eq!(class(&quota), (FailureClass::Fatal, ErrorCode::ModelUnavailable));
    let plain = failure(403, &[], json!({"error": "forbidden"}));
    assert_eq!(class(&plain), (FailureClass::Fatal, ErrorCode::ModelUnavailable));
    assert!(plain.message.ends_with(": forbidden"), "{}", plain.message);
    // vLLM's shape: the error fields at the top level.
    let vllm = failure(
        400,
        &[],
        json!({"object": "error", "message": "bad temperature", "type": "BadRequestError", "code": 400}),
    );
    assert!(vllm.message.ends_with("bad temperature (BadRequestError)"), "{}", vllm.message);
    // A 400 the server gives no code for is the request refused, not a tool's arguments.
    assert_eq!(class(&vllm), (FailureClass::Fatal, ErrorCode::ModelRequestRejected));
    assert!(
        vllm.message.starts_with("HTTP 400 from the OpenAI-compatible backend at http://"),
        "the status and the backend: {}",
        vllm.message
    );
}

#[test]
fn an_html_page_with_200_means_a_wrong_base_url_and_is_fatal_for_the_model() {
    let page = "<!doctype html><html><head><title>My app</title></head><body>…</body></html>";
    let raw = read(&answer(200, &[("content-type", "text/html; charset=utf-8")], page), URL, 0).unwrap_err();
    assert_eq!(class(&raw), (FailureClass::Fatal, ErrorCode::ModelUnavailable));
    assert!(raw.message.contains("not JSON (text/html; charset=utf-8)"), "{}", raw.message);
    assert!(raw.message.contains("baseUrl"), "{}", raw.message);
    let long = "x".repeat(5_000);
    let raw = read(&answer(500, &[], &long), URL, 0).unwrap_err();
    assert!(raw.message.chars().count() < 400, "the body is quoted short");
}

#[test]
fn no_content_is_a_clear_invalid_output_and_a_filter_stop_a_safety_block() {
    let empty = read(&answer(200, &[], &completion(Value::Null, "length")), URL, 0).unwrap_err();
    assert_eq!(class(&empty).1, ErrorCode::InvalidOutput);
    assert!(empty.message.contains("no content") && empty.message.contains("length"), "{}", empty.message);
    let thinking = json!({"choices": [{"finish_reason": "length",
        "message": {"content": "", "reasoning_content": "Let me think"}}]});
    let thinking = read(&answer(200, &[], &thinking.to_string()), URL, 0).unwrap_err();
    assert!(thinking.message.contains("reasoning_content"), "{}", thinking.message);
    let filtered = read(&answer(200, &[], &completion(json!(""), "content_filter")), URL, 0).unwrap_err();
    assert_eq!(class(&filtered), (FailureClass::Persistent, ErrorCode::SafetyBlocked));
    let no_choices = read(&answer(200, &[], "{}"), URL, 0).unwrap_err();
    assert_eq!(class(&no_choices).1, ErrorCode::InvalidOutput);
    let error_200 =
        read(&answer(200, &[], r#"{"error":{"message":"model is loading"}}"#), URL, 0).unwrap_err();
    assert!(error_200.message.contains("model is loading"), "{}", error_200.message);
}

/// A transport that answers from a script and records what it was sent.
#[derive(Default)]
struct Scripted {
    answers: RefCell<VecDeque<Result<HttpResponse, RawFailure>>>,
    sent: RefCell<Vec<HttpRequest>>,
}

impl Http for Scripted {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        self.sent.borrow_mut().push(request.clone());
        let next = self.answers.borrow_mut().pop_front().expect("a scripted answer");
        futures_util::future::ready(next).boxed_local()
    }
}

struct Fixed;
impl Clock for Fixed {
    fn now_ms(&self) -> u64 {
        NOV_1994 - 2_000
    }
    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        futures_util::future::ready(()).boxed_local()
    }
}

#[test]
fn the_model_posts_the_step_and_reads_the_answer_or_the_failure() {
    let http = Rc::new(Scripted::default());
    http.answers.borrow_mut().extend([
        Ok(answer(200, &[], &completion(json!("{\"thought\":\"\",\"final_answer\":\"hi\"}"), "stop"))),
        Ok(answer(503, &[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")], "")),
        Err(RawFailure::named("TypeError", "Failed to fetch")),
    ]);
    let config = OpenaiConfig {
        base_url: "http://127.0.0.1:8080/v1".into(),
        model: "m".into(),
        api_key: Some("k".into()),
        response_format: ResponseFormat::JsonSchema,
        stream: true,
    };
    let model = OpenaiModel::new(config, http.clone(), Rc::new(Fixed));
    let request = ModelRequest {
        messages: vec![Message::new(Role::User, "hello")],
        schema: Some(json!({"type": "object"})),
        max_tokens: 300,
    };
    let reply = block_on(model.complete(&request, None)).unwrap();
    assert!(reply.text.contains("hi"));
    let sent = http.sent.borrow()[0].clone();
    assert_eq!(sent.url, URL);
    let body: Value = serde_json::from_str(&sent.body).unwrap();
    assert_eq!(body["response_format"]["json_schema"]["schema"], json!({"type": "object"}));
    assert_eq!(body["messages"], json!([{"role": "user", "content": "hello"}]));
    assert_eq!(body["max_tokens"], 300, "the reply budget reaches the server");
    assert_eq!((body["temperature"].as_f64(), body["seed"].is_u64()), (Some(0.0), true));
    assert!(model.greedy(), "greedy decoding asked for: the loop need not send a request twice");

    let busy = block_on(model.complete(&request, None)).unwrap_err();
    assert_eq!((busy.status, busy.retry_after_ms), (Some(503), Some(2_000)), "dated by the clock");
    assert!(busy.message.contains("(empty body)"), "{}", busy.message);
    let down = block_on(model.complete(&request, None)).unwrap_err();
    assert_eq!(class(&down), (FailureClass::Transient, ErrorCode::Network));
    assert!(down.message.contains("CORS"), "{}", down.message);
}
