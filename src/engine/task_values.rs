//! A call that contradicts the task: the task says "four people at 19:30" and the call sends
//! `people: 1, time: "20:30"`. SmolLM2 did exactly that on the recovery bench (wrong-type, fe8590e):
//! the tool booked a table for one at 20:30, and its reference came back as a successful answer.
//! The "a fix that drops the value" is the same failure after a refusal: a number written
//! in words was refused, and the "fixed" call sent another number.
//!
//! Two kinds of value are read from the task, where reading them is safe:
//! - **times of day** (`times_of_day.rs`): an argument whose whole value is a time, when the task
//!   states times and none of them is that one;
//! - **counts of things** ("four people", "2 nights", "seven seats"): a number argument whose
//!   name or description names the counted thing (`people`, `party_size` "number of people"),
//!   when the task counts that thing and never with this number.
//!
//! More are read by their own files: a number argument from nowhere while the questions state
//! another, or a stated number sent with another code than the one it was asked in
//! (`unstated_numbers.rs`), and an item other than the latest or earliest one a result
//! lists when the task asks for that end (`latest_listed.rs`).
//!
//! A call like that is refused once before it runs (`CONTRADICTS_TASK`), naming the task's value;
//! under constrained decoding, a value the task states once is then held until a call of the tool
//! works (`Contradiction::hold`).
//! Sent again unchanged it runs, and the run is reported unsuccessful, with a warning naming the
//! contradiction: SmolLM2 sent the refused booking again and answered with its reference
//! (recovery bench wrong-type, 9142902). A task that places a time relative to another ("ten
//! minutes before my 9:00 call") has its times left unchecked: the call's time is computed.

use serde_json::Value;

use crate::errors::{CallContext, ErrorCode, FailureHints, RawFailure};
use crate::tools::ToolSpec;

use super::conversion_codes::{source_unit_changed, target_not_asked};
use super::facts::{name_words, number, numbered_words, singular, tokens};
use super::latest_listed::not_the_asked_end;
use super::memory::steps;
use super::narrowing::Narrowing;
use super::run::RunState;
use super::times_of_day::{hhmm, time_value, times_in};
use super::unstated_numbers::{unit_left_behind, unstated_numbers};
use super::{Action, CallKey, Outcome};

/// One argument that contradicts the task.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Contradiction {
    /// The argument's name.
    pub field: String,
    /// What the call sent, as JSON text.
    pub sent: String,
    /// What the task says, as it says it (`four people`, `7:30 pm`).
    pub task_says: String,
    /// Why the sent value is not that, when it needs saying (`ORD-5521 is dated 2025-09-02,
    /// ORD-5310 2025-08-14`); empty when the task's words say it.
    pub because: String,
    /// Whether constrained decoding holds the argument to `instead` until a call of the tool
    /// works: a listed item the task's words pick (`latest_listed.rs`; Qwen sent the older order
    /// again after the refusal's plan named the latest, recovery bench guessed-id, 8393167), and a
    /// time or a count the task states once, unambiguously (SmolLM2 sent `people: 1` again and
    /// booked for one, wrong-type), and the one number the questions state that a call with a
    /// number from nowhere lacks (`unstated_numbers.rs`).
    pub hold: bool,
    /// The value to send instead, as JSON in the argument's form (`4`, `"19:30"`).
    pub instead: String,
}

/// A count the task states: `four people` → `person`, 4.
#[derive(Debug, Clone, PartialEq)]
struct Count {
    noun: String,
    n: f64,
    shown: String,
}

/// Words that follow a number without being what it counts (words under three letters, `am`,
/// `of`, are never taken: `facts::numbered_words`).
const NOT_COUNTED: &[&str] =
    &["and", "the", "for", "more", "less", "than", "times", "percent", "per", "out", "from", "with"];

/// Words by which a task places a time relative to another: its call's time is computed.
const RELATIVE: &[&str] = &[
    "before", "after", "earlier", "later", "minutes", "minute", "hours", "hour", "mins", "ago", "until",
    "from now",
];

