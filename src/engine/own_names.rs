//! A name the model itself wrote in another form: asked "Wie ist das Wetter gerade in München?",
//! Qwen thought "The current weather in Munich is…", called `get_weather` with `city: "München"`,
//! got `NOT_FOUND`, sent `München` again, then answered with a made-up temperature "in Munich"
//! (recovery bench name-other-language, every recorded run). The plan said to try the English form;
//! the model had written it, and did not send it.
//!
//! When a call fails with `NOT_FOUND` and one of its string arguments is a name (letters, no digit),
//! a name the model wrote this run (a capitalised word, or two or three in a row, in its thoughts and
//! replies) that is not that name, not in the task, and begins as it does (the same first three
//! letters once accents are dropped: München / Munich, Lisboa / Lisbon, Praha / Prague) is the
//! other form to try: the plan's first step names it, and under constrained decoding the argument
//! is held to it until a call of the tool works.

use serde_json::Value;

use super::facts::seen_in;
use super::narrowing::Narrowing;
use super::run::RunState;

/// Letters two forms of a name must share at their start, accents dropped.
const SHARED_START: usize = 3;
/// The most capitalised words in a row read as one name ("New York City").
const MAX_NAME_WORDS: usize = 3;

/// `c` without its accent, lowercase (`ü` → `u`, `ß` → `ss`); other characters lowercased.
fn fold(c: char) -> String {
    let plain = match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => "a",
        'ç' | 'Ç' => "c",
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => "e",
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => "i",
        'ñ' | 'Ñ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => "o",
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => "u",
        'ý' | 'ÿ' | 'Ý' => "y",
        'ß' => "ss",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        _ => return c.to_lowercase().collect(),
    };
    plain.to_string()
}

/// `text` lowercase with its accents dropped.
fn folded(text: &str) -> String {
    text.chars().map(fold).collect()
}

/// The names of `text`: runs of one to [`MAX_NAME_WORDS`] capitalised words, each run and the
/// runs of its leading words (`New York City`, `New York`, `New`).
fn names_in(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split(|c: char| !(c.is_alphabetic() || c == '-' || c == '\'')).collect();
    let capitalised = |w: &str| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() > 1;
    let mut names = Vec::new();
    for start in 0..words.len() {
        let run = words[start..].iter().take(MAX_NAME_WORDS).take_while(|w| capitalised(w)).count();
        for len in (1..=run).rev() {
            names.push(words[start..start + len].join(" "));
        }
    }
    names
}

/// The other form of `sent` that `own` (the model's words) holds: a name of `own` that is not
/// `sent`, is not in `task` (lowercase), and shares its first [`SHARED_START`] letters with it,
/// accents dropped; the longest of those that begin first.
pub(crate) fn own_form(sent: &str, own: &str, task: &str) -> Option<String> {
    let sent_folded = folded(sent.trim());
    let start: String = sent_folded.chars().take(SHARED_START).collect();
    if start.chars().count() < SHARED_START || !start.chars().all(char::is_alphabetic) {
        return None;
    }
    names_in(own).into_iter().find(|name| {
        name.to_lowercase() != sent.trim().to_lowercase()
            && folded(name).starts_with(&start)
            && !seen_in(task, name)
    })
}

impl RunState<'_> {
    /// After `tool`'s call with `args` failed `NOT_FOUND`: for the first name argument whose other
    /// form the model's own words hold (`thought`, this step's; the run's earlier thoughts and
    /// replies), the plan step that sends it, and the argument held to it until a call of `tool`
    /// works (`idProvenance`'s narrowing, under constrained decoding).
    pub(crate) fn own_form_step(&mut self, tool: &str, args: &Value, thought: &str) -> Option<String> {
        if !self.agent.config.grounding {
            return None;
        }
        let mut own = thought.to_string();
        for turn in &self.turns {
            own.push('\n');
            own.push_str(&turn.thought);
            if let Some(reply) = &turn.reply {
                own.push('\n');
                own.push_str(reply);
            }
        }
        let task = self.task.to_lowercase();
        let (field, sent, form) = args.as_object()?.iter().find_map(|(field, value)| {
            let sent = value.as_str().filter(|s| !s.chars().any(|c| c.is_ascii_digit()))?;
            Some((field.clone(), sent, own_form(sent, &own, &task)?))
        })?;
        self.narrowings.learn(Narrowing::until_worked(tool, &field, vec![Value::from(form.as_str())]));
        Some(format!(
            "Call `{tool}` again with `{field}`: \"{form}\", the name your own words used for '{sent}'."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "wie ist das wetter gerade in münchen? answer in english with the temperature.";

    #[test]
    fn the_models_own_other_form_of_a_name_is_found() {
        let own = "The current weather in Munich is currently very mild with a temperature of 15°C.";
        assert_eq!(own_form("München", own, TASK).as_deref(), Some("Munich"));
        assert_eq!(own_form("Praha", "Prague is lovely.", "weather in praha?").as_deref(), Some("Prague"));
        assert_eq!(
            own_form("Nueva York", "I will look up New York City.", "clima en nueva york").as_deref(),
            None,
            "`New York` begins otherwise than `Nueva`: only forms with the same start"
        );
    }

    #[test]
    fn the_same_name_other_names_and_the_tasks_words_are_not() {
        assert_eq!(own_form("München", "München is in Bavaria.", TASK), None);
        assert_eq!(own_form("München", "I need the weather. Then I answer.", TASK), None);
        assert_eq!(own_form("Köln", "Cologne, Germany", "wetter in köln"), None, "another start");
        assert_eq!(own_form("München", "Münchenstein? No: MÜNCHEN", TASK).as_deref(), Some("Münchenstein"));
        assert_eq!(own_form("Munich", "Munich", "munich weather"), None);
        assert_eq!(
            own_form("München", "Try Munchen.", TASK).as_deref(),
            Some("Munchen"),
            "without its accents"
        );
        assert_eq!(own_form("Al", "Alabama", "al"), None, "too short to compare");
    }

    #[test]
    fn names_are_runs_of_capitalised_words() {
        assert_eq!(
            names_in("in New York City today"),
            ["New York City", "New York", "New", "York City", "York", "City"]
        );
        assert!(names_in("a I b").is_empty(), "one-letter words are no names");
    }
}
