//! The focused answer (`focusedAnswer`, issue 9): after a final answer that was no answer while a
//! tool had answered, the next model call asks for the answer alone — the task and the tools'
//! results, a one-field reply — and that answer is checked like any other.

mod support;

use keel::engine::{AgentConfig, Event, Outcome, Role};
use serde_json::json;
use support::*;

fn ticket_tools() -> std::rc::Rc<FakeTools> {
    FakeTools::new().script(
        "list_invoices",
        vec![
            Behaviour::Ok(json!("INV-1: $1,250.00\nINV-2: $980.00")),
            Behaviour::Ok(json!("INV-1: $1,250.00")),
        ],
    )
}

fn run(script: Vec<Reply>, config: AgentConfig) -> (Harness, keel::engine::RunResult, Vec<Event>) {
    let h = Harness::new(ScriptedModel::new(script), ticket_tools(), specs(), config);
    let (result, events) = h.run("How much is invoice INV-1?");
    (h, result, events)
}

/// The reply a focused request gets: the answer field alone.
fn bare_answer(text: &str) -> Reply {
    Reply::Text(json!({ "final_answer": text }).to_string())
}

#[test]
fn a_placeholder_after_a_result_gets_a_request_for_the_answer_alone() {
    let (h, result, events) = run(
        vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            bare_answer("INV-1 is $1,250.00."),
        ],
        AgentConfig::default(),
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "INV-1 is $1,250.00.");
    let requests = h.model.requests.borrow();
    assert_eq!(
        requests.len(),
        3,
        "the focused request replaces the step after the refusal, not one more call"
    );
    let focused = &requests[2];
    assert_eq!(focused.messages.len(), 2);
    assert_eq!(focused.messages[0].role, Role::System);
    assert!(focused.messages[0]
        .content
        .starts_with("Answer the user's question using only the tool results below."));
    let user = &focused.messages[1].content;
    assert!(user.starts_with("Question: How much is invoice INV-1?\n\nTool results:\n"), "{user}");
    assert!(user.contains("INV-1: $1,250.00"), "{user}");
    assert!(!user.contains("<response"), "no placeholder to copy: {user}");
    let schema = focused.schema.as_ref().expect("constrained");
    assert_eq!(schema["required"], json!(["final_answer"]), "{schema}");
    // The reply has no thought by design: no repair warning for it.
    let warned =
        events.iter().any(|e| matches!(e, Event::Warning { message, .. } if message.contains("repaired")));
    assert!(!warned, "{events:?}");
    // The whole step prompt is back for anything after it.
    assert!(requests[1].messages[0].content.contains("Tools:"));
}

#[test]
fn the_focused_answer_is_checked_like_any_other() {
    let (_, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            bare_answer("<response to the task>"),
        ],
        AgentConfig::default(),
    );
    assert!(!result.success);
    assert!(
        result.answer.starts_with("I could not complete the task: the model gave no answer"),
        "{}",
        result.answer
    );
    let (_, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            bare_answer("INV-1 is $3,100.00."),
            answer("INV-1 is $3,100.00."),
        ],
        AgentConfig::default(),
    );
    assert!(!result.success, "an invented value in the focused answer is refused: {}", result.answer);
    assert_eq!(result.ungrounded, ["3,100.00"]);
}

#[test]
fn the_format_placeholder_copied_whole_also_gets_the_focused_request() {
    let (h, result, _) = run(
        vec![act("list_invoices", json!({})), answer("<answer for the user>"), bare_answer("$1,250.00")],
        AgentConfig::default(),
    );
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
    assert!(result.success, "{}", result.answer);
    assert_eq!(h.model.requests.borrow()[2].messages.len(), 2);
}

#[test]
fn no_focused_request_before_any_tool_answered_or_when_turned_off() {
    // The only call failed: there is nothing to answer from, so the step prompt asks again.
    let tools = FakeTools::new().script(
        "list_invoices",
        vec![Behaviour::Fail(keel::errors::RawFailure::named("TypeError", "boom")); 3],
    );
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            answer("I could not list the invoices."),
        ]),
        tools,
        specs(),
        AgentConfig { tool_choice: Some(keel::engine::ToolChoice::Auto), ..AgentConfig::default() },
    );
    h.run("How much is invoice INV-1?");
    assert!(h.model.requests.borrow().iter().all(|r| r.messages[0].content.contains("Tools:")));

    let (h, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            answer("INV-1 is $1,250.00."),
        ],
        AgentConfig { focused_answer: false, ..AgentConfig::default() },
    );
    assert!(result.success, "{}", result.answer);
    assert!(h.model.requests.borrow().iter().all(|r| r.messages[0].content.contains("Tools:")));
}

