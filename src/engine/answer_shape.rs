//! A grounded answer that does not give what the task asks for. Every value in it came from a
//! tool, so the grounding check passes it, yet it is wrong, and the run was reported a success:
//! - **one of several amounts where the task asks for them combined**: "How much do my two unpaid
//!   invoices come to together?" answered "$1,250.00", the first of the two the tool listed
//!   (both models, recovery bench arithmetic-grounded, fe8590e and ec588f2);
//! - **another unit than the task names**: "What's the temperature in Austin in Fahrenheit?"
//!   answered "31°C" after a call with `units: "metric"` (Qwen, unknown-key, ec588f2).
//!
//! Such an answer gets an `ANSWER_MISMATCH` envelope saying what it gave and what the task asks
//! for (the amounts and their sum; the unit asked) and one more step; if the model persists, the
//! run ends unsuccessful with an answer that says so.

use crate::errors::{CallContext, ErrorCode, FailureHints, RawFailure};

use serde_json::Value;

use super::answer_check::Verdict;
use super::facts::{decimals, number, seen_in, tokens};
use super::latest_listed::{other_item, OtherItem};
use super::narrowing::Narrowing;
use super::run::RunState;
use super::{CallKey, Outcome};

/// Phrases by which a task asks for several values combined. Not a bare "total" ("the total of my
/// most recent order" asks for one value) nor "both" ("which of both is cheaper").
const COMBINED: &[&str] = &[
    "together",
    "combined",
    "altogether",
    "in total",
    "in all",
    "sum of",
    "add up",
    "adds up",
    "added up",
    "total of all",
    "total of both",
    "grand total",
];

/// The units an answer can give in the wrong one of: each family's units, each with its
/// spellings (lowercase, matched as whole words; `°f` after a number too).
const UNITS: &[(&str, &[&str])] = &[
    ("°F", &["fahrenheit", "°f", "degrees f"]),
    ("°C", &["celsius", "centigrade", "°c", "degrees c"]),
    ("miles", &["mile", "miles", "mph"]),
    ("km", &["km", "kilometer", "kilometers", "kilometre", "kilometres", "km/h", "kph"]),
    ("kg", &["kg", "kilogram", "kilograms", "kilos"]),
    ("lb", &["lb", "lbs"]),
];

/// The unit families: indexes into [`UNITS`].
const FAMILIES: &[&[usize]] = &[&[0, 1], &[2, 3], &[4, 5]];

/// What is wrong with an answer's shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mismatch {
    /// The answer states `given`, one of the `amounts` `tool` returned, where the task asks for
    /// them combined; `sum` is their sum, written as they are.
    OneOfSeveral { given: String, tool: String, amounts: Vec<String>, sum: String },
    /// The answer gives `given` where the task asks for `asked`.
    OtherUnit { given: String, asked: String },
    /// The answer gives a value of a listed item other than the one at the end the task asks for
    /// (`latest_listed.rs`).
    OtherItem(OtherItem),
}

impl Mismatch {
    /// What the envelope's message says.
    pub(crate) fn message(&self) -> String {
        match self {
            Mismatch::OneOfSeveral { given, tool, amounts, .. } => format!(
                "Your answer gives {given}, only one of the amounts `{tool}` returned ({}), but the task asks for them combined.",
                amounts.join(", ")
            ),
            Mismatch::OtherUnit { given, asked } => {
                format!("Your answer gives {given}, but the task asks for {asked}.")
            }
            Mismatch::OtherItem(o) => format!(
                "Your answer gives {}, listed for an item dated {}, but the task asks for the {} one: \"{}\".",
                o.given, o.given_date, o.asked, o.best
            ),
        }
    }

    /// The plan: the facts the model needs for the answer the task asks for.
    pub(crate) fn recovery(&self) -> Vec<String> {
        match self {
            Mismatch::OneOfSeveral { tool, amounts, sum, .. } => vec![
                sum_step(tool, amounts, sum),
                "Answer with the combined figure the task asks for.".to_string(),
            ],
            Mismatch::OtherUnit { given, asked } => vec![
                format!("Call the tool again with the arguments that give {asked}, or convert the value from {given} to {asked}."),
                format!("Then answer in {asked}."),
            ],
            Mismatch::OtherItem(o) => vec![
                format!("The {} one is \"{}\".", o.asked, o.best),
                "Answer with its values, exactly as the result shows them.".to_string(),
            ],
        }
    }

