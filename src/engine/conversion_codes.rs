//! A conversion sent the wrong way: the conversation asked "Convert 250 USD to EUR.", then "And to
//! GBP?", and SmolLM2 converted `amount: 230, from: "GBP", to: "USD"` — the 230 of the result
//! "250 USD = 230.00 EUR" as pounds, to dollars — and answered "230 GBP = 291.14 USD" with
//! `success: true` (recovery bench follow-up-amount, d0b18de). Two readings of code arguments
//! (three capitals, the form currency codes take), each refused as a contradiction
//! (`CONTRADICTS_TASK`, `task_values.rs`) and held under constrained decoding until a call works:
//! - **the target the task names**: the current task says "to GBP" (or "into GBP") once, and the
//!   argument named for the target (`to`, `target`, `to_currency`…) sends another code;
//! - **a result's number in another unit**: a number argument is a number a result states with a
//!   code ("230.00 EUR", and with no other code), no argument carries that code, and the argument
//!   named for the source (`from`, `source`, `base`, `from_currency`…) sends another.
//!
//! Arguments named for neither are left alone: which of two codes is the source is read from the
//! names only. Only tools about currencies (the tool's or the argument's description says
//! "currency": "to NYC" is a flight's, not a conversion's), and a number the user's questions state
//! themselves is theirs to send ("250 USD to EUR and 250 GBP to EUR").

use serde_json::Value;

use crate::tools::ToolSpec;

use super::facts::{name_words, numbered_words, tokens};
use super::task_values::{sent_number, Contradiction};
use super::unstated_numbers::{code, is_code, stated};

/// Words of an argument's name that make it the target of a conversion.
const TARGET_WORDS: &[&str] = &["to", "target", "into"];
/// Words of an argument's name that make it the source of a conversion.
const SOURCE_WORDS: &[&str] = &["from", "source", "base"];

/// Whether `field` of `spec` is about a currency: the tool's or the argument's description says so.
fn about_currency(spec: &ToolSpec, field: &str) -> bool {
    let described = spec.input_schema["properties"][field]["description"].as_str().unwrap_or_default();
    format!("{} {described}", spec.description).to_lowercase().contains("currenc")
}

/// The code arguments of `args` about a currency whose names hold one of `words`, with their codes.
fn named<'a>(spec: &ToolSpec, args: &'a Value, words: &[&str]) -> Vec<(&'a String, &'a str)> {
    let Some(object) = args.as_object() else { return Vec::new() };
    object
        .iter()
        .filter_map(|(k, v)| code(v).map(|c| (k, c)))
        .filter(|(k, _)| name_words(k).iter().any(|w| words.contains(&w.as_str())))
        .filter(|(k, _)| about_currency(spec, k))
        .collect()
}

/// The code the task names as the target ("to GBP", "into GBP"), when it names exactly one.
fn asked_target(task: &str) -> Option<&str> {
    let words = tokens(task);
    let mut found = words
        .windows(2)
        .filter(|pair| matches!(pair[0].to_lowercase().as_str(), "to" | "into") && is_code(pair[1]))
        .map(|pair| pair[1]);
    let first = found.next()?;
    found.all(|other| other == first).then_some(first)
}

/// The target argument that sends another code than the one the current `task` names.
pub(crate) fn target_not_asked(task: &str, spec: &ToolSpec, args: &Value) -> Vec<Contradiction> {
    let Some(asked) = asked_target(task) else { return Vec::new() };
    match named(spec, args, TARGET_WORDS).as_slice() {
        [(field, sent)] if *sent != asked => vec![Contradiction {
            field: (*field).clone(),
            sent: Value::from(*sent).to_string(),
            task_says: format!("to {asked}"),
            because: String::new(),
            hold: true,
            instead: Value::from(asked).to_string(),
        }],
        _ => Vec::new(),
    }
}

/// The codes `results` state a number `n` with ("230.00 EUR"), each with the number as shown.
fn codes_of<'a>(n: f64, results: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    let mut found: Vec<(&str, &str)> = Vec::new();
    for said in results.iter().flat_map(|r| numbered_words(r)) {
        if said.digits && said.n == n && is_code(said.word) && !found.iter().any(|(_, c)| *c == said.word) {
            found.push((said.number, said.word));
        }
    }
    found
}