/// The counts of things `task` states, in order.
fn counts_in(task: &str) -> Vec<Count> {
    numbered_words(task)
        .into_iter()
        .filter(|w| w.n.fract() == 0.0 && w.n > 0.0 && !NOT_COUNTED.contains(&w.word.to_lowercase().as_str()))
        .map(|w| Count { noun: singular(w.word), n: w.n, shown: format!("{} {}", w.number, w.word) })
        .collect()
}

/// The number an argument sends: a JSON number, or a string of digits (`"7"`).
pub(crate) fn sent_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => number(s.trim()).filter(|_| s.trim().chars().all(|c| c.is_ascii_digit())),
        _ => None,
    }
}

/// A whole number as the model reads it: `4`, not `4.0`.
pub(crate) fn plain(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// The top-level arguments of a call to `spec` that contradict a time or a count `task` states,
/// in the schema's order.
pub(crate) fn contradictions(task: &str, spec: &ToolSpec, args: &Value) -> Vec<Contradiction> {
    let Some(args) = args.as_object() else { return Vec::new() };
    let lower = task.to_lowercase();
    let relative = RELATIVE.iter().any(|w| super::facts::seen_in(&lower, w));
    let times = if relative { Vec::new() } else { times_in(task, true) };
    let counts = counts_in(task);
    if times.is_empty() && counts.is_empty() {
        return Vec::new();
    }
    let properties = spec.input_schema.get("properties").and_then(Value::as_object);
    let mut found = Vec::new();
    for (field, value) in args {
        if let (Some(sent), false) = (value.as_str().and_then(time_value), times.is_empty()) {
            let minutes = sent.minutes[0];
            if !times.iter().any(|t| t.allows(minutes)) {
                let said = &times[0];
                // The task's own time in the form the call used: 24-hour unless it sent am/pm.
                let time = if sent.twelve_hour {
                    said.shown.clone()
                } else {
                    hhmm(said.minutes[said.minutes.len() - 1])
                };
                let instead = Value::from(time).to_string();
                found.push(Contradiction {
                    field: field.clone(),
                    sent: value.to_string(),
                    task_says: said.shown.clone(),
                    because: String::new(),
                    hold: times.len() == 1 && said.minutes.len() == 1,
                    instead,
                });
            }
            continue;
        }
        let Some(sent) = sent_number(value) else { continue };
        let mut named = name_words(field);
        if let Some(description) =
            properties.and_then(|p| p.get(field)).and_then(|s| s.get("description")).and_then(Value::as_str)
        {
            named.extend(tokens(description).into_iter().map(singular));
        }
        let counted: Vec<&Count> = counts.iter().filter(|c| named.contains(&c.noun)).collect();
        if let Some(first) = counted.first() {
            if !counted.iter().any(|c| c.n == sent) {
                let instead =
                    if value.is_string() { format!("\"{}\"", plain(first.n)) } else { plain(first.n) };
                found.push(Contradiction {
                    field: field.clone(),
                    sent: value.to_string(),
                    task_says: first.shown.clone(),
                    because: String::new(),
                    hold: counted.len() == 1,
                    instead,
                });
            }
        }
    }
    found
}

impl RunState<'_> {
    /// Every top-level argument of a call to `spec` that contradicts what the user asked: a time or
    /// a count the task states (`contradictions`), a number from nowhere while the questions state
    /// another (`unstated_numbers.rs`), an item other than the latest or earliest one a result
    /// lists when the task asks for that end (`latest_listed.rs`); one per argument, in that order.
    fn contradicting(&self, spec: &ToolSpec, args: &Value) -> Vec<Contradiction> {
        let mut found = contradictions(&self.task, spec, args);
        let asked = self.asked_text();
        if !RELATIVE.iter().any(|w| super::facts::seen_in(&asked, w)) {
            found.extend(unstated_numbers(&asked, || self.worked_text(), &spec.input_schema, args));
            found.extend(unit_left_behind(&asked, &self.task, args));
        }
        let results = || {
            steps(self.shown_memory())
                .chain(&self.turns)
                .filter(|t| t.worked())
                .map(|t| t.observation.as_str())
                .collect()
        };
        found.extend(not_the_asked_end(&self.task, results, args));
        found.extend(target_not_asked(&self.task, spec, args));
        found.extend(source_unit_changed(results, &asked, spec, args));
        let mut fields = std::collections::BTreeSet::new();
        found.retain(|c| fields.insert(c.field.clone()));
        found
    }

    /// Refuses the call before it runs if an argument contradicts what the user asked
    /// ([`Self::contradicting`]), the first time it is sent (`taskValues`): the observation and how
    /// the step ended.
    pub(crate) fn refuse_contradicting(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        action: &Action,
        key: &CallKey,
    ) -> Option<(String, Outcome)> {
        if !self.agent.config.task_values || self.contradicted.contains_key(key) {
            return None;
        }
        let found = self.contradicting(spec, &action.args);
        if found.is_empty() {
            return None;
        }
        let said: Vec<String> =
            found.iter().map(|c| format!("`{}` is {} but {}", c.field, c.sent, says(c))).collect();
        let message = format!("{}: `{}` was not called.", said.join("; "), spec.name);
        let values: Vec<String> = found.iter().map(|c| format!("`{}`: {}", c.field, c.instead)).collect();
        let recovery = vec![
            format!("Call `{}` again with {}, as the task says.", spec.name, values.join(" and ")),
            "Keep the other arguments as they were.".to_string(),
        ];
        for held in found.iter().filter(|c| c.hold) {
            if let Ok(value) = serde_json::from_str::<Value>(&held.instead) {
                self.narrowings.learn(Narrowing::until_worked(&spec.name, &held.field, vec![value]));
            }
        }
        self.contradicted.insert(key.clone(), found);
        let hints = FailureHints { recovery: Some(recovery), ..Default::default() };
        let raw = RawFailure::message(message).with_hints(hints);
        let envelope = self.envelope(ErrorCode::ContradictsTask, &raw, Some(action), CallContext::default());
        // Not recorded as a failed call for the repeat check: the same call sent again must run.
        self.fail(step, Some(&spec.name), Some(key), &envelope, 1);
        Some((self.show(&envelope), Outcome::Failed))
    }
}

