#![cfg(not(target_arch = "wasm32"))]
//! Where the worker's models come from, driven natively: the Prompt API answered by the page (its
//! reported context window caps the prompt budget, for every run), a context overflow with the
//! Prompt API's `requested`/`quota` compacted and retried, a backend the worker opens itself
//! (asynchronously; its failure is `initFailed`; disposed with the agent), and the download event.

mod worker_harness;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::{Poll, Waker};

use futures_util::future::{poll_fn, LocalBoxFuture};
use futures_util::FutureExt;
use keel::engine::{Event, Model, ModelReply, ModelRequest, ReplySink};
use keel::errors::RawFailure;
use keel::web::model_source::{ModelSource, Opener};
use keel::web::protocol::{ModelChoice, WorkerMessage};
use keel::web::rpc::Rpc;
use serde_json::{json, Value};
use worker_harness::Worker;

/// A worker whose time stands still (nothing here waits on a timer), opening backends with `opener`.
fn worker(opener: Option<Opener>) -> Worker {
    let w = Worker::new();
    if let Some(opener) = opener {
        w.host.set_opener(opener);
    }
    w
}

fn act() -> String {
    json!({"thought": "look", "action": {"tool": "look", "args": {}}}).to_string()
}

const TOOLS: &str = r#"[{"name": "look", "description": "Looks."}]"#;

#[test]
fn the_page_answers_for_the_prompt_api_and_its_window_caps_every_runs_budget() {
    let mut w = worker(None);
    let tools: Value = serde_json::from_str(TOOLS).unwrap();
    w.send(json!({"type": "init", "model": {"kind": "promptApi"}, "tools": tools}));
    assert_eq!(w.last_of("ready")["type"], "ready");
    w.send(json!({"type": "run", "runId": "a", "task": "t"}));
    let call = w.last_of("modelCall");
    // The page reports a window too small for the prompt: the next prompt cannot be built within it.
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": true, "text": act(),
                  "usage": {"promptTokens": 90, "completionTokens": 9}, "contextWindow": 200}));
    let tool = w.last_of("toolCall");
    w.send(json!({"type": "toolResult", "id": tool["id"], "ok": true, "value": "seen"}));
    // The request for the answer alone, which nothing else is left for, fits the window.
    let focused = w.last_of("modelCall");
    assert_ne!(focused["id"], call["id"]);
    let content = focused["request"]["messages"][0]["content"].as_str().unwrap();
    assert!(content.starts_with("Answer the user's question"), "{focused}");
    let answer = json!({"final_answer": "seen"}).to_string();
    w.send(json!({"type": "modelResult", "id": focused["id"], "ok": true, "text": answer,
                  "usage": {"promptTokens": 60, "completionTokens": 5}}));
    let ended = w.last_of("runEnded");
    assert_eq!(ended["result"]["success"], true, "{ended}");
    assert_eq!(ended["result"]["counts"]["promptTokens"], 150);
    // The window is the agent's, not the run's: the next run's whole step cannot be built within
    // it, and the run ends without asking.
    w.send(json!({"type": "run", "runId": "b", "task": "t"}));
    assert_eq!(w.count("modelCall"), 2);
    let ended = w.last_of("runEnded");
    assert_eq!(ended["runId"], "b");
    assert_eq!(ended["result"]["reason"]["code"], "CONTEXT_OVERFLOW");
    assert!(ended["result"]["reason"]["message"].as_str().unwrap().contains("budget is 175"), "{ended}");
}

#[test]
fn a_quota_exceeded_error_from_the_page_compacts_the_prompt_and_retries() {
    let mut w = worker(None);
    w.send(json!({"type": "init", "model": {"kind": "promptApi"}}));
    w.send(json!({"type": "run", "runId": "a", "task": "t"}));
    let call = w.last_of("modelCall");
    w.send(json!({"type": "modelResult", "id": call["id"], "ok": false, "error": {
        "name": "QuotaExceededError", "message": "too big",
        "hints": {"details": {"requested": 10000, "quota": 5000}}}}));
    let warning = w.posted.0.borrow().iter().find(|m| m["event"]["type"] == "warning").cloned().unwrap();
    // 8000 × 5000/10000 × 0.9: the Prompt API's numbers travelled and scaled the budget.
    assert!(warning["event"]["message"].as_str().unwrap().contains("3600 tokens"), "{warning}");
    let retry = w.last_of("modelCall");
    assert_ne!(retry["id"], call["id"]);
    let answer = json!({"thought": "ok", "final_answer": "fits"}).to_string();
    w.send(json!({"type": "modelResult", "id": retry["id"], "ok": true, "text": answer}));
    let ended = w.last_of("runEnded");
    assert_eq!(ended["result"]["answer"], "fits");
    assert_eq!(ended["result"]["failures"][0]["code"], "CONTEXT_OVERFLOW");
    assert_eq!(ended["result"]["failures"][0]["recovered"], true);
}

