//! Recovery a small model cannot miss (issue 9): the recovery call the runtime makes itself, id
//! provenance, and the tool choice.

mod support;

use keel::engine::{Agent, AgentConfig, Event, ToolChoice};
use keel::errors::{ErrorCode, RawFailure};
use keel::tools::ToolSpec;
use serde_json::{json, Value};
use support::*;

fn page_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"}))
            .read_only(),
        ToolSpec::new(
            "click",
            "Clicks an element.",
            json!({"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot"])
        .with_recovery("STALE_REFERENCE", "snapshot"),
    ]
}

fn stale() -> RawFailure {
    RawFailure::coded("STALE_REFERENCE", "Element e2 is stale: the page re-rendered.")
}

#[test]
fn a_declared_recovery_call_runs_the_read_only_tool_and_shows_its_fresh_output() {
    let model = ScriptedModel::new([
        act("snapshot", json!({})),
        act("click", json!({"ref": "e2"})),
        act("click", json!({"ref": "e8"})),
        answer("Order KX-4417 placed."),
    ]);
    let tools = FakeTools::new()
        .script(
            "snapshot",
            vec![Behaviour::Ok(json!("e2 button 'Order'")), Behaviour::Ok(json!("e8 button 'Order'"))],
        )
        .script("click", vec![Behaviour::Fail(stale()), Behaviour::Ok(json!("Order KX-4417 placed."))]);
    let h = Harness::new(model, tools, page_tools(), AgentConfig::default());
    let (result, events) = h.run("Click Order and tell me the order number.");
    let calls: Vec<String> = h.tools.calls.borrow().iter().map(|c| c.tool.clone()).collect();
    assert_eq!(calls, ["snapshot", "click", "snapshot", "click"], "the runtime took the snapshot itself");
    let seen = &result.turns[1].observation;
    assert!(seen.contains("The runtime already called `snapshot` for you"), "{seen}");
    assert!(seen.contains("Fresh result of `snapshot`, called by the runtime:\ne8 button 'Order'"), "{seen}");
    assert!(events.iter().any(|e| matches!(e, Event::RecoveryCall { called, ok: true, code: ErrorCode::StaleReference, .. } if called == "snapshot")));
    assert_eq!(result.failures[0].recovery_call.as_deref(), Some("snapshot"));
    assert!(result.success, "{}", result.answer);
    // The fresh refs narrow the next step: the stale one cannot be sent again.
    let schema = h.model.requests.borrow()[2].schema.clone().expect("constrained").to_string();
    assert!(schema.contains(r#""ref":{"enum":["e8"]"#), "{schema}");
}

#[test]
fn recover_with_and_refs_from_must_name_usable_tools() {
    let snapshot = || ToolSpec::new("snapshot", "", json!({"type": "object"}));
    let click = || ToolSpec::new("click", "", json!({"type": "object"}));
    let cases = [
        (vec![click().with_recovery("STALE_REFERENCE", "snap")], "there is no tool by that name"),
        (
            vec![snapshot(), click().with_recovery("STALE_REFERENCE", "snapshot")],
            "it is not declared readOnly",
        ),
        (
            vec![
                ToolSpec::new("snapshot", "", json!({"type": "object", "required": ["depth"]})).read_only(),
                click().with_recovery("STALE_REFERENCE", "snapshot"),
            ],
            "it does not accept `{}`",
        ),
        (
            vec![click().with_refs_from(["snap"])],
            "refsFrom names `snap`, which is not one of the agent's tools",
        ),
    ];
    for (specs, why) in cases {
        let error = Agent::new(specs, AgentConfig::default()).err().expect("refused").to_string();
        assert!(error.contains(why), "{error}");
    }
    let fine = vec![snapshot().read_only(), click().with_recovery("STALE_REFERENCE", "snapshot")];
    assert!(Agent::new(fine, AgentConfig::default()).is_ok());
}

#[test]
fn an_id_never_seen_is_refused_before_the_tool_runs_and_the_plan_names_its_producer() {
    let model = ScriptedModel::new([
        act("get_invoice", json!({"id": "INV-2024-001"})),
        act("list_invoices", json!({})),
        act("get_invoice", json!({"id": "INV-2025-014"})),
        answer("The total is $1,250.00."),
    ]);
    let tools = FakeTools::new()
        .script("list_invoices", vec![Behaviour::Ok(json!("INV-2025-014, INV-2025-009"))])
        .script("get_invoice", vec![Behaviour::Ok(json!("INV-2025-014: total $1,250.00"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("What is the total of the latest invoice?");
    assert_eq!(h.tools.calls_to("get_invoice"), 1, "the guessed id never reached the tool");
    assert_eq!(result.failures[0].code, ErrorCode::UnseenId);
    let plan = &result.turns[0].observation;
    assert!(plan.contains("Call `list_invoices` to get valid ids."), "{plan}");
    let requests = h.model.requests.borrow();
    let second = requests[1].schema.clone().unwrap().to_string();
    assert!(
        !second.contains(r#""const":"get_invoice""#),
        "the tool sits out until its producer runs: {second}"
    );
    let third = requests[2].schema.clone().unwrap().to_string();
    assert!(third.contains(r#""id":{"enum":["INV-2025-014","INV-2025-009"]}"#), "{third}");
    assert!(result.success);
}

#[test]
fn producers_are_inferred_when_none_is_declared_and_ids_in_the_task_pass() {
    let specs = vec![
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"})),
        ToolSpec::new(
            "click",
            "Clicks.",
            json!({"type": "object", "properties": {"ref": {"type": "string"}}}),
        ),
    ];
    let model = ScriptedModel::new([
        act("click", json!({"ref": "e12"})),
        act("click", json!({"ref": "e4"})),
        answer("done"),
    ]);
    let tools = FakeTools::new().script("click", vec![Behaviour::Ok(json!("clicked"))]);
    let h = Harness::new(model, tools, specs, AgentConfig::default());
    let (result, _) = h.run("Click the button @e4.");
    assert!(
        result.turns[0].observation.contains("Call `snapshot` to get valid ids."),
        "{}",
        result.turns[0].observation
    );
    assert_eq!(
        h.tools.calls.borrow().iter().map(|c| c.args["ref"].clone()).collect::<Vec<_>>(),
        [json!("e4")]
    );
    let off = AgentConfig { id_provenance: false, ..AgentConfig::default() };
    let h = Harness::new(
        ScriptedModel::new([act("click", json!({"ref": "e12"})), answer("done")]),
        FakeTools::new().script("click", vec![Behaviour::Ok(json!("clicked"))]),
        page_tools(),
        off,
    );
    h.run("Click it.");
    assert_eq!(h.tools.calls_to("click"), 1, "idProvenance: false lets it through");
}

fn schema_of(h: &Harness, request: usize) -> Value {
    h.model.requests.borrow()[request].schema.clone().expect("constrained")
}

fn has_answer_branch(schema: &Value) -> bool {
    schema.to_string().contains("final_answer")
}

#[test]
fn tool_choice_shapes_the_first_steps_schema() {
    let run = |choice: Option<ToolChoice>| {
        let model =
            ScriptedModel::new([act("get_weather", json!({"city": "Oslo"})), answer("Oslo: 4 degrees")]);
        let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Oslo: 4 degrees"))]);
        let h = Harness::new(
            model,
            tools,
            specs(),
            AgentConfig { tool_choice: choice, ..AgentConfig::default() },
        );
        let (result, _) = h.run("Weather in Oslo?");
        (h, result)
    };
    let (h, result) = run(None);
    assert!(!has_answer_branch(&schema_of(&h, 0)), "required by default: no answer before a call");
    assert!(has_answer_branch(&schema_of(&h, 1)), "after the first call the model may answer");
    assert!(result.success);
    let (h, _) = run(Some(ToolChoice::Auto));
    assert!(has_answer_branch(&schema_of(&h, 0)));
    let (h, _) = run(Some(ToolChoice::Tool("get_weather".into())));
    let first = schema_of(&h, 0);
    assert_eq!(first["properties"]["action"]["properties"]["tool"]["const"], "get_weather", "{first}");
    let (h, result) = run(Some(ToolChoice::None));
    assert_eq!(schema_of(&h, 0)["required"], json!(["thought", "final_answer"]));
    assert_eq!(h.tools.calls_to("get_weather"), 0, "none: the call is refused, not run");
    assert_eq!(result.failures[0].code, ErrorCode::InvalidOutput);
}

#[test]
fn without_constrained_decoding_an_early_answer_is_refused_and_a_repeat_escalated() {
    let config = AgentConfig { constrain_output: false, ..AgentConfig::default() };
    let model = ScriptedModel::new([
        answer("It is sunny."),
        answer("It is sunny."),
        act("get_weather", json!({"city": "Oslo"})),
        answer("sunny"),
    ]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Oslo: sunny"))]);
    let h = Harness::new(model, tools, specs(), config);
    let (result, _) = h.run("Weather in Oslo?");
    assert!(
        result.turns[0].observation.contains("A tool call must come first"),
        "{}",
        result.turns[0].observation
    );
    assert!(
        result.turns[1].observation.contains("You already sent this exact reply 1 time"),
        "{}",
        result.turns[1].observation
    );
    assert!(result.success);
    assert_eq!(result.turns.len(), 4);
}

#[test]
fn tool_choice_is_checked_against_the_tools_and_read_with_clear_errors() {
    let named = AgentConfig { tool_choice: Some(ToolChoice::Tool("nope".into())), ..AgentConfig::default() };
    let error = Agent::new(specs(), named).err().unwrap().to_string();
    assert_eq!(error, "config `toolChoice.tool` is \"nope\": the name of one of the agent's tools");
    let required = AgentConfig { tool_choice: Some(ToolChoice::Required), ..AgentConfig::default() };
    assert!(Agent::new(vec![], required).is_err());
    assert!(Agent::new(vec![], AgentConfig::default()).is_ok(), "no tools: auto");
    let read = |v: Value| serde_json::from_value::<AgentConfig>(json!({"toolChoice": v}));
    assert_eq!(read(json!({"tool": "x"})).unwrap().tool_choice, Some(ToolChoice::Tool("x".into())));
    assert_eq!(read(json!("none")).unwrap().tool_choice, Some(ToolChoice::None));
    let bad = read(json!("always")).unwrap_err().to_string();
    assert!(
        bad.contains(r#"toolChoice must be "auto", "required", "none" or { tool: "<name>" }, not "always""#),
        "{bad}"
    );
    assert!(read(json!({"tool": "x", "extra": 1})).is_err());
}
