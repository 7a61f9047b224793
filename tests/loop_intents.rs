//! Side effects and resume: a call of a tool with side effects has its intent stored before it
//! runs, and a run resumed after it was cut off during that call never makes it again silently —
//! it reports the unknown outcome to the model or asks the user, per the tool's declaration — while
//! an idempotent tool's call is simply made again. Each call carries an idempotency key that stays
//! the same when the call is made again.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::task::noop_waker_ref;
use futures_util::FutureExt;
use keel::engine::{Approvals, Decision, Effects, Event, Outcome, RunOptions, RunResult};
use keel::errors::ErrorCode;
use keel::store::{MemoryStore, RunStatus, Store};
use keel::tools::{OnUnknownOutcome, ToolSet, ToolSetError, ToolSpec};
use serde_json::{json, Value};
use support::{
    act, answer, classic, Behaviour, Bound, FakeTools, FixedRandom, Reply, ScriptedModel, StuckClock,
};

fn pay_spec() -> ToolSpec {
    ToolSpec::new(
        "pay",
        "Pay an invoice.",
        json!({"type": "object", "properties": {"invoice": {"type": "string"}}, "required": ["invoice"]}),
    )
}

fn specs(pay: ToolSpec) -> Vec<ToolSpec> {
    vec![
        pay,
        ToolSpec::new("list_payments", "List the payments made.", json!({"type": "object"})).read_only(),
        ToolSpec::new("get_weather", "Weather.", json!({"type": "object"})).read_only(),
    ]
}

fn agent(store: &Rc<MemoryStore>, model: Rc<ScriptedModel>, tools: Rc<FakeTools>, pay: ToolSpec) -> Bound {
    let effects = Effects {
        model,
        tools,
        store: store.clone(),
        clock: Rc::new(StuckClock),
        random: Rc::new(FixedRandom(0.0)),
    };
    Bound::new(effects, specs(pay), classic())
}

fn pay() -> Reply {
    act("pay", json!({"invoice": "INV-7"}))
}

fn run_options() -> RunOptions {
    RunOptions { session: "s".into(), run_id: Some("r1".into()), ..Default::default() }
}

/// Commits step 1 (a weather call), then hangs in step 2's `pay`; the run's future is then
/// dropped, which is all a terminated worker leaves behind. Returns the keys `pay` was called with.
fn cut_in_pay(store: &Rc<MemoryStore>, pay_spec: ToolSpec) -> Vec<String> {
    let model = ScriptedModel::new([act("get_weather", json!({})), pay()]);
    let tools = FakeTools::new()
        .script("get_weather", vec![Behaviour::Ok(json!("mild"))])
        .script("pay", vec![Behaviour::Hang]);
    let cut = agent(store, model, tools.clone(), pay_spec);
    let run = cut.run("Pay invoice INV-7", run_options(), &|_| {});
    assert!(run.now_or_never().is_none(), "the run is stuck in step 2's call");
    keys(&tools, "pay")
}

fn keys(tools: &FakeTools, tool: &str) -> Vec<String> {
    tools.calls.borrow().iter().filter(|c| c.tool == tool).map(|c| c.idempotency_key.clone()).collect()
}

type Events = Rc<RefCell<Vec<Event>>>;

/// Resumes run `r1` and polls it by hand: `Err` is the future still waiting (on the user).
fn resume<'a>(
    a: &'a Bound,
    store: &Rc<MemoryStore>,
    approvals: &Approvals,
    events: &Events,
) -> Pin<Box<dyn Future<Output = RunResult> + 'a>> {
    let saved = futures_executor::block_on(store.load_run("r1")).unwrap().expect("stored");
    let (run, turns) = saved.into_parts();
    let events = events.clone();
    let emit: &'a dyn Fn(&Event) = Box::leak(Box::new(move |e: &Event| events.borrow_mut().push(e.clone())));
    let options = RunOptions { approvals: approvals.clone(), ..Default::default() };
    Box::pin(a.resume(run, turns, options, emit))
}

fn poll(run: &mut Pin<Box<dyn Future<Output = RunResult> + '_>>) -> Option<RunResult> {
    match run.as_mut().poll(&mut Context::from_waker(noop_waker_ref())) {
        Poll::Ready(result) => Some(result),
        Poll::Pending => None,
    }
}

fn action_keys(events: &Events) -> Vec<(u32, String, String)> {
    let events = events.borrow();
    let keys = events.iter().filter_map(|e| match e {
        Event::Action { step, tool, idempotency_key, .. } => {
            Some((*step, tool.clone(), idempotency_key.clone()))
        }
        _ => None,
    });
    keys.collect()
}