/// "the task says '…'", with why the sent value is not that when it needs saying.
fn says(c: &Contradiction) -> String {
    if c.because.is_empty() {
        format!("the task says '{}'", c.task_says)
    } else {
        format!("the task says '{}' ({})", c.task_says, c.because)
    }
}

impl RunState<'_> {
    /// Whether a call refused as contradicting the task was sent again and ran (`taskValues`):
    /// the run is then unsuccessful, and the page is told which call and why.
    pub(crate) fn ran_against_task(&self) -> bool {
        if !self.agent.config.task_values || self.contradicted.is_empty() {
            return false;
        }
        let ran = self.turns.iter().find_map(|t| match (&t.action, t.outcome) {
            (Some(action), Outcome::Ok | Outcome::Warning) => {
                self.contradicted.get(&CallKey::new(&action.tool, &action.args)).map(|found| (action, found))
            }
            _ => None,
        });
        let Some((action, found)) = ran else { return false };
        let said: Vec<String> =
            found.iter().map(|c| format!("`{}` {} where {}", c.field, c.sent, says(c))).collect();
        self.warn(
            Some(self.step()),
            format!(
                "`{}` ran with {} after it was refused for contradicting the task: the run is reported unsuccessful.",
                action.tool,
                said.join(", ")
            ),
        );
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn booking() -> ToolSpec {
        ToolSpec::new(
            "book_table",
            "Books a restaurant table.",
            json!({"type": "object", "properties": {
                "restaurant": {"type": "string"},
                "people": {"type": "integer"},
                "time": {"type": "string", "description": "HH:MM, 24-hour"}}}),
        )
    }

    const TASK: &str = "Book a table at Luigi's for four people at 19:30 and tell me the booking reference.";

    #[test]
    fn a_count_and_a_time_the_task_states_are_kept() {
        let found =
            contradictions(TASK, &booking(), &json!({"restaurant": "Luigi's", "people": 1, "time": "20:30"}));
        let fields: Vec<(&str, &str, &str)> =
            found.iter().map(|c| (c.field.as_str(), c.task_says.as_str(), c.instead.as_str())).collect();
        assert_eq!(fields, [("people", "four people", "4"), ("time", "19:30", "\"19:30\"")]);
        assert!(contradictions(
            TASK,
            &booking(),
            &json!({"restaurant": "Luigi's", "people": 4, "time": "19:30"})
        )
        .is_empty());
        assert!(
            contradictions(TASK, &booking(), &json!({"people": "4", "time": "7:30 pm"})).is_empty(),
            "a digit string and the same time in 12-hour form agree with the task"
        );
    }

    #[test]
    fn an_ambiguous_task_time_allows_either_half_and_a_12_hour_call_is_shown_its_form() {
        let alarm = ToolSpec::new(
            "set_alarm",
            "",
            json!({"type": "object", "properties": {"time": {"type": "string"}}}),
        );
        let task = "Set an alarm for 7:30 pm called 'gym'.";
        assert!(contradictions(task, &alarm, &json!({"time": "19:30"})).is_empty());
        let morning = contradictions(task, &alarm, &json!({"time": "07:30"}));
        assert_eq!(morning[0].instead, "\"19:30\"");
        let other = contradictions(task, &alarm, &json!({"time": "8:30 PM"}));
        assert_eq!(other[0].instead, "\"7:30 pm\"");
        for either in ["07:30", "19:30"] {
            assert!(
                contradictions("Wake me at 7:30.", &alarm, &json!({"time": either})).is_empty(),
                "{either}"
            );
        }
    }

    #[test]
    fn a_count_is_matched_by_the_arguments_name_or_description_only() {
        let reserve = ToolSpec::new(
            "reserve",
            "",
            json!({"type": "object", "properties": {
                "party_size": {"type": "integer", "description": "number of people"},
                "page": {"type": "integer"},
                "count": {"type": "string", "description": "how many seats"}}}),
        );
        let task = "Reserve seats for seven people at the 20:00 show.";
        let found = contradictions(task, &reserve, &json!({"party_size": 2, "page": 1, "count": "7"}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].field.as_str(), found[0].instead.as_str()), ("party_size", "7"));
        let nights = ToolSpec::new(
            "stay",
            "",
            json!({"type": "object", "properties": {"nights": {"type": "integer"}}}),
        );
        assert_eq!(contradictions("Two rooms for 3 nights.", &nights, &json!({"nights": 2}))[0].instead, "3");
        assert!(contradictions("Two rooms for 3 nights.", &nights, &json!({"nights": 3})).is_empty());
    }

    #[test]
    fn a_time_placed_relative_to_another_is_left_unchecked() {
        let remind =
            ToolSpec::new("remind", "", json!({"type": "object", "properties": {"at": {"type": "string"}}}));
        let task = "Remind me ten minutes before my 9:00 call.";
        assert!(contradictions(task, &remind, &json!({"at": "08:50"})).is_empty());
        assert_eq!(contradictions("Remind me at 9:00.", &remind, &json!({"at": "08:50"})).len(), 1);
    }

    #[test]
    fn a_task_without_times_or_counts_contradicts_nothing() {
        assert!(contradictions(
            "What's the weather in Austin?",
            &booking(),
            &json!({"people": 9, "time": "03:00"})
        )
        .is_empty());
        assert_eq!(singular("boxes"), "box");
        assert_eq!(singular("stories"), "story");
        assert_eq!(singular("people"), "person");
        assert_eq!(singular("glass"), "glass");
        assert_eq!(name_words("numPeople"), ["num", "person"]);
    }
}