#[test]
fn a_follow_up_s_focused_request_quotes_the_earlier_question_not_its_answer() {
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("list_invoices", json!({})),
            answer("INV-1 is $1,250.00."),
            act("list_invoices", json!({})),
            answer("<response to the user>"),
            bare_answer("Still $1,250.00."),
        ]),
        ticket_tools(),
        specs(),
        AgentConfig::default(),
    );
    h.run("How much is invoice INV-1?");
    let (result, _) = h.run("And now?");
    assert!(result.success, "{}", result.answer);
    let requests = h.model.requests.borrow();
    let user = &requests[4].messages[1].content;
    assert!(
        user.starts_with(
            "Earlier in this conversation:\n- The user asked: How much is invoice INV-1?\n\nQuestion: And now?"
        ),
        "{user}"
    );
    assert!(!user.contains("INV-1 is $1,250.00."), "an earlier answer is text a small model copies: {user}");
}

#[test]
fn a_focused_answer_in_the_task_s_words_with_the_result_s_code_is_taken() {
    // SmolLM2 on the recovery bench's word-number-fix: its right answer was refused as keel's own
    // words, because the plan before it had quoted the result.
    let tools = FakeTools::new()
        .script("list_invoices", vec![Behaviour::Ok(json!("Reserved 7 seats. Code: OD-7731."))]);
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("list_invoices", json!({})),
            answer("<response to the next observation>"),
            bare_answer("The 20:00 Odeon show is now reserved for seven people. Confirmation code: OD-7731"),
        ]),
        tools,
        specs(),
        AgentConfig::default(),
    );
    let (result, _) =
        h.run("Reserve seats for seven people at the 20:00 Odeon show and give me the confirmation code.");
    assert!(result.success, "{}", result.answer);
    assert!(result.answer.ends_with("OD-7731"), "{}", result.answer);
}

