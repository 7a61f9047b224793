//! Grounded answers and honest failure text (issue 9): an answer stating values no tool gave gets
//! one more step, then the run ends unsuccessful without presenting them; NOT_FOUND plans for
//! names.

mod support;

use keel::engine::{AgentConfig, Outcome};
use keel::errors::{ErrorCode, RawFailure};
use keel::store::EndReason;
use keel::tools::ToolSpec;
use serde_json::{json, Value};
use support::*;

fn invoice_run(script: Vec<Reply>, config: AgentConfig) -> (Harness, keel::engine::RunResult) {
    let tools = FakeTools::new()
        .script("list_invoices", vec![Behaviour::Ok(json!("INV-1: $1,250.00\nINV-2: $980.00"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), config);
    let (result, _) = h.run("How much do the two invoices come to together?");
    (h, result)
}

#[test]
fn an_invented_value_gets_one_more_step_and_a_grounded_answer_succeeds() {
    let (_, result) = invoice_run(
        vec![act("list_invoices", json!({})), answer("Together: $3,100.00."), answer("Together: $2,230.00.")],
        AgentConfig::default(),
    );
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
    let envelope = &result.turns[1].observation;
    assert!(envelope.contains("UNGROUNDED_ANSWER") && envelope.contains("'3,100.00'"), "{envelope}");
    assert_eq!(result.turns[1].reply.as_deref().map(|r| r.contains("3,100.00")), Some(true));
    assert!(result.success, "the sum of two results is arithmetic, not invention: {}", result.answer);
    assert_eq!(result.answer, "Together: $2,230.00.");
    assert!(result.ungrounded.is_empty());
    assert!(result.failures.iter().all(|f| f.recovered), "a grounded answer recovers the envelope");
}

#[test]
fn a_model_that_persists_ends_unsuccessful_and_its_values_are_not_presented() {
    let (_, result) = invoice_run(
        vec![
            act("list_invoices", json!({})),
            answer("Together: $3,100.00."),
            answer("I am sure: $3,100.00."),
        ],
        AgentConfig::default(),
    );
    assert!(!result.success);
    assert_eq!(result.reason, EndReason::FinalAnswer);
    assert_eq!(result.ungrounded, ["3,100.00"]);
    assert!(!result.answer.contains("3,100"), "{}", result.answer);
    assert!(result
        .answer
        .starts_with("I could not complete the task: the answer stated values that no tool returned"));
    assert_eq!(result.turns.last().unwrap().reply.as_deref().map(|r| r.contains("I am sure")), Some(true));
}

#[test]
fn grounding_false_takes_the_answer_as_it_is() {
    let config = AgentConfig { grounding: false, ..AgentConfig::default() };
    let (_, result) =
        invoice_run(vec![act("list_invoices", json!({})), answer("Together: $3,100.00.")], config);
    assert!(result.success);
    assert_eq!(result.answer, "Together: $3,100.00.");
}

#[test]
fn after_an_unrecovered_failure_an_invented_value_is_withheld_and_the_failure_named() {
    let script = vec![
        act("get_weather", json!({"city": "Oslo"})),
        answer("It is 17 degrees in Oslo."),
        answer("It is 17 degrees in Oslo."),
    ];
    let down = RawFailure::coded("UNAVAILABLE", "The weather service is down.");
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Fail(down)]);
    let config = AgentConfig {
        retry: keel::engine::RetryPolicy { max_attempts: 1, ..Default::default() },
        ..AgentConfig::default()
    };
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), config);
    let (result, _) = h.run("What is the temperature in Oslo?");
    assert!(!result.success);
    assert_eq!(result.ungrounded, ["17"]);
    assert!(!result.answer.contains("17"), "{}", result.answer);
    assert!(
        result
            .answer
            .contains("The last failure was UNAVAILABLE from `get_weather`: The weather service is down."),
        "{}",
        result.answer
    );
    // An honest answer instead is kept, and still unsuccessful: the call's failure stands.
    let script = vec![
        act("get_weather", json!({"city": "Oslo"})),
        answer("I could not get the weather: the service is down."),
    ];
    let down = RawFailure::coded("UNAVAILABLE", "The weather service is down.");
    let h = Harness::new(
        ScriptedModel::new(script),
        FakeTools::new().script("get_weather", vec![Behaviour::Fail(down)]),
        specs(),
        classic(),
    );
    let (result, _) = h.run("What is the temperature in Oslo?");
    assert_eq!(
        (result.success, result.answer.as_str()),
        (false, "I could not get the weather: the service is down.")
    );
}

