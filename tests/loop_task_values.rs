//! What the task states, kept (issue 9): a call contradicting a time or a count of the task is
//! refused once before it runs (`CONTRADICTS_TASK`); a grounded answer that is not what the task
//! asks for — one amount where it asks for several combined, another unit — gets an
//! `ANSWER_MISMATCH` envelope and one more step; a refused 12-hour time or number in words gets
//! its other form in the plan.

mod support;

use keel::engine::{AgentConfig, Outcome};
use keel::errors::RawFailure;
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

fn booking() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        "book_table",
        "Books a restaurant table.",
        json!({"type": "object", "properties": {
            "restaurant": {"type": "string"},
            "people": {"type": "integer", "minimum": 1},
            "time": {"type": "string"}}, "required": ["restaurant", "people", "time"]}),
    )]
}

const BOOK: &str = "Book a table at Luigi's for four people at 19:30 and tell me the booking reference.";

fn booked() -> std::rc::Rc<FakeTools> {
    FakeTools::new().script(
        "book_table",
        vec![
            Behaviour::Ok(json!("Booked. Reference: BT-2093.")),
            Behaviour::Ok(json!("Booked. Reference: BT-1111.")),
        ],
    )
}

#[test]
fn a_call_contradicting_the_tasks_count_and_time_is_refused_before_it_runs() {
    let wrong = json!({"restaurant": "Luigi's", "people": 1, "time": "20:30"});
    let right = json!({"restaurant": "Luigi's", "people": 4, "time": "19:30"});
    let h = Harness::new(
        ScriptedModel::new([
            act("book_table", wrong),
            act("book_table", right),
            answer("Reference BT-2093."),
        ]),
        booked(),
        booking(),
        AgentConfig::default(),
    );
    let (result, _) = h.run(BOOK);
    assert!(result.success, "{}", result.answer);
    assert_eq!(h.tools.calls_to("book_table"), 1, "the contradicting call never ran");
    let refused = &result.turns[0];
    assert_eq!(refused.outcome, Outcome::Failed);
    let seen = &refused.observation;
    assert!(seen.contains("CONTRADICTS_TASK"), "{seen}");
    assert!(seen.contains("`people` is 1 but the task says 'four people'"), "{seen}");
    assert!(seen.contains("`time` is \"20:30\" but the task says '19:30'"), "{seen}");
    assert!(seen.contains("`people`: 4 and `time`: \"19:30\""), "the plan names the task's values: {seen}");
    let requests = h.model.requests.borrow();
    let schema = requests[1].schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""people":{"minimum":1,"enum":[4]}"#), "held to the task's count: {schema}");
    assert!(schema.contains(r#""time":{"enum":["19:30"]}"#), "held to the task's time: {schema}");
}

#[test]
fn the_same_call_sent_again_runs_and_the_switch_turns_the_check_off() {
    let wrong = json!({"restaurant": "Luigi's", "people": 1, "time": "20:30"});
    let h = Harness::new(
        ScriptedModel::new([
            act("book_table", wrong.clone()),
            act("book_table", wrong.clone()),
            answer("BT-2093"),
        ]),
        booked(),
        booking(),
        AgentConfig::default(),
    );
    let (result, events) = h.run(BOOK);
    assert_eq!(h.tools.calls_to("book_table"), 1, "sent again unchanged, the call runs");
    assert!(!result.success, "a booking against the task's count and time is no success: {}", result.answer);
    let warned = events.iter().any(|e| {
        matches!(e, keel::engine::Event::Warning { message, .. }
            if message.contains("`book_table` ran with `people` 1 where the task says 'four people'"))
    });
    assert!(warned, "{events:?}");

    let off = AgentConfig { task_values: false, ..AgentConfig::default() };
    let h = Harness::new(
        ScriptedModel::new([act("book_table", wrong), answer("BT-2093")]),
        booked(),
        booking(),
        off,
    );
    let (result, _) = h.run(BOOK);
    assert_eq!(h.tools.calls_to("book_table"), 1);
    assert_eq!(result.turns[0].outcome, Outcome::Ok, "taskValues: false lets it through");
}

fn invoices() -> Vec<ToolSpec> {
    vec![ToolSpec::new("list_unpaid_invoices", "Lists unpaid invoices.", json!({"type": "object"}))]
}

fn listed() -> std::rc::Rc<FakeTools> {
    FakeTools::new().script(
        "list_unpaid_invoices",
        vec![Behaviour::Ok(json!("INV-2025-014: $1,250.00\nINV-2025-016: $980.00"))],
    )
}

const TOGETHER: &str = "How much do my two unpaid invoices come to together?";

/// The invoice list, then these answers, to [`TOGETHER`], with the default settings or `config`.
fn answered(answers: &[&str], config: AgentConfig) -> keel::engine::RunResult {
    let mut script = vec![act("list_unpaid_invoices", json!({}))];
    script.extend(answers.iter().map(|a| answer(a)));
    Harness::new(ScriptedModel::new(script), listed(), invoices(), config).run(TOGETHER).0
}

#[test]
fn one_amount_where_the_task_asks_for_them_combined_gets_the_sum_and_one_more_step() {
    let result = answered(&["$1,250.00", "$2,230.00"], AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "$2,230.00");
    let seen = &result.turns[1].observation;
    assert!(seen.contains("ANSWER_MISMATCH"), "{seen}");
    assert!(seen.contains("their sum is $2,230.00"), "{seen}");
}

#[test]
fn an_answer_persisting_with_one_amount_ends_the_run_unsuccessful_saying_so() {
    let result = answered(&["$1,250.00", "It is $1,250.00."], AgentConfig::default());
    assert!(!result.success);
    assert!(
        result.answer.starts_with("I could not complete the task: the answer gave $1,250.00"),
        "{}",
        result.answer
    );
    assert!(result.answer.contains("where the task asks for them combined"), "{}", result.answer);

    let off = AgentConfig { grounding: false, ..AgentConfig::default() };
    assert!(answered(&["$1,250.00"], off).success, "grounding: false takes any answer");
}

/// A run asked for °F whose model calls `get_weather` in °C (31°C), answers that, calls it in °F
/// (88°F), then replies with `then`.
fn in_fahrenheit(then: Vec<Reply>) -> (Harness, keel::engine::RunResult) {
    let weather = FakeTools::new().script(
        "get_weather",
        vec![Behaviour::Ok(json!("Austin: 31°C, sunny.")), Behaviour::Ok(json!("Austin: 88°F, sunny."))],
    );
    let mut script = vec![
        act("get_weather", json!({"city": "Austin", "unit": "c"})),
        answer("31°C"),
        act("get_weather", json!({"city": "Austin", "unit": "f"})),
    ];
    script.extend(then);
    let h = Harness::new(ScriptedModel::new(script), weather, specs(), AgentConfig::default());
    let (result, _) = h.run("What's the temperature in Austin in Fahrenheit?");
    (h, result)
}

#[test]
fn another_unit_than_the_task_asks_for_is_refused_once() {
    let (h, result) = in_fahrenheit(vec![answer("88°F")]);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "88°F");
    let seen = &result.turns[1].observation;
    assert!(seen.contains("Your answer gives °C, but the task asks for °F."), "{seen}");
    assert!(
        seen.contains(
            "To get °F, call `get_weather` again with `unit` set to another of its values than \"c\": \"f\"."
        ),
        "the call that gave °C and its other options: {seen}"
    );
    let requests = h.model.requests.borrow();
    let focused = &requests[2];
    assert!(
        focused.messages[0].content.starts_with("Write the arguments of one call"),
        "the call is asked for alone"
    );
    let schema = focused.schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""unit":{"enum":["f"]}"#), "held to its other value: {schema}");
}

#[test]
fn the_result_in_the_other_unit_is_left_out_of_the_focused_answer_once_the_asked_one_came() {
    let (h, result) = in_fahrenheit(vec![
        answer("<response to the user>"),
        Reply::Text(json!({ "final_answer": "Austin: 88°F, sunny." }).to_string()),
    ]);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "Austin: 88°F, sunny.");
    let requests = h.model.requests.borrow();
    let focused = &requests[4].messages[1].content;
    assert!(
        focused.starts_with("Question: What's the temperature in Austin"),
        "the focused answer: {focused}"
    );
    assert!(focused.contains("- get_weather: Austin: 88°F, sunny."), "{focused}");
    assert!(!focused.contains("31°C"), "the result in °C is out of date: {focused}");
}

