//! A final answer about none of what the run saw: SmolLM2 answered a weather task, after the tool
//! had returned the temperature, with "I'm glad you're here, I'll be sure to get back to you
//! soon!", and a city task with "I am glad that you found your way here. You can find it in the
//! next observation." (recovery bench unknown-key and model-503, 364ea66 to e612171): no fact in
//! them for the grounding check to refuse, and the run was reported a success. An answer of
//! several content words that shares not one with the task, the calls' arguments or what the
//! tools returned is no answer to the task; it is refused like a placeholder (`parrot.rs`).
//!
//! Measured on every answer the recovery bench recorded (both models, every mode and commit in
//! `bench/results/recovery-*.json`): each success whose answer shares no word with the task, the
//! arguments and the successful results was a wrong answer; no right answer did.

use std::collections::BTreeSet;

use super::grounding::ungrounded;

/// The fewest content words an answer needs before it is judged: "Done." and "I have completed
/// the task." are answers to a task that asked for an action.
const MIN_CONTENT_WORDS: usize = 4;

/// English function words and the words of a bare acknowledgement, which say nothing of the task.
const FILLER: &[&str] = &[
    "about", "after", "again", "all", "also", "and", "any", "are", "been", "but", "can", "could", "did",
    "does", "done", "for", "from", "had", "has", "have", "her", "here", "him", "his", "how", "its", "just",
    "let", "may", "more", "now", "not", "one", "our", "out", "please", "she", "should", "some", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "too",
    "very", "was", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "yes",
    "you", "your", "yours",
];

/// The words of `text` that can carry content: lowercase runs of letters or digits, of at least
/// 3 letters or with a digit, that are not [`FILLER`].
pub(crate) fn content_words(text: &str) -> BTreeSet<String> {
    // Inserted one by one: `collect()` into a BTreeSet sorts first, another copy of std's sort.
    let mut words = BTreeSet::new();
    words.extend(
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().any(|c| c.is_numeric()) || w.chars().count() >= 3)
            .map(str::to_lowercase)
            .filter(|w| !FILLER.contains(&w.as_str())),
    );
    words
}

/// Whether `answer` is about none of `sources` (the task, the arguments and the successful
/// results, as one text, made only when the answer is long enough to be judged): at least
/// [`MIN_CONTENT_WORDS`] content words, none of them in `sources`.
pub(crate) fn unrelated(answer: &str, sources: impl FnOnce() -> String) -> bool {
    let said = content_words(answer);
    if said.len() < MIN_CONTENT_WORDS {
        // A short answer: the run's text (its session's part too) is not read at all.
        return false;
    }
    let sources = content_words(&sources());
    !said.iter().any(|w| sources.contains(w))
}

/// The fewest content words an answer that names nothing the tools returned needs before it is
/// refused, unless it only echoes the task ("cold" for a result of -3°C is a terse answer), and
/// the fewest the results need before an answer is judged by them at all.
const MIN_OFF_RESULT_WORDS: usize = 3;

/// Whether `answer`, once a tool has answered, names nothing the tools returned (`results`, the
/// run's successful results as one text): none of its content words is in `results`, it states
/// no number that is in them or follows from them (`grounding.rs`'s arithmetic), and it either
/// only echoes the `task` ("Place order", "Download report": Qwen with 48 distractors, reported
/// a success) or has [`MIN_OFF_RESULT_WORDS`] content words or more ("Two unpaid invoices are
/// coming together."), or names only words of the results the task names too. Checked on every
/// final answer the recovery bench recorded with a result at hand (`bench/results/recovery-*.json`,
/// 1,347 runs): 103 answers match (65 of them reported successes), all wrong; no right answer does. What a
/// paraphrase refused by it costs is the focused answer's one call (`focused_answer.rs`).
pub(crate) fn off_the_results(answer: &str, task: &str, results: &str) -> bool {
    let said = content_words(answer);
    let returned = content_words(results);
    // A terse result ("noted", "ok") is acknowledged in the task's words: nothing to judge by.
    if said.is_empty() || returned.len() < MIN_OFF_RESULT_WORDS {
        return false;
    }
    let asked = content_words(task);
    // What the results say beyond the task's own words: an answer must name some of it.
    let mut fresh: BTreeSet<&String> = BTreeSet::new();
    fresh.extend(returned.iter().filter(|w| !asked.contains(*w)));
    if said.iter().any(|w| fresh.contains(w)) {
        return false;
    }
    // Naming a result's word the task names too is no answer ("Tokyo, Japan" for "What time is it
    // in Tokyo?" with "Tokyo: 14:05"; "GBP" for "And to GBP?" with "1 USD = 0.79 GBP": SmolLM2,
    // reported successes at e168127), unless the results say nothing else.
    let echoes = said.iter().any(|w| returned.contains(w));
    if echoes && fresh.is_empty() {
        return false;
    }
    let judged = echoes || said.len() >= MIN_OFF_RESULT_WORDS || said.iter().all(|w| asked.contains(w));
    judged && (!answer.chars().any(|c| c.is_ascii_digit()) || !ungrounded(answer, results).is_empty())
}

