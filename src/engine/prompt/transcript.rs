//! How turns are written into the prompt: the canonical step JSON the model produced, the
//! observation it was shown, the longest head-and-tail cut of a text that fits a token budget, and
//! one-line summaries of steps.

use serde_json::{Map, Value};

use super::{Outcome, PastSteps, TokenCounter, Turn};
use crate::text::{clip, cut_middle_keeping};

/// Prefix of the user message carrying a step's observation.
pub(crate) const OBSERVATION_PREFIX: &str = "Observation: ";
/// The user message after a final answer the run went on from, so roles keep alternating.
pub(crate) const CONTINUE: &str = "Continue.";

/// The step as the model should have written it: `{"thought","action":{"tool","args"}}`,
/// `{"thought","final_answer"}` for a final step (its observation is the answer), or just the
/// thought for a step that had no valid action.
pub(crate) fn step_json(turn: &Turn, thought: &str) -> String {
    if let Some(reply) = &turn.reply {
        return reply.clone();
    }
    let mut step = Map::new();
    step.insert("thought".into(), Value::String(thought.to_owned()));
    if turn.outcome == Outcome::Final {
        step.insert("final_answer".into(), Value::String(turn.observation.clone()));
    } else if let Some(action) = &turn.action {
        let mut call = Map::new();
        call.insert("tool".into(), Value::String(action.tool.clone()));
        call.insert("args".into(), action.args.clone());
        step.insert("action".into(), Value::Object(call));
    }
    Value::Object(step).to_string()
}

/// The step as the prompt shows it: [`step_json`] as its assistant message, or [`step_line`] in
/// the log.
pub(crate) fn step_text(turn: &Turn, thought: &str, form: PastSteps) -> String {
    match form {
        PastSteps::Messages => step_json(turn, thought),
        PastSteps::Log => step_line(turn, thought),
    }
}

/// The step as a line of the log (`pastSteps: "log"`), numbered: `3. You called book {"id":"r1"}`,
/// `3. You answered: …`, or the reply that was refused; a replayed thought first.
pub(crate) fn step_line(turn: &Turn, thought: &str) -> String {
    let thought = thought.trim();
    let mut line = format!("{}. ", turn.step);
    if !thought.is_empty() {
        line.push_str(&format!("You thought: {thought} "));
    }
    if turn.outcome == Outcome::Final {
        line.push_str(&format!("You answered: {}", turn.observation));
    } else if let Some(action) = &turn.action {
        line.push_str(&format!("You called {} {}", action.tool, action.args));
    } else if let Some(reply) = &turn.reply {
        line.push_str(&format!("You replied: {}", reply.trim()));
    } else {
        line.push_str("You made no valid action.");
    }
    line
}

/// A step's thought as the prompt replays it: empty when it is withheld (`withheld` lists those
/// steps, sorted; see `engine/withheld.rs`): a small model copies its earlier thoughts into later
/// steps, invented values and the call that followed included.
pub(crate) fn replayed_thought<'t>(turn: &'t Turn, withheld: &[u32]) -> &'t str {
    if withheld.binary_search(&turn.step).is_ok() {
        ""
    } else {
        &turn.thought
    }
}

/// The user message following `turn`, if one does: its observation, or [`CONTINUE`] after a final
/// answer that is not the last step.
pub(crate) fn reply_to(turn: &Turn, is_last: bool) -> Option<String> {
    match turn.outcome {
        Outcome::Final if is_last => None,
        Outcome::Final => Some(CONTINUE.to_owned()),
        _ => Some(format!("{OBSERVATION_PREFIX}{}", turn.observation)),
    }
}

/// The last message of a forced final call: no more tools, answer honestly now.
pub(crate) fn final_only_text(reason: &str) -> String {
    let reason = reason.trim().trim_end_matches('.');
    let sep = if reason.is_empty() { "" } else { ". " };
    format!(
        "{reason}{sep}Do not call any tool. Reply now with {{\"thought\": ..., \"final_answer\": ...}}: give what \
         you found, and say plainly what failed and that the task is not complete."
    )
}

/// The close of the newest observation on an ordinary step: the task again and what to do next.
/// Small models lose the task a few steps in and repeat a call whose result already answers it;
/// the reminder sits where they look last.
pub(crate) fn next_step_text(task: &str) -> String {
    format!(
        "Your task: {}\nNext: if the observations above answer the task, reply with final_answer now. \
         Otherwise reply with the one action that gets you closer.",
        task.trim()
    )
}

