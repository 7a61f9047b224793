//! A call that acts on an element another tool listed and returns only that it did: a page
//! action's acknowledgement ("Clicked @e18 (button "Save preferences")"), which states no value of
//! its own. Such a call made again with the same result does not mean the model has what it needs:
//! it is lost on the page. Asked for the answer alone then (`tool_turn.rs`, `progress`), Qwen gave
//! whatever the page had shown — "13" for an order number, the page's title for a SKU, a ref for a
//! code — in 6 of its 7 wrong successes on the web bench at e691201. The tool sits out and the
//! whole step follows instead. A call whose result states a value the listing did not (an order
//! number after "Place order", an invoice's total) still gets the request for the answer alone.

use super::facts::{seen_in, tokens};
use super::provenance::{producer_output, producers};
use super::run::RunState;

impl RunState<'_> {
    /// Whether `tool` acts on an id or a ref another tool gives and its `result` states no value
    /// (a token with a digit) that the producer's latest output does not hold; addresses
    /// (`http://…`, where a navigation went) are not values the task asks for.
    pub(crate) fn acknowledges_only(&self, tool: &str, result: &str) -> bool {
        let tools = &self.agent.tools;
        let Some(spec) = tools.get(tool) else { return false };
        if producers(tools, spec).is_empty() {
            return false;
        }
        let Some(listing) = producer_output(tools, &self.outputs, spec) else { return false };
        let listing = listing.to_lowercase();
        let words: Vec<&str> = result.split_whitespace().filter(|w| !w.contains("://")).collect();
        let text = words.join(" ");
        tokens(&text)
            .into_iter()
            .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
            .all(|t| seen_in(&listing, t))
    }
}