#[cfg(test)]
mod tests {
    use super::{off_the_results, unrelated};

    const WEATHER: &str = "What is the temperature in Boston right now, in Fahrenheit?\n{\"city\":\"boston\",\"units\":\"imperial\"}\nBoston: 31°F, light snow.";

    #[test]
    fn chit_chat_after_a_result_is_unrelated() {
        assert!(unrelated("I'm glad you're here, I'll be sure to get back to you soon!", || WEATHER.into()));
        assert!(unrelated(
            "I am glad that you found your way here. You can find it in the next observation.",
            || "Tell me one fact about Lyon.\n{\"city\":\"Lyon\"}\nLyon: capital of gastronomy.".into()
        ));
    }

    #[test]
    fn an_answer_naming_only_the_tasks_words_of_the_results_is_off_them() {
        assert!(off_the_results("Tokyo, Japan", "What time is it in Tokyo?", "tokyo: 14:05"));
        assert!(off_the_results("GBP", "And to GBP?", "1 usd = 0.79 gbp"));
        assert!(!off_the_results("It is 14:05 in Tokyo.", "What time is it in Tokyo?", "tokyo: 14:05"));
        assert!(
            !off_the_results("Yes, open on Sundays.", "Is the store open on Sundays?", "store open sundays"),
            "results saying nothing beyond the task's words: nothing to judge by"
        );
    }

    #[test]
    fn answers_naming_anything_seen_are_not() {
        assert!(
            !unrelated("It is 31 degrees in the city right now.", || WEATHER.into()),
            "a number from the result"
        );
        assert!(!unrelated("There is light snow falling over the whole town today.", || WEATHER.into()));
        assert!(
            !unrelated("It is freezing cold in BOSTON, take a warm coat.", || WEATHER.into()),
            "case does not matter"
        );
    }

    #[test]
    fn short_acknowledgements_are_not_judged() {
        assert!(!unrelated("Done.", || WEATHER.into()));
        assert!(!unrelated("I have completed the task.", || WEATHER.into()));
        assert!(!unrelated("Yes, it was done as you asked.", || WEATHER.into()));
    }

    #[test]
    fn answers_naming_nothing_the_tools_returned_are_off_the_results() {
        let task = "On the shop page, click the 'Place order' button and tell me the order number.";
        let results = "e2 button 'Place order'\nOrder placed. Order number: KX-4417.";
        assert!(off_the_results("Place order", task, "Confirmation sent: KX-4417."), "an echo of the task");
        assert!(
            off_the_results("Place order", task, results),
            "the results saying the task's words too: still none of what they say beyond them"
        );
        assert!(!off_the_results("KX-4417", task, results));
        let invoices = "INV-1: $1,250.00\nINV-2: $980.00";
        assert!(off_the_results("Two unpaid invoices are coming together.", "Sum my invoices.", invoices));
        assert!(
            !off_the_results("It costs 980 dollars.", "Sum my invoices.", invoices),
            "a number they hold"
        );
        assert!(!off_the_results("Together: 2230", "Sum my invoices.", invoices), "arithmetic on them");
        assert!(!off_the_results("cold", "Weather in Oslo?", "-3°C"), "a terse paraphrase");
        assert!(!off_the_results("Yes.", task, results), "no content word: not judged");
        assert!(!off_the_results("first done", "First task: alpha.", "waited"), "a terse result: not judged");
    }
}
