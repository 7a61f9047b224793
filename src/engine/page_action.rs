//! A call that acts on an element another tool listed and returns only that it did: a page
//! action's acknowledgement ("Clicked @e18 (button "Save preferences")"), which states no value of
//! its own. Such a call made again with the same result does not mean the model has what it needs:
//! it is lost on the page. Asked for the answer alone then (`tool_turn.rs`, `progress`), Qwen gave
//! whatever the page had shown — "13" for an order number, the page's title for a SKU, a ref for a
//! code — in 6 of its 7 wrong successes on the web bench at e691201. The tool sits out and the
//! whole step follows instead. A call whose result states a value the listing did not (an order
//! number after "Place order", an invoice's total) still gets the request for the answer alone,
//! and so does a tool declared read-only, whose result is what it reads. Whether the answer the
//! task asks for appeared in a page action's result (`answer_appeared`) is read here too, and
//! whether an answer right after it states it (`misses_what_appeared`).

use serde_json::Value;

use regex_lite::Regex;

use super::facts::{quotes, seen_in};
use super::grounding::{own_values, states_from};
use super::named_line::{asked_words, label_of, words_shared};
use super::provenance::id_fields;
use super::provenance::producer_output;
use super::recovering::has_token;
use super::run::RunState;
use crate::text::clip;
use crate::tools::ToolSpec;

