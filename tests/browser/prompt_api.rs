//! The Prompt API backend (`js/backends/prompt-api.js` through `keel::web::prompt_api`) against the
//! spec-following fake `LanguageModel` of `tests/fakes/language-model.js`, installed on this global:
//! in the window test that is the page's case, in the worker test the extension worker's "direct" case.

use std::rc::Rc;

use futures_util::future::{select, Either};
use std::cell::RefCell;

use keel::engine::{Clock, Message, ModelRequest, ReplySink, Role};
use keel::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};
use keel::web::clock::WebClock;
use keel::web::model_source::ModelSource;
use keel::web::prompt_api::{open, opener};
use keel::web::rpc::Rpc;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::{next, Recorder};

#[wasm_bindgen(module = "/tests/fakes/language-model.js")]
extern "C" {
    #[wasm_bindgen(js_name = installFakeLanguageModel)]
    fn install_fake(options: &JsValue) -> JsValue;
}

/// The installed fake: its controls, and its log read as JSON.
struct Fake(JsValue);

impl Fake {
    fn install(options: Value) -> Fake {
        Fake(install_fake(&js_sys::JSON::parse(&options.to_string()).unwrap()))
    }

    fn call(&self, method: &str, arg: &JsValue) -> JsValue {
        let f: js_sys::Function = js_sys::Reflect::get(&self.0, &method.into()).unwrap().into();
        f.call1(&self.0, arg).unwrap()
    }

    fn live(&self) -> f64 {
        self.call("live", &JsValue::UNDEFINED).as_f64().unwrap()
    }

    /// `log.created` (create() options) and `log.prompts` (input and options), as JSON.
    fn log(&self, list: &str) -> Value {
        let log = js_sys::Reflect::get(&self.0, &"log".into()).unwrap();
        let items = js_sys::Reflect::get(&log, &list.into()).unwrap();
        // Sessions and functions do not survive JSON: only the data does.
        let text = js_sys::JSON::stringify(&items).unwrap().as_string().unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.call("uninstall", &JsValue::UNDEFINED);
    }
}

fn request(task: &str) -> ModelRequest {
    ModelRequest {
        messages: vec![
            Message::new(Role::System, "You are a careful agent."),
            Message::new(Role::User, task),
        ],
        schema: Some(json!({"type": "object", "properties": {"thought": {"type": "string"}}})),
        max_tokens: 256,
    }
}

async fn opened() -> Result<Rc<dyn ModelSource>, RawFailure> {
    open().await
}

fn model_class(raw: &RawFailure) -> (FailureClass, ErrorCode) {
    let c = classify(raw, Origin::Model);
    (c.class, c.code)
}