#[test]
fn a_result_that_leaves_nothing_to_do_gets_the_focused_request_next() {
    // SmolLM2 made the call that had just worked again in 28 of its 32 runs before it was asked for
    // the answer alone (recovery bench, 50ce14f).
    let weather = || FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Oslo: 4°C, rain"))]);
    let script = || vec![act("get_weather", json!({"city": "Oslo"})), bare_answer("Oslo: 4°C, rain.")];
    let h = Harness::new(ScriptedModel::new(script()), weather(), specs(), AgentConfig::default());
    let (result, _) = h.run("Weather in Oslo?");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Oslo: 4°C, rain.");
    let requests = h.model.requests.borrow();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].messages.len(), 2, "the step after the result asks for the answer alone");
    assert!(requests[1].messages[0].content.starts_with("Answer the user's question"));
    drop(requests);

    // Turned off, the whole step comes next.
    let off = AgentConfig { focused_answer: false, ..AgentConfig::default() };
    let h = Harness::new(
        ScriptedModel::new(vec![act("get_weather", json!({"city": "Oslo"})), answer("Oslo: 4°C, rain.")]),
        weather(),
        specs(),
        off,
    );
    let (result, _) = h.run("Weather in Oslo?");
    assert!(result.success, "{}", result.answer);
    assert!(h.model.requests.borrow()[1].messages[0].content.contains("Tools:"));

    // A tool whose description says it lists (keel-agent/dom's `navigate`): what it returns may be
    // what the next call acts on.
    let navigate = keel::tools::ToolSpec::new(
        "navigate",
        "Opens this URL in the tab and lists its elements.",
        json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
    );
    let h = Harness::new(
        ScriptedModel::new(vec![act("navigate", json!({"url": "https://shop.test/"})), answer("Opened.")]),
        FakeTools::new().script("navigate", vec![Behaviour::Ok(json!("e1 button 'Buy'"))]),
        vec![navigate],
        AgentConfig::default(),
    );
    let (result, _) = h.run("Open https://shop.test/ and buy the first item.");
    assert!(h.model.requests.borrow()[1].messages[0].content.contains("Tools:"), "{}", result.answer);

    // A task naming more than the call sent: the whole step, where the next call can be made.
    let h = Harness::new(
        ScriptedModel::new(vec![act("get_weather", json!({"city": "Paris"})), answer("Paris: 18°C.")]),
        FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Paris: 18°C"))]),
        specs(),
        AgentConfig::default(),
    );
    h.run("Weather in Paris and London?");
    assert!(h.model.requests.borrow()[1].messages[0].content.contains("Tools:"));

    // Once a later call has sent the name left, the answer alone comes next: what a step reads of
    // the run is kept from one step to the next, and the turn since the last step is read too.
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("get_weather", json!({"city": "Paris"})),
            act("get_weather", json!({"city": "London"})),
            answer("Paris: 18°C. London: 12°C."),
        ]),
        FakeTools::new().script(
            "get_weather",
            vec![Behaviour::Ok(json!("Paris: 18°C")), Behaviour::Ok(json!("London: 12°C"))],
        ),
        specs(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("Weather in Paris and London?");
    assert!(result.success, "{}", result.answer);
    let requests = h.model.requests.borrow();
    assert!(requests[1].messages[0].content.contains("Tools:"), "London is left after Paris's call");
    assert!(requests[2].messages[0].content.starts_with("Answer the user's question"), "nothing is left");
    drop(requests);

    // A result with warnings: the model decides what comes next (SmolLM2, asked for the answer
    // alone beside "the count covers the other 2", answered "2": partial-warnings, d0b18de).
    let warned = FakeTools::new().script(
        "get_weather",
        vec![Behaviour::Warn(json!("Oslo: 4°C"), vec!["1 of 2 stations answered".into()])],
    );
    let h = Harness::new(
        ScriptedModel::new(vec![act("get_weather", json!({"city": "Oslo"})), answer("Oslo: 4°C.")]),
        warned,
        specs(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("Weather in Oslo?");
    assert!(result.success, "{}", result.answer);
    assert!(h.model.requests.borrow()[1].messages[0].content.contains("Tools:"));

    // A part of the task left to a tool never called: the whole step, where that call can be made.
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("get_weather", json!({"city": "Oslo"})),
            act("list_invoices", json!({})),
            answer("Oslo: 4°C, rain. INV-1: $1,250.00."),
        ]),
        FakeTools::new()
            .script("get_weather", vec![Behaviour::Ok(json!("Oslo: 4°C, rain"))])
            .script("list_invoices", vec![Behaviour::Ok(json!("INV-1: $1,250.00"))]),
        specs(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("Weather in Oslo? Then the total of my latest invoice.");
    assert!(result.success, "{}", result.answer);
    assert!(h.model.requests.borrow()[1].messages[0].content.contains("Tools:"));
}

#[test]
fn a_page_action_s_result_gets_the_whole_step_and_its_repeat_the_focused_request() {
    // A call acting on a ref another tool gave (a click, a typed field): the task may go on.
    let snap = || act("snapshot", json!({}));
    let click = || act("click", json!({"ref": "e1"}));
    let tools = || {
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!("button e1 'Send'"))])
            .script("click", vec![Behaviour::Ok(json!("Sent: message M-7."))])
    };
    let h = Harness::new(
        ScriptedModel::new(vec![snap(), click(), answer("Sent: M-7.")]),
        tools(),
        specs(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("Click Send.");
    assert!(result.success, "{}", result.answer);
    assert!(h.model.requests.borrow().iter().all(|r| r.messages[0].content.contains("Tools:")));

    // The same call made again with the same result: the step after it asks for the answer alone;
    // a lister repeated does not (the model may still act on what it listed).
    let h = Harness::new(
        ScriptedModel::new(vec![snap(), snap(), click(), click(), bare_answer("Sent: message M-7.")]),
        tools(),
        specs(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("Click Send.");
    assert!(result.success, "{}", result.answer);
    let requests = h.model.requests.borrow();
    assert_eq!(requests.len(), 5);
    assert!(requests[..4].iter().all(|r| r.messages[0].content.contains("Tools:")));
    assert_eq!(requests[4].messages.len(), 2, "the step after the repeat asks for the answer alone");
}

/// `snapshot` and a `click` whose refs have keel-agent/dom's shape.
fn page_specs() -> Vec<keel::tools::ToolSpec> {
    let reference = json!({"type": "string", "pattern": "^@?e[0-9]+$"});
    vec![
        keel::tools::ToolSpec::new("snapshot", "Lists the page's elements.", json!({"type": "object"}))
            .read_only(),
        keel::tools::ToolSpec::new(
            "click",
            "Clicks the element with this ref.",
            json!({"type": "object", "properties": {"ref": reference}, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot"]),
    ]
}

#[test]
fn a_page_action_that_shows_the_answer_appear_gets_the_focused_request() {
    // "… and answer with the order number": the click's result shows a new line holding a value
    // and two of the task's words.
    let listing = "@e1 link 'Home'\n@e4 button 'Place order'\n@e5 text 'Last order number: PO-5520'";
    let run_task = |task: &str, shown: &str| {
        let h = Harness::new(
            ScriptedModel::new(vec![
                act("snapshot", json!({})),
                act("click", json!({"ref": "@e4"})),
                bare_answer("PO-5521"),
                answer("PO-5521"),
            ]),
            FakeTools::new().script("snapshot", vec![Behaviour::Ok(json!(listing))]).script(
                "click",
                vec![Behaviour::Ok(json!(format!("Clicked @e4.\nThe page now shows:\n{shown}")))],
            ),
            page_specs(),
            AgentConfig::default(),
        );
        h.run(task);
        let asked_alone = h.model.requests.borrow()[2].messages.len() == 2;
        asked_alone
    };
    let run = |shown: &str| run_task("Place the order and answer with the order number.", shown);
    assert!(run("@e6 text 'Order placed. Order number: PO-5521'"));
    // No value, a listed line whose number changed, or one word of the task: the whole step.
    assert!(!run("@e6 text 'Order placed. Thank you for your order.'"));
    assert!(!run("@e5 text 'Last order number: PO-5521'"));
    assert!(!run("@e6 text 'Placed: PO-5521'"));
    // A new element's ref is no value; nor does the task's own number make a line about its item
    // the answer, when the task says what to answer with and the line names none of it.
    assert!(!run("@e16 heading 'Your order number'"));
    let cart = "Add 2 tea kettles to the cart, then place the order and answer with the order number.";
    assert!(!run_task(cart, "@e6 text 'Tea kettle added to cart: 2 items, subtotal €62.00'"));
    assert!(run_task(cart, "@e6 text 'Order placed. Order number: PO-5521'"));
    // A task that goes on after the value, or asks for no answer, is not done when it appears.
    let code = "@e6 text 'Code for Blue mug: MUG-15'";
    assert!(!run_task("Find the deal code for the Blue mug, then go back to where you started.", code));
    assert!(!run_task("What is the Blue mug's deal code? Then go back home.", code));
    assert!(run_task("What is the Blue mug's deal code?", code));
}

#[test]
fn a_click_that_lists_the_page_it_opened_is_judged_against_the_page_it_left() {
    // keel-agent/dom's click that opened a page lists it (`ToolOutput::lists`): that listing is the
    // next one, but whether the answer appeared is read against the one the click acted on, or
    // the opened page's values would all be known already (web bench follow-link). After a click
    // on the task's subject ("Garden hose"), a line naming all the task asks the answer in ("its
    // SKU"), or labelling a value with the task's words ("In stock"), is the answer.
    let listing = "@e1 link 'Home'\n@e16 link 'Garden hose'\n@e17 link 'Blue mug'\n@e18 link 'Tea kettle'";
    let run = |task: &str, clicked: &str, lines: &str| {
        let title = label_of_ref(listing, clicked);
        let opened = format!(
            "Clicked (link \"{title}\", <a>). It opened this page:\npage \"{title}\"\n\
             @e1 link 'Home'\n@e10 heading '{title}'\n{lines}\n@e19 link 'Back to the price list'"
        );
        let h = opening_click(listing, clicked, &opened, vec![bare_answer("GH-311"), answer("GH-311")]);
        let (result, _) = h.run(task);
        let asked_alone = h.model.requests.borrow()[2].messages.len() == 2;
        (asked_alone, result)
    };
    let sku = "Open the Garden hose's product page and answer with its SKU.";
    let (asked_alone, result) = run(sku, "@e16", "@e11 text 'SKU: GH-311'");
    assert!(asked_alone, "the step after the click asks for the answer alone");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "GH-311");
    let stock = "How many Tea kettles are in stock? The product page says.";
    assert!(run(stock, "@e18", "@e11 text 'SKU: TK-118'\n@e13 text 'In stock: 31'").0);
    // The value apart from what the task asks it in, a label the task does not ask, or another
    // item's page (whose wording still holds "page", "price" and "list"): the whole step.
    assert!(!run(sku, "@e16", "@e11 text 'SKU'\n@e12 text 'GH-311'").0);
    assert!(!run(sku, "@e16", "@e11 text 'SKU list'\n@e12 text 'Price: €24.90'").0);
    assert!(!run(stock, "@e18", "@e13 text 'Ships from: Lyon'").0);
    assert!(!run(sku, "@e17", "@e11 text 'SKU: BM-204'").0);
    assert!(!run(stock, "@e17", "@e13 text 'In stock: 17'").0);
    let listed = "Find the Garden hose in the price list, open its page and answer with its SKU.";
    assert!(!run(listed, "@e17", "@e11 text 'SKU: BM-204'\n@e12 text 'Price: €8.50'").0);
    assert!(run(listed, "@e16", "@e11 text 'SKU: GH-311'\n@e12 text 'Price: €24.90'").0);
}

/// A run that lists `listing`, clicks `clicked` (a click whose result lists the page it opened,
/// `opened`), then replies `after`.
fn opening_click(listing: &str, clicked: &str, opened: &str, after: Vec<Reply>) -> Harness {
    let mut replies = vec![act("snapshot", json!({})), act("click", json!({"ref": clicked}))];
    replies.extend(after);
    Harness::new(
        ScriptedModel::new(replies),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!(listing))])
            .script("click", vec![Behaviour::Lists(json!(opened))]),
        page_specs(),
        AgentConfig::default(),
    )
}

/// The quoted label on the line of `listing` that holds `reference`.
fn label_of_ref<'a>(listing: &'a str, reference: &str) -> &'a str {
    let line = listing.lines().find(|l| l.starts_with(&format!("{reference} "))).expect("a listed ref");
    line.split('\'').nth(1).expect("a quoted label")
}

