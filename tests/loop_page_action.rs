//! A page action made again (`page_action.rs`): a call on a listed element whose result states
//! nothing the listing or the call did not, made again with the same result, gets the whole step
//! next, not the request for the answer alone; a call whose result states a value of its own, or a
//! read-only tool's, still gets it.

mod support;

use keel::engine::{AgentConfig, Role};
use keel::tools::ToolSpec;
use serde_json::{json, Value};
use support::*;

const PAGE: &str = "page \"Shop\"\n@e1 link \"Home\"\n@e2 button \"Place order\"\n@e3 textbox \"Code\"";

/// The system prompt of the focused request for the answer alone.
const FOCUSED: &str = "Answer the user's question using only the tool results below.";

/// A page's tools: `snapshot` lists the refs the others take; `read` is read-only.
fn page_specs() -> Vec<ToolSpec> {
    let on_ref = |name: &str, properties: Value| {
        ToolSpec::new(
            name,
            "Acts on the element with this ref.",
            json!({"type": "object", "properties": properties, "required": ["ref"]}),
        )
        .with_refs_from(["snapshot"])
    };
    let reference = json!({"type": "string"});
    vec![
        ToolSpec::new("snapshot", "Lists the page's elements with their refs.", json!({"type": "object"}))
            .read_only(),
        on_ref("click", json!({"ref": reference})),
        on_ref("type", json!({"ref": reference, "text": {"type": "string"}})),
        on_ref("read", json!({"ref": reference})).read_only(),
    ]
}

/// Runs snapshot, then `tool` with `args` twice (each answering `result`), then `last`; returns
/// the system prompt of the request after the second call.
fn next_prompt(tool: &str, args: Value, result: &str, last: Reply) -> String {
    let tools = FakeTools::new()
        .script("snapshot", vec![Behaviour::Ok(json!(PAGE))])
        .script(tool, vec![Behaviour::Ok(json!(result))]);
    let script = vec![act("snapshot", json!({})), act(tool, args.clone()), act(tool, args), last];
    let h = Harness::new(ScriptedModel::new(script), tools, page_specs(), AgentConfig::default());
    let (result, _) = h.run("Place the order and answer with the order number.");
    let requests = h.model.requests.borrow();
    assert!(requests.len() >= 4, "{}", result.answer);
    assert_eq!(requests[3].messages[0].role, Role::System);
    requests[3].messages[0].content.clone()
}

fn gave_up() -> Reply {
    answer("I could not find the order number.")
}

#[test]
fn a_click_made_again_that_only_says_it_clicked_gets_the_whole_step() {
    let prompt =
        next_prompt("click", json!({"ref": "@e2"}), "Clicked @e2 (button \"Place order\").", gave_up());
    assert!(!prompt.starts_with(FOCUSED), "asked for the answer alone");
    assert!(prompt.contains("Tools:"), "the whole step");
}

#[test]
fn an_address_a_navigation_went_to_and_the_elements_markup_are_no_values_of_the_result() {
    let navigated = "Clicked @e1 (link \"Home\", <a#nav-1.col-6>). The page is loading http://127.0.0.1:8080/index.html: call snapshot.";
    assert!(!next_prompt("click", json!({"ref": "@e1"}), navigated, gave_up()).starts_with(FOCUSED));
}

#[test]
fn what_the_call_itself_sent_is_no_value_of_the_result() {
    let typed = "Typed \"4417\" into @e3 (textbox \"Code\").";
    let prompt = next_prompt("type", json!({"ref": "@e3", "text": "4417"}), typed, gave_up());
    assert!(!prompt.starts_with(FOCUSED), "the model would answer 4417");
}

#[test]
fn a_click_made_again_whose_result_states_a_value_gets_the_request_for_the_answer_alone() {
    let placed = "Clicked @e2 (button \"Place order\"). Order ORD-7731 placed.";
    let bare = Reply::Text(json!({"final_answer": "ORD-7731"}).to_string());
    assert!(next_prompt("click", json!({"ref": "@e2"}), placed, bare).starts_with(FOCUSED));
}

#[test]
fn a_read_only_tool_made_again_gets_the_request_for_the_answer_alone() {
    // Its result is what it read, digits or not.
    let read = "@e3 (textbox \"Code\"): Shipped";
    let bare = Reply::Text(json!({"final_answer": "Shipped"}).to_string());
    assert!(next_prompt("read", json!({"ref": "@e3"}), read, bare).starts_with(FOCUSED));
}
