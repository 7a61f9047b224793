//! The most recent one, by the dates a result lists: "What is the total of my most recent order?",
//! `list_orders` returned "ORD-5521 (2025-09-02), ORD-5310 (2025-08-14)", and Qwen called
//! `get_order` with `ORD-5310` and answered its total with `success: true` (recovery bench
//! guessed-id, eea301b). Every value of that answer is grounded; which item is "most recent" is
//! the check grounding cannot make.
//!
//! When the task asks for the latest (`latest`, `most recent`, `newest`, `last` before a noun that
//! is not a span of time) or the earliest (`oldest`, `earliest`) and an id argument names an item a
//! result lists with an ISO date (`2025-09-02`), while the same result lists another item with a
//! later (earlier) date, the call contradicts the task (`CONTRADICTS_TASK`, refused once, as in
//! `task_values.rs`); the plan names the item to send instead, and under constrained decoding the
//! argument is held to it until a call of the tool works.
//!
//! The same reading judges an answer (under `grounding`): a value a result lists for another item
//! than the one at the asked end, in an answer stating nothing of that one, gets an
//! `ANSWER_MISMATCH` envelope naming the item (`answer_shape.rs`), and the focused answer carries
//! that item as its last line (SmolLM2 answered "Total: $980.00", the older of two invoices, for
//! "my latest invoice": recovery bench two-part-task, e8c5218).

use serde_json::Value;

use super::facts::{id_like, iso_date, seen_in, tokens};
use super::task_values::Contradiction;

/// Which end of the dates the task asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    Latest,
    Earliest,
}

/// Words after `last` that make it a span of time ("last week"), not "the last one".
const SPANS: &[&str] = &[
    "week",
    "month",
    "year",
    "night",
    "day",
    "time",
    "hour",
    "minute",
    "weekend",
    "quarter",
    "season",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The end the task asks for, with the words it asks with.
fn asked_end(task: &str) -> Option<(End, String)> {
    let lower = task.to_lowercase();
    for phrase in ["most recent", "latest", "newest", "most recently"] {
        if seen_in(&lower, phrase) {
            return Some((End::Latest, phrase.to_string()));
        }
    }
    for phrase in ["oldest", "earliest"] {
        if seen_in(&lower, phrase) {
            return Some((End::Earliest, phrase.to_string()));
        }
    }
    let words = tokens(&lower);
    words.windows(2).find_map(|pair| {
        (pair[0] == "last" && !SPANS.contains(&pair[1].trim_end_matches('s')))
            .then(|| (End::Latest, format!("last {}", pair[1])))
    })
}

/// An item a result lists: its id and its ISO date (`YYYY-MM-DD`, compared as text), and its text
/// (the line, or the line's part).
struct Dated<'a> {
    id: &'a str,
    date: &'a str,
    text: &'a str,
}

/// The items of a result that each carry one id and one ISO date: its lines, and a line's parts
/// between commas or semicolons when the line holds more than one date.
fn dated_items(result: &str) -> Vec<Dated<'_>> {
    let mut items = Vec::new();
    for line in result.lines() {
        let dates = tokens(line).into_iter().filter(|t| iso_date(t)).count();
        let parts: Vec<&str> = if dates > 1 { line.split([',', ';']).collect() } else { vec![line] };
        for part in parts {
            let words = tokens(part);
            let dates: Vec<&str> = words.iter().copied().filter(|t| iso_date(t)).collect();
            let ids: Vec<&str> = words.iter().copied().filter(|t| id_like(t) && !iso_date(t)).collect();
            if let ([date], [id]) = (dates.as_slice(), ids.as_slice()) {
                items.push(Dated { id, date, text: part.trim() });
            }
        }
    }
    items
}