    /// Why the run ended unsuccessful, when the model persisted.
    pub(crate) fn why(&self) -> String {
        match self {
            Mismatch::OneOfSeveral { given, tool, amounts, .. } => format!(
                "the answer gave {given}, one of the amounts `{tool}` returned ({}), where the task asks for them combined",
                amounts.join(", ")
            ),
            Mismatch::OtherUnit { given, asked } => format!("the answer gave {given} where the task asks for {asked}"),
            Mismatch::OtherItem(o) => format!(
                "the answer gave {}, listed for an item dated {}, where the task asks for the {} one (\"{}\")",
                o.given, o.given_date, o.asked, o.best
            ),
        }
    }
}

/// Whether `text` (lowercase) names a unit by one of its spellings.
fn names(text: &str, unit: usize) -> bool {
    UNITS[unit].1.iter().any(|spelling| {
        if spelling.starts_with('°') {
            text.contains(spelling)
                && text.match_indices(spelling).any(|(at, _)| {
                    !text[at + spelling.len()..].chars().next().is_some_and(char::is_alphanumeric)
                })
        } else {
            seen_in(text, spelling)
        }
    })
}

/// Whether `text` (lowercase) states a value in a unit: a spelling right after a number ("88°f",
/// "88 fahrenheit", "88 degrees fahrenheit", "a 5-mile walk"). The task's own words repeated ("The temperature in
/// Austin in Fahrenheit is 31°C.": Qwen, unknown-key, 5846af0) state no value in it.
fn states_in(text: &str, unit: usize) -> bool {
    UNITS[unit].1.iter().any(|spelling| {
        text.match_indices(spelling).any(|(at, _)| {
            let after = text[at + spelling.len()..].chars().next();
            if after.is_some_and(char::is_alphanumeric) {
                return false;
            }
            let mut before = text[..at].split_whitespace().rev();
            let mut word = if spelling.starts_with('°') && !text[..at].ends_with(' ') {
                text[..at].rsplit(char::is_whitespace).next()
            } else {
                before.next()
            };
            if word.is_some_and(|w| w.starts_with("degree")) {
                word = before.next();
            }
            word.is_some_and(|w| {
                let digits = w.trim_start_matches(|c: char| !c.is_ascii_digit() && c != '-');
                number(digits.trim_end_matches(['°', '-'])).is_some()
            })
        })
    })
}

/// The unit `answer` gives where `task` asks for another of the same family.
fn other_unit(answer: &str, task: &str) -> Option<Mismatch> {
    let (answer, task) = (answer.to_lowercase(), task.to_lowercase());
    for family in FAMILIES {
        let asked: Vec<usize> = family.iter().copied().filter(|u| names(&task, *u)).collect();
        let [asked] = asked.as_slice() else { continue };
        if states_in(&answer, *asked) {
            continue;
        }
        if let Some(given) = family.iter().find(|u| *u != asked && names(&answer, **u)) {
            return Some(Mismatch::OtherUnit {
                given: UNITS[*given].0.to_string(),
                asked: UNITS[*asked].0.to_string(),
            });
        }
    }
    None
}

/// How an amount is written: the currency sign before it (or none) and the decimals it shows.
type Kind = (Option<char>, usize);

/// An amount in a text: its token (`1,250.00`), its value and how it is written (`$`, 2).
#[derive(Debug, Clone)]
struct Amount {
    token: String,
    value: f64,
    kind: Kind,
}

impl Amount {
    /// As the text shows it, sign included (`$1,250.00`).
    fn shown(&self) -> String {
        format!("{}{}", self.kind.0.map(String::from).unwrap_or_default(), self.token)
    }
}

/// The amounts of a text, in order.
fn amounts(text: &str) -> Vec<Amount> {
    let mut found = Vec::new();
    let mut from = 0;
    for token in tokens(text) {
        let at = from + text[from..].find(token).unwrap_or(0);
        from = at + token.len();
        let Some(n) = number(token) else { continue };
        let sign = text[..at].chars().next_back().filter(|c| matches!(c, '$' | '€' | '£' | '¥'));
        found.push(Amount { token: token.to_string(), value: n, kind: (sign, decimals(token)) });
    }
    found
}

