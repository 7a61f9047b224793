//! `refKinds`: a tool that acts on some kinds of listed thing (`type` on text fields) is offered
//! only the refs on the listing's lines that name those kinds, and sits out a step whose latest
//! listing names none. Both models of the web bench typed into rows, links and headings (INVALID_ARGS
//! "is not a text field") again and again.

mod support;

use keel::engine::AgentConfig;
use keel::errors::RawFailure;
use keel::tools::{ToolSet, ToolSpec};
use serde_json::json;
use support::*;

/// `snapshot` lists; `click` takes any listed ref; `type` only a text field's.
fn page_specs() -> Vec<ToolSpec> {
    let on_ref = |name: &str| {
        let properties =
            json!({"ref": {"type": "string", "pattern": "^@?e[0-9]+$"}, "text": {"type": "string"}});
        ToolSpec::new(
            name,
            "Acts on the element with this ref.",
            json!({"type": "object", "properties": properties, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot"])
    };
    vec![
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"}))
            .read_only(),
        on_ref("click"),
        on_ref("type").with_ref_kinds(["textbox", "searchbox"]),
    ]
}

#[test]
fn a_tool_with_ref_kinds_is_offered_only_the_refs_of_its_kinds() {
    let page = "page \"Shop\"\n@e1 link \"Textbox help\"\n@e2 row \"Blue mug | €8.50\"\n@e3 textbox \"Search \\\"mugs\\\"\"\n  @e4 searchbox \"Find\"";
    let h = Harness::new(
        ScriptedModel::new(vec![act("snapshot", json!({})), answer("Blue mug: €8.50.")]),
        FakeTools::new().script("snapshot", vec![Behaviour::Ok(json!(page))]),
        page_specs(),
        AgentConfig::default(),
    );
    // A task naming no listed label (one that does narrows `click` further: `loop_task_named.rs`).
    h.run("What is the price of the cheapest item?");
    // `type`: the text field and the search box; a kind named inside a label does not count.
    assert_eq!(refs_offered(&h.model, 1, "type"), Some(json!(["@e3", "@e4"])));
    // `click`: every listed ref.
    assert_eq!(refs_offered(&h.model, 1, "click"), Some(json!(["@e1", "@e2", "@e3", "@e4"])));
}

#[test]
fn a_tool_with_ref_kinds_sits_out_while_the_listing_names_none() {
    let prices = "page \"Price list\"\n@e1 link \"Home\"\n@e2 row \"Blue mug | €8.50\"";
    let form = "page \"Order form\"\n@e5 textbox \"Name\"\n@e6 button \"Send\"";
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("click", json!({"ref": "@e1"})),
            act("snapshot", json!({})),
            answer("Done."),
        ]),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!(prices)), Behaviour::Ok(json!(form))])
            .script("click", vec![Behaviour::Ok(json!("Clicked @e1 (link \"Home\")."))]),
        page_specs(),
        AgentConfig::default(),
    );
    h.run("Open the order form.");
    assert_eq!(refs_offered(&h.model, 1, "type"), None, "no text field is listed: `type` sits out");
    assert_eq!(refs_offered(&h.model, 1, "click"), Some(json!(["@e1", "@e2"])));
    // The next listing has one: `type` is back, narrowed to it.
    assert_eq!(refs_offered(&h.model, 3, "type"), Some(json!(["@e5"])));
}

#[test]
fn ref_kinds_without_refs_from_or_not_one_word_fail_the_agent() {
    let spec = |kinds: &[&str], refs_from: bool| {
        let spec = ToolSpec::new(
            "type",
            "Types.",
            json!({"type": "object", "properties": {"ref": {"type": "string"}}}),
        )
        .with_ref_kinds(kinds.iter().copied());
        let spec = if refs_from { spec.with_refs_from(["snapshot"]) } else { spec };
        vec![ToolSpec::new("snapshot", "Lists.", json!({"type": "object"})).read_only(), spec]
    };
    let error = ToolSet::new(spec(&["textbox"], false)).expect_err("no refsFrom").to_string();
    assert!(error.contains("tool `type`: refKinds needs refsFrom"), "{error}");
    let error = ToolSet::new(spec(&["text field"], true)).expect_err("two words").to_string();
    assert!(error.contains(r#"refKinds has "text field""#), "{error}");
    assert!(ToolSet::new(spec(&["textbox"], true)).is_ok());
}

#[test]
fn a_held_step_whose_tools_all_sit_out_offers_the_tool_that_lists_their_refs() {
    // A model that ignores the schema types into a row; the failed call waits for its fix, but the
    // listing names no text field, so `type` sits out: the held step offers `snapshot`, not no tool.
    let prices = "page \"Price list\"\n@e1 link \"Home\"\n@e2 row \"Blue mug | €8.50\"";
    let mut not_a_field =
        RawFailure::coded("INVALID_ARGS", "@e2 (row \"Blue mug | €8.50\") is not a text field.");
    // Its plan names `type` alone (a tool's own `availableActions`).
    not_a_field.hints.available_actions = Some(vec!["type".to_string()]);
    let h = Harness::new(
        ScriptedModel::new(vec![
            act("snapshot", json!({})),
            act("type", json!({"ref": "@e2", "text": "mug"})),
            act("snapshot", json!({})),
            answer("Blue mug: €8.50."),
        ]),
        FakeTools::new()
            .script("snapshot", vec![Behaviour::Ok(json!(prices)), Behaviour::Ok(json!(prices))])
            .script("type", vec![Behaviour::Fail(not_a_field)]),
        page_specs(),
        AgentConfig::default(),
    );
    h.run("What does the blue mug cost?");
    let (_, offered) = offered_tools(&h.model, 2);
    assert_eq!(offered, ["snapshot"], "the held step offers the listing tool");
}
