//! Recovery before the answer (`recoverBeforeAnswer`, `engine/recovering.rs`): after a failure another
//! call can fix, the next steps must be calls until the failed tool works (at most `HOLD_STEPS`), and
//! a result that holds the fix says so.

mod support;

use keel::engine::{AgentConfig, Event};
use keel::errors::{ErrorCode, RawFailure};
use serde_json::json;
use support::*;

fn not_found() -> RawFailure {
    RawFailure::coded("NOT_FOUND", "Invoice INV-9 not found.")
}

fn steps_offered(h: &Harness, request: usize) -> String {
    h.model.requests.borrow()[request].schema.clone().expect("constrained").to_string()
}

#[test]
fn an_answer_right_after_a_fixable_failure_waits_for_the_fix() {
    let model = ScriptedModel::new([
        act("get_invoice", json!({"id": "INV-9"})),
        answer("The invoice total is $120.00."),
        act("list_invoices", json!({})),
        act("get_invoice", json!({"id": "INV-7"})),
        answer("The total is $80.00."),
    ]);
    let tools = FakeTools::new()
        .script("get_invoice", vec![Behaviour::Fail(not_found()), Behaviour::Ok(json!("INV-7: $80.00"))])
        .script("list_invoices", vec![Behaviour::Ok(json!("INV-7"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("What is the total of invoice INV-9?");
    // The step after the failure could only be a call (to the tools its envelope offers: all here).
    let schema = steps_offered(&h, 1);
    assert!(!schema.contains("final_answer"), "{schema}");
    assert!(schema.contains("list_invoices") && schema.contains("get_invoice"), "{schema}");
    // The scripted model ignored the schema: its answer was refused, not taken.
    assert_eq!(result.turns[1].action, None);
    assert!(
        result.turns[1].observation.contains("A failed call is not fixed yet"),
        "{}",
        result.turns[1].observation
    );
    assert_eq!(h.tools.calls_to("get_invoice"), 2);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "The total is $80.00.");
    // Once the call worked, the model may answer again.
    assert!(steps_offered(&h, 4).contains("final_answer"));
}

#[test]
fn without_it_the_answer_after_the_failure_is_taken() {
    let model = ScriptedModel::new([act("get_invoice", json!({"id": "INV-9"})), answer("$120.00")]);
    let tools = FakeTools::new().script("get_invoice", vec![Behaviour::Fail(not_found())]);
    let config = AgentConfig { recover_before_answer: false, ..AgentConfig::default() };
    let h = Harness::new(model, tools, specs(), config);
    let (result, _) = h.run("What is the total of invoice INV-9?");
    assert!(steps_offered(&h, 1).contains("final_answer"));
    assert_eq!(result.turns.len(), 2, "answered at step 2");
}

#[test]
fn the_hold_ends_after_hold_steps_and_the_answer_says_what_failed() {
    let model = ScriptedModel::new([
        act("get_invoice", json!({"id": "INV-9"})),
        answer("a"),
        answer("b"),
        answer("c"),
        answer("I could not find invoice INV-9."),
    ]);
    let tools = FakeTools::new().script("get_invoice", vec![Behaviour::Fail(not_found())]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("What is the total of invoice INV-9?");
    let held: Vec<bool> = (1..5).map(|i| !steps_offered(&h, i).contains("final_answer")).collect();
    assert_eq!(held, [true, true, true, false], "steps 2-4 held, step 5 free");
    assert_eq!(result.turns.len(), 5);
    assert_eq!(result.answer, "I could not find invoice INV-9.");
    assert!(!result.success, "an answer after an unfixed failure is no success");
}

#[test]
fn a_failure_no_call_can_fix_does_not_hold_the_answer() {
    let down = RawFailure::coded("UNAVAILABLE", "The service is down until tomorrow.");
    let model = ScriptedModel::new([act("get_weather", json!({"city": "Oslo"})), answer("It is down.")]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Fail(down)]);
    let config = AgentConfig {
        retry: keel::engine::RetryPolicy { max_attempts: 1, ..Default::default() },
        ..AgentConfig::default()
    };
    let h = Harness::new(model, tools, specs(), config);
    let (result, _) = h.run("Weather in Oslo?");
    assert!(steps_offered(&h, 1).contains("final_answer"));
    assert_eq!(result.turns.len(), 2);
}

#[test]
fn a_fresh_result_names_the_stale_refs_new_ref() {
    let model = ScriptedModel::new([
        act("snapshot", json!({})),
        act("click", json!({"ref": "e2"})),
        act("snapshot", json!({})),
        act("click", json!({"ref": "e8"})),
        answer("Order KX-4417 placed."),
    ]);
    let tools = FakeTools::new()
        .script(
            "snapshot",
            vec![
                Behaviour::Ok(json!("e1 link 'Home'\ne2 button 'Place order'")),
                Behaviour::Ok(json!("e7 link 'Home'\ne8 button 'Place order'")),
            ],
        )
        .script(
            "click",
            vec![
                Behaviour::Fail(RawFailure::coded("STALE_REFERENCE", "Element e2 is stale.")),
                Behaviour::Ok(json!("Order KX-4417 placed.")),
            ],
        );
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Place the order and tell me its number.");
    let seen = &result.turns[2].observation;
    assert!(
        seen.ends_with(
            "\nNote: `e2` (button 'Place order'), which `click` could not use, is `e8` in this result."
        ),
        "{seen}"
    );
    assert!(result.success, "{}", result.answer);
    // e1 never failed, but it comes from the listing the stale e2 came from: `click` sits out
    // until a fresh listing.
    let schema = steps_offered(&h, 2);
    assert!(!schema.contains(r#""const":"click""#) && schema.contains(r#""const":"snapshot""#), "{schema}");
    // The fresh listing's line the task names ("Place order"), not its first.
    assert!(steps_offered(&h, 3).contains(r#""ref":{"enum":["e8"]"#), "{}", steps_offered(&h, 3));
    // Once the click worked, a later snapshot carries no note.
    assert!(!result.turns[0].observation.contains("Note:"));
}

#[test]
fn a_listing_names_the_closest_spelling_of_a_name_not_found() {
    let museums = vec![
        keel::tools::ToolSpec::new(
            "museum_hours",
            "Opening hours of a museum by name.",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        ),
        keel::tools::ToolSpec::new("list_museums", "Lists the museums.", json!({"type": "object"})),
    ];
    let model = ScriptedModel::new([
        act("museum_hours", json!({"name": "Smithsonion Castle"})),
        act("list_museums", json!({})),
        act("museum_hours", json!({"name": "Smithsonian Castle"})),
        answer("10:00 to 17:30"),
    ]);
    let tools = FakeTools::new()
        .script(
            "museum_hours",
            vec![
                Behaviour::Fail(RawFailure::coded("NOT_FOUND", "No museum named 'Smithsonion Castle'.")),
                Behaviour::Ok(json!("Smithsonian Castle: 10:00 to 17:30")),
            ],
        )
        .script("list_museums", vec![Behaviour::Ok(json!("Smithsonian Castle, National Gallery of Art"))]);
    let h = Harness::new(model, tools, museums, AgentConfig::default());
    let (result, events) = h.run("When is the Smithsonion Castle open today?");
    let seen = &result.turns[1].observation;
    assert!(
        seen.contains("Note: 'Smithsonian Castle' in this result is the closest to 'Smithsonion Castle', which `museum_hours` did not find."),
        "{seen}"
    );
    // The name argument is narrowed to the names the listing gives.
    let schema = steps_offered(&h, 2);
    assert!(
        schema.contains(r#""name":{"enum":["Smithsonian Castle","National Gallery of Art"]}"#),
        "{schema}"
    );
    assert!(result.success, "{}", result.answer);
    assert!(events.iter().any(|e| matches!(e, Event::Failure { code: ErrorCode::NotFound, .. })));
}

#[test]
fn a_call_to_a_tool_the_plan_does_not_name_that_works_lets_the_failure_go() {
    // The tool's own plan names no tool: the model moved on to another, which worked.
    let failed = RawFailure::coded("NOT_FOUND", "No invoice INV-9.").with_hints(keel::errors::FailureHints {
        recovery: Some(vec!["Try another id.".to_string()]),
        ..Default::default()
    });
    let model = ScriptedModel::new([
        act("get_invoice", json!({"id": "INV-9"})),
        act("get_weather", json!({"city": "Oslo"})),
        answer("Oslo is sunny; invoice INV-9 was not found."),
    ]);
    let tools = FakeTools::new()
        .script("get_invoice", vec![Behaviour::Fail(failed)])
        .script("get_weather", vec![Behaviour::Ok(json!("Oslo: sunny"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Weather in Oslo, and invoice INV-9?");
    assert!(!steps_offered(&h, 1).contains("final_answer"), "held after the failure");
    assert!(steps_offered(&h, 2).contains("final_answer"), "let go after the other call worked");
    assert_eq!(result.turns.len(), 3);
}

/// A newsletter page: a snapshot of three elements, and a click on `first` (refused NOT_FOUND),
/// then on `then`, whose click works; the run's model takes the snapshot, then clicks both.
fn newsletter(first: &str, then: &str) -> Harness {
    let model = ScriptedModel::new([
        act("snapshot", json!({})),
        act("click", json!({"ref": first})),
        act("click", json!({"ref": then})),
        answer("Subscribed."),
    ]);
    let tools = FakeTools::new()
        .script(
            "snapshot",
            vec![Behaviour::Ok(json!(
                "e19 heading 'Newsletter'\ne20 textbox 'Email'\ne21 button 'Subscribe'"
            ))],
        )
        .script(
            "click",
            vec![
                Behaviour::Fail(RawFailure::coded("NOT_FOUND", format!("No element {first} on the page."))),
                Behaviour::Ok(json!("Subscribed: code NL-88")),
            ],
        );
    Harness::new(model, tools, specs(), AgentConfig::default())
}

#[test]
fn a_ref_the_tool_did_not_find_is_not_offered_again() {
    let h = newsletter("e19", "e21");
    let (result, _) = h.run("Click the button and give me the confirmation code.");
    assert!(steps_offered(&h, 1).contains(r#""ref":{"enum":["e19","e20","e21"]"#));
    let schema = steps_offered(&h, 2);
    assert!(schema.contains(r#""ref":{"enum":["e20","e21"]"#), "{schema}");
    assert!(result.success, "{}", result.answer);
}

#[test]
fn the_ref_of_the_element_the_task_names_is_the_one_offered_until_it_fails() {
    // SmolLM2 clicked e19, then e20, then e21 for "Click the Subscribe button" (recovery bench
    // ref-typo, d0b18de).
    let h = newsletter("e21", "e20");
    let (result, _) = h.run("Click the Subscribe button and give me the confirmation code.");
    let schema = steps_offered(&h, 1);
    assert!(schema.contains(r#""ref":{"enum":["e21"]"#), "{schema}");
    // Once it failed, the other listed refs are offered again.
    let schema = steps_offered(&h, 2);
    assert!(schema.contains(r#""ref":{"enum":["e19","e20"]"#), "{schema}");
    assert!(result.success, "{}", result.answer);
    // Turned off with idProvenance.
    let off = AgentConfig { id_provenance: false, ..AgentConfig::default() };
    let h = Harness::new(
        ScriptedModel::new([
            act("snapshot", json!({})),
            act("click", json!({"ref": "e21"})),
            answer("NL-88"),
        ]),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!("e20 textbox 'Email'\ne21 button 'Subscribe'"))])
            .script("click", vec![Behaviour::Ok(json!("Subscribed: code NL-88"))]),
        specs(),
        off,
    );
    h.run("Click the Subscribe button.");
    assert!(!steps_offered(&h, 1).contains(r#""enum":["e21"]"#));
}

#[test]
fn a_listing_whose_every_ref_failed_leaves_the_tool_out_until_a_fresh_listing() {
    let model = ScriptedModel::new([
        act("snapshot", json!({})),
        act("click", json!({"ref": "e1"})),
        act("click", json!({"ref": "e2"})),
        act("snapshot", json!({})),
        act("click", json!({"ref": "e5"})),
        answer("Order KX-1 placed."),
    ]);
    let no_element =
        |r: &str| Behaviour::Fail(RawFailure::coded("NOT_FOUND", format!("No element {r} on the page.")));
    let tools = FakeTools::new()
        .script(
            "snapshot",
            vec![
                Behaviour::Ok(json!("e1 link 'Home'\ne2 button 'Order'")),
                Behaviour::Ok(json!("e5 button 'Order'")),
            ],
        )
        .script(
            "click",
            vec![no_element("e1"), no_element("e2"), Behaviour::Ok(json!("Order KX-1 placed."))],
        );
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Click Order and tell me the order number.");
    assert!(steps_offered(&h, 2).contains(r#""ref":{"enum":["e2"]"#), "{}", steps_offered(&h, 2));
    // Every listed ref failed: `click` sits out, and only a fresh listing can follow.
    let schema = steps_offered(&h, 3);
    assert!(!schema.contains(r#""const":"click""#) && schema.contains(r#""const":"snapshot""#), "{schema}");
    let schema = steps_offered(&h, 4);
    assert!(schema.contains(r#""ref":{"enum":["e5"]"#), "the fresh listing's ref: {schema}");
    assert!(result.success, "{}", result.answer);
}

#[test]
fn a_new_attempt_with_other_arguments_holds_the_answer_again() {
    let model = ScriptedModel::new([
        act("get_invoice", json!({"id": "INV-9"})),
        act("get_invoice", json!({"id": "INV-8"})),
        answer("a"),
        answer("b"),
        answer("c"),
        answer("I could not find the invoice."),
    ]);
    let tools = FakeTools::new()
        .script("get_invoice", vec![Behaviour::Fail(not_found()), Behaviour::Fail(not_found())]);
    let config = AgentConfig { max_consecutive_failures: 10, ..AgentConfig::default() };
    let h = Harness::new(model, tools, specs(), config);
    let (result, _) = h.run("What is the total of invoice INV-9?");
    // Steps 3-5 are held: three steps from the second attempt (step 2), not from the first.
    let held: Vec<bool> = (2..6).map(|i| !steps_offered(&h, i).contains("final_answer")).collect();
    assert_eq!(held, [true, true, true, false], "steps 3-5 held, step 6 free");
    assert_eq!(result.turns.len(), 6);
    assert!(!result.success);
}