/// The top-level string arguments of a call that name a listed item other than the latest (or
/// earliest) one the same result lists, when `task` asks for that end; `results` are what the calls
/// that worked returned, oldest first (the latest result listing the item decides).
pub(crate) fn not_the_asked_end<'a>(
    task: &str,
    results: impl FnOnce() -> Vec<&'a str>,
    args: &Value,
) -> Vec<Contradiction> {
    let (Some((end, phrase)), Some(object)) = (asked_end(task), args.as_object()) else { return Vec::new() };
    // Read only for a task asking for an end: they are the session's every result.
    let results = results();
    let mut found = Vec::new();
    for (field, value) in object {
        let Some(sent) = value.as_str().map(str::trim).filter(|s| id_like(s)) else { continue };
        let listing = results
            .iter()
            .rev()
            .map(|r| dated_items(r))
            .find(|items| items.iter().any(|i| i.id.eq_ignore_ascii_case(sent)));
        let Some(items) = listing else { continue };
        let Some(chosen) = items.iter().find(|i| i.id.eq_ignore_ascii_case(sent)) else { continue };
        if let Some(best) = at_end(&items, end).filter(|b| b.date != chosen.date) {
            found.push(Contradiction {
                field: field.clone(),
                sent: value.to_string(),
                task_says: phrase.clone(),
                because: format!("{} is dated {}, {} {}", best.id, best.date, chosen.id, chosen.date),
                hold: true,
                instead: Value::from(best.id).to_string(),
            });
        }
    }
    found
}

/// The item of `items` at `end`.
fn at_end<'b, 'a>(items: &'b [Dated<'a>], end: End) -> Option<&'b Dated<'a>> {
    match end {
        End::Latest => items.iter().max_by(|a, b| a.date.cmp(b.date)),
        End::Earliest => items.iter().min_by(|a, b| a.date.cmp(b.date)),
    }
}

/// The item the task asks for by its end, as a line for the focused answer ("The latest of them:
/// INV-2025-014 (2025-06-30): $1,250.00"), when `task` asks for an end and a result lists two or
/// more dated items with more than ids and dates. SmolLM2, asked for "the total of my latest
/// invoice" with the focused answer, gave "$980.00", the older of two listed (recovery bench
/// two-part-task, e8c5218).
pub(crate) fn asked_end_line<'a>(task: &str, results: impl Iterator<Item = &'a str>) -> Option<String> {
    let (end, phrase) = asked_end(task)?;
    results.into_iter().find_map(|result| {
        let items = dated_items(result);
        let best = at_end(&items, end).filter(|_| items.len() > 1)?;
        let more = tokens(best.text)
            .into_iter()
            .any(|t| !id_like(t) && !iso_date(t) && t.chars().any(|c| c.is_ascii_digit()));
        more.then(|| format!("The {phrase} of them: {}", best.text))
    })
}

/// A value of a grounded answer to a task asking for an end that a result lists for another item
/// than the one at that end, while the answer states nothing of that one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OtherItem {
    /// The value the answer gives.
    pub(crate) given: String,
    /// The task's words for the end it asks for ("latest").
    pub(crate) asked: String,
    /// The date of the item the value belongs to.
    pub(crate) given_date: String,
    /// The item at the asked end, as the result lists it.
    pub(crate) best: String,
}

