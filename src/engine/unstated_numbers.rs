//! A number argument from nowhere: the conversation asked "Convert 250 USD to EUR.", then "And to
//! GBP?", and SmolLM2 converted `amount: 1` (recovery bench follow-up-amount: 9 recorded runs sent
//! `amount: 1`, all wrong; at eea301b it answered "1.27 USD" with `success: true`). The 1 is in
//! no question and no result, while the 250 the conversation states is in no argument.
//!
//! A number argument is refused that way (`CONTRADICTS_TASK`, as `task_values.rs` refuses a count
//! or a time the task contradicts) only when all of these hold:
//! - the user's questions (this task and the session's earlier ones) state a number in digits or
//!   words — a whole token: the parts of a time (`19:30`) or a date are not stated numbers;
//! - one of those numbers is in none of the call's arguments (a call carrying every stated number
//!   may add its own, `limit: 10`);
//! - the argument's value is in no question, no result and no argument of a call that worked, and
//!   is no stated number in another unit (× or ÷ 60, 100, 1,000, 3,600, 24, 7, 12);
//! - the task places nothing relative to a time ("in 2 hours", "ten minutes before"): its numbers
//!   are computed from.
//!
//! Read over the recovery bench's recorded runs (without a follow-up's earlier results, which the
//! check itself sees), the calls this flags are all in runs that ended wrong. Like any contradiction, the call sent again unchanged runs, and the run is
//! reported unsuccessful; when the questions state one number the call lacks, constrained
//! decoding holds the argument to it (SmolLM2 sent `amount: 1` again, e168127).

use serde_json::Value;

use super::facts::{number, numbered_words, numbers, seen_in, tokens, word_number};
use super::task_values::{plain, sent_number, Contradiction};

/// Factors by which a stated number is the same amount in another unit (hours → minutes, metres →
/// centimetres, kilo → unit, hours → seconds, days → hours, weeks → days, years → months).
const UNIT_FACTORS: [f64; 7] = [60.0, 100.0, 1000.0, 3600.0, 24.0, 7.0, 12.0];

/// A number a question states, as a whole token: `250`, `$1,250.00`, `seven`.
pub(crate) struct Stated<'a> {
    /// Its value.
    pub n: f64,
    shown: &'a str,
}

/// The numbers `asked` states as whole tokens, in order. `one` and `zero` are left out: "the
/// cheapest one" states no count.
pub(crate) fn stated(asked: &str) -> Vec<Stated<'_>> {
    tokens(asked)
        .into_iter()
        .filter_map(|token| {
            let n = number(token).or_else(|| word_number(&token.to_lowercase()).filter(|n| *n >= 2.0))?;
            Some(Stated { n, shown: token })
        })
        .collect()
}

/// Whether `n` is `s` in another unit.
fn in_another_unit(n: f64, s: f64) -> bool {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
    UNIT_FACTORS.iter().any(|f| close(n, s * f) || close(n * f, s))
}

/// The top-level number arguments of `args` that are in nothing the user asked (`asked`) and
/// nothing the model was given (`seen`, read only when needed: the questions, and the arguments and
/// results of calls that worked), while a number `asked` states is in no argument of the call; each with the first such
/// stated number to send instead. `schema` is the tool's input schema: an argument with an `enum`
/// is left to the validator.
pub(crate) fn unstated_numbers(
    asked: &str,
    seen: impl FnOnce() -> String,
    schema: &Value,
    args: &Value,
) -> Vec<Contradiction> {
    let Some(object) = args.as_object() else { return Vec::new() };
    let stated = stated(asked);
    let carried = numbers(&args.to_string());
    let mut missing_all = stated.iter().filter(|s| !carried.contains(&s.n));
    let Some(missing) = missing_all.next() else { return Vec::new() };
    // One number missing: the one to send is no guess, and is held (`Contradiction::hold`).
    let only = missing_all.all(|s| s.n == missing.n);
    if !object.values().any(|v| sent_number(v).is_some()) {
        return Vec::new();
    }
    // Read only now: it holds the session's every result.
    let seen = numbers(&seen());
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut found = Vec::new();
    for (field, value) in object {
        let Some(sent) = sent_number(value) else { continue };
        let constrained = properties.and_then(|p| p.get(field)).is_some_and(|s| s.get("enum").is_some());
        if constrained || seen.contains(&sent) || stated.iter().any(|s| in_another_unit(sent, s.n)) {
            continue;
        }
        let instead = if value.is_string() { format!("\"{}\"", plain(missing.n)) } else { plain(missing.n) };
        found.push(Contradiction {
            field: field.clone(),
            sent: value.to_string(),
            task_says: missing.shown.to_string(),
            because: "a number in no question and no result".to_string(),
            hold: only,
            instead,
        });
    }
    found
}

/// A code argument of three capitals (`"EUR"`), the form currency codes take.
pub(crate) fn code(value: &Value) -> Option<&str> {
    value.as_str().map(str::trim).filter(|s| is_code(s))
}

/// Whether `text` is three capitals (`EUR`), the form currency codes take.
pub(crate) fn is_code(text: &str) -> bool {
    text.len() == 3 && text.chars().all(|c| c.is_ascii_uppercase())
}

