//! Times of day in text: `19:30`, `7:30 pm`, `7pm`, `7 p.m.`, `07:05`, `9:00:00`. Read from a
//! task (which times it states) and from an argument (which time a call sends), so that a call
//! sending another time than the task's is caught (`task_values.rs`), and a 12-hour time a tool
//! refused can be shown on the 24-hour clock (`value_forms.rs`).

use super::facts::tokens;

/// A time of day a text states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TimeOfDay {
    /// As the text wrote it (`7:30 pm`).
    pub shown: String,
    /// The minutes after midnight it may mean: one, or two for a task's hour 1–11 written without
    /// am/pm (`7:30` is 07:30 or 19:30 until the task says which).
    pub minutes: Vec<u32>,
    /// Whether it was written with am/pm.
    pub twelve_hour: bool,
}

impl TimeOfDay {
    /// Whether it may mean `minutes` after midnight.
    pub fn allows(&self, minutes: u32) -> bool {
        self.minutes.contains(&minutes)
    }
}

/// `minutes` after midnight as 24-hour `HH:MM`.
pub(crate) fn hhmm(minutes: u32) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// `am` / `pm` (also `a.m`, as the tokens leave `a.m.`), as whether it is afternoon.
fn half(token: &str) -> Option<bool> {
    match token.to_lowercase().as_str() {
        "am" | "a.m" => Some(false),
        "pm" | "p.m" => Some(true),
        _ => None,
    }
}

/// `H:MM`, `HH:MM` or `HH:MM:SS` (hour and minute), or a bare hour `H`/`HH` when `bare_hour`.
fn clock(text: &str, bare_hour: bool) -> Option<(u32, u32)> {
    let mut parts = text.split(':');
    let hour = parts.next()?;
    let minute = parts.next();
    let second = parts.next();
    if parts.next().is_some()
        || hour.is_empty()
        || hour.len() > 2
        || !hour.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let two_digits = |s: &str| s.len() == 2 && s.chars().all(|c| c.is_ascii_digit());
    let minute = match minute {
        None if bare_hour => 0,
        None => return None,
        Some(m) if two_digits(m) => m.parse().ok()?,
        Some(_) => return None,
    };
    if second.is_some_and(|s| !two_digits(s)) {
        return None;
    }
    let hour: u32 = hour.parse().ok()?;
    (hour <= 23 && minute <= 59).then_some((hour, minute))
}

/// The time `(hour, minute)` with an optional am/pm means, or `None` when they do not fit
/// together (`13 pm`). Without am/pm, `ambiguous` reads an hour 1–11 both ways.
fn reading(hour: u32, minute: u32, pm: Option<bool>, ambiguous: bool) -> Option<Vec<u32>> {
    let at = |h: u32| h * 60 + minute;
    match pm {
        Some(_) if hour == 0 || hour > 12 => None,
        Some(true) => Some(vec![at(if hour == 12 { 12 } else { hour + 12 })]),
        Some(false) => Some(vec![at(if hour == 12 { 0 } else { hour })]),
        None if ambiguous && (1..12).contains(&hour) => Some(vec![at(hour), at(hour + 12)]),
        None => Some(vec![at(hour)]),
    }
}

/// The times of day `text` states, in order. `ambiguous`: an hour 1–11 without am/pm may be
/// either half of the day (a task's "at 7:30"); otherwise it is read on the 24-hour clock (an
/// argument's `07:30`).
pub(crate) fn times_in(text: &str, ambiguous: bool) -> Vec<TimeOfDay> {
    let words = tokens(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let token = words[i];
        let lower = token.to_lowercase();
        let next_half = words.get(i + 1).and_then(|t| half(t));
        // `7:30pm`, `7pm`: the half glued on.
        let glued = ["am", "pm"].iter().find_map(|suffix| {
            let body = lower.strip_suffix(suffix)?;
            Some((clock(body, true)?, Some(*suffix == "pm")))
        });
        let (time, pm, used) = if let Some((time, pm)) = glued {
            (time, pm, 1)
        } else if let Some(time) = clock(&lower, next_half.is_some()) {
            (time, next_half, if next_half.is_some() { 2 } else { 1 })
        } else {
            i += 1;
            continue;
        };
        match reading(time.0, time.1, pm, ambiguous) {
            Some(minutes) => {
                let shown = words[i..i + used].join(" ");
                found.push(TimeOfDay { shown, minutes, twelve_hour: pm.is_some() });
                i += used;
            }
            None => i += 1,
        }
    }
    found
}

/// The time an argument's value is, when the whole value is one time of day (`"19:30"`,
/// `"8:30 PM"`); read on the 24-hour clock when it has no am/pm.
pub(crate) fn time_value(value: &str) -> Option<TimeOfDay> {
    let value = value.trim();
    let mut times = times_in(value, false);
    let only = times.pop()?;
    let bare =
        |s: &str| s.chars().filter(|c| c.is_alphanumeric() || *c == ':').collect::<String>().to_lowercase();
    (times.is_empty() && bare(&only.shown) == bare(value)).then_some(only)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minutes(text: &str, ambiguous: bool) -> Vec<Vec<u32>> {
        times_in(text, ambiguous).into_iter().map(|t| t.minutes).collect()
    }

    #[test]
    fn times_are_read_with_and_without_am_pm() {
        assert_eq!(minutes("Set an alarm for 7:30 pm called 'gym'", true), [vec![1170]]);
        assert_eq!(
            minutes("at 7pm, or 7:30PM, or 7 p.m. or 12 am", true),
            [vec![1140], vec![1170], vec![1140], vec![0]]
        );
        assert_eq!(minutes("a table at 19:30 for four", true), [vec![1170]]);
        assert_eq!(minutes("the 20:00 show", true), [vec![1200]]);
        assert_eq!(minutes("meet at 7:30", true), [vec![450, 1170]], "a task's 7:30 may be either");
        assert_eq!(minutes("meet at 7:30", false), [vec![450]], "an argument's 7:30 is 07:30");
        assert_eq!(minutes("09:05:00", false), [vec![545]]);
    }

    #[test]
    fn what_is_not_a_time_is_not_read_as_one() {
        for text in ["4 people", "ratio 3:2", "25:10", "13 pm", "INV-2025-014", "$1,250.00", "12:5", "v1:30"]
        {
            assert!(times_in(text, true).is_empty(), "{text}");
        }
    }

    #[test]
    fn an_argument_is_a_time_only_when_it_is_one_whole() {
        assert_eq!(time_value("20:30").map(|t| t.minutes), Some(vec![1230]));
        assert_eq!(time_value(" 8:30 PM ").map(|t| t.minutes), Some(vec![1230]));
        assert!(time_value("8:30 PM").unwrap().twelve_hour);
        assert_eq!(time_value("at 20:30"), None);
        assert_eq!(time_value("20:30 and 21:00"), None);
        assert_eq!(time_value("Luigi's"), None);
        assert_eq!(hhmm(1170), "19:30");
    }
}