impl RunState<'_> {
    /// What a call of `spec` with `args` acted on: the latest listing of its producers, and that
    /// listing with the call's arguments, lowercased — what its result may repeat without stating
    /// anything new. `None` when no producer has run.
    fn acted_on(&self, spec: &ToolSpec, args: &Value) -> Option<(&str, String)> {
        let listing = producer_output(&self.agent.tools, &self.outputs, spec)?.text;
        let known = format!("{}\n{}", listing.to_lowercase(), args.to_string().to_lowercase());
        Some((listing, known))
    }

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
        let Some((_, known)) = self.acted_on(spec, args) else { return false };
        let text = plain(result, None);
        let nothing_new = own_values(&text, &known).next().is_none();
        nothing_new
    }

    /// The lines, when `spec`'s call with `args`, which acts on a listed element, returned any that
    /// states a value neither the latest listing nor `args` hold and either shares
    /// [`ANSWER_WORDS`] words or more with the task (and a word of what it asks the answer in,
    /// where it says so), or, after a call on the task's subject ([`subject_named`]), names every
    /// word the task asks the answer in ([`names_all`]) or, where it does not say, labels its
    /// value with the task's words ([`label_asked`]): the answer the task asks for appeared
    /// ("Place the order and answer with the order number" and `text "Order placed. Order number:
    /// PO-5521"` after the click). Then the next call asks for the answer alone
    /// (`answer_after_result.rs`). On the web bench Qwen, shown the order number, the revealed
    /// code and the opened question's answer, clicked on until its step budget ran out. Judged
    /// when the call returns, against the listing it acted on (`RunState::appeared`).
    pub(crate) fn answer_appeared(&self, spec: &ToolSpec, args: &Value, result: &str) -> Option<Vec<String>> {
        if spec.read_only || spec.refs_from.is_empty() || !ends_asking(&self.task) {
            return None;
        }
        let (listing, known) = self.acted_on(spec, args)?;
        let sent = args.to_string().to_lowercase();
        // The task's words, not its numbers nor what the call sent ("Add 2 tea kettles": the
        // cart's line names them all), and the words it asks the answer in, where it says so.
        let sent_words = asked_words(&sent);
        let mut asked = asked_words(&self.task);
        asked.retain(|w| w.chars().all(char::is_alphabetic) && !sent_words.contains(w));
        let cue = answer_cue(&self.task);
        let task = self.task.to_lowercase();
        let refs = ref_pattern(spec);
        let acted_on: Vec<&str> = id_fields(spec).iter().filter_map(|f| args.get(f)?.as_str()).collect();
        // A listed line whose number changed ("Desk lamp (prices v2)" for "… v1") is no answer.
        let listed: Vec<String> = listing.lines().map(|line| skeleton(&plain(line, refs.as_ref()))).collect();
        // The element acted on, as the listing named it: a labelled value counts on the page a
        // click on the task's subject opened ("Garden hose"), not on any product's page.
        let acted_label: String =
            acted_on.iter().filter_map(|id| label_of(listing, id)).collect::<Vec<_>>().join(" ");
        let lines = result.lines().filter(|line| !acted_on.iter().any(|id| has_token(line, id)));
        let appeared: Vec<String> = lines
            .map(|line| plain(line, refs.as_ref()))
            .filter(|text| {
                let text = text.as_str();
                let by_task = words_shared(&asked, text) >= ANSWER_WORDS
                    && cue.as_ref().is_none_or(|cue| words_shared(cue, text) > 0);
                let by_label = || {
                    let named = match &cue {
                        Some(cue) => names_all(cue, text).then(|| cue.clone()),
                        None => label_asked(&asked, text),
                    };
                    named.is_some_and(|named| subject_named(&asked, &named, &acted_label))
                };
                (by_task || by_label())
                    && own_values(text, &known).any(|value| !seen_in(&task, value))
                    && !listed.contains(&skeleton(text))
            })
            .collect();
        (!appeared.is_empty()).then_some(appeared)
    }

    /// Why `answer`, the model's answer right after a call that showed the answer appear
    /// ([`Appeared`]), is no answer: it states no value of the lines that appeared, as written or
    /// as a number (`states_from`). SmolLM2, asked for the answer alone after its click opened the
    /// Garden hose's page ("SKU: GH-311"), answered "The price list includes VAT. The order form is
    /// a shopping cart, …", every word of it from the results, and the run reported a success (web
    /// bench follow-link). Only with the focused answer on, as `appeared` is set only then.
    pub(crate) fn misses_what_appeared(&self, answer: &str) -> Option<String> {
        let appeared = self.appeared.as_ref()?;
        let last_call = self.turns.iter().rev().find(|t| t.action.is_some())?;
        if last_call.step != appeared.step {
            return None;
        }
        let task = self.task.to_lowercase();
        let said = answer.to_lowercase();
        let with_values: Vec<&String> =
            appeared.lines.iter().filter(|line| own_values(line, &task).next().is_some()).collect();
        let first = with_values.first()?;
        let stated = with_values.iter().any(|line| {
            own_values(line, &task).any(|value| seen_in(&said, value))
                || states_from(answer, &line.to_lowercase(), &task)
        });
        if stated {
            return None;
        }
        // The line's quoted text that holds its value, where it has some: `text "SKU: GH-311"` is
        // quoted as "SKU: GH-311".
        let quoted = quotes(first).into_iter().find(|q| own_values(q, &task).next().is_some());
        Some(format!(
            "Your final_answer does not state what the page showed for the task (\"{}\"): it is not an answer to the task.",
            clip(quoted.unwrap_or(first.trim()), QUOTED_LINE_CHARS)
        ))
    }
}

/// The lines of a page action's result that showed the answer appear, and its step
/// (`RunState::appeared`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Appeared {
    /// The step of the call.
    pub step: u32,
    /// The lines, as [`RunState::answer_appeared`] read them (without refs and addresses).
    pub lines: Vec<String>,
}

/// How much of the line that appeared a refusal quotes.
const QUOTED_LINE_CHARS: usize = 200;

/// Whether `text` names every word of `cue` (the words the task asks the answer in): "SKU:
/// GH-311" for "… and answer with its SKU", one word of the task but all it asks for. Qwen opened
/// the product page that listed it and clicked on (web bench follow-link).
fn names_all(cue: &[String], text: &str) -> bool {
    cue.iter().all(|word| words_shared(std::slice::from_ref(word), text) > 0)
}

