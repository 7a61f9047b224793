//! The element the task names. "Click the Subscribe button (ref e12) and give me the confirmation
//! code": the snapshot listed `e19 heading 'Newsletter'`, `e20 textbox 'Email'`, `e21 button
//! 'Subscribe'`, and SmolLM2, its ref narrowed to those three, clicked e19, then e20, then e21
//! (recovery bench ref-typo, d0b18de); on stale-ref it clicked `e1 link 'Home'` for "click the
//! 'Place order' button". When exactly one line of the latest listing has a quoted label
//! (`'Subscribe'`, `"Place order"`) that the task names as a phrase, and that line holds exactly
//! one of the listed ids, the id argument is narrowed to that id (`idProvenance`, constrained
//! decoding), while it has not failed and no call of the tool with it has worked; a task naming
//! several listed labels ("type your e-mail in Email, then click Subscribe") narrows nothing, and
//! only a tool the task names by a word of its name ("click") is narrowed: "Enter my e-mail and
//! click Subscribe" names the button for `click`, not for `type`. Otherwise, a tool whose one
//! required argument is the id is offered the ids on the lines whose labels share the most words
//! with the task ([`most_named`]).

use serde_json::Value;

use super::facts::{name_words, quotes, seen_in};
use super::recovering::has_token;
use super::unrelated::content_words;

/// The fewest characters a label needs to be looked for in the task.
const MIN_LABEL_CHARS: usize = 3;

/// The fewest words a label must share with the task to be offered first. One is too few: the
/// navigation bar's "Price list" for "What is the price of…" led Qwen off the product page it
/// had opened, and "Order form" for "Place the order" off the checkout (web bench, 0f2145b).
const MIN_SHARED: usize = 2;

/// Whether `task` names `tool` by a word of its name of four letters or more ("click" for
/// `click` or `browser_click`).
pub(crate) fn task_names_tool(task: &str, tool: &str) -> bool {
    let task = task.to_lowercase();
    name_words(tool).iter().any(|w| w.chars().count() >= 4 && seen_in(&task, w))
}

/// The option of `options` on the one line of `output` whose quoted label `task` names, when
/// exactly one line's does and that line holds exactly one option.
pub(crate) fn named_option(task: &str, output: &str, options: &[Value]) -> Option<Value> {
    let task = task.to_lowercase();
    let mut named = output.lines().filter(|line| {
        quotes(line).into_iter().any(|label| {
            let label = label.trim();
            label.chars().count() >= MIN_LABEL_CHARS
                && label.chars().any(char::is_alphabetic)
                && seen_in(&task, label)
        })
    });
    let line = named.next()?;
    if named.next().is_some() {
        return None;
    }
    let mut on_line = options.iter().filter(|o| o.as_str().is_some_and(|id| has_token(line, id)));
    let option = on_line.next()?;
    on_line.next().is_none().then(|| option.clone())
}

/// A word as the task and a label are compared: lowercase, without a plural's `s` ("kettles" for
/// a "Tea kettle").
fn stem(word: &str) -> &str {
    match word.strip_suffix('s') {
        Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem,
        _ => word,
    }
}

/// The task's content words as [`words_shared`] compares them.
pub(crate) fn asked_words(task: &str) -> Vec<String> {
    content_words(task).iter().map(|w| stem(w).to_string()).collect()
}

/// How many of `text`'s content words `asked` (a task's [`asked_words`]) holds.
pub(crate) fn words_shared(asked: &[String], text: &str) -> usize {
    content_words(text).iter().filter(|w| asked.iter().any(|a| a == stem(w))).count()
}

/// The quoted label of the first line of `output` that holds `id` as a token.
pub(crate) fn label_of(output: &str, id: &str) -> Option<String> {
    output.lines().find(|line| has_token(line, id)).map(|line| quotes(line).join(" "))
}

