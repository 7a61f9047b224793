//! Which listed element a step is offered, under constrained decoding: the refs of the listing
//! that came last (`navigate` lists the page it opens), those whose labels share the most words
//! with the task for a tool whose one required argument is the ref (`click`), and — after a
//! failure that names the values that fix it (a click on a covered element: the cover's buttons)
//! — those alone until a call of the tool works. On the web bench Qwen2.5-Coder-0.5B clicked the
//! first listed ref, `@e1 link "Home"`, on ten of thirteen tasks and left the page.

mod support;

use keel::engine::AgentConfig;
use keel::errors::RawFailure;
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

/// `snapshot` and `navigate` list; `click` takes a ref; `type` a ref and a text.
fn page_specs() -> Vec<ToolSpec> {
    let reference = json!({"type": "string", "pattern": "^@?e[0-9]+$"});
    vec![
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"}))
            .read_only(),
        ToolSpec::new(
            "navigate",
            "Opens this URL and lists its elements.",
            json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
        ),
        ToolSpec::new(
            "click",
            "Clicks the element with this ref.",
            json!({"type": "object", "properties": {"ref": reference}, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot", "navigate"]),
        ToolSpec::new(
            "type",
            "Types a text into the field with this ref.",
            json!({"type": "object", "properties": {"ref": reference, "text": {"type": "string"}},
                   "required": ["ref", "text"]}),
        )
        .with_refs_from(["snapshot", "navigate"]),
    ]
}

const CHECKOUT: &str = "page \"Checkout\"\n@e1 link \"Home\"\n@e2 link \"Order form\"\n\
                        @e3 textbox \"Order note\"\n@e4 button \"Place order\"\n@e5 button \"Accept all\"";

fn run(model: std::rc::Rc<ScriptedModel>, tools: std::rc::Rc<FakeTools>, task: &str) -> Harness {
    let h = Harness::new(model, tools, page_specs(), AgentConfig::default());
    h.run(task);
    h
}

#[test]
fn the_ref_is_narrowed_to_the_lines_the_task_names_most_then_the_next_most() {
    let h = run(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e6"})),
            act("click", json!({"ref": "@e4"})),
            answer("Done."),
        ]),
        FakeTools::new()
            .script(
                "snapshot",
                vec![Behaviour::Ok(json!(format!("{CHECKOUT}\n@e6 button \"Place order today\"")))],
            )
            .script("click", vec![Behaviour::Ok(json!("Clicked."))]),
        "Place the order today.",
    );
    // "Place order today" shares three words with the task, "Place order" two, "Order form" one.
    assert_eq!(refs_offered(&h.model, 1, "click"), Some(json!(["@e6"])));
    // Clicked (and the listing is the same): the next most.
    assert_eq!(refs_offered(&h.model, 2, "click"), Some(json!(["@e4"])));
    // Every line sharing two words or more tried: every listed ref.
    let all = json!(["@e1", "@e2", "@e3", "@e4", "@e5", "@e6"]);
    assert_eq!(refs_offered(&h.model, 3, "click"), Some(all.clone()));
    // `type` has a text to fill: the task's words say nothing of which field.
    assert_eq!(refs_offered(&h.model, 1, "type"), Some(all));
}

#[test]
fn a_task_naming_no_label_leaves_every_ref() {
    let h = run(
        ScriptedModel::new(vec![act("snapshot", json!({})), answer("Done.")]),
        FakeTools::new().script("snapshot", vec![Behaviour::Ok(json!(CHECKOUT))]),
        "Sign me up for the newsletter.",
    );
    assert_eq!(refs_offered(&h.model, 1, "click"), Some(json!(["@e1", "@e2", "@e3", "@e4", "@e5"])));
}

#[test]
fn the_listing_that_came_last_gives_the_refs() {
    let other = "page \"Price list\"\n@e1 link \"Home\"\n@e7 link \"Tea kettle\"\n@e8 link \"Desk lamp\"";
    let h = run(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("navigate", json!({"url": "http://shop.test/prices"})),
            answer("Done."),
        ]),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!(CHECKOUT))])
            .script("navigate", vec![Behaviour::Ok(json!(format!("Opened.\n{other}")))]),
        "Open a product page.",
    );
    assert_eq!(refs_offered(&h.model, 2, "click"), Some(json!(["@e1", "@e7", "@e8"])));
}

#[test]
fn a_failure_naming_the_values_that_fix_it_holds_the_ref_to_them_until_a_call_works() {
    let covered = || {
        let mut raw = RawFailure::coded("NOT_INTERACTABLE", "@e4 is covered by a dialog.");
        raw.hints.details = json!({"field": "ref", "options": ["@e5"], "reason": "covered"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        raw
    };
    let h = run(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e4"})),
            act("click", json!({"ref": "@e5"})),
            act("click", json!({"ref": "@e4"})),
            answer("Order placed."),
        ]),
        FakeTools::new().script("snapshot", vec![Behaviour::Ok(json!(CHECKOUT))]).script(
            "click",
            vec![
                Behaviour::Fail(covered()),
                Behaviour::Ok(json!("Clicked Accept all.")),
                Behaviour::Ok(json!("Order placed.")),
            ],
        ),
        "Place the order.",
    );
    assert_eq!(refs_offered(&h.model, 2, "click"), Some(json!(["@e5"])), "the cover's button alone");
    // The cover closed: the button the task names again.
    assert_eq!(refs_offered(&h.model, 3, "click"), Some(json!(["@e4"])));
}