#[test]
fn an_ungrounded_sum_gets_the_focused_answer_quoting_the_sum() {
    let h = Harness::new(
        ScriptedModel::new([
            act("list_unpaid_invoices", json!({})),
            answer("$1,250.00 + $980.00 = $2,238.00"),
            Reply::Text(json!({"final_answer": "$2,230.00"}).to_string()),
        ]),
        listed(),
        invoices(),
        AgentConfig::default(),
    );
    let (result, _) = h.run(TOGETHER);
    assert!(result.success, "{}", result.answer);
    assert_eq!(result.answer, "$2,230.00");
    let requests = h.model.requests.borrow();
    let focused = &requests[2].messages[1].content;
    assert!(
        focused.contains("Computed from them: `list_unpaid_invoices` returned $1,250.00 and $980.00: their sum is $2,230.00."),
        "{focused}"
    );
}

#[test]
fn a_refused_12_hour_time_gets_its_24_hour_form_in_the_plan() {
    let alarm = vec![ToolSpec::new(
        "set_alarm",
        "Sets an alarm.",
        json!({"type": "object", "properties": {"time": {"type": "string"}, "label": {"type": "string"}}}),
    )];
    let tools = FakeTools::new().script(
        "set_alarm",
        vec![
            Behaviour::Fail(RawFailure::coded(
                "INVALID_ARGS",
                "time '7:30 PM' is not in HH:MM 24-hour format.",
            )),
            Behaviour::Ok(json!("Alarm set for 19:30. Id: AL-305.")),
        ],
    );
    let h = Harness::new(
        ScriptedModel::new([
            act("set_alarm", json!({"time": "7:30 PM", "label": "gym"})),
            act("set_alarm", json!({"time": "19:30", "label": "gym"})),
            answer("AL-305"),
        ]),
        tools,
        alarm,
        AgentConfig::default(),
    );
    let (result, _) = h.run("Set an alarm for 7:30 pm called 'gym' and tell me the alarm id.");
    assert!(result.success, "{}", result.answer);
    let seen = &result.turns[0].observation;
    assert!(
        seen.contains("Call `set_alarm` again with `time`: \"19:30\" ('7:30 PM' on the 24-hour clock)."),
        "{seen}"
    );
    // Under constrained decoding the refused form cannot be sent again, until a call works.
    let requests = h.model.requests.borrow();
    let narrowed = |n: usize| {
        requests[n].schema.as_ref().expect("constrained").to_string().contains(r#""enum":["19:30"]"#)
    };
    assert!(narrowed(1), "{:?}", requests[1].schema);
    assert!(!narrowed(2), "the call worked: the narrowing is gone");
}

#[test]
fn a_wrong_sum_gets_the_sum_in_its_plan() {
    // Qwen answered "2,238.00" for $1,250.00 + $980.00 (recovery bench arithmetic-grounded, 9142902).
    let result = answered(&["$2,238.00", "$2,230.00"], AgentConfig::default());
    assert!(result.success, "{}", result.answer);
    let seen = &result.turns[1].observation;
    assert!(seen.contains("UNGROUNDED_ANSWER"), "{seen}");
    assert!(
        seen.contains("`list_unpaid_invoices` returned $1,250.00 and $980.00: their sum is $2,230.00."),
        "{seen}"
    );
}

fn converter() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        "convert_currency",
        "Converts an amount from one currency to another at today's rate.",
        json!({"type": "object", "properties": {
            "amount": {"type": "number", "description": "the amount to convert"},
            "from": {"type": "string"}, "to": {"type": "string"}}}),
    )]
}