#[test]
fn a_forced_answer_with_an_invented_value_says_what_failed_instead() {
    let result = oslo_not_found_then_answers(5, 1);
    assert_eq!(result.reason, EndReason::ConsecutiveFailures { failures: 5 });
    assert!(!result.answer.contains("17"), "{}", result.answer);
    assert!(
        result.answer.starts_with("I could not complete the task. 5 steps in a row failed"),
        "{}",
        result.answer
    );
    assert_eq!(result.ungrounded, ["17"]);
}

#[test]
fn not_found_for_a_name_suggests_other_forms_and_the_list_tool() {
    let specs = vec![
        ToolSpec::new("list_cities", "Lists the cities it knows.", json!({"type": "object"})),
        ToolSpec::new(
            "get_weather",
            "Weather.",
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        ),
    ];
    let script = vec![
        act("get_weather", json!({"city": "München"})),
        act("get_weather", json!({"city": "Munich"})),
        answer("Munich: sunny"),
    ];
    let tools = FakeTools::new().script(
        "get_weather",
        vec![Behaviour::Fail(RawFailure::coded("NOT_FOUND", "")), Behaviour::Ok(json!("Munich: sunny"))],
    );
    let h = Harness::new(ScriptedModel::new(script), tools, specs, AgentConfig::default());
    let (result, _) = h.run("Weather in München?");
    let plan = &result.turns[0].observation;
    assert!(plan.contains("found nothing named 'München'"), "{plan}");
    assert!(plan.contains("another form: its English or local-language name"), "{plan}");
    assert!(plan.contains("Or call `list_cities` to see the names it knows"), "{plan}");
    assert!(!plan.contains("ids must come from"), "{plan}");
    assert!(result.success);
    // An id keeps the id plan.
    let tools =
        FakeTools::new().script("get_invoice", vec![Behaviour::Fail(RawFailure::coded("NOT_FOUND", ""))]);
    let h = Harness::new(
        ScriptedModel::new([act("get_invoice", json!({"id": "INV-7"})), answer("none")]),
        tools,
        support::specs(),
        classic(),
    );
    let (result, _) = h.run("Get INV-7");
    assert_eq!(result.failures[0].code, ErrorCode::NotFound);
    assert!(
        result.turns[0].observation.contains("Call `list_invoices` to get valid ids."),
        "{}",
        result.turns[0].observation
    );
}

#[test]
fn the_same_unreadable_reply_again_is_escalated_like_a_repeated_call() {
    let garbage = || Reply::Text("I will check the weather now.".into());
    let script = vec![
        garbage(),
        garbage(),
        garbage(),
        act("get_weather", json!({"city": "Oslo"})),
        answer("Oslo: sunny"),
    ];
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Oslo: sunny"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Weather in Oslo?");
    assert!(!result.turns[0].observation.contains("You already sent"));
    assert!(
        result.turns[1]
            .observation
            .contains("You already sent this exact reply 1 time; it was refused each time."),
        "{}",
        result.turns[1].observation
    );
    assert!(
        result.turns[2].observation.contains("You already sent this exact reply 2 times;"),
        "{}",
        result.turns[2].observation
    );
    assert!(result.success);
}

