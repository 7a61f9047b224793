//! The element the task names. "Click the Subscribe button (ref e12) and give me the confirmation
//! code": the snapshot listed `e19 heading 'Newsletter'`, `e20 textbox 'Email'`, `e21 button
//! 'Subscribe'`, and SmolLM2, its ref narrowed to those three, clicked e19, then e20, then e21
//! (recovery bench ref-typo, d0b18de); on stale-ref it clicked `e1 link 'Home'` for "click the
//! 'Place order' button". When exactly one line of the producer's latest output has a quoted label
//! (`'Subscribe'`, `"Place order"`) that the task names as a phrase, and that line holds exactly
//! one of the listed ids, the id argument is narrowed to that id (`idProvenance`, constrained
//! decoding), while it has not failed and no call of the tool with it has worked; a task naming
//! several listed labels ("type your e-mail in Email, then click Subscribe") narrows nothing, and
//! only a tool the task names by a word of its name ("click") is narrowed: "Enter my e-mail and
//! click Subscribe" names the button for `click`, not for `type`.

use serde_json::Value;

use super::facts::{name_words, quotes, seen_in};
use super::recovering::has_token;

/// The fewest characters a label needs to be looked for in the task.
const MIN_LABEL_CHARS: usize = 3;

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