pub async fn prompt_api_availability_states_and_download_progress() {
    let absent = Fake::install(json!({}));
    absent.call("uninstall", &JsValue::UNDEFINED);
    let missing = opened().await.err().expect("no LanguageModel, no backend");
    assert_eq!(
        (missing.name.as_deref(), missing.code.as_deref()),
        (Some("NotSupportedError"), Some("MODEL_UNAVAILABLE"))
    );
    drop(absent);

    let fake = Fake::install(json!({"availability": "unavailable"}));
    let unavailable = opened().await.err().expect("unavailable");
    assert!(unavailable.message.contains("availability: unavailable"), "{}", unavailable.message);
    assert!(unavailable.message.contains("custom"), "says what to do instead: {}", unavailable.message);
    assert_eq!(model_class(&unavailable), (FailureClass::Fatal, ErrorCode::ModelUnavailable));

    // Downloadable without a user gesture: create() refuses, and the message says why.
    fake.call(
        "set",
        &js_sys::JSON::parse(r#"{"availability": "downloadable", "userActivation": false}"#).unwrap(),
    );
    let rpc = Rpc::new(Rc::new(Recorder::default()));
    let models = opened().await.expect("downloadable is usable");
    let refused = models.for_run(&rpc, "r").complete(&request("hi"), None).await.unwrap_err();
    assert_eq!(refused.name.as_deref(), Some("NotAllowedError"));
    assert!(refused.message.contains("user gesture"), "{}", refused.message);
    assert_eq!(model_class(&refused), (FailureClass::Fatal, ErrorCode::ModelUnavailable));

    // Downloading: create() goes on, and the progress reaches the page as the run's events.
    fake.call("set", &js_sys::JSON::parse(r#"{"availability": "downloading", "replies": ["{}"]}"#).unwrap());
    let posted = Rc::new(Recorder::default());
    let models = opened().await.unwrap();
    let reply = models.for_run(&Rpc::new(posted.clone()), "r").complete(&request("hi"), None).await.unwrap();
    assert_eq!(reply.text, "{}");
    let progress: Vec<Value> = posted.0.borrow().iter().map(|m| m["event"].clone()).collect();
    assert_eq!(
        progress,
        [0.0, 0.5, 1.0].map(|loaded| json!({"type": "modelDownload", "loaded": loaded, "total": 1.0}))
    );
    assert!(posted.0.borrow().iter().all(|m| m["runId"] == "r"));
    models.dispose();
}

/// The chunks a streaming call handed over.
#[derive(Default)]
struct Chunks(RefCell<Vec<String>>);

impl ReplySink for Chunks {
    fn text(&self, chunk: &str) {
        self.0.borrow_mut().push(chunk.to_string());
    }
    fn discard(&self, _: &ErrorCode) {
        self.0.borrow_mut().clear();
    }
}

pub async fn prompt_api_streams_each_chunk_and_a_broken_stream_fails_classified() {
    let step = r#"{"thought":"t","final_answer":"Bonjour 👋"}"#;
    let fake = Fake::install(json!({"chunkChars": 5, "replies": [step,
        {"text": step, "error": "UnknownError", "message": "The model crashed.", "after": 7}]}));
    let models = opened().await.unwrap();
    let model = models.for_run(&Rpc::new(Rc::new(Recorder::default())), "r");
    let chunks = Chunks::default();
    let reply = model.complete(&request("hi"), Some(&chunks)).await.unwrap();
    assert_eq!(reply.text, step);
    assert!(reply.usage.is_some(), "the stream is accounted like prompt()");
    let heard = chunks.0.take();
    assert_eq!(heard.concat(), step);
    assert_eq!(heard.len(), step.chars().count().div_ceil(5), "one chunk per piece of the stream: {heard:?}");
    assert_eq!(fake.log("prompts")[0]["streaming"], true, "asked with promptStreaming");
    // The stream errors after 7 characters: the text so far was handed over, the failure is transient.
    let raw = model.complete(&request("again"), Some(&chunks)).await.unwrap_err();
    assert_eq!(chunks.0.take().concat(), &step[..7]);
    assert_eq!(raw.name.as_deref(), Some("UnknownError"));
    assert_eq!(classify(&raw, Origin::Model).class, FailureClass::Transient);
    models.dispose();
}

pub async fn prompt_api_sessions_context_accounting_and_overflow() {
    for names in ["current", "old"] {
        let fake = Fake::install(json!({"contextWindow": 300, "names": names, "replies": ["one", "two",
            {"text": "three", "overflow": true}]}));
        let models = opened().await.unwrap();
        let model = models.for_run(&Rpc::new(Rc::new(Recorder::default())), "r");
        let reply = model.complete(&request("hi"), None).await.unwrap();
        // "You are a careful agent." is 24 chars: 6 + 2 tokens; "hi" 1 + 2 tokens.
        let usage = reply.usage.expect("measured");
        assert_eq!((usage.prompt_tokens, usage.completion_tokens), (11, 1), "{names}");
        assert_eq!(model.context_window(), Some(300), "{names}");
        model.complete(&request("again"), None).await.unwrap();
        // One base session with the system prompt as its first initial prompt, a clone per call.
        let created = fake.log("created");
        assert_eq!(created.as_array().unwrap().len(), 1);
        assert_eq!(
            created[0]["initialPrompts"],
            json!([{"role": "system", "content": "You are a careful agent."}])
        );
        let prompts = fake.log("prompts");
        assert_eq!(prompts[1]["input"], json!([{"role": "user", "content": "again"}]));
        assert_eq!(prompts[1]["options"]["omitResponseConstraintInput"], true);
        assert_eq!(prompts[1]["options"]["responseConstraint"]["type"], "object");
        assert_eq!(fake.live(), 1.0, "the clones are destroyed");

        // Too big for the window: a QuotaExceededError whose numbers reach the engine.
        let long = "x".repeat(2_000);
        let overflow = model.complete(&request(&long), None).await.unwrap_err();
        assert_eq!(overflow.name.as_deref(), Some("QuotaExceededError"));
        assert_eq!(overflow.hints.details.get("quota"), Some(&json!(300)), "{names}");
        assert_eq!(overflow.hints.details.get("requested"), Some(&json!(8 + 502)));
        assert_eq!(model_class(&overflow), (FailureClass::Persistent, ErrorCode::ContextOverflow));
        // The browser dropped input to answer (contextoverflow / quotaoverflow): the same.
        let dropped = model.complete(&request("hi"), None).await.unwrap_err();
        assert_eq!(dropped.name.as_deref(), Some("QuotaExceededError"), "{names}");
        assert_eq!(dropped.hints.details.get("quota"), Some(&json!(300)));
        models.dispose();
        assert_eq!(fake.live(), 0.0);
    }
}

pub async fn each_prompt_api_error_name_is_classified() {
    use ErrorCode::*;
    use FailureClass::*;
    let cases = [
        ("NotSupportedError", Fatal, ModelUnavailable),
        ("NotAllowedError", Fatal, ModelUnavailable),
        ("QuotaExceededError", Persistent, ContextOverflow),
        ("InvalidStateError", Transient, Unavailable),
        ("AbortError", Fatal, Aborted),
        ("UnknownError", Transient, Unavailable),
        ("OperationError", Transient, Unavailable),
        ("NetworkError", Transient, Network),
        ("NotReadableError", Persistent, SafetyBlocked),
        ("SyntaxError", Persistent, Unsupported),
        ("TypeError", Fatal, Internal),
        ("RangeError", Fatal, ModelRequestRejected),
    ];
    let replies: Vec<Value> = cases.iter().map(|(name, ..)| json!({"error": name})).collect();
    let fake = Fake::install(json!({"replies": replies}));
    let models = opened().await.unwrap();
    let model = models.for_run(&Rpc::new(Rc::new(Recorder::default())), "r");
    for (name, class, code) in cases {
        let raw = model.complete(&request("hi"), None).await.unwrap_err();
        assert_eq!(raw.name.as_deref(), Some(name));
        assert_eq!(model_class(&raw), (class, code), "{name}");
    }
    // From create(): a failed download is transient.
    models.dispose();
    fake.call("set", &js_sys::JSON::parse(r#"{"createError": "NetworkError"}"#).unwrap());
    let models = opened().await.unwrap();
    let model = models.for_run(&Rpc::new(Rc::new(Recorder::default())), "r");
    let raw = model.complete(&request("hi"), None).await.unwrap_err();
    assert_eq!(model_class(&raw), (FailureClass::Transient, ErrorCode::Network));
    // The next call makes the base session again.
    assert!(model.complete(&request("hi"), None).await.is_ok());
    models.dispose();
    let disposed = model.complete(&request("hi"), None).await.unwrap_err();
    assert_eq!(disposed.name.as_deref(), Some("InvalidStateError"));
}

pub async fn a_dropped_prompt_api_call_is_aborted_and_dispose_destroys_the_sessions() {
    let fake = Fake::install(json!({"replies": [{"hang": true}]}));
    let models = opened().await.unwrap();
    let model = models.for_run(&Rpc::new(Rc::new(Recorder::default())), "r");
    let clock = WebClock::new();
    match select(model.complete(&request("hi"), None), clock.sleep(50)).await {
        Either::Left(_) => panic!("a hanging prompt answered"),
        Either::Right((_, call)) => drop(call),
    }
    assert_eq!(fake.live(), 2.0, "the base and the call's clone");
    // The abort rejects the fake's prompt; the backend then destroys the clone.
    clock.sleep(20).await;
    assert_eq!(fake.live(), 1.0);
    models.dispose();
    assert_eq!(fake.live(), 0.0);
}

pub async fn the_worker_calls_the_prompt_api_itself_when_it_has_language_model() {
    let step = |tool: &str| json!({"thought": "look", "action": {"tool": tool, "args": {}}}).to_string();
    let last = json!({"thought": "done", "final_answer": "seen"}).to_string();
    let fake = Fake::install(json!({"availability": "downloading", "replies": [step("look"), last]}));
    let posted = Rc::new(Recorder::default());
    let host = super::web_host(&posted);
    host.set_opener(opener());
    // The model answers straight after the failure: recovery before the answer is off here (it has
    // tests of its own, natively).
    let init = json!({"type": "init", "model": {"kind": "promptApi"},
        "config": {"recoverBeforeAnswer": false},
        "tools": [{"name": "look", "description": "Looks."}]});
    host.handle(&init.to_string());
    let mut seen = 0;
    next(&posted, &mut seen, "ready").await;
    host.handle(&json!({"type": "run", "runId": "r", "task": "t"}).to_string());
    // The tool runs on the page and fails; the model (in this worker) recovers.
    let tool = next(&posted, &mut seen, "toolCall").await;
    let failed = json!({"type": "toolResult", "id": tool["id"], "ok": false,
        "error": {"name": "NotFoundError", "message": "nothing there"}});
    host.handle(&failed.to_string());
    let ended = next(&posted, &mut seen, "runEnded").await;
    assert_eq!(ended["result"]["answer"], "seen");
    assert_eq!(ended["result"]["failures"][0]["code"], "NOT_FOUND");
    let events: Vec<Value> = posted.0.borrow().iter().map(|m| m["event"].clone()).collect();
    assert!(events.iter().any(|e| e["type"] == "modelDownload" && e["loaded"] == 1.0), "{events:?}");
    assert!(posted.0.borrow().iter().all(|m| m["type"] != "modelCall"), "the page is not asked");
    assert_eq!(fake.live(), 1.0);
    host.handle(r#"{"type": "dispose"}"#);
    assert_eq!(fake.live(), 0.0, "dispose destroys the base session");
}