/// `render(cut)` for the longest [`cut_middle_keeping`] of `text` that fits in `max_tokens`, or
/// `None` if not even the cut marker fits. Binary search over the characters kept: O(log n) counts.
pub(crate) fn fit_cut(
    text: &str,
    max_tokens: usize,
    counter: &dyn TokenCounter,
    render: impl Fn(&str) -> String,
) -> Option<String> {
    let fits = |s: &String| counter.count(s) <= max_tokens;
    let whole = render(text);
    if fits(&whole) {
        return Some(whole);
    }
    let mut best = Some(render(&cut_middle_keeping(text, 0))).filter(fits)?;
    // Invariant: keeping `lo` chars fits, keeping `hi` does not.
    let (mut lo, mut hi) = (0usize, text.chars().count());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let candidate = render(&cut_middle_keeping(text, mid));
        if fits(&candidate) {
            best = candidate;
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(best)
}

/// One line saying what a step did and how it went: `book {"id":"x"} → failed: NOT_FOUND …`,
/// with the observation cut to `observation_chars` on one line.
pub(crate) fn summary_line(turn: &Turn, observation_chars: usize) -> String {
    let observation = one_line(&turn.observation, observation_chars);
    if turn.outcome == Outcome::Final {
        return format!("answered: {observation}");
    }
    let outcome = match turn.outcome {
        Outcome::Ok => "ok",
        Outcome::Warning => "ok with warnings",
        Outcome::Failed | Outcome::Final => "failed",
    };
    let call = match &turn.action {
        Some(action) => format!("{} {}", action.tool, one_line(&action.args.to_string(), ARGS_CHARS)),
        None => "no valid action".to_owned(),
    };
    format!("{call} → {outcome}: {observation}")
}

/// How much of a call's arguments a summary line shows: enough for the ids and names that tell
/// calls apart.
const ARGS_CHARS: usize = 60;

/// `text` on one line (runs of whitespace become one space) in at most `max` + 1 characters: its
/// first `max` and `…` if more was left out. Like the compactor's other limits, `max` counts the
/// text kept and the mark comes on top: what must fit is the rendered prompt, in tokens, and that
/// is checked.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = clip(&line, max.saturating_add(1));
    match cut.strip_suffix(" …") {
        // A space just before the mark would only pad the cut.
        Some(head) if cut != line => format!("{head}…"),
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Action, CharEstimate};

    fn turn(outcome: Outcome, observation: &str) -> Turn {
        let action = Some(Action { tool: "book".into(), args: serde_json::json!({"id": "r1"}) });
        Turn { step: 1, thought: "t".into(), action, observation: observation.into(), outcome, reply: None }
    }

    #[test]
    fn fit_cut_keeps_the_most_that_fits() {
        let counter = CharEstimate { chars_per_token: 1.0 };
        let text = "x".repeat(1000);
        let observe = |cut: &str| format!("Observation: {cut}");
        let fitted = fit_cut(&text, 100, &counter, observe).expect("the marker fits");
        assert!(counter.count(&fitted) <= 100);
        assert!(counter.count(&fitted) >= 99, "binary search stops short: {}", fitted.len());
        assert!(fit_cut(&text, 10, &counter, observe).is_none());
        assert_eq!(fit_cut("short", 100, &counter, str::to_owned).as_deref(), Some("short"));
    }

    #[test]
    fn summary_lines_are_one_line_and_clipped() {
        let line = summary_line(&turn(Outcome::Failed, "NOT_FOUND:\n  no room   r1 exists"), 14);
        assert_eq!(line, r#"book {"id":"r1"} → failed: NOT_FOUND: no…"#);
        assert_eq!(one_line(" a  b\tcdef ", 4), "a b…");
        assert_eq!(one_line("ab cd", 3), "ab…");
        assert_eq!(one_line("ab cd", 4), "ab cd");
        assert_eq!(one_line("ab", 0), "…");
        assert_eq!(summary_line(&turn(Outcome::Final, "done"), 60), "answered: done");
    }

    #[test]
    fn steps_render_as_canonical_json() {
        let t = turn(Outcome::Ok, "fine");
        assert_eq!(step_json(&t, "t"), r#"{"thought":"t","action":{"tool":"book","args":{"id":"r1"}}}"#);
        assert_eq!(step_json(&turn(Outcome::Final, "42"), "t"), r#"{"thought":"t","final_answer":"42"}"#);
        assert_eq!(reply_to(&t, true).as_deref(), Some("Observation: fine"));
        assert_eq!(reply_to(&turn(Outcome::Final, "42"), true), None);
        assert!(final_only_text("Out of steps.").starts_with("Out of steps. Do not call any tool."));
        assert!(final_only_text(" ").starts_with("Do not call any tool."));
    }
}
