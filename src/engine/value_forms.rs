//! A refused argument in the form tools usually want: a 12-hour time on the 24-hour clock
//! (`7:30 PM` → `19:30`), a number in words in digits (`seven` → `7`). When a call's arguments are
//! refused (`INVALID_ARGS`, by the schema or by the tool) and one of its values is in such a form,
//! the plan's first step names the other form. Qwen2.5-Coder-0.5B, told "time '7:30 PM' is not in
//! HH:MM 24-hour format", sent `7:30 PM` again and then gave up (recovery bench time-format,
//! ec588f2): the conversion is the step a small model does not make on its own.

use serde_json::Value;

use crate::errors::{Envelope, ErrorCode};

use super::facts::word_number;
use super::narrowing::Narrowing;
use super::run::RunState;
use super::times_of_day::{hhmm, time_value};

/// A number written in words, as one to ninety-nine, a dozen, a hundred or a thousand
/// (`seven`, `twenty-one`, `twenty one`); not `half` or `zero`, which rarely mean a count.
fn in_words(text: &str) -> Option<f64> {
    let joined = text.trim().to_lowercase().split_whitespace().collect::<Vec<_>>().join("-");
    word_number(&joined).filter(|n| *n >= 1.0 && n.fract() == 0.0)
}

/// One argument in a form tools rarely take, and the form they usually do.
struct OtherForm {
    field: String,
    sent: String,
    /// As JSON: `"19:30"`, or `7` for a number in words (a tool taking text gets `"7"`).
    value: Value,
    /// What the value is ("on the 24-hour clock", "in digits").
    what: &'static str,
}

/// The top-level string arguments of `args` in a 12-hour or worded form, in argument order.
fn other_forms_of(args: &Value) -> Vec<OtherForm> {
    let Some(args) = args.as_object() else { return Vec::new() };
    args.iter()
        .filter_map(|(field, value)| {
            let text = value.as_str()?;
            let (value, what) = if let Some(time) = time_value(text).filter(|t| t.twelve_hour) {
                (Value::from(hhmm(time.minutes[0])), "on the 24-hour clock")
            } else {
                (Value::from(in_words(text)? as i64), "in digits")
            };
            Some(OtherForm { field: field.clone(), sent: text.to_string(), value, what })
        })
        .collect()
}

/// For each top-level string argument in a 12-hour or worded form, a plan step that makes the call
/// with its other form (to `tool`, or "the tool"), in argument order: an instruction, not a fact,
/// since Qwen read "`time` '7:30 PM' on the 24-hour clock is \"19:30\"." and sent `7:30 PM`
/// again (recovery bench time-format, 9142902).
pub(crate) fn other_forms(tool: Option<&str>, args: &Value) -> Vec<String> {
    let tool = tool.map_or_else(|| "the tool".to_string(), |t| format!("`{t}`"));
    other_forms_of(args)
        .into_iter()
        .map(|form| {
            let OtherForm { field, sent, value, what } = form;
            match &value {
                Value::Number(n) => {
                    format!("Call {tool} again with `{field}`: {n} ('{sent}' {what}), or \"{n}\" if it takes text.")
                }
                _ => format!("Call {tool} again with `{field}`: {value} ('{sent}' {what})."),
            }
        })
        .collect()
}

/// Puts [`other_forms`] of the call's `args` first in the plan of an `INVALID_ARGS` envelope.
pub(crate) fn add_other_forms(envelope: &mut Envelope, args: &Value) {
    if envelope.code != ErrorCode::InvalidArgs {
        return;
    }
    let forms = other_forms(envelope.tool.as_deref(), args);
    if !forms.is_empty() {
        envelope.recovery.splice(0..0, forms);
    }
}

impl RunState<'_> {
    /// After `tool` refused `args` (`INVALID_ARGS`), narrows each argument in a 12-hour or worded
    /// form to its other form until a call of `tool` works: under constrained decoding the refused
    /// form cannot be sent again. Qwen, given the plan "Call `set_alarm` again with `time`:
    /// \"19:30\"", sent `7:30 PM` again, then answered "The alarm id is 19:30 PM." (recovery bench
    /// time-format, d481dea).
    pub(crate) fn narrow_to_other_forms(&mut self, tool: &str, args: &Value) {
        for form in other_forms_of(args) {
            let options = match &form.value {
                Value::Number(n) => vec![form.value.clone(), Value::from(n.to_string())],
                _ => vec![form.value.clone()],
            };
            self.narrowings.learn(Narrowing::until_worked(tool, &form.field, options));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_12_hour_time_and_a_number_in_words_get_their_other_form() {
        let forms = other_forms(
            Some("set_alarm"),
            &json!({"time": "7:30 PM", "label": "gym", "count": "seven", "n": "twenty one"}),
        );
        assert_eq!(
            forms,
            [
                "Call `set_alarm` again with `time`: \"19:30\" ('7:30 PM' on the 24-hour clock).",
                "Call `set_alarm` again with `count`: 7 ('seven' in digits), or \"7\" if it takes text.",
                "Call `set_alarm` again with `n`: 21 ('twenty one' in digits), or \"21\" if it takes text."
            ]
        );
        assert!(other_forms(
            None,
            &json!({"time": "19:30", "label": "one more", "people": 4, "city": "Austin"})
        )
        .is_empty());
        assert!(other_forms(None, &json!(["7 pm"])).is_empty());
        assert!(other_forms(None, &json!({"time": "7pm"}))[0]
            .starts_with("Call the tool again with `time`: \"19:00\""));
    }
}
