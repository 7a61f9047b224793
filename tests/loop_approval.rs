//! Human approval through the loop: a call of a tool declared `needsApproval` pauses the run, the
//! pause is in the store before the page hears of it, and the user's decision (approve, reject)
//! decides whether it runs, in the same run or in one resumed after a reload.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::task::noop_waker_ref;
use keel::engine::{ApprovalError, Approvals, Decision, Event, Outcome, RunOptions, RunResult};
use keel::errors::{ErrorCode, FailureClass};
use keel::store::redact::{RedactPolicy, Redactor};
use keel::store::{EndReason, RunStatus, Store};
use keel::tools::{NeedsApproval, ToolSpec};
use serde_json::{json, Value};
use support::{act, answer, classic, Behaviour, FakeTools, Harness, ScriptedModel};

fn specs(needs: NeedsApproval) -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "send_email",
            "Send an email.",
            json!({"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                   "required": ["to"]}),
        )
        .with_approval(needs),
        ToolSpec::new("draft_email", "Save a draft instead of sending.", json!({"type": "object"})),
        ToolSpec::new("get_weather", "Weather.", json!({"type": "object"})),
    ]
}

fn send(to: &str) -> support::Reply {
    act("send_email", json!({"to": to, "body": "hello"}))
}

fn harness(replies: Vec<support::Reply>, needs: NeedsApproval) -> Harness {
    let tools = FakeTools::new()
        .script("send_email", vec![Behaviour::Ok(json!("sent"))])
        .script("draft_email", vec![Behaviour::Ok(json!("drafted"))]);
    Harness::new(ScriptedModel::new(replies), tools, specs(needs), classic())
}

type Events = Rc<RefCell<Vec<Event>>>;

/// A run polled by hand, so a test can look at it while it waits and decide for the user.
struct Paused<'a> {
    run: Pin<Box<dyn Future<Output = RunResult> + 'a>>,
}

impl<'a> Paused<'a> {
    /// Starts `task` (or resumes `run_id` when `resume` holds its saved run) and polls until it
    /// waits on something that is not the clock.
    fn start(h: &'a Harness, task: &'a str, options: RunOptions, events: &Events) -> Paused<'a> {
        let events = events.clone();
        let emit: &'a dyn Fn(&Event) =
            Box::leak(Box::new(move |e: &Event| events.borrow_mut().push(e.clone())));
        let mut paused = Paused { run: Box::pin(h.agent.run(&h.effects, task, options, emit)) };
        assert!(paused.poll().is_none(), "the run waits");
        paused
    }

    fn resume(h: &'a Harness, run_id: &str, options: RunOptions, events: &Events) -> Paused<'a> {
        let saved = futures_executor::block_on(h.store.load_run(run_id)).unwrap().expect("the run is stored");
        let (run, turns) = saved.into_parts();
        let events = events.clone();
        let emit: &'a dyn Fn(&Event) =
            Box::leak(Box::new(move |e: &Event| events.borrow_mut().push(e.clone())));
        Paused { run: Box::pin(h.agent.resume(&h.effects, run, turns, options, emit)) }
    }

    fn poll(&mut self) -> Option<RunResult> {
        match self.run.as_mut().poll(&mut Context::from_waker(noop_waker_ref())) {
            Poll::Ready(result) => Some(result),
            Poll::Pending => None,
        }
    }

    fn finish(self) -> RunResult {
        futures_executor::block_on(self.run)
    }
}

fn options(run_id: &str, approvals: &Approvals) -> RunOptions {
    RunOptions {
        session: "s".into(),
        run_id: Some(run_id.into()),
        approvals: approvals.clone(),
        ..Default::default()
    }
}