/// `n` written like `like` (its sign, decimals and thousands separators).
fn written_like(n: f64, like: &Kind, grouped: bool) -> String {
    let fixed = format!("{n:.*}", like.1);
    let (whole, frac) = fixed.split_once('.').map_or((fixed.as_str(), None), |(w, f)| (w, Some(f)));
    let mut digits = whole.to_string();
    if grouped {
        let (sign, body) = whole.strip_prefix('-').map_or(("", whole), |b| ("-", b));
        let mut out = String::new();
        for (i, c) in body.chars().enumerate() {
            if i > 0 && (body.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        digits = format!("{sign}{out}");
    }
    let sign = like.0.map(String::from).unwrap_or_default();
    match frac {
        Some(frac) => format!("{sign}{digits}.{frac}"),
        None => format!("{sign}{digits}"),
    }
}

/// Two or more amounts of one result written alike, and their sum written as they are.
struct Listed {
    amounts: Vec<String>,
    sum: f64,
    shown_sum: String,
}

/// The amounts of `all` written as `kind`, when there are two or more.
fn listed(all: &[Amount], kind: Kind) -> Option<Listed> {
    let same: Vec<&Amount> = all.iter().filter(|a| a.kind == kind).collect();
    if same.len() < 2 {
        return None;
    }
    let sum = same.iter().map(|a| a.value).sum();
    let grouped = same.iter().any(|a| a.token.contains(','));
    Some(Listed {
        amounts: same.iter().map(|a| a.shown()).collect(),
        sum,
        shown_sum: written_like(sum, &kind, grouped),
    })
}

/// The plan step that states a sum: "`list_unpaid_invoices` returned $1,250.00 and $980.00: their
/// sum is $2,230.00."
fn sum_step(tool: &str, amounts: &[String], sum: &str) -> String {
    format!("`{tool}` returned {}: their sum is {sum}.", amounts.join(" and "))
}

/// One amount of a tool's result given where the task asks for several combined. `results`: each
/// tool's latest result.
fn one_of_several<'a>(
    answer: &str,
    task: &str,
    results: impl Iterator<Item = (&'a str, &'a str)>,
) -> Option<Mismatch> {
    if !asks_combined(task) {
        return None;
    }
    let asked: Vec<f64> = amounts(task).into_iter().map(|a| a.value).collect();
    let mut stated: Vec<Amount> = amounts(answer).into_iter().filter(|a| !asked.contains(&a.value)).collect();
    stated.dedup_by(|a, b| a.value == b.value);
    let [given] = stated.as_slice() else { return None };
    for (tool, result) in results {
        let all = amounts(result);
        let Some(kind) = all.iter().find(|a| a.value == given.value).map(|a| a.kind) else { continue };
        let Some(found) = listed(&all, kind).filter(|l| (l.sum - given.value).abs() >= 1e-9) else {
            continue;
        };
        return Some(Mismatch::OneOfSeveral {
            given: given.shown(),
            tool: tool.to_string(),
            amounts: found.amounts,
            sum: found.shown_sum,
        });
    }
    None
}

/// The fact a model asked to combine amounts needs, when `task` asks for several values combined
/// and one tool's latest result lists two or more amounts written alike: "`list_unpaid_invoices`
/// returned $1,250.00 and $980.00: their sum is $2,230.00." Qwen answered "2,238.00" for
/// $1,250.00 + $980.00 (recovery bench arithmetic-grounded, 9142902): the grounding check refused
/// it, and its plan now carries the sum.
pub(crate) fn sum_asked<'a>(task: &str, results: impl Iterator<Item = (&'a str, &'a str)>) -> Option<String> {
    if !asks_combined(task) {
        return None;
    }
    results.into_iter().find_map(|(tool, result)| {
        let all = amounts(result);
        let found = all.iter().find_map(|a| listed(&all, a.kind))?;
        Some(sum_step(tool, &found.amounts, &found.shown_sum))
    })
}

/// Whether `task` asks for several values combined ([`COMBINED`]).
fn asks_combined(task: &str) -> bool {
    let lower = task.to_lowercase();
    COMBINED.iter().any(|phrase| seen_in(&lower, phrase))
}

/// What is wrong with a grounded `answer` to `task`, given each tool's latest result, if anything.
pub(crate) fn mismatch<'a>(
    answer: &str,
    task: &str,
    results: impl Iterator<Item = (&'a str, &'a str)>,
) -> Option<Mismatch> {
    let results: Vec<(&str, &str)> = results.collect();
    one_of_several(answer, task, results.iter().copied())
        .or_else(|| other_unit(answer, task))
        .or_else(|| other_item(answer, task, results.iter().map(|(_, r)| *r)).map(Mismatch::OtherItem))
}

