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
fn content_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(|c| c.is_numeric()) || w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !FILLER.contains(&w.as_str()))
        .collect()
}

/// Whether `answer` is about none of `sources` (the task, the arguments and the successful
/// results, as one text): at least [`MIN_CONTENT_WORDS`] content words, none of them in `sources`.
pub(crate) fn unrelated(answer: &str, sources: &str) -> bool {
    let said = content_words(answer);
    if said.len() < MIN_CONTENT_WORDS {
        return false;
    }
    let sources = content_words(sources);
    !said.iter().any(|w| sources.contains(w))
}

#[cfg(test)]
mod tests {
    use super::unrelated;

    const WEATHER: &str = "What is the temperature in Boston right now, in Fahrenheit?\n{\"city\":\"boston\",\"units\":\"imperial\"}\nBoston: 31°F, light snow.";

    #[test]
    fn chit_chat_after_a_result_is_unrelated() {
        assert!(unrelated("I'm glad you're here, I'll be sure to get back to you soon!", WEATHER));
        assert!(unrelated(
            "I am glad that you found your way here. You can find it in the next observation.",
            "Tell me one fact about Lyon.\n{\"city\":\"Lyon\"}\nLyon: capital of gastronomy."
        ));
    }

    #[test]
    fn answers_naming_anything_seen_are_not() {
        assert!(!unrelated("It is 31 degrees in the city right now.", WEATHER), "a number from the result");
        assert!(!unrelated("There is light snow falling over the whole town today.", WEATHER));
        assert!(
            !unrelated("It is freezing cold in BOSTON, take a warm coat.", WEATHER),
            "case does not matter"
        );
    }

    #[test]
    fn short_acknowledgements_are_not_judged() {
        assert!(!unrelated("Done.", WEATHER));
        assert!(!unrelated("I have completed the task.", WEATHER));
        assert!(!unrelated("Yes, it was done as you asked.", WEATHER));
    }
}