#[test]
fn a_forced_answer_after_a_withheld_one_names_the_tool_failure_not_the_withheld_values() {
    // The budget ran out on an answer sent back as ungrounded: the forced answer's "last failure"
    // must be the tool's, since the UNGROUNDED_ANSWER message quotes the invented value.
    let result = oslo_not_found_then_answers(4, 2);
    assert_eq!(result.reason, EndReason::ConsecutiveFailures { failures: 5 });
    assert!(!result.answer.contains("17"), "{}", result.answer);
    assert!(result.answer.contains("NOT_FOUND from `get_weather`"), "{}", result.answer);
}

/// `get_weather` fails NOT_FOUND for Oslo `calls` times, then the model answers "It is 17 degrees."
/// (a value no tool gave) `answers` times.
fn oslo_not_found_then_answers(calls: usize, answers: usize) -> keel::engine::RunResult {
    let mut script: Vec<_> = (0..calls).map(|_| act("get_weather", json!({"city": "Oslo"}))).collect();
    script.extend((0..answers).map(|_| answer("It is 17 degrees.")));
    let tools = FakeTools::new()
        .script("get_weather", vec![Behaviour::Fail(RawFailure::coded("NOT_FOUND", "no such city"))]);
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), AgentConfig::default());
    h.run("What is the temperature in Oslo?").0
}

#[test]
fn the_ungrounded_plan_quotes_the_result_a_tool_already_returned() {
    let (_, result) = invoice_run(
        vec![act("list_invoices", json!({})), answer("Together: $3,100.00."), answer("Together: $2,230.00.")],
        AgentConfig::default(),
    );
    let envelope = &result.turns[1].observation;
    assert!(
        envelope.contains(r#"<step n="1">`list_invoices` already returned: "INV-1: $1,250.00"#),
        "{envelope}"
    );
    assert!(envelope.contains("Answer with the values exactly as that result shows them."), "{envelope}");
    assert!(!envelope.contains("Call `list_invoices` to get these values"), "{envelope}");
}

#[test]
fn an_answer_repeating_keels_own_note_is_refused_once_more() {
    let tools = FakeTools::new()
        .script("list_invoices", vec![Behaviour::Ok(json!("INV-1: $1,250.00\nINV-2: $980.00"))]);
    let script = vec![
        act("list_invoices", json!({})),
        act("list_invoices", json!({})),
        answer("You made this exact call and got this same result."),
        answer("Together: $2,230.00."),
    ];
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), AgentConfig::default());
    let (result, _) = h.run("How much do the two invoices come to together?");
    let refused = &result.turns[2];
    assert_eq!(refused.outcome, Outcome::Failed);
    assert!(refused.observation.contains("repeats keel's own note or plan"), "{}", refused.observation);
    assert!(refused.observation.contains("`list_invoices` already returned"), "{}", refused.observation);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Together: $2,230.00.");
}

#[test]
fn a_placeholder_answer_is_refused_once_more() {
    let (_, result) = invoice_run(
        vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            answer("Together: $2,230.00."),
        ],
        AgentConfig::default(),
    );
    assert!(result.turns[1].observation.contains("is a placeholder"), "{}", result.turns[1].observation);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Together: $2,230.00.");
}

#[test]
fn a_second_answer_that_is_no_answer_ends_the_run_unsuccessful() {
    let (_, result) = invoice_run(
        vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            answer("&lt;response to the task&gt;\""),
            answer("Together: $2,230.00."),
        ],
        AgentConfig::default(),
    );
    assert_eq!(result.turns.len(), 3, "ended at the second, not at the failure budget");
    assert!(!result.success);
    assert!(
        result.answer.starts_with("I could not complete the task: the model gave no answer to it"),
        "{}",
        result.answer
    );
    assert!(!result.answer.contains("INVALID_OUTPUT"), "the refusal speaks to the model: {}", result.answer);
}

