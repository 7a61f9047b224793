//! A call that acts on an element another tool listed and returns only that it did: a page
//! action's acknowledgement ("Clicked @e18 (button "Save preferences")"), which states no value of
//! its own. Such a call made again with the same result does not mean the model has what it needs:
//! it is lost on the page. Asked for the answer alone then (`tool_turn.rs`, `progress`), Qwen gave
//! whatever the page had shown — "13" for an order number, the page's title for a SKU, a ref for a
//! code — in 6 of its 7 wrong successes on the web bench at e691201. The tool sits out and the
//! whole step follows instead. A call whose result states a value the listing did not (an order
//! number after "Place order", an invoice's total) still gets the request for the answer alone,
//! and so does a tool declared read-only, whose result is what it reads.

use serde_json::Value;

use super::facts::{quotes, seen_in};
use super::grounding::own_values;
use super::named_line::{asked_words, words_shared};
use super::provenance::producer_output;
use super::run::RunState;
use crate::tools::ToolSpec;

impl RunState<'_> {
    /// Whether `tool`, not declared read-only, acts on an id or a ref another tool gives and its
    /// `result` states no value (a token with a digit) that neither the latest listing of its producers
    /// nor the call's own `args` hold. Addresses (`http://…`, where a navigation went) and markup
    /// (`<button#add-2.col-6>`, how a page names its element) are not values the task asks for.
    pub(crate) fn acknowledges_only(&self, tool: &str, args: &Value, result: &str) -> bool {
        let tools = &self.agent.tools;
        let Some(spec) = tools.get(tool) else { return false };
        if spec.read_only {
            return false;
        }
        // No producer, or none has run: nothing was listed to act on.
        let Some((_, listing)) = producer_output(tools, &self.outputs, spec) else { return false };
        let known = format!("{}\n{}", listing.to_lowercase(), args.to_string().to_lowercase());
        let words: Vec<&str> =
            result.split_whitespace().filter(|w| !w.contains("://")).map(without_markup).collect();
        let text = words.join(" ");
        let nothing_new = own_values(&text, &known).next().is_none();
        nothing_new
    }

    /// Whether `spec`'s call with `args`, which acts on a listed element, returned a line that
    /// states a value neither the latest listing nor `args` hold and shares [`ANSWER_WORDS`] words
    /// or more with the task (its quoted text, where it has some): the answer the task asks for
    /// appeared ("Place the order and answer with the order number" and `text "Order placed.
    /// Order number: PO-5521"` after the click). Then the next call asks for the answer alone
    /// (`answer_after_result.rs`). On the web bench Qwen, shown the order number, the revealed
    /// code and the opened question's answer, clicked on until its step budget ran out.
    pub(crate) fn answer_appeared(&self, spec: &ToolSpec, args: &Value, result: &str) -> bool {
        let tools = &self.agent.tools;
        let Some((_, listing)) = producer_output(tools, &self.outputs, spec) else { return false };
        let known = format!("{}\n{}", listing.to_lowercase(), args.to_string().to_lowercase());
        let asked = asked_words(&self.task);
        let task = self.task.to_lowercase();
        // A listed line whose number changed ("Desk lamp (prices v2)" for "… v1") is no answer.
        let listed: Vec<String> = listing.lines().map(|line| skeleton(&label(line))).collect();
        result.lines().any(|line| {
            let text = label(line);
            words_shared(&asked, &text) >= ANSWER_WORDS
                && own_values(&text, &known).any(|value| !seen_in(&task, value))
                && !listed.contains(&skeleton(&text))
        })
    }
}

/// A line's quoted text, where it has some (a listing's label), else the line.
fn label(line: &str) -> String {
    let quoted = quotes(line);
    if quoted.is_empty() {
        line.to_string()
    } else {
        quoted.join(" ")
    }
}

/// `text` lowercased without its tokens that hold a digit: what stays of a line whose values change.
fn skeleton(text: &str) -> String {
    text.to_lowercase()
        .split_whitespace()
        .map(|word| if word.chars().any(|c| c.is_ascii_digit()) { "#" } else { word })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fewest words of the task a line that appeared must share to be the answer.
const ANSWER_WORDS: usize = 2;

/// `word` without a tag it holds (`<button#add-2.col-6>),` → `),`): a `<` up to the next `>`.
fn without_markup(word: &str) -> &str {
    match (word.find('<'), word.rfind('>')) {
        (Some(open), Some(close)) if open < close => {
            if open == 0 {
                &word[close + 1..]
            } else {
                &word[..open]
            }
        }
        _ => word,
    }
}

#[cfg(test)]
mod tests {
    use super::without_markup;

    #[test]
    fn a_tag_in_a_word_is_left_out() {
        assert_eq!(without_markup("<button#add-2.col-6>)."), ").");
        assert_eq!(without_markup("(<p#fee>"), "(");
        assert_eq!(without_markup("<5"), "<5", "no closing bracket: not markup");
        assert_eq!(without_markup("ORD-7731"), "ORD-7731");
    }
}
