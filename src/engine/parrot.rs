//! A final answer that only repeats keel's own words: a small model, told "you already made this
//! exact call and got this same result", answered with that very sentence, and the run was reported
//! a success (Qwen, recovery bench invent-balance at 7b427ab; SmolLM2 answered with a cause from an
//! envelope, "The id was guessed: ids must come from an earlier result", in guessed-ref at b9eb4d8).
//! A placeholder copied from the reply format ("<response to the user>", SmolLM2 at e032520) is no
//! answer either. Such an answer is refused like an unreadable reply: one more step, and the failure
//! budget ends a model that persists, unsuccessfully.

use std::collections::BTreeSet;

use super::facts::quotes;
use super::unreturned_item::sole_id;

/// The fewest words an answer needs before it can be judged a repetition: "Done." is an answer.
const MIN_WORDS: usize = 4;

/// The words of `text` the check compares: lowercase runs of at least 3 letters.
fn words(text: &str) -> BTreeSet<String> {
    // Inserted one by one: `collect()` into a BTreeSet sorts first, another copy of std's sort.
    let mut words = BTreeSet::new();
    words.extend(
        text.split(|c: char| !c.is_alphabetic()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase),
    );
    words
}

/// Whether `answer` is made of the runtime's words: at least 4 words, nearly all (≥ 80%) found in
/// `runtime` (the notes and plans keel wrote into the prompt), none found only in `sources` (the
/// task and what the tools returned), and no token with a digit that `runtime` does not hold (a
/// number is a fact for the grounding check; `e12` copied from the reminder's task is not).
/// `sources` is asked for only when the answer is made of the runtime's words (it is the whole
/// run's text: building it for every answer would be work on each final step for nothing).
pub(crate) fn parroted(answer: &str, runtime: &str, sources: impl FnOnce() -> String) -> bool {
    let runtime_lower = runtime.to_lowercase();
    let own_fact = answer
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .any(|t| !super::facts::seen_in(&runtime_lower, t));
    if own_fact {
        return false;
    }
    let said = words(answer);
    if said.len() < MIN_WORDS {
        return false;
    }
    let runtime = words(runtime);
    let echoed = said.iter().filter(|w| runtime.contains(*w)).count();
    if echoed * 5 < said.len() * 4 {
        return false;
    }
    let sources = words(&sources());
    !said.iter().any(|w| sources.contains(w) && !runtime.contains(w))
}

/// Whether `answer` is a template placeholder, `<…>` and nothing else, like those of the reply
/// format the system prompt shows, or a template's slot (`{{#1}}`).
/// Also when escaped as the XML envelope's `<you_sent>` shows it and wrapped in stray quotes or
/// braces (SmolLM2's next reply: `&lt;response to the call&gt;"`, `{<response here>}`), and an
/// answer with no letter or digit at all (SmolLM2 answered `{`, recovery bench unknown-key).
pub(crate) fn placeholder(answer: &str) -> bool {
    if !answer.chars().any(char::is_alphanumeric) {
        return true;
    }
    // A template's slot: `{{#1}}`, `{{ answer }}` (SmolLM2's answer to an order on the web bench).
    let slot = answer.trim().strip_prefix("{{").and_then(|rest| rest.strip_suffix("}}"));
    if slot.is_some_and(|inner| inner.len() <= 40 && !inner.contains(['{', '}'])) {
        return true;
    }
    let decoded = answer.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
    let answer = decoded.trim().trim_matches(|c: char| c == '"' || c == '{' || c == '}' || c.is_whitespace());
    // Closed (`<response here>`), or cut off before its `>` (`{{<response here}}}`, SmolLM2 on the
    // recovery bench's two-part task, 899898d): a word right after the `<` and no other bracket.
    let inner = answer.strip_prefix('<').map(|rest| rest.strip_suffix(['>', '<']).unwrap_or(rest));
    inner.is_some_and(|inner| {
        inner.starts_with(char::is_alphabetic) && !inner.contains(['<', '>']) && inner.len() > 1
    })
}

/// The id `answer` only repeats, when it is the one `task` names ([`sole_id`]): "P-0287" for
/// "What is the price of part P-0287 in the catalogue?" (Qwen on the web bench's long-page at
/// 4109642, its first answer refused as about an item no result held, reported a success). A task
/// naming several ids may ask which of them is meant.
pub(crate) fn echoes_the_id<'t>(answer: &str, task: &'t str) -> Option<&'t str> {
    let bare = answer.trim().trim_matches(|c: char| !c.is_alphanumeric());
    sole_id(task).filter(|id| bare.eq_ignore_ascii_case(id))
}