/// The code argument that should carry the unit a number was asked with: the questions say
/// "250 USD", the call sends 250 with no argument "USD", and exactly one code argument is one the
/// current `task` does not name — that one, with the asked unit to send instead. SmolLM2, asked
/// "And to GBP?" after "Convert 250 USD to EUR.", converted 250 EUR to GBP, reported a success
/// (recovery bench follow-up-amount, 0d601e1). `asked` is the questions, `task` the current one.
pub(crate) fn unit_left_behind(asked: &str, task: &str, args: &Value) -> Vec<Contradiction> {
    let Some(object) = args.as_object() else { return Vec::new() };
    let codes: Vec<(&String, &str)> = object.iter().filter_map(|(k, v)| code(v).map(|c| (k, c))).collect();
    let sent: Vec<f64> = object.values().filter_map(sent_number).collect();
    let task = task.to_lowercase();
    let mut found = Vec::new();
    for asked in numbered_words(asked) {
        let unit = asked.word.to_ascii_uppercase();
        if asked.word.chars().count() != 3
            || !sent.contains(&asked.n)
            || codes.iter().any(|(_, c)| *c == unit)
        {
            continue;
        }
        let unnamed: Vec<&(&String, &str)> =
            codes.iter().filter(|(_, c)| !seen_in(&task, &c.to_lowercase())).collect();
        if let [(field, sent_code)] = unnamed.as_slice() {
            found.push(Contradiction {
                field: (*field).clone(),
                sent: Value::from(*sent_code).to_string(),
                task_says: format!("{} {unit}", asked.number),
                because: String::new(),
                hold: true,
                instead: Value::from(unit).to_string(),
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}}})
    }

    #[test]
    fn a_number_from_nowhere_is_refused_with_the_one_the_conversation_states() {
        let asked = "And to GBP?\nConvert 250 USD to EUR.";
        let seen = "and to gbp?\nconvert 250 usd to eur.\n250 usd = 230.00 eur";
        let found = unstated_numbers(
            asked,
            || seen.to_string(),
            &schema(),
            &json!({"amount": 1, "from": "GBP", "to": "USD"}),
        );
        let fields: Vec<(&str, &str, &str)> =
            found.iter().map(|c| (c.field.as_str(), c.task_says.as_str(), c.instead.as_str())).collect();
        assert_eq!(fields, [("amount", "250", "250")]);
    }

    #[test]
    fn a_number_stated_seen_or_in_another_unit_is_not() {
        let asked = "And to GBP?\nConvert 250 USD to EUR.";
        let seen = "and to gbp?\nconvert 250 usd to eur.\n250 usd = 230.00 eur";
        for args in [json!({"amount": 250}), json!({"amount": 230, "from": "EUR"}), json!({"amount": "250"})]
        {
            assert!(unstated_numbers(asked, || seen.to_string(), &schema(), &args).is_empty(), "{args}");
        }
        let timer = json!({"type": "object", "properties": {"seconds": {"type": "integer"}}});
        assert!(unstated_numbers(
            "Time 2 laps.",
            || "time 2 laps.".to_string(),
            &timer,
            &json!({"seconds": 7200})
        )
        .is_empty());
    }

    #[test]
    fn nothing_is_refused_when_every_stated_number_is_carried_or_none_is_stated() {
        let search = json!({"type": "object", "properties": {"year": {"type": "integer"}, "limit": {"type": "integer"}}});
        let carried = unstated_numbers(
            "Films from 1999.",
            || "films from 1999.".to_string(),
            &search,
            &json!({"year": 1999, "limit": 10}),
        );
        assert!(carried.is_empty(), "a call carrying every stated number may add its own");
        let none = unstated_numbers(
            "Find the cheapest one.",
            || "find the cheapest one.".to_string(),
            &search,
            &json!({"limit": 5}),
        );
        assert!(none.is_empty(), "`one` states no count, and nothing else is stated");
        let time = unstated_numbers(
            "Book a table at 19:30.",
            || "book a table at 19:30.".to_string(),
            &json!({"type": "object"}),
            &json!({"time": "19:30", "minutes": 90}),
        );
        assert!(time.is_empty(), "the parts of a time are not stated numbers");
    }

    #[test]
    fn a_number_sent_without_the_unit_it_was_asked_in_is_refused_at_the_code_the_task_does_not_name() {
        let asked = "and to gbp?\nconvert 250 usd to eur.";
        let found =
            unit_left_behind(asked, "And to GBP?", &json!({"amount": 250, "from": "EUR", "to": "GBP"}));
        let fields: Vec<(&str, &str, &str)> =
            found.iter().map(|c| (c.field.as_str(), c.task_says.as_str(), c.instead.as_str())).collect();
        assert_eq!(fields, [("from", "250 USD", "\"USD\"")]);
        assert!(unit_left_behind(asked, "And to GBP?", &json!({"amount": 250, "from": "USD", "to": "GBP"}))
            .is_empty());
        assert!(
            unit_left_behind(asked, "And to GBP?", &json!({"amount": 230, "from": "EUR", "to": "GBP"}))
                .is_empty(),
            "another number: the earlier answer's amount, in its unit"
        );
        let first = "convert 250 usd to eur.";
        assert!(
            unit_left_behind(
                first,
                "Convert 250 USD to EUR.",
                &json!({"amount": 250, "from": "EUR", "to": "USD"})
            )
            .is_empty(),
            "every code named by the task: which one is wrong is not known"
        );
    }

    #[test]
    fn an_argument_with_an_enum_is_left_to_the_validator() {
        let schema =
            json!({"type": "object", "properties": {"stars": {"type": "integer", "enum": [1, 2, 3]}}});
        assert!(unstated_numbers(
            "Rate order 4471.",
            || "rate order 4471.".to_string(),
            &schema,
            &json!({"stars": 3})
        )
        .is_empty());
    }
}