/// The words of the label of `text`, a labelled value (`text "In stock: 31"`, its quoted part
/// when it has one), when every one is among `asked` (the task's): "How many Tea kettles are in
/// stock?" asks for what "In stock" labels. Qwen opened the Tea kettle's page and went back to
/// the price list (web bench stock).
fn label_asked(asked: &[String], text: &str) -> Option<Vec<String>> {
    let labelled = quotes(text).into_iter().next().unwrap_or(text);
    let (label, _) = labelled.split_once(':')?;
    let words = asked_words(label);
    (!words.is_empty() && words.iter().all(|w| asked.contains(w))).then_some(words)
}

/// Whether the element acted on (`acted_label`, its label in the listing) is the task's subject:
/// every word of its label is one of the task's, besides `named` (what the answer is asked in),
/// or [`ANSWER_WORDS`] of them are. "Garden hose" for "Open the Garden hose's product page and
/// answer with its SKU"; not "Blue mug", whose page shows an SKU too.
fn subject_named(asked: &[String], named: &[String], acted_label: &str) -> bool {
    let rest: Vec<String> = asked.iter().filter(|w| !named.contains(w)).cloned().collect();
    let words = asked_words(acted_label);
    !words.is_empty()
        && (words.iter().all(|w| rest.contains(w)) || words_shared(&rest, acted_label) >= ANSWER_WORDS)
}

/// Whether the task ends by asking for its answer: a question, or what to answer with ("… and
/// answer with the order number"), with no later step after it ("Find the deal code, then go
/// back" is not done when the code appears).
fn ends_asking(task: &str) -> bool {
    let lower = task.to_lowercase();
    let question = lower.rfind('?').map(|at| at + 1);
    let Some(at) = question.max(cue_end(&lower)) else { return false };
    !lower[at..].split(|c: char| !c.is_alphanumeric()).any(|w| THEN_WORDS.contains(&w))
}

/// Words that put a step after the one before them.
const THEN_WORDS: [&str; 4] = ["then", "after", "afterwards", "finally"];

/// Where the task says what to answer with ("… and answer with the order number"), the words
/// after it: the line that appeared must name one of them (an order's subtotal is not its number).
fn answer_cue(task: &str) -> Option<Vec<String>> {
    let lower = task.to_lowercase();
    let words = asked_words(&lower[cue_end(&lower)?..]);
    (!words.is_empty()).then_some(words)
}

/// Where the last answer cue of `lower` (a lowercased task) ends.
fn cue_end(lower: &str) -> Option<usize> {
    ANSWER_CUES.iter().filter_map(|cue| lower.rfind(cue).map(|at| at + cue.len())).max()
}

/// How a task says what the answer is to hold.
const ANSWER_CUES: [&str; 5] = ["answer with", "reply with", "tell me", "give me", "report"];

/// The pattern of `spec`'s first id argument that has one (keel-agent/dom's `^@?e[0-9]+$`): a
/// token of that shape in a result is a ref, not a value.
fn ref_pattern(spec: &ToolSpec) -> Option<Regex> {
    id_fields(spec).iter().find_map(|field| {
        let pattern = spec.input_schema["properties"][field].get("pattern")?.as_str()?;
        Regex::new(pattern).ok()
    })
}

/// `text`'s words without addresses (`http://…`), markup and, given their pattern, refs: what a
/// result says.
fn plain(text: &str, refs: Option<&Regex>) -> String {
    let is_ref = |w: &str| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '@');
        refs.is_some_and(|re| !bare.is_empty() && re.is_match(bare))
    };
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.contains("://"))
        .map(without_markup)
        .filter(|w| !is_ref(w))
        .collect();
    words.join(" ")
}

/// `text` lowercased without its tokens that hold a digit: what stays of a line whose values change.
fn skeleton(text: &str) -> String {
    text.to_lowercase()
        .split_whitespace()
        .map(|word| if word.chars().any(|c| c.is_ascii_digit()) { "#" } else { word })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fewest words of the task a line that appeared must share to be the answer, and the
/// label of the element acted on to name the task's subject (when not all its words are the task's).
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