#[test]
fn an_answer_repeating_the_tasks_quoted_label_is_no_answer() {
    // SmolLM2 after a repeated click, asked for the answer alone, answered with the button's label
    // (recovery bench guessed-ref at ef7c6d2), reported a success.
    let click = || act("click", json!({"ref": "e1"}));
    let tools = FakeTools::new()
        .script("snapshot", vec![Behaviour::Ok(json!("e1 button 'Download report'"))])
        .script("click", vec![Behaviour::Ok(json!("Download started: q3-report.pdf (2.1 MB)."))]);
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            click(),
            click(),
            bare_answer("Download report"),
            bare_answer("Download report"),
        ]),
        tools,
        specs(),
        AgentConfig::default(),
    );
    let (result, _) =
        h.run("Click the 'Download report' button and tell me the name of the file it downloads.");
    assert!(!result.success, "{}", result.answer);
    let refused = result
        .turns
        .iter()
        .find(|t| t.outcome == Outcome::Failed && t.action.is_none())
        .expect("a refused answer");
    assert!(
        refused.observation.contains("only repeats the words the task quotes"),
        "{}",
        refused.observation
    );
}

/// A final step whose answer is the reply format's placeholder, with this thought.
fn placeholder_with_thought(thought: &str) -> Reply {
    Reply::Text(json!({"thought": thought, "final_answer": "<answer for the user>"}).to_string())
}