/// "Convert 250 USD to EUR." converted, then "And to GBP?" calling with `wrong`, then right.
fn follow_up(wrong: serde_json::Value) -> (Harness, keel::engine::RunResult) {
    let h = Harness::new(
        ScriptedModel::new([
            act("convert_currency", json!({"amount": 250, "from": "USD", "to": "EUR"})),
            answer("250 USD = 230.00 EUR"),
            act("convert_currency", wrong),
            act("convert_currency", json!({"amount": 250, "from": "USD", "to": "GBP"})),
            answer("250 USD = 197.50 GBP"),
        ]),
        FakeTools::new().script(
            "convert_currency",
            vec![Behaviour::Ok(json!("250 USD = 230.00 EUR")), Behaviour::Ok(json!("250 USD = 197.50 GBP"))],
        ),
        converter(),
        AgentConfig::default(),
    );
    let in_chat = |id: &str| keel::engine::RunOptions {
        session: "chat".into(),
        run_id: Some(id.into()),
        ..Default::default()
    };
    assert!(h.run_with("Convert 250 USD to EUR.", in_chat("r1")).0.success);
    let (result, _) = h.run_with("And to GBP?", in_chat("r2"));
    (h, result)
}

#[test]
fn a_follow_ups_number_from_nowhere_is_refused_naming_the_one_the_conversation_states() {
    let (h, result) = follow_up(json!({"amount": 1, "from": "USD", "to": "GBP"}));
    assert!(result.success, "{}", result.answer);
    assert_eq!(h.tools.calls_to("convert_currency"), 2, "the call with `amount: 1` never ran");
    let seen = &result.turns[0].observation;
    assert!(seen.contains("CONTRADICTS_TASK"), "{seen}");
    assert!(seen.contains("`amount` is 1 but the task says '250'"), "{seen}");
    assert!(seen.contains("`amount`: 250"), "the plan names the conversation's number: {seen}");
    let requests = h.model.requests.borrow();
    let schema = requests[3].schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""enum":[250]"#), "held to the one number stated: {schema}");
}