#[test]
fn a_named_ref_that_failed_waits_for_a_new_listing_and_one_that_worked_is_not_first_again() {
    let disabled = || RawFailure::coded("NOT_INTERACTABLE", "@e4 (button \"Place order\") is disabled.");
    let enabled =
        CHECKOUT.replace("@e5 button \"Accept all\"", "@e5 checkbox \"Accept the terms\" [checked]");
    let h = run(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e4"})),
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e4"})),
            act("snapshot", json!({})),
            answer("Order placed."),
        ]),
        FakeTools::new()
            .script(
                "snapshot",
                vec![
                    Behaviour::Ok(json!(CHECKOUT)),
                    Behaviour::Ok(json!(enabled)),
                    Behaviour::Ok(json!(format!("{enabled}\n@e9 text \"Thank you\""))),
                ],
            )
            .script("click", vec![Behaviour::Fail(disabled()), Behaviour::Ok(json!("Clicked."))]),
        "Place the order.",
    );
    let all = json!(["@e1", "@e2", "@e3", "@e4", "@e5"]);
    assert_eq!(refs_offered(&h.model, 1, "click"), Some(json!(["@e4"])));
    // Failed on this listing: no other line shares two words, so every ref.
    assert_eq!(refs_offered(&h.model, 2, "click"), Some(all.clone()));
    // A new listing: "Place order" first again.
    assert_eq!(refs_offered(&h.model, 3, "click"), Some(json!(["@e4"])));
    // It worked; listed again with the same label, it is not offered first (no second order).
    assert_eq!(refs_offered(&h.model, 5, "click"), Some(json!(["@e1", "@e2", "@e3", "@e4", "@e5", "@e9"])));
}

#[test]
fn a_held_fix_the_listing_no_longer_has_is_left_and_plans_name_the_lister_that_reads() {
    let covered = || {
        let mut raw = RawFailure::coded("NOT_INTERACTABLE", "@e4 is covered by a dialog.");
        raw.hints.details =
            json!({"field": "ref", "options": ["@e5"]}).as_object().cloned().unwrap_or_default();
        raw
    };
    let closed = CHECKOUT.replace("\n@e5 button \"Accept all\"", "");
    let h = run(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e4"})),
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e99"})),
            answer("Done."),
        ]),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!(CHECKOUT)), Behaviour::Ok(json!(closed))])
            .script("click", vec![Behaviour::Fail(covered())]),
        "Place the order.",
    );
    assert_eq!(refs_offered(&h.model, 2, "click"), Some(json!(["@e5"])));
    // The cover went away another way: its button is not listed, the named button is offered.
    assert_eq!(refs_offered(&h.model, 3, "click"), Some(json!(["@e4"])));
    // The system prompt and a refusal's plan name `snapshot` for fresh refs, not `navigate`.
    let requests = h.model.requests.borrow();
    assert!(requests[0].messages[0].content.contains("(ids come from: snapshot)"));
    let refusal = &requests[4].messages.last().expect("a message").content;
    assert!(refusal.contains("UNSEEN_ID") && refusal.contains("`snapshot`"), "{refusal}");
    assert!(!refusal.contains("`navigate`"), "{refusal}");
}

#[test]
fn a_click_whose_result_lists_the_page_it_opened_gives_the_next_refs_and_an_acknowledgement_does_not() {
    let order = "page \"Order form\"\n@e1 link \"Home\"\n@e7 textbox \"Name\"\n@e8 button \"Send order\"";
    let h = run(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e2"})),
            act("type", json!({"ref": "@e7", "text": "Ada"})),
            act("click", json!({"ref": "@e8"})),
            answer("Sent."),
        ]),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!(CHECKOUT))])
            .script(
                "click",
                vec![
                    Behaviour::Lists(json!(format!(
                        "Clicked link \"Order form\". It opened this page:\n{order}"
                    ))),
                    Behaviour::Ok(json!("Clicked @e8.")),
                ],
            )
            .script("type", vec![Behaviour::Ok(json!("Typed."))]),
        "Send an order for Ada.",
    );
    let checkout = json!(["@e1", "@e2", "@e3", "@e4", "@e5"]);
    assert_eq!(refs_offered(&h.model, 1, "click"), Some(checkout));
    // The page the click opened, listed in its result: its refs, not the checkout's.
    let order_refs = json!(["@e1", "@e7", "@e8"]);
    assert_eq!(refs_offered(&h.model, 2, "type"), Some(order_refs.clone()));
    assert_eq!(refs_offered(&h.model, 2, "click"), Some(json!(["@e8"])), "\"Send order\" shares two words");
    // A click that only acknowledges lists nothing: the opened page's listing still counts.
    assert_eq!(refs_offered(&h.model, 4, "type"), Some(order_refs));
}