impl RunState<'_> {
    /// Checks that a grounded answer gives what the task asks for (`grounding`). The first answer
    /// that does not gets an `ANSWER_MISMATCH` envelope and one more step; one after that ends the
    /// run unsuccessful with an answer that says what it gave.
    pub(crate) async fn check_shape(
        &mut self,
        step: u32,
        thought: &str,
        answer: &str,
        reply: &str,
    ) -> Verdict {
        let results = self.outputs.iter().map(|(tool, result)| (tool.as_str(), result.as_str()));
        let Some(found) = mismatch(answer, &self.task, results) else { return Verdict::Accept };
        if self.mismatch_warned {
            self.answer_withheld = true;
            return Verdict::Replace(self.honest_answer(&found.why()));
        }
        self.mismatch_warned = true;
        let mut recovery = found.recovery();
        if let Mismatch::OtherUnit { given, asked } = &found {
            if let Some(OtherOptions { step, tool, held, call }) = self.other_options(given, asked) {
                recovery.insert(0, step);
                // Its result is out of date once the call in the asked unit works: the focused
                // answer and call quote the newer one alone. Shown both, SmolLM2 answered 31°C
                // again beside 88°F (recovery bench unknown-key, f607bb2).
                self.superseded.push(call);
                // The call is asked for alone, its arguments held to their other values: Qwen,
                // told which value to call with, answered °C again (unknown-key, 8393167).
                if self.agent.config.focused_call {
                    for (field, others) in held {
                        self.narrowings.learn(Narrowing::until_worked(&tool, &field, others));
                    }
                    self.focus_call = Some(tool);
                }
            }
        }
        if matches!(found, Mismatch::OneOfSeveral { .. } | Mismatch::OtherItem(_)) {
            // The focused answer quotes the sum, or the item at the asked end (`focused_answer.rs`).
            self.focus_answer_next();
        }
        let hints = FailureHints { recovery: Some(recovery), ..Default::default() };
        let raw = RawFailure::message(found.message()).with_hints(hints);
        let envelope = self.envelope(ErrorCode::AnswerMismatch, &raw, None, CallContext::default());
        self.reject_reply(step, thought.to_string(), envelope, reply.to_string()).await;
        Verdict::Retry
    }
}

impl RunState<'_> {
    /// For an answer in another unit than the task asks for: the newest call that worked whose
    /// result gives that unit, and the other values its `enum` arguments take — "Call
    /// `get_weather` again with `units` set to another of its values than \"metric\":
    /// \"imperial\"." (Qwen answered °C from `units: "metric"` and, told °F was asked, answered
    /// °C again: recovery bench unknown-key, 9142902.)
    fn other_options(&self, given: &str, asked: &str) -> Option<OtherOptions> {
        let unit = UNITS.iter().position(|(name, _)| *name == given)?;
        let action = self.turns.iter().rev().find_map(|t| match (&t.action, t.outcome) {
            (Some(action), Outcome::Ok | Outcome::Warning) if names(&t.observation.to_lowercase(), unit) => {
                Some(action)
            }
            _ => None,
        })?;
        let spec = self.agent.tools.get(&action.tool)?;
        let properties = spec.input_schema.get("properties")?.as_object()?;
        let mut options = Vec::new();
        let mut held = Vec::new();
        for (field, schema) in properties {
            let Some(values) = schema.get("enum").and_then(|e| e.as_array()) else { continue };
            let sent = action.args.get(field);
            let other_values: Vec<Value> = values.iter().filter(|v| Some(*v) != sent).cloned().collect();
            let others: Vec<String> = other_values.iter().map(Value::to_string).collect();
            if others.is_empty() {
                continue;
            }
            held.push((field.clone(), other_values));
            match sent {
                Some(sent) => options.push(format!(
                    "`{field}` set to another of its values than {sent}: {}",
                    others.join(", ")
                )),
                None => options.push(format!("`{field}` set to one of {}", others.join(", "))),
            }
        }
        if options.is_empty() {
            return None;
        }
        let step = format!("To get {asked}, call `{}` again with {}.", action.tool, options.join("; "));
        Some(OtherOptions {
            step,
            tool: action.tool.clone(),
            held,
            call: CallKey::new(&action.tool, &action.args),
        })
    }
}