#[test]
fn the_intent_is_stored_before_a_call_with_side_effects_runs() {
    let store = Rc::new(MemoryStore::new());
    let called_with = cut_in_pay(&store, pay_spec());
    assert_eq!(called_with, ["r1:2"], "the tool gets the call's idempotency key");
    let run = store.runs().pop().unwrap();
    assert_eq!(run.status, RunStatus::Running);
    let intent = run.intent.expect("the intent is stored before the call runs");
    assert_eq!((intent.step, intent.tool.as_str(), intent.idempotency_key.as_str()), (2, "pay", "r1:2"));
    assert_eq!(intent.args, json!({"invoice": "INV-7"}));
    assert_eq!(run.counts.steps, 1, "the record counts the committed steps");
    let unfinished = futures_executor::block_on(store.unfinished_runs()).unwrap();
    assert_eq!(unfinished[0].intent.as_ref().map(|i| i.step), Some(2), "listed with the unfinished run");
}

#[test]
fn a_resumed_run_reports_a_cut_off_call_to_the_model_instead_of_making_it_again() {
    let store = Rc::new(MemoryStore::new());
    cut_in_pay(&store, pay_spec());
    let model = ScriptedModel::new([act("list_payments", json!({})), answer("INV-7 is paid.")]);
    let tools = FakeTools::new()
        .script("pay", vec![Behaviour::Ok(json!("paid"))])
        .script("list_payments", vec![Behaviour::Ok(json!(["INV-7"]))]);
    let a = agent(&store, model.clone(), tools.clone(), pay_spec());
    let events: Events = Rc::default();
    let result = futures_executor::block_on(resume(&a, &store, &Approvals::new(), &events));

    assert_eq!(tools.calls_to("pay"), 0, "the call whose outcome is unknown is not made again");
    assert_eq!(result.turns.iter().map(|t| t.step).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let step2 = &result.turns[1];
    assert_eq!(step2.outcome, Outcome::Failed);
    assert_eq!(step2.action.as_ref().map(|a| a.tool.as_str()), Some("pay"));
    for needle in ["OUTCOME_UNKNOWN", "may or may not have taken effect", "r1:2", "same idempotency key"] {
        assert!(step2.observation.contains(needle), "{needle} in {}", step2.observation);
    }
    let prompt: String = model.requests.borrow()[0].messages.iter().map(|m| m.content.as_str()).collect();
    assert!(prompt.contains("OUTCOME_UNKNOWN"), "the model's first step after the resume sees it");
    let failure = &store.failures()[0];
    assert_eq!((&failure.code, failure.step), (&ErrorCode::OutcomeUnknown, 2));
    assert_eq!(failure.idempotency_key.as_deref(), Some("r1:2"), "the failure log shows the key");
    assert_eq!(action_keys(&events)[0], (2, "pay".into(), "r1:2".into()), "the event shows the key");
    assert!(store.runs()[0].intent.is_none(), "cleared when the run ends");
}

#[test]
fn the_same_call_made_again_after_an_unknown_outcome_keeps_its_idempotency_key() {
    let store = Rc::new(MemoryStore::new());
    cut_in_pay(&store, pay_spec());
    let model = ScriptedModel::new([act("list_payments", json!({})), pay(), answer("Paid.")]);
    let tools = FakeTools::new()
        .script("pay", vec![Behaviour::Ok(json!("paid"))])
        .script("list_payments", vec![Behaviour::Ok(json!([]))]);
    let a = agent(&store, model, tools.clone(), pay_spec());
    let events: Events = Rc::default();
    futures_executor::block_on(resume(&a, &store, &Approvals::new(), &events));
    assert_eq!(
        keys(&tools, "pay"),
        ["r1:2"],
        "step 4's call is the cut-off call made again: its key is step 2's"
    );
    assert_eq!(action_keys(&events)[2], (4, "pay".into(), "r1:2".into()));
    // Each stored step keeps the key its call ran with; step 2's call never ran again.
    let mut stored: Vec<(u32, Option<String>)> =
        store.turns().into_iter().map(|t| (t.turn.step, t.idempotency_key)).collect();
    stored.sort();
    assert_eq!(
        stored,
        [(1, Some("r1:1".into())), (2, None), (3, Some("r1:3".into())), (4, Some("r1:2".into())), (5, None)]
    );
}

#[test]
fn an_idempotent_call_cut_off_is_made_again_with_the_same_key() {
    let store = Rc::new(MemoryStore::new());
    let first = cut_in_pay(&store, pay_spec().idempotent());
    assert!(store.runs()[0].intent.is_none(), "no intent for an idempotent tool");
    let model = ScriptedModel::new([pay(), answer("Paid.")]);
    let tools = FakeTools::new().script("pay", vec![Behaviour::Ok(json!("paid"))]);
    let a = agent(&store, model, tools.clone(), pay_spec().idempotent());
    let result = futures_executor::block_on(resume(&a, &store, &Approvals::new(), &Rc::default()));
    assert!(result.success, "{result:?}");
    assert_eq!(keys(&tools, "pay"), first, "made again, with the key it had");
    assert_eq!(result.turns[1].outcome, Outcome::Ok);
}

#[test]
fn with_ask_the_cut_off_call_waits_for_approval_and_runs_again_once_approved() {
    let store = Rc::new(MemoryStore::new());
    let ask = || pay_spec().on_unknown_outcome(OnUnknownOutcome::Ask);
    cut_in_pay(&store, ask());
    let model = ScriptedModel::new([answer("Paid.")]);
    let tools = FakeTools::new().script("pay", vec![Behaviour::Ok(json!("paid"))]);
    let a = agent(&store, model.clone(), tools.clone(), ask());
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let mut run = resume(&a, &store, &approvals, &events);
    assert!(poll(&mut run).is_none(), "the run waits for the user");

    assert_eq!(tools.calls_to("pay"), 0, "nothing runs before the decision");
    let requested = events.borrow().iter().find_map(|e| match e {
        Event::ApprovalRequested { call_id, tool, outcome_unknown, .. } => {
            Some((call_id.clone(), tool.clone(), *outcome_unknown))
        }
        _ => None,
    });
    assert_eq!(requested, Some(("r1:2".into(), "pay".into(), true)));
    let pending = store.runs()[0].pending_approval.clone().expect("the question is stored");
    assert!(pending.outcome_unknown);
    approvals.decide("r1:2", Decision::approve()).unwrap();
    let result = poll(&mut run).expect("the run goes on");

    assert!(result.success, "{result:?}");
    assert_eq!(keys(&tools, "pay"), ["r1:2"], "made again once, with its first key");
    assert_eq!(result.turns[1].outcome, Outcome::Ok);
    assert_eq!(model.requests.borrow().len(), 1, "the model is not asked for step 2 again");
}

#[test]
fn with_ask_a_rejection_reports_the_unknown_outcome_with_the_reason() {
    let store = Rc::new(MemoryStore::new());
    let ask = || pay_spec().on_unknown_outcome(OnUnknownOutcome::Ask);
    cut_in_pay(&store, ask());
    let tools = FakeTools::new().script("pay", vec![Behaviour::Ok(json!("paid"))]);
    let a = agent(&store, ScriptedModel::new([answer("Not sure it was paid.")]), tools.clone(), ask());
    // Decided ahead, as after a reload: `agent.reject(callId)` resumes the run with the decision.
    let approvals = Approvals::decided("r1:2", Decision::reject(Some("I will check the bank".into())));
    let result = futures_executor::block_on(resume(&a, &store, &approvals, &Rc::default()));

    assert_eq!(tools.calls_to("pay"), 0);
    let shown = &result.turns[1].observation;
    for needle in ["OUTCOME_UNKNOWN", "I will check the bank", "r1:2"] {
        assert!(shown.contains(needle), "{needle} in {shown}");
    }
    assert!(!result.success, "an answer straight after an unknown outcome is not a success");
}

#[test]
fn an_abandoned_run_says_which_call_may_or_may_not_have_happened() {
    let store = Rc::new(MemoryStore::new());
    cut_in_pay(&store, pay_spec());
    let a = agent(&store, ScriptedModel::new([]), FakeTools::new(), pay_spec());
    let saved = futures_executor::block_on(store.load_run("r1")).unwrap().unwrap();
    let (run, turns) = saved.into_parts();
    let result = futures_executor::block_on(a.abandon(run, turns, &|_| {}));
    assert!(result.answer.contains("`pay` (idempotency key r1:2)"), "{}", result.answer);
}

#[test]
fn declarations_that_make_no_sense_fail_clearly() {
    let read: Result<ToolSpec, _> = serde_json::from_value(json!({
        "name": "pay", "description": "Pay.", "onUnknownOutcome": "retry"
    }));
    let message = read.unwrap_err().to_string();
    assert!(message.contains(r#"onUnknownOutcome must be "ask""#) && message.contains("retry"), "{message}");

    let both = ToolSet::new(vec![pay_spec().idempotent().on_unknown_outcome(OnUnknownOutcome::Ask)]);
    match both {
        Err(ToolSetError::InvalidSetting { tool, message }) => {
            assert_eq!(tool, "pay");
            assert!(message.contains("onUnknownOutcome") && message.contains("idempotent"), "{message}");
        }
        other => panic!("expected InvalidSetting, got {other:?}"),
    }
    let read: ToolSpec = serde_json::from_value(json!({
        "name": "pay", "description": "Pay.", "idempotent": false, "onUnknownOutcome": "ask"
    }))
    .unwrap();
    assert_eq!(read.unknown_outcome(), OnUnknownOutcome::Ask);
    assert_eq!(serde_json::to_value(&read).unwrap()["onUnknownOutcome"], Value::from("ask"));
}