#[test]
fn an_answer_about_none_of_the_task_or_results_is_refused_once_more() {
    let (_, result) = invoice_run(
        vec![
            act("list_invoices", json!({})),
            answer("I'm glad you're here, I'll be sure to get back to you soon!"),
            answer("Together: $2,230.00."),
        ],
        AgentConfig::default(),
    );
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
    assert!(
        result.turns[1].observation.contains("names nothing from the task"),
        "{}",
        result.turns[1].observation
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Together: $2,230.00.");
}

#[test]
fn a_second_unrelated_answer_ends_the_run_and_grounding_false_takes_it() {
    let chit_chat = || answer("I am glad that you found your way here. Good luck with everything!");
    let (_, result) =
        invoice_run(vec![act("list_invoices", json!({})), chit_chat(), chit_chat()], AgentConfig::default());
    assert_eq!(result.turns.len(), 3);
    assert!(!result.success, "{}", result.answer);
    assert!(result.answer.starts_with("I could not complete the task"), "{}", result.answer);
    let config = AgentConfig { grounding: false, ..AgentConfig::default() };
    let (_, result) = invoice_run(vec![act("list_invoices", json!({})), chit_chat()], config);
    assert!(result.success, "grounding: false takes any answer");
}

#[test]
fn an_acknowledgement_or_an_answer_naming_a_result_is_taken() {
    for reply in [
        "Done.",
        "The invoices are listed above: INV-1 and INV-2, both unpaid and due soon.",
        "INV-2 is the smaller invoice of both.",
    ] {
        let (_, result) =
            invoice_run(vec![act("list_invoices", json!({})), answer(reply)], AgentConfig::default());
        assert!(result.success && result.answer == reply, "{reply}: {}", result.answer);
    }
}

#[test]
fn the_arguments_of_a_refused_call_ground_nothing() {
    // The model guessed a ref, refused as unseen; its answer then named that guess.
    let model = ScriptedModel::new([
        act("click", json!({"ref": "download_report.csv"})),
        act("snapshot", json!({})),
        act("click", json!({"ref": "e31"})),
        answer("Download started: report.csv"),
        answer("It downloads q3-report.pdf."),
    ]);
    let tools = FakeTools::new()
        .script("snapshot", vec![Behaviour::Ok(json!("e31 button 'Download report'"))])
        .script("click", vec![Behaviour::Ok(json!("Download started: q3-report.pdf"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Click 'Download report' and tell me the name of the file it downloads.");
    assert!(result.turns[0].observation.contains("UNSEEN_ID"), "{}", result.turns[0].observation);
    assert!(result.turns[3].observation.contains("'report.csv'"), "{}", result.turns[3].observation);
    assert!(result.success && result.answer == "It downloads q3-report.pdf.", "{}", result.answer);
}

#[test]
fn an_answer_repeating_the_task_reminder_is_refused_once_more() {
    let (_, result) = invoice_run(
        vec![
            act("list_invoices", json!({})),
            answer(
                "Your task: How much do the two invoices come to together? Your next action is to add them.",
            ),
            answer("Together: $2,230.00."),
        ],
        AgentConfig::default(),
    );
    assert!(result.turns[1].observation.contains("keel's own note"), "{}", result.turns[1].observation);
    assert_eq!(result.answer, "Together: $2,230.00.");
}

#[test]
fn an_answer_saying_the_task_was_not_done_ends_the_run_unsuccessful_with_it() {
    // SmolLM2 answered "…is not yet known." after the tool had returned the status, and the run
    // was reported a success (recovery bench invent-ticket). Sent back once (the focused answer,
    // `loop_focused_answer.rs`), the same answer again stands.
    let gave_up = "The total of INV-1 and INV-2 is not yet known.";
    let (_, result) = invoice_run(
        vec![act("list_invoices", json!({})), answer(gave_up), answer(gave_up)],
        AgentConfig::default(),
    );
    assert!(!result.success);
    assert_eq!(result.reason, EndReason::FinalAnswer);
    assert_eq!(result.answer, "The total of INV-1 and INV-2 is not yet known.", "the honest answer is kept");
    let config = AgentConfig { grounding: false, ..AgentConfig::default() };
    let (_, result) =
        invoice_run(vec![act("list_invoices", json!({})), answer("The total is not yet known.")], config);
    assert!(result.success, "grounding: false takes answers as they are");
}

#[test]
fn an_answer_naming_nothing_the_tools_returned_is_refused_once_more() {
    // Qwen with 48 distractors answered "Place order" (the button it was to click) and SmolLM2
    // "Two unpaid invoices are coming together.", both reported successes.
    let (_, result) = invoice_run(
        vec![
            act("list_invoices", json!({})),
            answer("Two unpaid invoices are coming together."),
            answer("Together: $2,230.00."),
        ],
        AgentConfig::default(),
    );
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
    assert!(
        result.turns[1].observation.contains("names nothing the tools returned"),
        "{}",
        result.turns[1].observation
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Together: $2,230.00.");
}

#[test]
fn a_number_read_with_another_numbers_unit_is_ungrounded() {
    // SmolLM2's focused answer on invent-balance: every number seen, one of them misread.
    let tools = FakeTools::new().script(
        "list_invoices",
        vec![Behaviour::Ok(json!("Vacation: 13.5 days left of 25. Sick leave: 4 days used."))],
    );
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("list_invoices", json!({})),
            answer("You have 25 days left of vacation."),
            answer("You have 13.5 days left."),
        ]),
        tools,
        specs(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("How many vacation days do I have left this year?");
    let envelope = &result.turns[1].observation;
    assert!(envelope.contains("UNGROUNDED_ANSWER") && envelope.contains("'25 days'"), "{envelope}");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "You have 13.5 days left.");
}

/// A catalogue whose first page lists other parts than the one asked for, and a search that finds it.
fn catalogue_run(script: Vec<Reply>) -> keel::engine::RunResult {
    catalogue_run_with(script, AgentConfig::default())
}

fn catalogue_run_with(script: Vec<Reply>, config: AgentConfig) -> keel::engine::RunResult {
    let search = ToolSpec::new(
        "search_parts",
        "Lists the catalogue's parts, or those matching `query`.",
        json!({"type": "object", "properties": {"query": {"type": "string"}}}),
    );
    let tools = FakeTools::new().script(
        "search_parts",
        vec![
            Behaviour::Ok(json!("P-0001 Wing nut — €31.19\nP-0002 Washer — €12.38")),
            Behaviour::Ok(json!("P-0287 Hinge — €18.40")),
        ],
    );
    let h = Harness::new(ScriptedModel::new(script), tools, vec![search], config);
    h.run("What is the price of part P-0287?").0
}

#[test]
fn an_answer_about_the_item_the_task_names_that_no_result_held_gets_one_more_step() {
    // Every value grounded (P-0287 in the task, €31.19 in a result), but €31.19 is P-0001's.
    let result = catalogue_run(vec![
        act("search_parts", json!({})),
        answer("The price of part P-0287 is €31.19."),
        act("search_parts", json!({"query": "P-0287"})),
        answer("The price of part P-0287 is €18.40."),
    ]);
    let envelope = &result.turns[1].observation;
    assert!(envelope.contains("UNGROUNDED_ANSWER") && envelope.contains("about 'P-0287'"), "{envelope}");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "The price of part P-0287 is €18.40.");

    // Given again, it ends the run unsuccessful, without the value.
    let result = catalogue_run(vec![
        act("search_parts", json!({})),
        answer("The price of part P-0287 is €31.19."),
        answer("The price of part P-0287 is €31.19."),
    ]);
    assert!(!result.success);
    assert!(!result.answer.contains("31.19"), "{}", result.answer);
    assert_eq!(result.ungrounded, ["P-0287"]);

    // The step budget spent, the forced last answer about P-0287 is not given either.
    let result = catalogue_run_with(
        vec![
            act("search_parts", json!({})),
            answer("The price of part P-0287 is €31.19."),
            answer("The price of part P-0287 is €31.19."),
        ],
        AgentConfig { max_steps: 2, ..AgentConfig::default() },
    );
    assert!(!result.success);
    assert!(
        result.answer.contains("about 'P-0287'") && !result.answer.contains("31.19"),
        "{}",
        result.answer
    );
    assert_eq!(result.ungrounded, ["P-0287"]);

    // Saying it was not found, even counting what was: no envelope.
    for said in [
        "Part P-0287 is not in the list.",
        "I could not find P-0287 among the 2 parts listed (P-0001, P-0002).",
    ] {
        let result = catalogue_run(vec![act("search_parts", json!({})), answer(said)]);
        assert!(result.turns.iter().all(|t| !t.observation.contains("UNGROUNDED_ANSWER")), "{said}");
    }
}

#[test]
fn a_term_the_task_uses_that_no_tool_echoes_is_no_item() {
    // "3pm" is never sent nor returned, but no result lists another time: not an item of a list.
    let weather = ToolSpec::new(
        "get_weather",
        "The weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Paris: 18°C, light rain"))]);
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("get_weather", json!({"city": "Paris"})),
            answer("At 3pm Paris has 18°C."),
        ]),
        tools,
        vec![weather],
        AgentConfig::default(),
    );
    let (result, _) = h.run("What is the weather in Paris at 3pm?");
    assert!(result.success, "{}", result.answer);
    assert!(result.turns.iter().all(|t| !t.observation.contains("UNGROUNDED_ANSWER")));
}