/// Whether `answer` only repeats the one phrase `task` quotes: "Download report" for "Click the
/// 'Download report' button and tell me the name of the file it downloads" (SmolLM2, recovery
/// bench guessed-ref at ef7c6d2, reported a success). A task quoting several phrases may ask which
/// of them is meant ("'A' or 'B'?"), so only a task quoting one is judged.
pub(crate) fn echoes_the_quote(answer: &str, task: &str) -> bool {
    let [phrase] = quotes(task)[..] else { return false };
    let bare = |text: &str| -> String {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let said = bare(answer);
    !said.is_empty() && said == bare(phrase)
}

#[cfg(test)]
mod tests {
    use super::quotes;
    use super::{echoes_the_id, echoes_the_quote, parroted, placeholder};

    #[test]
    fn placeholders_are_answers_in_angle_brackets_only() {
        assert!(placeholder("<response to the user>"));
        assert!(placeholder(" <what you found, in plain words> "));
        assert!(placeholder("&lt;response to the call&gt;\""));
        assert!(placeholder("{<response here>}"));
        assert!(placeholder("{{<response here}}}"), "cut off before its `>`");
        assert!(!placeholder("<5 items left"), "a comparison, not a placeholder");
        assert!(placeholder("<what you found, in plain words&lt;"));
        assert!(!placeholder("The answer is <b>42</b>"));
        assert!(placeholder("{"), "no letter or digit: no answer");
        assert!(placeholder(" \"}\" "));
        assert!(!placeholder("42"));
        assert!(!placeholder("Use <Enter> to submit."));
        assert!(placeholder("{{#1}}") && placeholder(" {{ answer }} "), "a template's slot");
        assert!(!placeholder("{{a}} is how the template names it"));
    }

    const NOTE: &str = "Note: you already made this exact call and got this same result. Use it, call another tool, or give your final_answer.";

    #[test]
    fn an_answer_repeating_a_note_or_a_plan_is_parroted() {
        let sources = "How many vacation days do I have left this year?\nVacation: 13.5 days left of 25.";
        assert!(parroted("You made this exact call and got this same result.", NOTE, || sources.into()));
        let causes = "The id was guessed: ids must come from an earlier result. It has a typo.";
        assert!(parroted("The id was guessed: ids must come from an earlier result", causes, || "Click it."
            .into()));
    }

    #[test]
    fn real_answers_are_not() {
        let sources = "What is the status of ticket 4471?\nTicket 4471: waiting for customer reply.";
        assert!(!parroted("The ticket is waiting for a customer reply.", NOTE, || sources.into()));
        assert!(!parroted("You have 13.5 days left.", NOTE, || sources.into()), "a number is for grounding");
        let reminder = "Your task: Click the Subscribe button (ref e12) and give me the code.\nNext: reply with final_answer now.";
        let echo = "Your task: Click the Subscribe button (ref e12) and give me the code. Your next action is to click.";
        assert!(parroted(echo, reminder, || "e21 button 'Subscribe'".into()), "e12 is the reminder's own");
        assert!(!parroted("Use it.", NOTE, || sources.into()), "too short to judge");
        let down = "The market data service is down. Call another tool or give your final answer.";
        assert!(!parroted("The market data service is down.", NOTE, || down.into()), "the tool's own words");
    }

    #[test]
    fn an_answer_repeating_the_tasks_one_quoted_phrase_is_no_answer() {
        let task = "Click the 'Download report' button and tell me the name of the file it downloads.";
        assert!(echoes_the_quote("Download report", task));
        let asked = "What is the price of part P-0287 in the catalogue?";
        assert_eq!(echoes_the_id("P-0287", asked), Some("P-0287"));
        assert!(echoes_the_id(" \"p-0287.\" ", asked).is_some());
        assert!(echoes_the_id("P-0287 costs €18.40.", asked).is_none());
        assert!(
            echoes_the_id("A-12", "Which is cheaper, A-12 or B-34?").is_none(),
            "a task naming two may ask which"
        );
        assert!(echoes_the_id("q3-2024.csv", "Save it as q3-2024.csv and give me the file name.").is_none());
        assert!(echoes_the_quote("\"Download report.\"", task));
        assert!(!echoes_the_quote("q3-report.pdf", task));
        assert!(!echoes_the_quote("It downloads q3-report.pdf via Download report", task));
        assert!(
            !echoes_the_quote("B", "Which is cheaper, 'A' or 'B'?"),
            "a task quoting two phrases may ask which"
        );
        assert!(
            !echoes_the_quote("Luigi", "Book a table at Luigi's for four people."),
            "an apostrophe quotes nothing"
        );
        let mut phrases = quotes("Set an alarm called \"gym\" at Luigi's and what's 'up'");
        phrases.sort_unstable();
        assert_eq!(phrases, ["gym", "up"]);
    }
}
