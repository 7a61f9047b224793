//! An answer that says the task was not done ("The status of ticket 4471 is not yet known.", "I
//! could not find the price") is an honest answer, and the run that ends with it is reported
//! unsuccessful: an app reading `success: true` would take it for the result. SmolLM2 answered so
//! after the tool had returned the status (recovery bench invent-ticket, focused answer), and a
//! run was reported a success. Checked on every answer in bench/results/recovery-*.json: none of
//! the right answers says any of these, two of the answers wrongly reported successful do.
//! English phrases only: `grounding: false` turns this off with the other answer checks. Given
//! right after a call that worked, such an answer is first sent back once, with the focused answer
//! (`answer_check.rs`).

use super::facts::seen_in;

/// Phrases that say the task was not done, lowercase; matched as whole words.
const NOT_DONE: [&str; 16] = [
    "could not",
    "couldn't",
    "couldn’t",
    "cannot",
    "can't",
    "can’t",
    "unable to",
    "not known",
    "not yet known",
    "not available",
    "unknown",
    "don't know",
    "do not know",
    "no information",
    "not found",
    "failed to",
];

/// Whether `answer` says the task was not done.
pub(crate) fn says_not_done(answer: &str) -> bool {
    let text = answer.to_lowercase();
    NOT_DONE.iter().any(|phrase| seen_in(&text, phrase))
}

#[cfg(test)]
mod tests {
    use super::says_not_done;

    #[test]
    fn answers_that_say_the_task_was_not_done() {
        assert!(says_not_done("The status of support ticket 4471 is not yet known."));
        assert!(says_not_done("I could not find the price."));
        assert!(says_not_done("Sorry, I can’t reach the weather service."));
        assert!(says_not_done("The museum is unknown to the tool."));
        assert!(says_not_done("Invoice INV-9 was not found."));
    }

    #[test]
    fn answers_that_do_not() {
        assert!(!says_not_done("The ticket is waiting for a customer reply."));
        assert!(!says_not_done("You have 13.5 vacation days left."));
        assert!(!says_not_done("The store is not open on Sundays."));
        assert!(!says_not_done("Unknowns aside, BTC costs $61,234.50."), "whole words only");
        assert!(!says_not_done("The cannoting sequence is done."), "whole words only");
    }
}
