//! A page action made again (`page_action.rs`): a call on a listed element whose result states
//! nothing the listing did not, made again with the same result, gets the whole step next, not the
//! request for the answer alone; a call whose result states a value of its own still gets it.

mod support;

use keel::engine::{AgentConfig, Role};
use serde_json::json;
use support::*;

const PAGE: &str = "page \"Shop\"\n@e1 link \"Home\"\n@e2 button \"Place order\"";

/// The system prompt of the focused request for the answer alone.
const FOCUSED: &str = "Answer the user's question using only the tool results below.";

/// Runs snapshot, the click on @e2 twice (each answering `clicked`), then `last`.
fn run(clicked: &str, last: Reply) -> (Harness, keel::engine::RunResult) {
    let tools = FakeTools::new()
        .script("snapshot", vec![Behaviour::Ok(json!(PAGE))])
        .script("click", vec![Behaviour::Ok(json!(clicked))]);
    let script = vec![
        act("snapshot", json!({})),
        act("click", json!({"ref": "@e2"})),
        act("click", json!({"ref": "@e2"})),
        last,
    ];
    let h = Harness::new(ScriptedModel::new(script), tools, specs(), AgentConfig::default());
    let (result, _) = h.run("Place the order and answer with the order number.");
    (h, result)
}

#[test]
fn a_click_made_again_that_only_says_it_clicked_gets_the_whole_step() {
    let (h, result) =
        run("Clicked @e2 (button \"Place order\").", answer("I could not find the order number."));
    let requests = h.model.requests.borrow();
    assert!(requests.len() >= 4, "{}", result.answer);
    let next = &requests[3];
    assert_eq!(next.messages[0].role, Role::System);
    assert!(!next.messages[0].content.starts_with(FOCUSED), "asked for the answer alone");
    assert!(next.messages[0].content.contains("Tools:"), "the whole step");
}

#[test]
fn an_address_a_navigation_went_to_is_no_value_of_the_result() {
    let (h, _) = run(
        "Clicked @e1 (link \"Home\"). The page is loading http://127.0.0.1:8080/index.html: call snapshot.",
        answer("I could not find the order number."),
    );
    let requests = h.model.requests.borrow();
    assert!(!requests[3].messages[0].content.starts_with(FOCUSED));
}

#[test]
fn a_click_made_again_whose_result_states_a_value_gets_the_request_for_the_answer_alone() {
    let (h, result) = run(
        "Clicked @e2 (button \"Place order\"). Order ORD-7731 placed.",
        Reply::Text(json!({"final_answer": "ORD-7731"}).to_string()),
    );
    assert_eq!(result.answer, "ORD-7731");
    assert!(result.success);
    let requests = h.model.requests.borrow();
    assert!(requests[3].messages[0].content.starts_with(FOCUSED), "{}", requests[3].messages[0].content);
}
