#![cfg(not(target_arch = "wasm32"))]
//! The OpenAI-compatible backend streaming (`stream: true`): server-sent events read as they
//! arrive, cut anywhere, into the sink's text, and the whole stream into the reply or into the
//! failure a non-streamed answer would have given.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_executor::block_on;
use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use keel::engine::{Clock, Message, Model, ModelReply, ModelRequest, ReplySink, Role, Usage};
use keel::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};
use keel::web::openai::{Http, HttpRequest, HttpResponse, OpenaiConfig, OpenaiModel, ResponseFormat};
use serde_json::{json, Value};

/// One scripted answer: status, content type, the body's pieces, and a break after them.
struct Answer {
    status: u16,
    content_type: &'static str,
    pieces: Vec<String>,
    breaks: Option<RawFailure>,
}

fn events(pieces: &[&str]) -> Answer {
    Answer {
        status: 200,
        content_type: "text/event-stream",
        pieces: pieces.iter().map(|p| p.to_string()).collect(),
        breaks: None,
    }
}

#[derive(Default)]
struct Streaming {
    answers: RefCell<VecDeque<Answer>>,
    sent: RefCell<Vec<HttpRequest>>,
}

impl Http for Streaming {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        self.send_streaming(request, &|_| {})
    }

    fn send_streaming<'a>(
        &'a self,
        request: &'a HttpRequest,
        on_body: &'a dyn Fn(&str),
    ) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        self.sent.borrow_mut().push(request.clone());
        let answer = self.answers.borrow_mut().pop_front().expect("a scripted answer");
        if (200..300).contains(&answer.status) {
            answer.pieces.iter().for_each(|p| on_body(p));
        }
        let result = match answer.breaks {
            Some(failure) => Err(failure),
            None => Ok(HttpResponse {
                status: answer.status,
                headers: vec![("content-type".into(), answer.content_type.into())],
                body: answer.pieces.concat(),
            }),
        };
        futures_util::future::ready(result).boxed_local()
    }
}

struct Fixed;
impl Clock for Fixed {
    fn now_ms(&self) -> u64 {
        0
    }
    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        futures_util::future::ready(()).boxed_local()
    }
}

#[derive(Default)]
struct Heard(RefCell<Vec<String>>);

impl ReplySink for Heard {
    fn text(&self, chunk: &str) {
        self.0.borrow_mut().push(chunk.to_string());
    }
    fn discard(&self, _: &ErrorCode) {
        self.0.borrow_mut().push("<discarded>".into());
    }
}

fn backend(stream: bool, answers: Vec<Answer>) -> (OpenaiModel, Rc<Streaming>) {
    let http = Rc::new(Streaming::default());
    http.answers.borrow_mut().extend(answers);
    let config = OpenaiConfig {
        base_url: "http://127.0.0.1:8080/v1".into(),
        model: "m".into(),
        api_key: None,
        response_format: ResponseFormat::JsonSchema,
        stream,
    };
    (OpenaiModel::new(config, http.clone(), Rc::new(Fixed)), http)
}

fn ask(model: &OpenaiModel) -> (Result<ModelReply, RawFailure>, Vec<String>) {
    let request =
        ModelRequest { messages: vec![Message::new(Role::User, "hi")], schema: None, max_tokens: 64 };
    let heard = Heard::default();
    let reply = block_on(model.complete(&request, Some(&heard)));
    (reply, heard.0.into_inner())
}

fn delta(text: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
    )
}

fn class(raw: &RawFailure) -> (FailureClass, ErrorCode) {
    let found = classify(raw, Origin::Model);
    (found.class, found.code)
}

#[test]
fn each_piece_of_the_body_gives_the_text_it_completed_and_the_whole_stream_the_reply() {
    let role = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\r\n\r\n";
    let (a, b) = (delta("{\"thought\":\"t\","), delta("\"final_answer\":\"42\"}"));
    let last = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\
                \"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n";
    // Cut inside a `data:` line's JSON, a comment line as keep-alive, two events in one piece.
    let (a1, a2) = a.split_at(20);
    let pieces = [role, ": keep-alive\n", a1, a2, &(b.clone() + &delta(" ")), last];
    let (model, http) = backend(true, vec![events(&pieces)]);
    let (reply, heard) = ask(&model);
    let reply = reply.unwrap();
    assert_eq!(reply.text, "{\"thought\":\"t\",\"final_answer\":\"42\"} ");
    assert_eq!(reply.usage, Some(Usage { prompt_tokens: 9, completion_tokens: 4 }));
    assert_eq!(
        heard,
        vec!["{\"thought\":\"t\",", "\"final_answer\":\"42\"} "],
        "one text per piece that completed any"
    );
    let sent = &http.sent.borrow()[0];
    assert!(sent.headers.contains(&("accept".into(), "text/event-stream".into())));
    assert_eq!(serde_json::from_str::<Value>(&sent.body).unwrap()["stream"], true);
}