fn requested(events: &Events) -> Vec<(String, String, Value)> {
    events
        .borrow()
        .iter()
        .filter_map(|e| match e {
            Event::ApprovalRequested { call_id, tool, args, .. } => {
                Some((call_id.clone(), tool.clone(), args.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_call_needing_approval_waits_stored_and_runs_once_approved() {
    let h = harness(vec![send("ann@example.com"), answer("Sent.")], NeedsApproval::Always);
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let run = Paused::start(&h, "Email Ann", options("r1", &approvals), &events);

    assert_eq!(h.tools.calls_to("send_email"), 0, "nothing runs before the decision");
    assert_eq!(
        requested(&events),
        vec![("r1:1".into(), "send_email".into(), json!({"to": "ann@example.com", "body": "hello"}))]
    );
    let stored = h.store.runs().pop().unwrap();
    assert_eq!(stored.status, RunStatus::Running);
    let pending = stored.pending_approval.expect("the pause is in the store");
    assert_eq!((pending.call_id.as_str(), pending.step, pending.tool.as_str()), ("r1:1", 1, "send_email"));
    assert_eq!(pending.thought, "I will call send_email.");
    assert!(!pending.args_redacted);
    assert_eq!(approvals.waiting().as_deref(), Some("r1:1"));

    assert_eq!(
        approvals.decide("r1:2", Decision::approve()),
        Err(ApprovalError::NotPending { call_id: "r1:2".into(), waiting: Some("r1:1".into()) })
    );
    approvals.decide("r1:1", Decision::approve()).unwrap();
    assert!(approvals.decide("r1:1", Decision::approve()).is_err(), "a call is decided once");
    let result = run.finish();

    assert!(result.success, "{result:?}");
    assert_eq!(h.tools.calls_to("send_email"), 1);
    assert_eq!(result.turns[0].outcome, Outcome::Ok);
    assert!(h.store.runs().pop().unwrap().pending_approval.is_none());
    let decided = events
        .borrow()
        .iter()
        .any(|e| matches!(e, Event::ApprovalDecided { call_id, approved: true, .. } if call_id == "r1:1"));
    assert!(decided);
}

#[test]
fn a_rejection_reaches_the_model_as_an_envelope_and_is_never_retried() {
    let h = harness(
        vec![send("ann@example.com"), act("draft_email", json!({})), answer("Drafted instead.")],
        NeedsApproval::Always,
    );
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let run = Paused::start(&h, "Email Ann", options("r1", &approvals), &events);
    approvals.decide("r1:1", Decision::reject(Some("Ann is on leave; draft it".into()))).unwrap();
    let result = run.finish();

    assert_eq!(h.tools.calls_to("send_email"), 0, "a rejected call never runs");
    assert_eq!(h.tools.calls_to("draft_email"), 1);
    assert_eq!(result.turns[0].outcome, Outcome::Failed);
    let failure = &result.failures[0];
    assert_eq!(
        (&failure.code, failure.class, failure.retried),
        (&ErrorCode::ApprovalRejected, FailureClass::Persistent, false)
    );
    assert!(!events.borrow().iter().any(|e| matches!(e, Event::RetryScheduled { .. })));
    let next_prompt = &h.model.requests.borrow()[1].messages;
    let shown = &next_prompt.last().unwrap().content;
    for needle in ["APPROVAL_REJECTED", "Ann is on leave; draft it", "draft_email", "get_weather"] {
        assert!(shown.contains(needle), "{needle} in {shown}");
    }
    let stored = &h.store.failures()[0];
    assert_eq!(stored.code, ErrorCode::ApprovalRejected);
}

#[test]
fn an_identical_call_after_a_rejection_is_refused_without_asking_again() {
    let h = harness(
        vec![send("ann@example.com"), send("ann@example.com"), answer("Not sent.")],
        NeedsApproval::Always,
    );
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let run = Paused::start(&h, "Email Ann", options("r1", &approvals), &events);
    approvals.decide("r1:1", Decision::reject(None)).unwrap();
    let result = run.finish();
    assert_eq!(requested(&events).len(), 1, "the user is asked once");
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
    assert!(!result.success, "an answer right after a rejected call is not a success");
}

#[test]
fn cancelling_a_waiting_run_ends_it_cancelled_with_the_pause_cleared() {
    let h = harness(vec![send("ann@example.com")], NeedsApproval::Always);
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let opts = options("r1", &approvals);
    let cancel = opts.cancel.clone();
    let mut run = Paused::start(&h, "Email Ann", opts, &events);
    cancel.cancel();
    let result = run.poll().expect("the run ends once cancelled");
    assert_eq!(result.reason, EndReason::Cancelled);
    assert_eq!(h.tools.calls_to("send_email"), 0);
    let stored = h.store.runs().pop().unwrap();
    assert_eq!(stored.status, RunStatus::Cancelled);
    assert!(stored.pending_approval.is_none());
    assert_eq!(approvals.waiting(), None);
    assert!(approvals.decide("r1:1", Decision::approve()).is_err());
}

#[test]
fn a_run_cut_off_while_waiting_resumes_with_the_decision_and_does_not_ask_the_model_again() {
    let h = harness(vec![send("ann@example.com"), answer("Sent.")], NeedsApproval::Always);
    let events: Events = Rc::default();
    drop(Paused::start(&h, "Email Ann", options("r1", &Approvals::new()), &events));
    // What a reload leaves: the run `running`, its pause stored.
    let unfinished = futures_executor::block_on(h.store.unfinished_runs()).unwrap();
    assert_eq!(unfinished[0].pending_approval.as_ref().map(|p| p.call_id.as_str()), Some("r1:1"));

    let approvals = Approvals::decided("r1:1", Decision::approve());
    let resumed: Events = Rc::default();
    let result = Paused::resume(&h, "r1", options("r1", &approvals), &resumed).finish();

    assert!(result.success, "{result:?}");
    assert_eq!(h.tools.calls_to("send_email"), 1);
    assert_eq!(h.model.requests.borrow().len(), 2, "step 1 was not asked again");
    assert!(requested(&resumed).is_empty(), "the decision given ahead is not asked for again");
    assert_eq!(h.store.turns().len(), 2);
    assert!(h.store.runs().pop().unwrap().pending_approval.is_none());
}

#[test]
fn a_run_resumed_without_a_decision_asks_again_for_the_same_call() {
    let h = harness(vec![send("ann@example.com"), answer("Not sent.")], NeedsApproval::Always);
    let events: Events = Rc::default();
    drop(Paused::start(&h, "Email Ann", options("r1", &Approvals::new()), &events));
    let approvals = Approvals::new();
    let resumed: Events = Rc::default();
    let mut run = Paused::resume(&h, "r1", options("r1", &approvals), &resumed);
    assert!(run.poll().is_none());
    assert_eq!(requested(&resumed).iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["r1:1"]);
    approvals.decide("r1:1", Decision::reject(Some("no".into()))).unwrap();
    let result = run.finish();
    assert_eq!(h.tools.calls_to("send_email"), 0);
    assert_eq!(result.failures[0].code, ErrorCode::ApprovalRejected);
}

#[test]
fn per_call_approval_asks_the_host_for_each_call() {
    let h = harness(
        vec![send("ann@example.com"), send("boss@corp.example"), answer("Sent both.")],
        NeedsApproval::PerCall,
    );
    h.tools.approval_rule("send_email", |args| {
        args["to"].as_str().is_some_and(|to| to.ends_with("@corp.example"))
    });
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let run = Paused::start(&h, "Email both", options("r1", &approvals), &events);
    assert_eq!(h.tools.calls_to("send_email"), 1, "the first call needed no approval");
    assert_eq!(requested(&events).len(), 1);
    assert_eq!(requested(&events)[0].0, "r1:2");
    approvals.decide("r1:2", Decision::approve()).unwrap();
    let result = run.finish();
    assert!(result.success);
    assert_eq!(h.tools.approval_checks.borrow().len(), 2);
}

#[test]
fn a_host_that_cannot_tell_means_the_call_waits() {
    // No rule for the tool: the fake host's check fails, so the call waits, with a warning.
    let h = harness(vec![send("ann@example.com"), answer("Sent.")], NeedsApproval::PerCall);
    let approvals = Approvals::new();
    let events: Events = Rc::default();
    let run = Paused::start(&h, "Email Ann", options("r1", &approvals), &events);
    assert_eq!(h.tools.calls_to("send_email"), 0);
    assert!(events
        .borrow()
        .iter()
        .any(|e| matches!(e, Event::Warning { message, .. } if message.contains("needs approval"))));
    approvals.decide("r1:1", Decision::approve()).unwrap();
    assert!(run.finish().success);
}

fn redacting(replies: Vec<support::Reply>) -> Harness {
    let policy: Rc<dyn Redactor> = Rc::new(RedactPolicy::from_json(&json!({"keys": ["to"]})).unwrap());
    harness(replies, NeedsApproval::Always).redacting(policy)
}

#[test]
fn a_pending_call_is_stored_redacted_and_is_not_run_from_the_store_after_a_reload() {
    let h = redacting(vec![send("ann@example.com"), send("ann@example.com"), answer("Sent.")]);
    let events: Events = Rc::default();
    drop(Paused::start(&h, "Email Ann", options("r1", &Approvals::new()), &events));
    assert_eq!(requested(&events)[0].2["to"], "ann@example.com", "the page sees the real arguments");
    let stored = h.store.runs().pop().unwrap().pending_approval.unwrap();
    assert!(stored.args_redacted);
    assert!(!json!(stored).to_string().contains("ann@example.com"), "{stored:?}");

    // Approved after the reload: the stored arguments are not the real ones, so the call is not
    // run from them; the model makes it again and it waits for a new approval.
    let approvals = Approvals::decided("r1:1", Decision::approve());
    let resumed: Events = Rc::default();
    let mut run = Paused::resume(&h, "r1", options("r1", &approvals), &resumed);
    assert!(run.poll().is_none());
    assert_eq!(h.tools.calls_to("send_email"), 0);
    assert_eq!(requested(&resumed).iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["r1:2"]);
    approvals.decide("r1:2", Decision::approve()).unwrap();
    let result = run.finish();
    assert_eq!(h.tools.calls_to("send_email"), 1);
    assert_eq!(h.tools.calls.borrow()[0].args["to"], "ann@example.com");
    assert!(result.turns[0].observation.contains("call it again"), "{:?}", result.turns[0]);
}
