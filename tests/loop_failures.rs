//! The loop against tools that fail in each way keel must handle: the decisions it takes and the
//! exact envelope the model is shown.

mod support;

use keel::engine::{AgentConfig, Event, Outcome};
use keel::errors::{ErrorCode, FailureClass, FailureHints, IssueKind, RawFailure};
use serde_json::json;
use support::*;

fn failures(events: &[Event]) -> Vec<(Option<String>, FailureClass, ErrorCode)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Failure { tool, class, code, .. } => Some((tool.clone(), *class, code.clone())),
            _ => None,
        })
        .collect()
}

fn retries(events: &[Event]) -> Vec<(u32, u64, ErrorCode)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::RetryScheduled { attempt, delay_ms, code, .. } => {
                Some((*attempt, *delay_ms, code.clone()))
            }
            _ => None,
        })
        .collect()
}

fn envelope_of(events: &[Event]) -> keel::errors::Envelope {
    events
        .iter()
        .find_map(|e| match e {
            Event::Failure { envelope: Some(env), .. } => Some((**env).clone()),
            _ => None,
        })
        .expect("a failure with an envelope")
}

#[test]
fn a_503_then_success_is_retried_by_the_runtime_without_bothering_the_model() {
    let model = ScriptedModel::new([act("get_weather", json!({"city": "Paris"})), answer("18°C in Paris")]);
    let tools = FakeTools::new().script(
        "get_weather",
        vec![Behaviour::Fail(RawFailure::http(503, "upstream busy")), Behaviour::Ok(json!("18°C"))],
    );
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, events) = h.run("Weather in Paris?");
    assert!(result.success);
    assert_eq!(result.answer, "18°C in Paris");
    assert_eq!(h.tools.calls_to("get_weather"), 2);
    assert_eq!(h.model.requests.borrow().len(), 2, "the model saw one step per action, not the retry");
    assert_eq!(retries(&events), vec![(1, 500, ErrorCode::Unavailable)]);
    assert_eq!(result.turns[0].outcome, Outcome::Ok);
    assert_eq!(result.turns[0].observation, "18°C");
    let f = &result.failures[0];
    assert_eq!(
        (f.class, &f.code, f.attempt, f.retried, f.recovered),
        (FailureClass::Transient, &ErrorCode::Unavailable, 1, true, true)
    );
    assert_eq!(result.stats.recovery_rate, 1.0);
}

