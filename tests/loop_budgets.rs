//! Budgets, model failures, cancellation and what the store keeps.

mod support;

use keel::engine::{AgentConfig, CancelToken, Event, Outcome, RunOptions};
use keel::errors::{ErrorCode, RawFailure};
use keel::store::{EndReason, RunStatus};
use serde_json::json;
use support::*;

#[test]
fn five_failed_steps_in_a_row_force_an_honest_final_answer() {
    let mut script: Vec<_> = (0..5).map(|i| act("get_invoice", json!({"id": format!("INV-{i}")}))).collect();
    script.push(answer("I could not find the invoice; every id I tried was not found."));
    let model = ScriptedModel::new(script);
    let tools =
        FakeTools::new().script("get_invoice", vec![Behaviour::Fail(RawFailure::http(404, "not found"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let (result, events) = h.run("Find the invoice");
    assert!(!result.success, "a forced answer is never a success");
    assert_eq!(result.reason, EndReason::ConsecutiveFailures { failures: 5 });
    // The answer a user reads says what failed, from the failure log, then the model's account.
    assert_eq!(
        result.answer,
        "I could not complete the task. 5 steps in a row failed or made no progress. The last failure was \
         NOT_FOUND from `get_invoice`: not found\nWhat the model reported: I could not find the invoice; \
         every id I tried was not found."
    );
    assert_eq!(result.turns.len(), 6);
    assert_eq!(result.turns[5].outcome, Outcome::Final);
    let requests = h.model.requests.borrow();
    let last = requests.last().unwrap();
    let schema = last.schema.as_ref().expect("constrained");
    assert!(!schema.to_string().contains("get_invoice"), "the last call allows only a final answer");
    assert!(last.messages.last().unwrap().content.contains("Do not call any tool"));
    assert!(events.iter().any(|e| matches!(e, Event::FinalAnswer { success: false, .. })));
}

#[test]
fn a_forced_final_that_is_not_a_final_answer_gets_the_runtimes_own_account() {
    let mut script: Vec<_> = (0..5).map(|i| act("get_invoice", json!({"id": format!("INV-{i}")}))).collect();
    script.push(act("get_invoice", json!({"id": "INV-77"})));
    let model = ScriptedModel::new(script);
    let tools = FakeTools::new()
        .script("get_invoice", vec![Behaviour::Fail(RawFailure::http(404, "Invoice not found"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let (result, _) = h.run("Find the invoice");
    assert!(!result.success);
    assert_eq!(
        result.answer,
        "I could not complete the task. 5 steps in a row failed or made no progress. \
         The last failure was NOT_FOUND from `get_invoice`: Invoice not found"
    );
}

#[test]
fn the_step_budget_ends_the_run_with_a_forced_answer() {
    let script: Vec<_> = (0..3)
        .map(|i| act("get_weather", json!({"city": format!("C{i}")})))
        .chain([answer("partial")])
        .collect();
    let model = ScriptedModel::new(script);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("sunny"))]);
    let config = AgentConfig { max_steps: 3, ..classic() };
    let h = Harness::new(model, tools, specs(), config);
    let (result, _) = h.run("Weather everywhere");
    assert_eq!(result.reason, EndReason::MaxSteps { steps: 3 });
    assert!(!result.success);
    assert_eq!(
        result.answer,
        "I could not complete the task. The step budget (3 steps) is spent.\nWhat the model reported: partial"
    );
}

#[test]
fn repeating_a_successful_call_is_no_progress() {
    let same = || act("list_invoices", json!({}));
    let model = ScriptedModel::new([same(), same(), same(), same(), same(), same(), answer("INV-1")]);
    let tools = FakeTools::new().script("list_invoices", vec![Behaviour::Ok(json!(["INV-1"]))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("List invoices");
    assert_eq!(result.reason, EndReason::ConsecutiveFailures { failures: 5 });
    assert!(result.turns[1].observation.contains("you already made this exact call"));
}

#[test]
fn a_transient_model_failure_is_retried() {
    let model =
        ScriptedModel::new([Reply::Fail(RawFailure::named("UnknownError", "generic failure")), answer("hi")]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("Say hi");
    assert!(result.success);
    assert!(events.iter().any(|e| matches!(e, Event::RetryScheduled { tool: None, attempt: 1, .. })));
    assert!(result.failures[0].retried && result.failures[0].recovered);
    assert_eq!(result.counts.model_calls, 2);
}

#[test]
fn an_unavailable_model_stops_the_run_with_a_clear_reason() {
    let model = ScriptedModel::new([Reply::Fail(RawFailure::named(
        "NotSupportedError",
        "The model is not available on this device.",
    ))]);
    let h = Harness::new(model, FakeTools::new(), specs(), AgentConfig::default());
    let (result, _) = h.run("Anything");
    assert!(!result.success);
    assert_eq!(
        result.reason,
        EndReason::Fatal {
            code: ErrorCode::ModelUnavailable,
            message: "The model is not available on this device.".into()
        }
    );
    assert_eq!(h.store.runs()[0].status, RunStatus::Failed);
}

#[test]
fn a_context_overflow_compacts_and_asks_again_once() {
    let model = ScriptedModel::new([
        Reply::Fail(RawFailure::named("QuotaExceededError", "input too large")),
        answer("ok"),
    ]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("Go");
    assert!(result.success);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Warning { message, .. } if message.contains("compacting"))));
}

#[test]
fn an_unsatisfiable_schema_falls_back_to_unconstrained_decoding() {
    let model = ScriptedModel::new([
        Reply::Fail(RawFailure::named("SyntaxError", "constraint unsatisfiable")),
        answer("ok"),
    ]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, _) = h.run("Go");
    assert!(result.success);
    let requests = h.model.requests.borrow();
    assert!(requests[0].schema.is_some());
    assert!(requests[1].schema.is_none());
}

#[test]
fn cancelling_during_a_hung_tool_aborts_it_and_ends_the_run() {
    let cancel = CancelToken::new();
    let model = ScriptedModel::new([act("snapshot", json!({}))]);
    let tools = FakeTools::new().script("snapshot", vec![Behaviour::Hang]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let trigger = cancel.clone();
    let events = std::cell::RefCell::new(Vec::new());
    let on_event = |e: &Event| {
        if matches!(e, Event::Action { .. }) {
            trigger.cancel();
        }
        events.borrow_mut().push(e.clone());
    };
    let options = RunOptions { session: "s".into(), run_id: Some("r1".into()), cancel, ..Default::default() };
    let result = futures_executor::block_on(h.agent.run(&h.effects, "Snapshot", options, &on_event));
    assert_eq!(result.reason, EndReason::Cancelled);
    assert!(!result.success);
    assert_eq!(h.tools.aborted.get(), 1);
    assert_eq!(h.store.runs()[0].status, RunStatus::Cancelled);
}

#[test]
fn every_step_and_failure_is_committed_to_the_store() {
    let model = ScriptedModel::new([
        act("click", json!({"ref": "e5"})),
        act("snapshot", json!({})),
        act("click", json!({"ref": "e7"})),
        answer("done"),
    ]);
    let tools = FakeTools::new()
        .script(
            "click",
            vec![
                Behaviour::Fail(RawFailure::coded("STALE_REFERENCE", "e5 is gone")),
                Behaviour::Ok(json!("ok")),
            ],
        )
        .script("snapshot", vec![Behaviour::Ok(json!("[ref=e7]"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let options = RunOptions { session: "s".into(), run_id: Some("run-1".into()), ..Default::default() };
    let (result, _) = h.run_with("Click submit", options);
    let turns = h.store.turns();
    assert_eq!(turns.iter().map(|t| t.turn.step).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert!(turns.iter().all(|t| t.run_id == "run-1" && t.session == "s"));
    let failures = h.store.failures();
    assert_eq!(failures.len(), 1);
    assert!(failures[0].recovered, "the stored record was updated when click later worked");
    assert_eq!(failures[0].tool.as_deref(), Some("click"));
    assert!(failures[0].args_digest.is_some());
    let run = &h.store.runs()[0];
    assert_eq!(run.status, RunStatus::Succeeded);
    assert_eq!(run.answer.as_deref(), Some("done"));
    assert_eq!(run.counts.steps, 4);
    assert_eq!(run.counts.tool_calls, 3);
    assert_eq!(result.counts, run.counts);
}

#[test]
fn a_sessions_history_feeds_its_next_run() {
    let model = ScriptedModel::new([
        act("get_weather", json!({"city": "Paris"})),
        answer("18°C in Paris"),
        answer("You asked about Paris."),
    ]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("18°C"))]);
    let h = Harness::new(model, tools, specs(), classic());
    h.run("Weather in Paris?");
    let (second, _) = h.run("Which city did I ask about?");
    assert!(second.success);
    let requests = h.model.requests.borrow();
    let prompt: String = requests[2].messages.iter().map(|m| m.content.as_str()).collect();
    assert!(prompt.contains("18°C in Paris"), "the first run's answer is in the second run's prompt");
}

#[test]
fn a_tool_throwing_a_plain_type_error_is_an_unexpected_internal_failure() {
    let model = ScriptedModel::new([act("list_invoices", json!({})), answer("could not list")]);
    let tools = FakeTools::new().script(
        "list_invoices",
        vec![Behaviour::Fail(RawFailure::named("TypeError", "rows.map is not a function"))],
    );
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("List");
    let f = &result.failures[0];
    assert_eq!(f.code, ErrorCode::Internal);
    assert!(!f.retried);
    assert!(result.turns[0].observation.contains("Do not repeat the same call with identical arguments."));
}