#[test]
fn an_id_typed_into_the_page_is_not_a_result_about_it() {
    // The web bench's long-page (b187d71): the id typed into a search box and not sent, then
    // another part's price given for it.
    let listing =
        "page \"Parts\"\n@e1 text \"P-0001 Wing nut — €31.19\"\n@e2 text \"P-0002 Washer — €12.38\"\n\
                   @e12 searchbox \"Search the shop\"";
    let typed = Behaviour::Ok(json!("Typed \"P-0287\" into @e12 (searchbox \"Search the shop\", <input>)."));
    let result = parts_page_run(
        listing,
        typed,
        json!({"ref": "@e12", "text": "P-0287"}),
        vec![
            answer("The price of part P-0287 in the catalogue is €31.19."),
            answer("The price of part P-0287 in the catalogue is €31.19."),
        ],
    );
    let envelope = &result.turns[2].observation;
    assert!(envelope.contains("UNGROUNDED_ANSWER") && envelope.contains("about 'P-0287'"), "{envelope}");
    assert!(!result.success, "{}", result.answer);
    assert_eq!(result.ungrounded, ["P-0287"]);
}

/// A run on a parts page for "What is the price of part P-0287 in the catalogue?": `snapshot`
/// lists `listing`, the model types with `args` (`type` answers `typed`; with submit it sends its
/// form), then replies `after`.
fn parts_page_run(
    listing: &str,
    typed: Behaviour,
    args: Value,
    after: Vec<Reply>,
) -> keel::engine::RunResult {
    let reference = json!({"type": "string", "pattern": "^@?e[0-9]+$"});
    let specs = vec![
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"}))
            .read_only(),
        ToolSpec::new(
            "type",
            "Types a text into the field with this ref; with submit, sends its form.",
            json!({"type": "object", "properties": {"ref": reference, "text": {"type": "string"},
                   "submit": {"type": "boolean"}}, "required": ["ref", "text"]}),
        )
        .with_refs_from(["snapshot"]),
    ];
    let tools =
        FakeTools::new().script("snapshot", vec![Behaviour::Ok(json!(listing))]).script("type", vec![typed]);
    let mut script = vec![act("snapshot", json!({})), act("type", args)];
    script.extend(after);
    let h = Harness::new(ScriptedModel::new(script), tools, specs, AgentConfig::default());
    h.run("What is the price of part P-0287 in the catalogue?").0
}