#[test]
fn a_placeholder_answer_whose_thought_states_the_result_is_answered_by_the_thought() {
    let (h, result, events) = run(
        vec![
            act("list_invoices", json!({})),
            placeholder_with_thought("Invoice INV-1 comes to $1,250.00."),
            answer("not asked"),
        ],
        AgentConfig::default(),
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Invoice INV-1 comes to $1,250.00.");
    assert_eq!(h.model.requests.borrow().len(), 2, "no step was spent on the placeholder");
    assert!(events.iter().any(|e| matches!(e, Event::Warning { message, .. } if message.contains("its thought states a tool's result"))));

    let (_, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            placeholder_with_thought("I have what I need."),
            bare_answer("$1,250.00"),
        ],
        AgentConfig::default(),
    );
    assert_eq!(
        result.answer, "$1,250.00",
        "a thought stating no result is no answer: the placeholder is refused"
    );
    assert_eq!(result.turns[1].outcome, Outcome::Failed);
}

#[test]
fn an_ungrounded_answer_with_a_result_at_hand_gets_the_focused_answer() {
    let (h, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            answer("Invoice INV-1 is $1,999.00."),
            bare_answer("$1,250.00"),
        ],
        AgentConfig::default(),
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "$1,250.00");
    assert!(result.turns[1].observation.contains("UNGROUNDED_ANSWER"), "{}", result.turns[1].observation);
    let requests = h.model.requests.borrow();
    assert!(requests[2].messages[0]
        .content
        .starts_with("Answer the user's question using only the tool results"));
}