#[test]
fn a_failures_envelope_does_not_make_a_number_seen() {
    // An envelope's plan numbers its steps: "1" is in every one of them.
    let h = Harness::new(
        ScriptedModel::new([
            act("convert_currency", json!({"amount": 250, "from": "usd", "to": "eur"})),
            act("convert_currency", json!({"amount": 1, "from": "USD", "to": "EUR"})),
            act("convert_currency", json!({"amount": 250, "from": "USD", "to": "EUR"})),
            answer("250 USD = 230.00 EUR"),
        ]),
        FakeTools::new().script(
            "convert_currency",
            vec![
                Behaviour::Fail(RawFailure::coded("INVALID_ARGS", "`from` must be an upper-case ISO code.")),
                Behaviour::Ok(json!("250 USD = 230.00 EUR")),
            ],
        ),
        converter(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("Convert 250 USD to EUR.");
    assert!(result.success, "{}", result.answer);
    let seen = &result.turns[1].observation;
    assert!(seen.contains("`amount` is 1 but the task says '250'"), "{seen}");
}

#[test]
fn an_older_listed_item_for_the_most_recent_is_refused_and_sent_again_ends_unsuccessful() {
    let tools = || {
        FakeTools::new()
            .script("list_orders", vec![Behaviour::Ok(json!("ORD-5521 (2025-09-02), ORD-5310 (2025-08-14)"))])
            .script("get_order", vec![Behaviour::Ok(json!("ORD-5310: 1 item, total $18.00, delivered"))])
    };
    let older = json!({"order_id": "ORD-5310"});
    let task = "What is the total of my most recent order?";
    let h = Harness::new(
        ScriptedModel::new([
            act("list_orders", json!({})),
            act("get_order", older.clone()),
            answer("$18.00"),
        ]),
        tools(),
        order_tools(),
        AgentConfig::default(),
    );
    let (result, _) = h.run(task);
    let seen = &result.turns[1].observation;
    assert_eq!(h.tools.calls_to("get_order"), 0, "refused before it ran");
    assert!(seen.contains("`order_id` is \"ORD-5310\" but the task says 'most recent' (ORD-5521 is dated 2025-09-02, ORD-5310 2025-08-14)"), "{seen}");
    assert!(seen.contains("`order_id`: \"ORD-5521\""), "{seen}");
    let requests = h.model.requests.borrow();
    let schema = requests[2].schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""enum":["ORD-5521"]"#), "the argument is held to the latest: {schema}");
    drop(requests);

    let h = Harness::new(
        ScriptedModel::new([
            act("list_orders", json!({})),
            act("get_order", older.clone()),
            act("get_order", older),
            answer("$18.00"),
        ]),
        tools(),
        order_tools(),
        AgentConfig::default(),
    );
    let (result, _) = h.run(task);
    assert_eq!(h.tools.calls_to("get_order"), 1, "sent again unchanged, it runs");
    assert!(!result.success, "the older order's total is no success: {}", result.answer);
}

#[test]
fn an_answer_after_a_refused_contradicting_call_is_judged_without_it() {
    let h = Harness::new(
        ScriptedModel::new([
            act("list_orders", json!({})),
            act("get_order", json!({"order_id": "ORD-5521"})),
            act("get_order", json!({"order_id": "ORD-5310"})),
            act("list_orders", json!({})),
            answer("Your most recent order, ORD-5521, comes to $42.50."),
        ]),
        FakeTools::new()
            .script(
                "list_orders",
                vec![Behaviour::Ok(json!("ORD-5521 (2025-09-02), ORD-5310 (2025-08-14)")); 2],
            )
            .script("get_order", vec![Behaviour::Ok(json!("ORD-5521: 3 items, total $42.50, shipped"))]),
        order_tools(),
        AgentConfig::default(),
    );
    let (result, _) = h.run("What is the total of my most recent order?");
    assert_eq!(result.turns[2].outcome, Outcome::Failed, "the older order was refused");
    assert_eq!(result.answer, "Your most recent order, ORD-5521, comes to $42.50.");
    assert!(result.success, "the refused call never ran: the answer from the latest stands");
}

#[test]
fn a_follow_ups_number_sent_in_another_unit_than_asked_is_refused() {
    let (_, result) = follow_up(json!({"amount": 250, "from": "EUR", "to": "GBP"}));
    assert!(result.success, "{}", result.answer);
    let seen = &result.turns[0].observation;
    assert!(seen.contains("`from` is \"EUR\" but the task says '250 USD'"), "{seen}");
    assert!(seen.contains("`from`: \"USD\""), "{seen}");
}

#[test]
fn a_follow_ups_conversion_sent_the_wrong_way_is_refused_at_both_codes() {
    // SmolLM2 converted the 230 of "250 USD = 230.00 EUR" as pounds, to dollars, and answered
    // "230 GBP = 291.14 USD" with `success: true` (recovery bench follow-up-amount, d0b18de).
    let (h, result) = follow_up(json!({"amount": 230, "from": "GBP", "to": "USD"}));
    assert!(result.success, "{}", result.answer);
    assert_eq!(h.tools.calls_to("convert_currency"), 2, "the call sent the wrong way never ran");
    let seen = &result.turns[0].observation;
    assert!(seen.contains("`to` is \"USD\" but the task says 'to GBP'"), "{seen}");
    assert!(seen.contains("`from` is \"GBP\" but the task says '230.00 EUR'"), "{seen}");
    let requests = h.model.requests.borrow();
    let schema = requests[3].schema.as_ref().expect("constrained").to_string();
    assert!(schema.contains(r#""enum":["GBP"]"#), "the target held to the one the task names: {schema}");
}