#[test]
fn a_number_only_a_pages_refs_hold_is_not_seen() {
    // The web bench's hidden-faq (b187d71): "10 days", the listing's only 10 its `@e10`.
    let snapshot =
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"}))
            .read_only();
    let listing = "page \"Help\"\n@e9 link \"Help\"\n@e10 heading \"Help\"\n@e11 button \"How long can I return items?\"";
    let tools = FakeTools::new().script("snapshot", vec![Behaviour::Ok(json!(listing))]);
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            answer("How long can I return items? 10 days."),
            answer("How long can I return items? 10 days."),
        ]),
        tools,
        vec![snapshot],
        AgentConfig::default(),
    );
    let (result, _) =
        h.run("How many days do customers have to return an item? The help page's questions say.");
    let envelope = &result.turns[1].observation;
    assert!(envelope.contains("UNGROUNDED_ANSWER") && envelope.contains("'10'"), "{envelope}");
    assert!(!result.success, "{}", result.answer);
}

#[test]
fn an_answer_that_is_only_the_id_the_task_names_is_no_answer() {
    // Qwen on the web bench's long-page (4109642), its answer about P-0287 refused: "P-0287".
    let result = catalogue_run(vec![act("search_parts", json!({})), answer("P-0287"), answer("P-0287")]);
    let envelope = &result.turns[1].observation;
    assert!(envelope.contains("only repeats the id the task names"), "{envelope}");
    assert!(!result.success, "{}", result.answer);
}