/// The options of `options` on the lines of `output` whose quoted labels share the most content
/// words with `task` ([`MIN_SHARED`] at least) and that `tried` (an option, its line's label) does not hold;
/// those of the lines sharing the next most when every one of those was tried. `None` when no
/// line's label shares a word with the task, or every option on such a line was tried. Only
/// string options are looked for (refs and ids as text; a number is no ref on a line).
///
/// Why (web bench, acac820): on ten of thirteen tasks Qwen2.5-Coder-0.5B, its ref narrowed to the
/// snapshot's refs, clicked `@e1 link "Home"` (the first listed, the navigation bar's) and left
/// the page the task was on; "Reveal the code of the Desk lamp deal" had `button "Show code for
/// Desk lamp"` three words from the task.
pub(crate) fn most_named(
    task: &str,
    output: &str,
    options: &[Value],
    tried: impl Fn(&Value, &str) -> bool,
) -> Option<Vec<Value>> {
    let asked = asked_words(task);
    // Per line that holds an option: the label's words the task has, the label, and the options.
    let mut scored: Vec<(usize, String, Vec<&Value>)> = Vec::new();
    for line in output.lines() {
        let on_line: Vec<&Value> =
            options.iter().filter(|o| o.as_str().is_some_and(|id| has_token(line, id))).collect();
        if on_line.is_empty() {
            continue;
        }
        let label = quotes(line).join(" ");
        let shared = words_shared(&asked, &label);
        if shared >= MIN_SHARED {
            scored.push((shared, label, on_line));
        }
    }
    // From the most words shared down (no sort: a level is the most below the last one).
    let mut above = usize::MAX;
    loop {
        let level = scored.iter().map(|(shared, _, _)| *shared).filter(|s| *s < above).max()?;
        let mut found: Vec<Value> = Vec::new();
        for (_, label, on) in scored.iter().filter(|(shared, _, _)| *shared == level) {
            for option in on {
                if !tried(option, label) && !found.contains(option) {
                    found.push((*option).clone());
                }
            }
        }
        if !found.is_empty() {
            return Some(found);
        }
        above = level;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PAGE: &str = "e19 heading 'Newsletter'\ne20 textbox 'Email'\ne21 button 'Subscribe'";

    fn ids() -> Vec<Value> {
        vec![json!("e19"), json!("e20"), json!("e21")]
    }

    #[test]
    fn the_one_line_whose_label_the_task_names_gives_its_id() {
        let task = "Click the Subscribe button (ref e12) and give me the confirmation code.";
        assert_eq!(named_option(task, PAGE, &ids()), Some(json!("e21")));
        let dom = "- button \"Place order\" [ref=e8]\n- link \"Home\" [ref=e7]";
        let task = "On the shop page, click the 'Place order' button.";
        assert_eq!(named_option(task, dom, &[json!("e7"), json!("e8")]), Some(json!("e8")));
    }

    const SHOP: &str = "@e1 link \"Home\"\n@e3 link \"Order form\"\n@e4 link \"Deals\"\n\
                        @e10 heading \"Checkout\" [level=1]\n@e12 button \"Place order\"\n\
                        @e14 button \"Accept all\"\n@e15 link \"Tea kettle\"\n@e17 button \"Order tea kettle\"";

    fn refs(ids: &[&str]) -> Vec<Value> {
        ids.iter().map(|id| json!(id)).collect()
    }

    #[test]
    fn the_lines_sharing_the_most_words_with_the_task_give_their_options() {
        let all = refs(&["@e1", "@e3", "@e4", "@e10", "@e12", "@e14", "@e15", "@e17"]);
        let none = |_: &Value, _: &str| false;
        let task = "Place the order and answer with the order number.";
        // "Place order" shares two words; "Order form" and "Order tea kettle" one: too few.
        assert_eq!(most_named(task, SHOP, &all, none), Some(refs(&["@e12"])));
        let tried = |v: &Value, label: &str| v == "@e12" && label == "Place order";
        assert_eq!(most_named(task, SHOP, &all, tried), None);
        // Three words, then the two-word lines, then nothing.
        let task = "Order a tea kettle and place the order.";
        assert_eq!(most_named(task, SHOP, &all, none), Some(refs(&["@e17"])));
        assert_eq!(
            most_named(task, SHOP, &all, |v: &Value, _: &str| v == "@e17"),
            Some(refs(&["@e12", "@e15"]))
        );
        let three = |v: &Value, _: &str| v == "@e17" || v == "@e12" || v == "@e15";
        assert_eq!(most_named(task, SHOP, &all, three), None);
        assert_eq!(label_of(SHOP, "@e12").as_deref(), Some("Place order"));
        // A plural in the task, a label's word it does not have.
        assert_eq!(
            most_named("How many Tea kettles are there?", SHOP, &all, none),
            Some(refs(&["@e15", "@e17"]))
        );
        assert_eq!(most_named("Sign in to my account.", SHOP, &all, none), None);
        // Only the options count: a line whose ref was left out is not offered.
        assert_eq!(most_named(task, SHOP, &refs(&["@e1", "@e14"]), none), None);
    }

    #[test]
    fn a_tool_is_named_by_a_word_of_its_name() {
        assert!(task_names_tool("Click the Subscribe button.", "click"));
        assert!(task_names_tool("Click the Subscribe button.", "browser_click"));
        assert!(!task_names_tool("Enter my e-mail and click Subscribe.", "type"));
        assert!(!task_names_tool("Clicking is fun.", "click"));
    }

    #[test]
    fn several_named_lines_a_label_inside_a_word_or_an_id_not_listed_give_none() {
        let task = "Type my address in Email, then click Subscribe.";
        assert_eq!(named_option(task, PAGE, &ids()), None);
        assert_eq!(named_option("Click Subscribers.", PAGE, &ids()), None);
        assert_eq!(named_option("Click Subscribe.", PAGE, &[json!("e19"), json!("e20")]), None);
        assert_eq!(named_option("What is on the page?", PAGE, &ids()), None);
    }
}
