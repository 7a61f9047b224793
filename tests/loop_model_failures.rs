//! A run whose model fails: what the page is told (the steps, the failures, the answer's step)
//! agrees with what the store keeps (the failure log, the run's counts), in every way a run can
//! stop inside a step it never committed.

mod support;

use std::cell::RefCell;

use keel::engine::{AgentConfig, CancelToken, Event, RunOptions, RunResult};
use keel::errors::{ErrorCode, FailureClass, RawFailure};
use keel::store::EndReason;
use serde_json::json;
use support::*;

/// The highest step the page was told had started.
fn last_started(events: &[Event]) -> u32 {
    events
        .iter()
        .filter_map(|e| if let Event::StepStarted { step } = e { Some(*step) } else { None })
        .max()
        .unwrap_or(0)
}

/// The step the final answer was shown in.
fn final_step(events: &[Event]) -> Option<u32> {
    events.iter().find_map(|e| if let Event::FinalAnswer { step, .. } = e { Some(*step) } else { None })
}

/// Every failure told to the page, as (step, tool, class, code, attempt).
fn failure_events(events: &[Event]) -> Vec<(u32, Option<String>, FailureClass, ErrorCode, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Failure { step, tool, class, code, attempt, .. } => {
                Some((*step, tool.clone(), *class, code.clone(), *attempt))
            }
            _ => None,
        })
        .collect()
}

/// The failure log, as the same tuples.
fn logged(result: &RunResult) -> Vec<(u32, Option<String>, FailureClass, ErrorCode, u32)> {
    result.failures.iter().map(|f| (f.step, f.tool.clone(), f.class, f.code.clone(), f.attempt)).collect()
}

/// The run's counts agree with the trace: the steps the page saw, in the result and in the store.
fn assert_counts_match_the_trace(h: &Harness, result: &RunResult, events: &[Event]) {
    let started = last_started(events);
    assert_eq!(result.counts.steps, started, "counts.steps against the last step started");
    assert_eq!(h.store.runs()[0].counts.steps, started, "the stored run's steps");
}

#[test]
fn a_first_model_call_that_fails_for_good_answers_in_step_1_and_tells_the_page_its_failure() {
    let model = ScriptedModel::new([Reply::Fail(RawFailure::named("NotSupportedError", "no model here"))]);
    let h = Harness::new(model, FakeTools::new(), specs(), AgentConfig::default());
    let (result, events) = h.run("Anything");
    assert!(matches!(result.reason, EndReason::Fatal { code: ErrorCode::ModelUnavailable, .. }));
    assert_eq!(final_step(&events), Some(1), "the answer belongs to the step under way, not step 0");
    assert_counts_match_the_trace(&h, &result, &events);
    assert_eq!(
        failure_events(&events),
        vec![(1, None, FailureClass::Fatal, ErrorCode::ModelUnavailable, 1)],
        "the failure that stopped the run is told to the page"
    );
    assert_eq!(failure_events(&events), logged(&result));
}

#[test]
fn a_model_that_fails_after_a_step_answers_in_the_next_step_and_every_attempt_reaches_the_page() {
    let unknown = || Reply::Fail(RawFailure::named("UnknownError", "the model crashed"));
    let model =
        ScriptedModel::new([act("get_weather", json!({"city": "Paris"})), unknown(), unknown(), unknown()]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("18°C"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let (result, events) = h.run("Weather in Paris");
    assert!(
        matches!(&result.reason, EndReason::Fatal { message, .. } if message.starts_with("The model failed 3 time(s)"))
    );
    assert_eq!(final_step(&events), Some(2), "the answer comes after step 1, in step 2");
    assert_counts_match_the_trace(&h, &result, &events);
    // Three attempts, three failures on the page: the last one too, though it was not retried.
    let page = failure_events(&events);
    assert_eq!(page.iter().map(|f| (f.0, f.4)).collect::<Vec<_>>(), vec![(2, 1), (2, 2), (2, 3)]);
    assert_eq!(page, logged(&result));
    assert_eq!(page, {
        let stored = h.store.failures();
        stored
            .iter()
            .map(|f| (f.step, f.tool.clone(), f.class, f.code.clone(), f.attempt))
            .collect::<Vec<_>>()
    });
    assert_eq!((result.stats.faults, result.stats.failed_attempts, result.stats.retried), (1, 3, 1));
    let Some(Event::RunEnded { stats, .. }) = events.last() else { panic!("the run ends with RunEnded") };
    assert_eq!(stats, &result.stats);
}

#[test]
fn a_context_overflow_that_compaction_cannot_fix_reaches_the_page_on_each_attempt() {
    let overflow = || Reply::Fail(RawFailure::named("QuotaExceededError", "input too large"));
    let model = ScriptedModel::new([overflow(), overflow(), overflow()]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("Go");
    assert!(matches!(result.reason, EndReason::Fatal { code: ErrorCode::ContextOverflow, .. }));
    assert_eq!(failure_events(&events).len(), 3);
    assert_eq!(failure_events(&events), logged(&result));
    assert_eq!(final_step(&events), Some(1));
    assert_counts_match_the_trace(&h, &result, &events);
}

#[test]
fn a_run_cancelled_while_the_model_writes_a_step_counts_that_step() {
    let cancel = CancelToken::new();
    let model = ScriptedModel::new([act("get_weather", json!({"city": "Paris"})), answer("never read")]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("18°C"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let trigger = cancel.clone();
    let events = RefCell::new(Vec::new());
    let on_event = |e: &Event| {
        if matches!(e, Event::StepStarted { step: 2 }) {
            trigger.cancel();
        }
        events.borrow_mut().push(e.clone());
    };
    let options = RunOptions { session: "s".into(), cancel, ..Default::default() };
    let result = futures_executor::block_on(h.agent.run(&h.effects, "Weather", options, &on_event));
    let events = events.into_inner();
    assert_eq!(result.reason, EndReason::Cancelled);
    assert_eq!(final_step(&events), None, "a cancelled run has no final answer");
    assert_eq!(last_started(&events), 2);
    assert_counts_match_the_trace(&h, &result, &events);
}

#[test]
fn a_forced_final_whose_call_fails_answers_in_the_forced_step() {
    let script: Vec<_> = (0..2)
        .map(|i| act("get_weather", json!({"city": format!("C{i}")})))
        .chain([Reply::Fail(RawFailure::named("NotSupportedError", "gone"))])
        .collect();
    let model = ScriptedModel::new(script);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("sunny"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig { max_steps: 2, ..classic() });
    let (result, events) = h.run("Weather everywhere");
    assert_eq!(result.reason, EndReason::MaxSteps { steps: 2 });
    assert_eq!(final_step(&events), Some(3));
    assert_counts_match_the_trace(&h, &result, &events);
    assert_eq!(failure_events(&events), logged(&result));
    assert_eq!(result.turns.len(), 3, "the forced step is committed with the runtime's account");
}
