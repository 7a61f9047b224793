#![cfg(not(target_arch = "wasm32"))]
//! The fallback chain natively: which failures move it on, in what order, with which warnings,
//! and what the loop gets when every backend fails.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_executor::block_on;
use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use keel::engine::{Message, Model, ModelReply, ModelRequest, ReplySink, Role};
use keel::errors::{classify, ErrorCode, FailureClass, Origin, RawFailure};
use keel::web::fallback::{Backend, FallbackModel};
use serde_json::json;

/// A backend answering from a script, counting its calls.
struct Script {
    answers: RefCell<VecDeque<Result<&'static str, RawFailure>>>,
    calls: RefCell<u32>,
    greedy: bool,
}

impl Model for Script {
    fn complete<'a>(
        &'a self,
        _: &'a ModelRequest,
        _: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        *self.calls.borrow_mut() += 1;
        let next = self.answers.borrow_mut().pop_front().unwrap_or(Ok("out of script"));
        futures_util::future::ready(next.map(|text| ModelReply { text: text.into(), usage: None }))
            .boxed_local()
    }

    fn greedy(&self) -> bool {
        self.greedy
    }
}

fn script(answers: Vec<Result<&'static str, RawFailure>>) -> Rc<Script> {
    Rc::new(Script { answers: RefCell::new(answers.into()), calls: RefCell::new(0), greedy: false })
}

fn greedy_script() -> Rc<Script> {
    Rc::new(Script { answers: RefCell::default(), calls: RefCell::new(0), greedy: true })
}

struct Chain {
    model: FallbackModel,
    warnings: Rc<RefCell<Vec<String>>>,
}

fn chain(members: &[(&str, &Rc<Script>)]) -> Chain {
    let warnings = Rc::new(RefCell::new(Vec::new()));
    let sink = warnings.clone();
    let backends = members
        .iter()
        .map(|(label, s)| Backend { label: label.to_string(), model: (*s).clone() as Rc<dyn Model> })
        .collect();
    Chain { model: FallbackModel::new(backends, Rc::new(move |w| sink.borrow_mut().push(w))), warnings }
}

fn request(constrained: bool) -> ModelRequest {
    ModelRequest {
        messages: vec![Message::new(Role::User, "task")],
        schema: constrained.then(|| json!({"type": "object"})),
        max_tokens: 256,
    }
}

fn ask(chain: &Chain, constrained: bool) -> Result<String, RawFailure> {
    block_on(chain.model.complete(&request(constrained), None)).map(|r| r.text)
}

fn unauthorised() -> RawFailure {
    RawFailure::http(401, "HTTP 401 from http://a/v1/chat/completions: Incorrect API key")
}

#[test]
fn an_unavailable_backend_hands_over_to_the_next_with_a_warning_for_the_rest_of_the_run() {
    let first = script(vec![Err(unauthorised())]);
    let second = script(vec![Ok("step 1"), Ok("step 2")]);
    let c = chain(&[("openai m at http://a/v1", &first), ("custom", &second)]);
    assert_eq!(ask(&c, true).unwrap(), "step 1");
    assert_eq!(c.model.current(), 1);
    let warnings = c.warnings.borrow().clone();
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0],
        "Model backend 1 of 2 (openai m at http://a/v1) failed with MODEL_UNAVAILABLE: HTTP 401 from \
         http://a/v1/chat/completions: Incorrect API key. Falling back to backend 2 (custom) for the rest \
         of the run."
    );
    // Sticky: the next step goes straight to the second backend.
    assert_eq!(ask(&c, true).unwrap(), "step 2");
    assert_eq!((*first.calls.borrow(), *second.calls.borrow()), (1, 2));
    assert_eq!(c.warnings.borrow().len(), 1);
}

#[test]
fn transient_failures_go_back_to_the_loop_to_be_retried_on_the_same_backend() {
    let busy = RawFailure::http(429, "slow down").with_retry_after_ms(1_000);
    let first =
        script(vec![Err(busy.clone()), Err(RawFailure::named("TypeError", "Failed to fetch")), Ok("ok")]);
    let second = script(vec![]);
    let c = chain(&[("a", &first), ("b", &second)]);
    assert_eq!(ask(&c, true).unwrap_err(), busy, "unchanged, Retry-After included");
    assert_eq!(classify(&ask(&c, true).unwrap_err(), Origin::Model).class, FailureClass::Transient);
    assert_eq!(ask(&c, true).unwrap(), "ok");
    assert_eq!((c.model.current(), *second.calls.borrow()), (0, 0));
    assert!(c.warnings.borrow().is_empty());
}