#[test]
fn a_429_waits_out_its_retry_after_with_jitter_on_top() {
    let model = ScriptedModel::new([act("get_weather", json!({"city": "Oslo"})), answer("cold")]);
    let limited = RawFailure::http(429, "Too Many Requests").with_retry_after_ms(2_000);
    let tools =
        FakeTools::new().script("get_weather", vec![Behaviour::Fail(limited), Behaviour::Ok(json!("-3°C"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, events) = h.run("Weather in Oslo?");
    assert!(result.success);
    assert_eq!(retries(&events), vec![(1, 2_000, ErrorCode::RateLimited)]);
    assert_eq!(*h.clock.sleeps.borrow(), vec![2_000]);
}

#[test]
fn a_retry_after_beyond_the_cap_goes_to_the_model_instead_of_being_waited_out() {
    let model = ScriptedModel::new([act("get_weather", json!({"city": "Rome"})), answer("unknown for now")]);
    let limited = RawFailure::http(429, "Too Many Requests").with_retry_after_ms(120_000);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Fail(limited)]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (_, events) = h.run("Weather in Rome?");
    assert!(retries(&events).is_empty());
    let env = envelope_of(&events);
    assert_eq!(env.code, ErrorCode::RateLimited);
    assert_eq!(env.recovery[0], "Do not call `get_weather` again for 120 s.");
    assert_eq!(env.retry_after_ms, Some(120_000));
    assert!(!env.details.contains_key("attempts"), "tried once: nothing to report");
}

#[test]
fn a_tool_hanging_past_its_timeout_is_aborted_and_retried() {
    let model = ScriptedModel::new([act("snapshot", json!({})), answer("done")]);
    let tools =
        FakeTools::new().script("snapshot", vec![Behaviour::Hang, Behaviour::Ok(json!("button [ref=e1]"))]);
    let specs: Vec<_> = specs()
        .into_iter()
        .map(|s| if s.name == "snapshot" { s.with_timeout_ms(1_000) } else { s })
        .collect();
    let h = Harness::new(model, tools, specs, AgentConfig::default());
    let (result, events) = h.run("Snapshot");
    assert!(result.success);
    assert_eq!(h.tools.aborted.get(), 1, "the hung attempt's future was dropped, aborting the tool");
    assert_eq!(*h.clock.sleeps.borrow(), vec![1_000, 500], "the timeout, then the backoff");
    assert_eq!(
        failures(&events),
        vec![(Some("snapshot".into()), FailureClass::Transient, ErrorCode::Timeout)]
    );
    assert!(result.failures[0].message.contains("did not finish within 1000 ms"));
}

#[test]
fn transient_failures_that_never_clear_reach_the_model_after_the_attempt_limit() {
    let model = ScriptedModel::new([act("get_weather", json!({"city": "Paris"})), answer("service down")]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Fail(RawFailure::http(503, "down"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, events) = h.run("Weather?");
    assert_eq!(h.tools.calls_to("get_weather"), 3);
    assert_eq!(retries(&events).iter().map(|r| r.1).collect::<Vec<_>>(), vec![500, 1_000]);
    let env = envelope_of(&events);
    assert_eq!(env.details["attempts"], 3);
    assert_eq!(
        env.recovery[0],
        "Do not call `get_weather` again right away: the runtime already tried it 3 times."
    );
    assert_eq!(result.turns[0].outcome, Outcome::Failed);
    assert_eq!((result.stats.faults, result.stats.failed_attempts), (1, 3), "one call, three attempts");
    assert_eq!(result.stats.recovered, 0);
    // The model answered straight after the failed call: it gave up, and the run says so.
    assert!(!result.success, "an answer right after an unrecovered failure is not a success");
    assert_eq!(result.reason, keel::store::EndReason::FinalAnswer);
    assert_eq!(result.answer, "service down");
}

#[test]
fn a_misspelled_tool_gets_did_you_mean_and_the_list_of_tools() {
    let model = ScriptedModel::new([
        act("get_wether", json!({"city": "Paris"})),
        act("get_weather", json!({"city": "Paris"})),
        answer("mild"),
    ]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("15°C"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, events) = h.run("Weather?");
    assert!(result.success);
    let env = envelope_of(&events);
    assert_eq!(env.code, ErrorCode::UnknownTool);
    assert_eq!(env.message, "There is no tool named `get_wether`.");
    assert_eq!(
        env.recovery[0],
        "Did you mean `get_weather`? Call it with the same arguments if it does what you intended."
    );
    assert_eq!(
        env.available_actions,
        vec!["get_weather", "snapshot", "click", "list_invoices", "get_invoice"]
    );
    assert_eq!(h.tools.calls_to("get_wether"), 0, "an unknown tool is never called");
    assert!(result.failures[0].recovered, "the next successful step recovers it");
}

#[test]
fn wrong_types_unknown_keys_and_enum_misses_are_all_reported_at_once() {
    let bad = json!({"cty": "Paris", "unit": "kelvin", "days": "3"});
    let model = ScriptedModel::new([
        act("get_weather", bad.clone()),
        act("get_weather", json!({"city": "Paris"})),
        answer("ok"),
    ]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("15°C"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, events) = h.run("Weather?");
    assert!(result.success);
    let env = envelope_of(&events);
    assert_eq!(env.code, ErrorCode::InvalidArgs);
    assert_eq!(env.sent, Some(bad));
    let mut kinds: Vec<(String, IssueKind)> = env.issues.iter().map(|i| (i.path.clone(), i.kind)).collect();
    kinds.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        kinds,
        vec![
            ("city".into(), IssueKind::Missing),
            ("cty".into(), IssueKind::UnknownKey),
            ("days".into(), IssueKind::WrongType),
            ("unit".into(), IssueKind::NotAllowed)
        ]
    );
    let unknown = env.issues.iter().find(|i| i.kind == IssueKind::UnknownKey).unwrap();
    assert_eq!(unknown.suggestion.as_deref(), Some("city"));
    let unit = env.issues.iter().find(|i| i.path == "unit").unwrap();
    assert_eq!(unit.options, vec!["c", "f"]);
    assert_eq!(h.tools.calls_to("get_weather"), 1, "invalid arguments never reach the tool");
}

#[test]
fn a_stale_reference_points_the_model_at_the_snapshot_tool() {
    let model = ScriptedModel::new([
        act("click", json!({"ref": "e5"})),
        act("snapshot", json!({})),
        act("click", json!({"ref": "e7"})),
        answer("clicked"),
    ]);
    let stale = RawFailure::coded("STALE_REF", "Element e5 was removed from the page.");
    let tools = FakeTools::new()
        .script("click", vec![Behaviour::Fail(stale), Behaviour::Ok(json!("clicked e7"))])
        .script("snapshot", vec![Behaviour::Ok(json!("button \"Submit\" [ref=e7]"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let (result, events) = h.run("Submit the form");
    assert!(result.success);
    let env = envelope_of(&events);
    assert_eq!(env.code, ErrorCode::StaleReference);
    assert_eq!(env.class, FailureClass::Persistent);
    assert!(env.expected);
    assert_eq!(
        env.recovery,
        vec![
            "Call `snapshot` to get valid references.".to_string(),
            "Find the same item in the new result.".to_string(),
            "Call `click` again with the new reference from that result.".to_string(),
        ]
    );
    assert_eq!(h.tools.calls_to("click"), 2, "persistent failures are not retried by the runtime");
    assert!(result.failures[0].recovered);
}

#[test]
fn a_tool_can_override_the_plan_with_its_own_hints() {
    let hints = FailureHints {
        recovery: Some(vec!["Call `list_invoices` and pick an id starting with INV-.".into()]),
        available_actions: Some(vec!["list_invoices".into()]),
        details: serde_json::from_value(json!({"searched": "INV-999"})).unwrap(),
        ..Default::default()
    };
    let missing = RawFailure::coded("InvoiceNotFound", "Invoice INV-999 does not exist.").with_hints(hints);
    let model = ScriptedModel::new([act("get_invoice", json!({"id": "INV-999"})), answer("no such invoice")]);
    let tools = FakeTools::new().script("get_invoice", vec![Behaviour::Fail(missing)]);
    let h = Harness::new(model, tools, specs(), classic());
    let (_, events) = h.run("Invoice 999?");
    let env = envelope_of(&events);
    assert_eq!(env.code, ErrorCode::Custom("InvoiceNotFound".into()));
    assert_eq!(env.recovery, vec!["Call `list_invoices` and pick an id starting with INV-."]);
    assert_eq!(env.available_actions, vec!["list_invoices"]);
    assert_eq!(env.details["searched"], "INV-999");
}

#[test]
fn partial_success_shows_its_warnings_to_the_model_and_the_page() {
    let model = ScriptedModel::new([act("snapshot", json!({})), answer("2 buttons")]);
    let tools = FakeTools::new().script(
        "snapshot",
        vec![Behaviour::Warn(json!("button [ref=e1]"), vec!["2 frames were cross-origin".into()])],
    );
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, events) = h.run("What is on the page?");
    assert!(result.success);
    assert_eq!(result.turns[0].outcome, Outcome::Warning);
    assert!(result.turns[0].observation.contains("- 2 frames were cross-origin"));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Warning { message, .. } if message.contains("cross-origin"))));
    assert_eq!(result.stats.faults, 0);
}

#[test]
fn garbage_model_output_gets_precise_format_feedback() {
    let model =
        ScriptedModel::new([Reply::Text("Sure! I think the weather is nice.".into()), answer("nice")]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, _) = h.run("Weather?");
    assert!(result.success);
    assert_eq!(result.turns[0].outcome, Outcome::Failed);
    assert!(result.turns[0].observation.contains("INVALID_OUTPUT"));
    assert!(result.turns[0].observation.contains("Sure! I think the weather is nice."));
    assert_eq!(result.failures[0].code, ErrorCode::InvalidOutput);
    assert!(result.failures[0].recovered);
}

#[test]
fn the_same_bad_call_three_times_is_escalated_and_not_run_again() {
    let call = || act("get_invoice", json!({"id": "INV-9"}));
    let model = ScriptedModel::new([call(), call(), call(), answer("gave up on INV-9")]);
    let tools = FakeTools::new()
        .script("get_invoice", vec![Behaviour::Fail(RawFailure::http(404, "Invoice INV-9 not found"))]);
    let h = Harness::new(model, tools, specs(), classic());
    let (result, _) = h.run("Invoice 9?");
    assert_eq!(h.tools.calls_to("get_invoice"), 1, "identical calls after a failure are not run again");
    assert!(!result.turns[0].observation.contains("You already called"));
    assert!(result.turns[1]
        .observation
        .contains("You already called `get_invoice` with these exact arguments 1 time"));
    assert!(result.turns[2]
        .observation
        .contains("You already called `get_invoice` with these exact arguments 2 times"));
    assert!(result.turns[2].observation.contains("Call `list_invoices` to get valid ids."));
}

#[test]
fn a_critical_failure_stops_the_run_with_its_reason() {
    let hints = FailureHints { severity: Some(keel::errors::Severity::Critical), ..Default::default() };
    let dead = RawFailure::coded("INTERNAL_ERROR", "Database connection pool exhausted").with_hints(hints);
    let model = ScriptedModel::new([act("list_invoices", json!({}))]);
    let tools = FakeTools::new().script("list_invoices", vec![Behaviour::Fail(dead)]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("List invoices");
    assert!(!result.success);
    assert_eq!(
        result.reason,
        keel::store::EndReason::Fatal {
            code: ErrorCode::Internal,
            message: "Database connection pool exhausted".into()
        }
    );
    assert!(result.answer.contains("Database connection pool exhausted"));
}

#[test]
fn a_step_that_copies_the_example_placeholder_is_sent_back_not_run() {
    let model = ScriptedModel::new([
        act("get_weather", json!({"city": "<city>"})),
        act("get_weather", json!({"city": "Paris"})),
        answer("18°C"),
    ]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("18°C"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Weather in Paris?");
    assert_eq!(h.tools.calls_to("get_weather"), 1, "the placeholder call never reached the tool");
    assert_eq!(result.turns[0].outcome, Outcome::Failed);
    assert!(
        result.turns[0].observation.contains("placeholder `&lt;city&gt;`"),
        "{}",
        result.turns[0].observation
    );
    assert!(result.success);
}