#[test]
fn an_answer_giving_up_right_after_a_result_gets_the_focused_answer_once() {
    let (h, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            answer("The amount of INV-1 is not yet known."),
            bare_answer("$1,250.00"),
        ],
        AgentConfig::default(),
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "$1,250.00");
    assert!(
        result.turns[1].observation.contains("says the task was not done"),
        "{}",
        result.turns[1].observation
    );
    let requests = h.model.requests.borrow();
    assert!(requests[2].messages[0]
        .content
        .starts_with("Answer the user's question using only the tool results"));
    drop(requests);

    let (_, result, _) = run(
        vec![
            act("list_invoices", json!({})),
            answer("The amount of INV-1 is not yet known."),
            bare_answer("I could not find it."),
        ],
        AgentConfig::default(),
    );
    assert_eq!(result.answer, "I could not find it.", "the second such answer stands");
    assert!(!result.success);
}

#[test]
fn a_greedy_backend_is_not_asked_a_request_it_already_answered() {
    // A call with the format's placeholder for an argument, twice: each gets the focused call, and
    // the two focused requests are the same (no result in between).
    let copied = || {
        Reply::Text(
            json!({"thought": "t", "action": {"tool": "get_weather", "args": {"city": "<city>"}}})
                .to_string(),
        )
    };
    let copied_args = || Reply::Text(json!({"city": "<city>"}).to_string());
    let weather = || act("get_weather", json!({"city": "Oslo"}));
    let tools = || FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Oslo: 4°C, rain"))]);
    let sampled_script =
        vec![copied(), copied_args(), copied(), copied_args(), weather(), answer("Oslo: 4°C, rain")];
    let sampled = Harness::new(ScriptedModel::new(sampled_script), tools(), specs(), AgentConfig::default());
    let (sampled_result, _) = sampled.run("Weather in Oslo?");
    let requests = sampled.model.requests.borrow();
    assert_eq!(requests.len(), 6);
    assert_eq!(requests[1], requests[3], "the focused call is asked again, unchanged");
    let greedy_script = vec![copied(), copied_args(), copied(), weather(), answer("Oslo: 4°C, rain")];
    let greedy = Harness::new(ScriptedModel::greedy(greedy_script), tools(), specs(), AgentConfig::default());
    let (result, events) = greedy.run("Weather in Oslo?");
    assert_eq!(greedy.model.requests.borrow().len(), 5, "the same request is not sent again");
    assert_eq!((result.counts.model_calls, sampled_result.counts.model_calls), (5, 6));
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, sampled_result.answer, "the run ends as it did when asked again");
    assert_eq!(result.turns.len(), sampled_result.turns.len());
    let told = events.iter().any(
        |e| matches!(e, Event::Warning { message, .. } if message.contains("same request as at step 2")),
    );
    assert!(told, "{events:?}");
}