#[test]
fn failures_about_the_prompt_are_left_to_the_loop() {
    let overflow = RawFailure::coded("CONTEXT_OVERFLOW", "too long");
    let blocked = RawFailure::coded("SAFETY_BLOCKED", "filtered");
    let schema = RawFailure::named("SyntaxError", "constraint unsatisfiable");
    let first =
        script(vec![Err(overflow.clone()), Err(blocked.clone()), Err(schema.clone()), Err(schema.clone())]);
    let second = script(vec![Ok("second")]);
    let c = chain(&[("a", &first), ("b", &second)]);
    assert_eq!(ask(&c, true).unwrap_err(), overflow);
    assert_eq!(ask(&c, true).unwrap_err(), blocked);
    // A rejected schema while constraining: the loop asks again without it, same backend.
    assert_eq!(ask(&c, true).unwrap_err(), schema);
    assert_eq!(c.model.current(), 0);
    // Unsupported even without a schema: this backend cannot go on.
    assert_eq!(ask(&c, false).unwrap(), "second");
    assert_eq!(c.warnings.borrow().len(), 1);
}

#[test]
fn persistent_failures_move_on_too_and_chains_go_in_order() {
    let odd = RawFailure::coded("INVALID_OUTPUT", "no content in choices[0].message");
    let a = script(vec![Err(RawFailure::named("NotSupportedError", "no Prompt API"))]);
    let b = script(vec![Err(odd)]);
    let c3 = script(vec![Ok("third")]);
    let c = chain(&[("promptApi", &a), ("openai", &b), ("custom", &c3)]);
    assert_eq!(ask(&c, true).unwrap(), "third");
    let warnings = c.warnings.borrow();
    assert_eq!(warnings.len(), 2);
    assert!(warnings[0]
        .starts_with("Model backend 1 of 3 (promptApi) failed with MODEL_UNAVAILABLE: no Prompt API."));
    assert!(warnings[0].ends_with("Falling back to backend 2 (openai) for the rest of the run."));
    assert!(warnings[1].contains("backend 2 of 3 (openai) failed with INVALID_OUTPUT"), "{}", warnings[1]);
    assert!(warnings[1].contains("backend 3 (custom)"));
}

#[test]
fn when_every_backend_fails_the_last_failure_lists_what_was_tried() {
    let a = script(vec![Err(unauthorised())]);
    let b = script(vec![Err(RawFailure::http(404, "model \"x\" not found"))]);
    let c = chain(&[("openai m at http://a/v1", &a), ("openai x at http://b/v1", &b)]);
    let last = ask(&c, true).unwrap_err();
    assert_eq!(last.status, Some(404), "the last failure's fields stay");
    assert_eq!(classify(&last, Origin::Model).code, ErrorCode::ModelUnavailable);
    assert_eq!(
        last.message,
        "Every model backend failed: 1. openai m at http://a/v1 (MODEL_UNAVAILABLE): HTTP 401 from \
         http://a/v1/chat/completions: Incorrect API key; 2. openai x at http://b/v1 (MODEL_UNAVAILABLE): \
         model \"x\" not found"
    );
    assert_eq!(c.warnings.borrow().len(), 1, "a warning per hand-over, none for the end");
}

#[test]
fn an_empty_chain_is_unavailable() {
    let c = chain(&[]);
    let empty = ask(&c, true).unwrap_err();
    assert_eq!(classify(&empty, Origin::Model).class, FailureClass::Fatal);
}

#[test]
fn a_chain_is_greedy_when_every_backend_is() {
    let (a, b) = (greedy_script(), greedy_script());
    assert!(chain(&[("openai a", &a), ("openai b", &b)]).model.greedy());
    let sampled = script(vec![]);
    assert!(!chain(&[("openai a", &a), ("prompt-api", &sampled)]).model.greedy());
    assert!(!chain(&[("prompt-api", &sampled), ("openai a", &a)]).model.greedy());
}