/// A backend the worker runs itself: answers a final answer, reports a download, counts disposals.
struct Direct {
    disposed: Rc<Cell<u32>>,
}

struct DirectModel {
    rpc: Rc<Rpc>,
    run_id: String,
}

impl Model for DirectModel {
    fn complete<'a>(
        &'a self,
        _: &'a ModelRequest,
        _: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let event = Event::ModelDownload { loaded: 1.0, total: Some(1.0) };
        self.rpc.post(&WorkerMessage::Event { run_id: self.run_id.clone(), event });
        let text = json!({"thought": "direct", "final_answer": "from the worker"}).to_string();
        async move { Ok(ModelReply { text, usage: None }) }.boxed_local()
    }
}

impl ModelSource for Direct {
    fn for_run(&self, rpc: &Rc<Rpc>, run_id: &str) -> Rc<dyn Model> {
        Rc::new(DirectModel { rpc: rpc.clone(), run_id: run_id.into() })
    }
    fn dispose(&self) {
        self.disposed.set(self.disposed.get() + 1);
    }
}

/// The opening's outcome, set by the test, and who to wake then.
#[derive(Default)]
struct GateState {
    outcome: Option<Result<(), RawFailure>>,
    waker: Option<Waker>,
}

#[derive(Clone, Default)]
struct Gate(Rc<RefCell<GateState>>);

impl Gate {
    fn open(&self, outcome: Result<(), RawFailure>) {
        let waker = {
            let mut state = self.0.borrow_mut();
            state.outcome = Some(outcome);
            state.waker.take()
        };
        waker.expect("an opening waits").wake();
    }

    async fn wait(self) -> Result<(), RawFailure> {
        poll_fn(|cx| {
            let mut state = self.0.borrow_mut();
            match state.outcome.take() {
                Some(outcome) => Poll::Ready(outcome),
                None => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }
}

/// Opens `Direct` for the Prompt API once the test opens the gate.
fn opener(disposed: Rc<Cell<u32>>, gate: Gate) -> Opener {
    Rc::new(move |choice: &ModelChoice| {
        if *choice != ModelChoice::PromptApi {
            return None;
        }
        let (disposed, gate) = (disposed.clone(), gate.clone());
        Some(
            async move {
                gate.wait().await?;
                Ok(Rc::new(Direct { disposed }) as Rc<dyn ModelSource>)
            }
            .boxed_local(),
        )
    })
}

#[test]
fn a_backend_the_worker_opens_itself_answers_runs_and_is_disposed_with_the_agent() {
    let (disposed, gate) = (Rc::new(Cell::new(0)), Gate::default());
    let mut w = worker(Some(opener(disposed.clone(), gate.clone())));
    w.send(json!({"type": "init", "model": {"kind": "promptApi"}}));
    assert_eq!(w.count("ready"), 0, "ready waits for the backend");
    w.send(json!({"type": "init", "model": {"kind": "promptApi"}}));
    assert_eq!(w.last_of("initFailed")["error"]["code"], "PROTOCOL_ERROR");
    gate.open(Ok(()));
    w.pool.run_until_stalled();
    assert_eq!(w.count("ready"), 1);
    w.send(json!({"type": "run", "runId": "a", "task": "t"}));
    assert_eq!(w.count("modelCall"), 0, "the page is not asked");
    assert_eq!(w.last_of("runEnded")["result"]["answer"], "from the worker");
    let download = w.posted.0.borrow().iter().find(|m| m["event"]["type"] == "modelDownload").cloned();
    assert_eq!(download.unwrap()["event"], json!({"type": "modelDownload", "loaded": 1.0, "total": 1.0}));
    w.send(json!({"type": "dispose"}));
    assert_eq!(disposed.get(), 1);
}

#[test]
fn a_backend_that_fails_to_open_fails_init_and_one_opened_after_dispose_is_released() {
    let (disposed, gate) = (Rc::new(Cell::new(0)), Gate::default());
    let mut w = worker(Some(opener(disposed.clone(), gate.clone())));
    w.send(json!({"type": "init", "model": {"kind": "promptApi"}}));
    let unavailable = RawFailure::named("NotSupportedError", "no model here");
    gate.open(Err(unavailable));
    w.pool.run_until_stalled();
    assert_eq!(w.last_of("initFailed")["error"]["name"], "NotSupportedError");
    // Other kinds are not the opener's: the custom model is still the page's.
    let mut w = worker(Some(opener(disposed.clone(), gate.clone())));
    w.send(json!({"type": "init", "model": {"kind": "custom"}}));
    assert_eq!(w.count("ready"), 1);
    let mut w = worker(Some(opener(disposed.clone(), gate.clone())));
    w.send(json!({"type": "init", "model": {"kind": "promptApi"}}));
    w.send(json!({"type": "dispose"}));
    gate.open(Ok(()));
    w.pool.run_until_stalled();
    assert_eq!((w.count("ready"), disposed.get()), (0, 1));
}