#[test]
fn a_greedy_backend_asked_for_the_answer_alone_again_is_asked_to_copy_the_results() {
    // SmolLM2 (recovery bench ref-typo, a9450b9) repeated the call that worked, got the focused
    // request, answered with a code no tool returned: asked alike again, a greedy model answers alike.
    let script = || {
        vec![
            act("get_weather", json!({"city": "Oslo"})),
            bare_answer("SUN-2018-365"),
            bare_answer("Oslo: 4°C, rain"),
        ]
    };
    let tools = || FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!("Oslo: 4°C, rain"))]);
    let greedy = Harness::new(ScriptedModel::greedy(script()), tools(), specs(), AgentConfig::default());
    let (result, _) = greedy.run("Weather in Oslo?");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Oslo: 4°C, rain");
    let requests = greedy.model.requests.borrow();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[1].messages[0].content.starts_with("Answer the user's question"),
        "the first focused request"
    );
    assert!(
        requests[2].messages[0]
            .content
            .starts_with("The last answer did not answer the user's question. Copy, word for word"),
        "{}",
        requests[2].messages[0].content
    );
    assert_eq!(requests[1].messages[1], requests[2].messages[1], "the same question and results");
    // A sampling backend is asked the same request again: it may answer otherwise.
    let sampled = Harness::new(ScriptedModel::new(script()), tools(), specs(), AgentConfig::default());
    sampled.run("Weather in Oslo?");
    let requests = sampled.model.requests.borrow();
    assert_eq!(requests[1], requests[2]);
}

#[test]
fn an_accepted_focused_answer_is_tidied_and_the_reply_kept() {
    let junk = "}\nINV-1 is $1,250.00.\n\nThis is a JSON object with the following structure:\n```json\n{";
    let (h, result, events) = run(
        vec![act("list_invoices", json!({})), answer("<response to the user>"), bare_answer(junk)],
        AgentConfig::default(),
    );
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "INV-1 is $1,250.00.");
    let last = result.turns.last().expect("the answer's turn");
    assert!(last.reply.as_deref().is_some_and(|r| r.contains("This is a JSON object")), "{last:?}");
    let told = events
        .iter()
        .any(|e| matches!(e, Event::Warning { message, .. } if message.starts_with("The model's answer was tidied")));
    assert!(told, "{events:?}");
    drop(h);

    // An answer the model gave in a whole step is its own text, left as written.
    let (_, result, _) = run(vec![act("list_invoices", json!({})), answer(junk)], AgentConfig::default());
    assert_eq!(result.answer, junk);
}

#[test]
fn an_answer_right_after_the_answer_appeared_must_state_its_value() {
    // SmolLM2, asked for the answer alone once its click showed "SKU: GH-311", answered with other
    // words of the results and reported a success (web bench follow-link at 8fb947f).
    let listing = "@e1 link 'Home'\n@e2 text 'Prices include VAT.'\n@e16 link 'Garden hose'";
    let opened = "Clicked (link \"Garden hose\", <a>). It opened this page:\npage \"Garden hose\"\n\
                  @e1 link 'Home'\n@e10 heading 'Garden hose'\n@e11 text 'SKU: GH-311'";
    let run = |first: &str| {
        let h = opening_click(
            listing,
            "@e16",
            opened,
            vec![bare_answer(first), bare_answer("GH-311"), answer("GH-311")],
        );
        h.run("Open the Garden hose's product page and answer with its SKU.").0
    };
    let result = run("The price list includes VAT, and the Garden hose has a page.");
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "GH-311");
    let refused = result.turns.iter().find(|t| t.outcome == Outcome::Failed).expect("a refused answer");
    assert!(refused.observation.contains("for the task (\"SKU: GH-311\")"), "{}", refused.observation);
    // An answer stating the value is taken as it is.
    let result = run("The SKU is GH-311.");
    assert_eq!(result.answer, "The SKU is GH-311.");
    assert!(result.turns.iter().all(|t| t.outcome != Outcome::Failed));
    // Every line that appeared counts, not only the first: the order's number under its parcels'.
    let opened = "Clicked (button \"Place order\", <button>). It opened this page:\npage \"Thank you\"\n\
                  @e1 link 'Home'\n@e5 text 'Order of 3 items, number of parcels: 2'\n@e6 text 'Order number: PO-5521'";
    let h = opening_click(
        "@e1 link 'Home'\n@e4 button 'Place order'",
        "@e4",
        opened,
        vec![bare_answer("PO-5521"), answer("PO-5521")],
    );
    let (result, _) = h.run("Place the order and answer with the order number.");
    assert_eq!(h.model.requests.borrow()[2].messages.len(), 2, "the answer is asked for alone");
    assert_eq!(result.answer, "PO-5521");
    assert!(result.turns.iter().all(|t| t.outcome != Outcome::Failed));
}