/// What [`RunState::other_options`] found for an answer in another unit than the task asks for.
struct OtherOptions {
    /// The plan step naming the call and its other values.
    step: String,
    /// The tool whose result gave the other unit.
    tool: String,
    /// Each `enum` argument of that call with its other values.
    held: Vec<(String, Vec<Value>)>,
    /// The call that gave the other unit.
    call: CallKey,
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVOICES: &str = "INV-2025-014: $1,250.00\nINV-2025-016: $980.00";
    const TASK: &str = "How much do my two unpaid invoices come to together?";

    fn check(answer: &str, task: &str, result: &str) -> Option<Mismatch> {
        mismatch(answer, task, [("list_unpaid_invoices", result)].into_iter())
    }

    #[test]
    fn one_amount_where_the_task_asks_for_them_combined_is_caught_with_the_sum() {
        let found = check("The total amount of both unpaid invoices is $1,250.00.", TASK, INVOICES);
        assert_eq!(
            found,
            Some(Mismatch::OneOfSeveral {
                given: "$1,250.00".into(),
                tool: "list_unpaid_invoices".into(),
                amounts: vec!["$1,250.00".into(), "$980.00".into()],
                sum: "$2,230.00".into(),
            })
        );
        assert!(found.unwrap().recovery()[0].contains("their sum is $2,230.00"));
    }

    #[test]
    fn the_combined_figure_or_a_task_asking_for_one_value_passes() {
        assert_eq!(check("$2,230.00", TASK, INVOICES), None);
        assert_eq!(
            check("They come to 2230 together: $1,250.00 and $980.00.", TASK, INVOICES),
            None,
            "two amounts stated"
        );
        let order = "ORD-5521: 3 items, total $74.20, shipped";
        assert_eq!(check("$74.20", "What is the total of my most recent order?", order), None);
        assert_eq!(check("$1,250.00", "Which of my unpaid invoices is the largest?", INVOICES), None);
    }

    #[test]
    fn another_unit_than_the_task_names_is_caught() {
        let task = "What's the temperature in Austin in Fahrenheit? Use unit F.";
        assert_eq!(
            check("31°C", task, "Austin: 31°C, sunny."),
            Some(Mismatch::OtherUnit { given: "°C".into(), asked: "°F".into() })
        );
        assert_eq!(check("88°F", task, "Austin: 88°F, sunny."), None);
        assert_eq!(check("31°C, which is 88°F", task, ""), None, "the asked unit is given too");
        assert_eq!(check("88 degrees Fahrenheit, sunny", task, ""), None);
        assert_eq!(
            check("The temperature in Austin in Fahrenheit is 31°C, sunny.", task, ""),
            Some(Mismatch::OtherUnit { given: "°C".into(), asked: "°F".into() }),
            "the task's words repeated state no value in its unit"
        );
        assert_eq!(check("86°F", "Convert 30°C to Fahrenheit.", ""), None);
        assert_eq!(check("It is 31°C.", "What's the weather in Austin?", ""), None, "no unit asked");
        assert_eq!(
            check("12 km", "How far is it in miles?", ""),
            Some(Mismatch::OtherUnit { given: "km".into(), asked: "miles".into() })
        );
        assert_eq!(check("A 5-mile (8 km) walk.", "How far is it in miles?", ""), None, "a hyphened number");
    }

    #[test]
    fn the_sum_a_combined_task_needs_is_stated_from_the_result() {
        let results = || [("list_unpaid_invoices", INVOICES)].into_iter();
        assert_eq!(
            sum_asked(TASK, results()).as_deref(),
            Some("`list_unpaid_invoices` returned $1,250.00 and $980.00: their sum is $2,230.00.")
        );
        assert_eq!(sum_asked("Which invoice is the largest?", results()), None);
        assert_eq!(sum_asked(TASK, [("get_order", "ORD-5521: 3 items, total $74.20")].into_iter()), None);
    }

    #[test]
    fn sums_are_written_as_the_amounts_are() {
        assert_eq!(written_like(2230.0, &(Some('$'), 2), true), "$2,230.00");
        assert_eq!(written_like(1234567.5, &(None, 1), true), "1,234,567.5");
        assert_eq!(written_like(12.0, &(None, 0), false), "12");
    }
}