#[test]
fn with_the_openai_stream_option_off_the_step_is_asked_whole() {
    let whole =
        json!({"choices": [{"message": {"content": "{\"final_answer\":\"x\"}"}, "finish_reason": "stop"}]});
    let answer = Answer { content_type: "application/json", ..events(&[&whole.to_string()]) };
    let (model, http) = backend(false, vec![answer]);
    let (reply, heard) = ask(&model);
    assert_eq!(reply.unwrap().text, "{\"final_answer\":\"x\"}");
    assert_eq!(heard, Vec::<String>::new());
    assert_eq!(serde_json::from_str::<Value>(&http.sent.borrow()[0].body).unwrap()["stream"], false);
}

#[test]
fn a_server_that_ignores_stream_and_answers_whole_is_read_as_usual() {
    let whole =
        json!({"choices": [{"message": {"content": "{\"final_answer\":\"x\"}"}, "finish_reason": "stop"}]});
    let answer = Answer { content_type: "application/json; charset=utf-8", ..events(&[&whole.to_string()]) };
    let (model, _) = backend(true, vec![answer]);
    let (reply, heard) = ask(&model);
    assert_eq!(reply.unwrap().text, "{\"final_answer\":\"x\"}");
    assert_eq!(heard, Vec::<String>::new(), "no data lines, no text");
}

#[test]
fn a_stream_cut_off_before_its_end_is_a_transient_network_failure() {
    let (model, _) = backend(true, vec![events(&[&delta("{\"thought\":"), &delta("\"half")])]);
    let (reply, heard) = ask(&model);
    let failure = reply.unwrap_err();
    assert_eq!(class(&failure), (FailureClass::Transient, ErrorCode::Network), "{failure:?}");
    assert!(failure.message.contains("before its end"), "{}", failure.message);
    assert_eq!(heard.concat(), "{\"thought\":\"half", "the text came before the break");
    // A finish_reason without [DONE] (some servers omit it) is a complete reply.
    let finished = format!(
        "{}data: {}\n\n",
        delta("{\"final_answer\":\"ok\"}"),
        json!({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    );
    let (model, _) = backend(true, vec![events(&[&finished])]);
    assert_eq!(ask(&model).0.unwrap().text, "{\"final_answer\":\"ok\"}");
}

#[test]
fn a_connection_that_drops_mid_body_stays_a_transient_network_failure() {
    let mut answer = events(&[&delta("{\"tho")]);
    answer.breaks = Some(RawFailure::named("NetworkError", "the connection dropped mid-body"));
    let (model, _) = backend(true, vec![answer]);
    let (reply, heard) = ask(&model);
    assert_eq!(class(&reply.unwrap_err()), (FailureClass::Transient, ErrorCode::Network));
    assert_eq!(heard, vec!["{\"tho"]);
}

#[test]
fn an_error_event_mid_stream_is_classified_like_the_error_body_it_carries() {
    let server = json!({"error": {"code": 500, "message": "llama_decode failed", "type": "server_error"}});
    let (model, _) = backend(true, vec![events(&[&delta("{"), &format!("data: {server}\n\n")])]);
    let failure = ask(&model).0.unwrap_err();
    assert_eq!(class(&failure), (FailureClass::Transient, ErrorCode::Unavailable), "{failure:?}");
    assert!(failure.message.contains("llama_decode failed"), "{}", failure.message);
    let overflow = json!({"error": {"code": 400, "message": "too long", "type": "exceed_context_size_error",
        "n_prompt_tokens": 9000, "n_ctx": 4096}});
    let (model, _) = backend(true, vec![events(&[&format!("data: {overflow}\n\n")])]);
    let failure = ask(&model).0.unwrap_err();
    assert_eq!(class(&failure).1, ErrorCode::ContextOverflow);
    assert_eq!(failure.hints.details.get("quota"), Some(&json!(4096)));
}

#[test]
fn a_non_2xx_answer_to_a_streamed_request_is_read_as_its_error_body() {
    let answer = Answer {
        status: 429,
        content_type: "application/json",
        pieces: vec![json!({"error": {"message": "slow down"}}).to_string()],
        breaks: None,
    };
    let (model, _) = backend(true, vec![answer]);
    let (reply, heard) = ask(&model);
    let failure = reply.unwrap_err();
    assert_eq!(failure.status, Some(429));
    assert_eq!(class(&failure).0, FailureClass::Transient);
    assert!(heard.is_empty(), "an error body is not the reply's text");
}

#[test]
fn a_filtered_or_empty_stream_fails_as_a_whole_answer_would() {
    let filtered = format!(
        "{}data: {}\n\ndata: [DONE]\n\n",
        delta("{"),
        json!({"choices": [{"delta": {}, "finish_reason": "content_filter"}]})
    );
    let (model, _) = backend(true, vec![events(&[&filtered]), events(&[&delta(" "), "data: [DONE]\n\n"])]);
    assert_eq!(class(&ask(&model).0.unwrap_err()).1, ErrorCode::SafetyBlocked);
    assert_eq!(class(&ask(&model).0.unwrap_err()).1, ErrorCode::InvalidOutput);
}