/// The source argument that sends another code than the one a result states a sent number with.
/// `results`: what the calls that worked returned, the session's shown memory included; read only
/// when the call has a source argument. `asked`: the user's questions, whose numbers are theirs.
pub(crate) fn source_unit_changed<'a>(
    results: impl FnOnce() -> Vec<&'a str>,
    asked: &str,
    spec: &ToolSpec,
    args: &Value,
) -> Vec<Contradiction> {
    let Some(object) = args.as_object() else { return Vec::new() };
    let codes: Vec<&str> = object.values().filter_map(code).collect();
    let sources = named(spec, args, SOURCE_WORDS);
    let [(field, sent)] = sources.as_slice() else { return Vec::new() };
    let results = results();
    let stated: Vec<f64> = stated(asked).iter().map(|s| s.n).collect();
    for n in object.values().filter_map(sent_number).filter(|n| !stated.contains(n)) {
        if let [(shown, given)] = codes_of(n, &results).as_slice() {
            if !codes.contains(given) {
                return vec![Contradiction {
                    field: (*field).clone(),
                    sent: Value::from(*sent).to_string(),
                    task_says: format!("{shown} {given}"),
                    because: format!("the result {shown} comes from gives it in {given}"),
                    hold: true,
                    instead: Value::from(*given).to_string(),
                }];
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `source_unit_changed` for "And to GBP?" after "250 USD = 230.00 EUR".
    fn after_eur(args: Value) -> Vec<Contradiction> {
        source_unit_changed(|| vec!["250 USD = 230.00 EUR"], "And to GBP?", &converter(), &args)
    }

    fn converter() -> ToolSpec {
        let properties =
            json!({"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}});
        let schema = json!({"type": "object", "properties": properties});
        ToolSpec::new("convert_currency", "Converts an amount from one currency to another.", schema)
    }

    #[test]
    fn a_target_other_than_the_one_the_task_names_is_refused() {
        let found = target_not_asked(
            "And to GBP?",
            &converter(),
            &json!({"amount": 230, "from": "GBP", "to": "USD"}),
        );
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].field.as_str(), found[0].instead.as_str()), ("to", "\"GBP\""));
        assert_eq!(found[0].task_says, "to GBP");
        let named = json!({"amount": 1, "from_currency": "USD", "to_currency": "EUR"});
        assert_eq!(target_not_asked("Convert it into GBP.", &converter(), &named)[0].field, "to_currency");
        // The named target, no target argument, or two targets named: nothing.
        assert!(
            target_not_asked("And to GBP?", &converter(), &json!({"from": "USD", "to": "GBP"})).is_empty()
        );
        assert!(target_not_asked("And to GBP?", &converter(), &json!({"currency": "USD"})).is_empty());
        assert!(
            target_not_asked("From USD to EUR, then to GBP.", &converter(), &json!({"to": "USD"})).is_empty()
        );
        assert!(target_not_asked("Go to the shop.", &converter(), &json!({"to": "USD"})).is_empty());
    }

    #[test]
    fn a_results_number_sent_as_another_currency_is_refused_at_the_source() {
        let found = after_eur(json!({"amount": 230, "from": "GBP", "to": "USD"}));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].field.as_str(), found[0].instead.as_str()), ("from", "\"EUR\""));
        assert_eq!(found[0].task_says, "230.00 EUR");
        // Sent as the result gives it, or the code carried by the target: nothing.
        assert!(after_eur(json!({"amount": 230, "from": "EUR", "to": "GBP"})).is_empty());
        assert!(after_eur(json!({"amount": 230, "from": "GBP", "to": "EUR"})).is_empty());
        // A number the results give in two currencies, or one they do not give: nothing.
        let both = ["1 USD = 0.92 EUR", "1 EUR = 1.09 USD"];
        assert!(source_unit_changed(
            || both.to_vec(),
            "And to GBP?",
            &converter(),
            &json!({"amount": 1, "from": "GBP", "to": "USD"})
        )
        .is_empty());
        assert!(after_eur(json!({"amount": 75, "from": "GBP", "to": "USD"})).is_empty());
        // A number the questions state is theirs; a tool not about currencies is left alone.
        let asked = "Convert 250 USD to EUR and 250 GBP to EUR.";
        let again = json!({"amount": 250, "from": "GBP", "to": "EUR"});
        assert!(source_unit_changed(|| vec!["250 USD = 230.00 EUR"], asked, &converter(), &again).is_empty());
        let properties = json!({"from": {"type": "string"}, "to": {"type": "string"}});
        let flights = ToolSpec::new(
            "search_flights",
            "Finds flights.",
            json!({"type": "object", "properties": properties}),
        );
        let trip = json!({"from": "BOS", "to": "LAX"});
        assert!(target_not_asked("I fly to NYC tomorrow.", &flights, &trip).is_empty());
        // No argument named for the source: which code is the source is not guessed.
        assert!(after_eur(json!({"amount": 230, "a": "GBP", "b": "USD"})).is_empty());
    }
}