/// The first value of `answer` (a token with a digit, not a date) that a result's dated items list
/// for an item not at the end `task` asks for, when the answer states no value of the item at that
/// end (`results`: each tool's latest result).
pub(crate) fn other_item<'a>(
    answer: &str,
    task: &str,
    results: impl Iterator<Item = &'a str>,
) -> Option<OtherItem> {
    let (end, phrase) = asked_end(task)?;
    let task_lower = task.to_lowercase();
    let stated: Vec<String> = tokens(answer)
        .into_iter()
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()) && !iso_date(t) && !seen_in(&task_lower, t))
        .map(str::to_lowercase)
        .collect();
    results.into_iter().find_map(|result| {
        let items = dated_items(result);
        let best = at_end(&items, end)?;
        let best_text = best.text.to_lowercase();
        if stated.iter().any(|v| seen_in(&best_text, v)) {
            return None;
        }
        stated.iter().find_map(|value| {
            let item =
                items.iter().find(|i| i.date != best.date && seen_in(&i.text.to_lowercase(), value))?;
            Some(OtherItem {
                given: tokens(answer).into_iter().find(|t| t.eq_ignore_ascii_case(value))?.to_string(),
                asked: phrase.clone(),
                given_date: item.date.to_string(),
                best: best.text.to_string(),
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ORDERS: &str = "ORD-5521 (2025-09-02), ORD-5310 (2025-08-14)";

    #[test]
    fn an_older_listed_item_for_the_most_recent_is_refused_naming_the_latest() {
        let found = not_the_asked_end(
            "What is the total of my most recent order?",
            || vec![ORDERS],
            &json!({"order_id": "ORD-5310"}),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].instead, "\"ORD-5521\"");
        assert_eq!(found[0].task_says, "most recent");
        assert_eq!(found[0].because, "ORD-5521 is dated 2025-09-02, ORD-5310 2025-08-14");
    }

    #[test]
    fn the_asked_end_itself_and_tasks_asking_no_end_are_not() {
        let latest = json!({"order_id": "ORD-5521"});
        assert!(not_the_asked_end("Total of my most recent order?", || vec![ORDERS], &latest).is_empty());
        let older = json!({"order_id": "ORD-5310"});
        assert!(not_the_asked_end("What is the total of order ORD-5310?", || vec![ORDERS], &older).is_empty());
        assert!(not_the_asked_end("Orders since last week: the oldest?", || vec![ORDERS], &older).is_empty());
        assert!(
            not_the_asked_end("Total of my orders from last month?", || vec![ORDERS], &older).is_empty(),
            "`last month` is a span of time, not the last item"
        );
    }

    const INVOICES: &str = "INV-2025-014 (2025-06-30): $1,250.00\nINV-2025-009 (2025-03-31): $980.00";
    const TWO_PARTS: &str =
        "What's the weather in Paris right now? Then tell me the total of my latest invoice.";

    #[test]
    fn an_answer_with_an_older_items_value_is_another_item() {
        let results = || [INVOICES, "Paris: 18°C, light rain."].into_iter();
        let found = other_item("Paris: 18°C, light rain. Total: $980.00", TWO_PARTS, results()).unwrap();
        assert_eq!(found.given, "980.00");
        assert_eq!(found.asked, "latest");
        assert_eq!(found.given_date, "2025-03-31");
        assert_eq!(found.best, "INV-2025-014 (2025-06-30): $1,250.00");
        assert!(other_item("18°C. Your latest invoice is $1,250.00.", TWO_PARTS, results()).is_none());
        assert!(
            other_item("$1,250.00 (earlier: $980.00)", TWO_PARTS, results()).is_none(),
            "an answer with the latest item's value may name others"
        );
        assert!(other_item("Total: $980.00", "What did INV-2025-009 come to?", results()).is_none());
    }

    #[test]
    fn the_focused_answer_line_names_the_item_at_the_asked_end() {
        assert_eq!(
            asked_end_line(TWO_PARTS, [INVOICES].into_iter()).as_deref(),
            Some("The latest of them: INV-2025-014 (2025-06-30): $1,250.00")
        );
        assert_eq!(
            asked_end_line("What is the total of invoice INV-2025-009?", [INVOICES].into_iter()),
            None
        );
        assert_eq!(
            asked_end_line("My most recent order?", [ORDERS].into_iter()),
            None,
            "ids and dates alone: the item's detail is another tool's"
        );
    }

    #[test]
    fn lines_and_the_earliest_end_are_read() {
        let listed = "INV-7 due 2025-03-01 open\nINV-9 due 2025-01-15 open";
        let found =
            not_the_asked_end("Pay my oldest invoice.", || vec![listed], &json!({"invoice": "INV-7"}));
        assert_eq!(found.iter().map(|c| c.instead.as_str()).collect::<Vec<_>>(), ["\"INV-9\""]);
        let found = not_the_asked_end("Open my last order.", || vec![ORDERS], &json!({"id": "ORD-5310"}));
        assert_eq!(found.len(), 1, "`last order` asks for the latest");
    }
}