#[test]
fn an_id_typed_and_sent_whose_result_lists_it_is_returned() {
    // The search sent with the id: its result lists the page that holds it, so the answer stands.
    let listing = "page \"Parts\"\n@e1 text \"P-0001 Wing nut — €31.19\"\n@e12 searchbox \"Search the shop\"";
    let found =
        "Typed into (searchbox \"Search the shop\", <input>). It opened this page:\npage \"Search\"\n\
                 @e1 text \"P-0287 Hex bolt — €44.10\"";
    let result = parts_page_run(
        listing,
        Behaviour::Lists(json!(found)),
        json!({"ref": "@e12", "text": "P-0287", "submit": true}),
        vec![answer("Part P-0287 costs €44.10.")],
    );
    assert!(
        result.success,
        "{}: {:?}",
        result.answer,
        result.turns.iter().map(|t| &t.observation).collect::<Vec<_>>()
    );
    assert_eq!(result.answer, "Part P-0287 costs €44.10.");
}

#[test]
fn the_tasks_id_typed_into_the_page_then_given_alone_is_no_answer() {
    // Qwen on the web bench's long-page (ab2bfc6): its answer about P-0287 refused, it typed the id
    // into the search box earlier, then answered "P-0287".
    let listing = "page \"Parts\"\n@e1 text \"P-0001 Wing nut — €31.19\"\n@e12 searchbox \"Search the shop\"";
    let typed = Behaviour::Ok(json!("Typed \"P-0287\" into @e12 (searchbox \"Search the shop\", <input>)."));
    let result = parts_page_run(
        listing,
        typed,
        json!({"ref": "@e12", "text": "P-0287"}),
        vec![answer("P-0287"), answer("P-0287")],
    );
    assert!(
        result.turns[2].observation.contains("only repeats the id the task names"),
        "{}",
        result.turns[2].observation
    );
    assert!(!result.success, "{}", result.answer);
}

#[test]
fn an_answer_about_another_item_than_the_one_the_task_names_is_no_answer() {
    // Qwen on the web bench's long-page (02a00ab), its answers about P-0287 refused: P-0001's line.
    let result = catalogue_run(vec![
        act("search_parts", json!({})),
        answer("P-0001 Wing nut — €31.19"),
        answer("P-0001 Wing nut — €31.19"),
    ]);
    let envelope = &result.turns[1].observation;
    assert!(envelope.contains("about another item than the one the task names"), "{envelope}");
    assert!(!result.success, "{}", result.answer);
    // Once a result told of P-0287, another id may be the answer (a replacement, a kit's part).
    let result = catalogue_run(vec![
        act("search_parts", json!({})),
        act("search_parts", json!({"query": "P-0287"})),
        answer("P-0002 Washer — €12.38"),
    ]);
    assert!(result.turns.iter().all(|t| !t.observation.contains("another item")), "{}", result.answer);
}
