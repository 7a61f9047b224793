//! A focused answer's text as the user reads it. Asked for the answer alone (`focused_answer.rs`),
//! a small model sometimes writes JSON's structure into the answer's string and goes on past the
//! answer: SmolLM2 answered `}` + "The answer is: 13.5" + "This is a JSON object with the
//! following structure: ```json {" (recovery bench invent-balance, f607bb2), and "14:05 }" + a
//! paragraph on parsing JSON (garbage-output). Once the answer is accepted — every check read the
//! whole text, so nothing here changes whether it is — the text keeps the paragraphs up to the
//! last one stating a value of the results, without brackets that close or open nothing at its
//! ends. The model's reply is kept with the turn, and the page is told (a warning).

use super::grounding::states_from;
use super::run::RunState;

impl RunState<'_> {
    /// An accepted focused answer tidied ([`tidied`]) against what this run's calls that worked
    /// returned, if that changes it.
    pub(crate) fn tidied_answer(&self, answer: &str) -> Option<String> {
        tidied(answer, &self.returned_text(), &self.task.to_lowercase())
    }
}

/// `answer` tidied, if that changes it and leaves text: the paragraphs after the last one that
/// states a value of `returned` (the results, lowercase) left out, and brackets left unbalanced at
/// either end stripped. `task` (lowercase): a value it states is not one of the results'.
pub(crate) fn tidied(answer: &str, returned: &str, task: &str) -> Option<String> {
    let paragraphs = paragraphs(answer);
    let last = paragraphs.iter().rposition(|p| states_from(p, returned, task))?;
    let kept = paragraphs[..=last].join("\n\n");
    let text = without_stray_brackets(&kept);
    (!text.is_empty() && text != answer.trim()).then(|| text.to_string())
}

/// The text's paragraphs: runs of lines between blank lines, each trimmed.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n").trim().to_string());
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        out.push(current.join("\n").trim().to_string());
    }
    out
}

/// `text` without the brackets at its start that close nothing and those at its end that close
/// nothing it opened or open nothing it closes.
fn without_stray_brackets(text: &str) -> &str {
    let mut text = text.trim();
    loop {
        let before = text;
        if let Some(rest) = text.strip_prefix(['}', ']']) {
            text = rest.trim_start();
        }
        for (open, close) in [('{', '}'), ('[', ']')] {
            let count = |c: char| text.matches(c).count();
            if text.ends_with(close) && count(close) > count(open) || text.ends_with(open) {
                text = text[..text.len() - 1].trim_end();
            }
        }
        if text == before {
            return text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tidy(answer: &str, result: &str) -> Option<String> {
        tidied(answer, &result.to_lowercase(), "how many vacation days do i have left this year?")
    }

    #[test]
    fn keeps_the_paragraphs_up_to_the_last_stating_a_result_without_stray_brackets() {
        let result = "Vacation: 13.5 days left of 25. Sick leave: 4 days used.";
        let answer = "}\nThe answer is: 13.5 \n\nThis is a JSON object with the following structure:\n```json\n{\n    ";
        assert_eq!(tidy(answer, result).as_deref(), Some("The answer is: 13.5"));
        let answer = "14:05 }\n\nThe answer is in JSON format. You can use the `json` module to parse it.";
        assert_eq!(tidy(answer, "Tokyo: 14:05").as_deref(), Some("14:05"));
    }

    #[test]
    fn a_tidy_answer_balanced_brackets_or_one_stating_no_result_stay_as_they_are() {
        let result = "Vacation: 13.5 days left of 25.";
        assert_eq!(tidy("You have 13.5 days left.", result), None);
        assert_eq!(tidy("13.5 days {of 25}", result), None);
        assert_eq!(tidy("[13.5]", result), None);
        assert_eq!(tidy("Not known.\n\nSorry.", result), None, "nothing to keep by");
        let two = "You have 13.5 days left.\n\nOf 25 in all.";
        assert_eq!(tidy(two, result), None, "the last paragraph states a result too");
    }
}
