//! The answer in the thought: SmolLM2 replied `{"thought": "You have 14 red chairs in stock. The
//! answer is: 14.", "final_answer": "<answer for the user>"}` four times on the recovery bench
//! (partial-warnings, every recorded run of it since 9142902): the answer was written, in the
//! wrong field, and the placeholder refused each time until the failure budget ended the run.
//!
//! A final answer that is the reply format's placeholder (`parrot::placeholder`) is replaced by its
//! thought when the thought states a value a tool of this run returned and the task does not hold
//! (a number, an id, a code: a token with a digit). The thought then goes through every answer
//! check as the answer. Over every reply the bench recorded (`bench/results/recovery-*.json`),
//! 8 replies qualify, all with the right answer; the thoughts left out ("I will call the tool in
//! Tokyo…", "I have what I need.") state nothing a tool returned.

use serde_json::Value;

use super::facts::seen_in;
use super::gave_up::says_not_done;
use super::grounding::states_a_result;
use super::output::{FormatError, Parsed, Step};
use super::parrot::placeholder;
use super::run::RunState;

/// Words of a thought that plans what comes next rather than answering.
const PLANS: &[&str] =
    &["next", "need", "will", "let me", "then", "check", "call", "again", "try", "first", "also"];

/// Whether `thought` plans more than it states: a question, or a word of [`PLANS`].
pub(crate) fn plans_more(thought: &str) -> bool {
    let text = thought.to_lowercase();
    text.contains('?') || PLANS.iter().any(|word| seen_in(&text, word))
}

impl RunState<'_> {
    /// The answer a final step gives: its `answer`, or its thought when the answer is the reply
    /// format's placeholder and the thought states a result's value (with `grounding` on, whose
    /// checks the thought then meets); the page is told with a warning.
    pub(crate) fn answer_in_thought(&self, step: u32, thought: &str, answer: String) -> String {
        if !placeholder(&answer) || !self.thought_states_a_result(thought) {
            return answer;
        }
        self.warn(
            Some(step),
            "The model's final_answer was the reply format's placeholder; its thought states a tool's result and is taken as the answer.".to_string(),
        );
        thought.trim().to_string()
    }

    /// Whether `thought` can stand for an answer the model wrote in the wrong place: under
    /// `grounding`, it is no placeholder and states a value a result of this run gave.
    fn thought_states_a_result(&self, thought: &str) -> bool {
        self.agent.config.grounding
            && !placeholder(thought)
            && states_a_result(thought, &self.returned_text(), &self.task.to_lowercase())
    }

    /// Whether the thought of a call made again that gave the same result as before is the
    /// answer ([`Self::thought_states_a_result`]); the next step then answers with it without
    /// asking the model again (`RunState::answer_from_thought`), and it meets every answer check.
    /// Qwen did this with 7 of its 17 calls made again after they had worked on the recovery bench
    /// (cb5166b: "The EUR to USD exchange rate is 1.0842." beside `get_rate` sent again), each
    /// costing a step and then a request for the answer alone. A call made again that gave
    /// something new is progress (a status that moved on) and is not read this way.
    ///
    /// A thought that plans more ("Next I need the GBP rate") or says the task was not done is not
    /// an answer, and one stating a value nothing gave is not taken either (it would use up the
    /// model's one warning for an ungrounded answer): the request for the answer alone follows.
    pub(crate) fn thought_is_the_answer(&self, thought: &str) -> bool {
        !plans_more(thought)
            && !says_not_done(thought)
            && self.thought_states_a_result(thought)
            && self.ungrounded_here(thought).is_empty()
    }

    /// A reply refused for answering with the reply format's placeholder, read as a final answer
    /// whose thought is the answer, when [`Self::answer_in_thought`] takes the thought.
    pub(crate) fn placeholder_reply_answered(&self, step: u32, error: &FormatError) -> Option<Parsed> {
        if !error.is_no_answer() {
            return None;
        }
        let reply: Value = serde_json::from_str(error.received.trim()).ok()?;
        let thought = reply.get("thought").and_then(Value::as_str)?;
        let answer = reply.get("final_answer").and_then(Value::as_str)?;
        let taken = self.answer_in_thought(step, thought, answer.to_string());
        (taken != answer).then(|| Parsed {
            step: Step::Final { thought: thought.to_string(), answer: taken },
            repairs: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thought_stating_a_results_value_not_in_the_task_qualifies() {
        let returned = "red chair: 14 in stock\nwarnings: 1 of 3 warehouses did not answer in time";
        let task = "how many red chairs are in stock?";
        assert!(states_a_result("You have 14 red chairs in stock. The answer is: 14.", returned, task));
        assert!(!states_a_result(
            "I will call the tool in Tokyo now.",
            "tokyo: 14:05",
            "what time is it in tokyo?"
        ));
        assert!(!states_a_result("I have what I need.", returned, task));
        assert!(
            !states_a_result("Checking 4471 again.", "ticket 4471: open", "status of ticket 4471?"),
            "in the task"
        );
        assert!(
            !states_a_result("You will get another one in 10 minutes.", returned, task),
            "10 was not returned"
        );
    }

    #[test]
    fn a_thought_planning_more_is_told_from_one_stating_a_result() {
        assert!(plans_more("EUR to USD is 1.0842. Next I need the GBP to USD rate."));
        assert!(plans_more("The ticket is 4471; let me check it again."));
        assert!(plans_more("Is 14 the count?"));
        assert!(!plans_more("The EUR to USD exchange rate is 1.0842."));
        assert!(!plans_more("I have 14 red chairs in stock."));
        assert!(!plans_more("Smithsonion Castle opens 08:30 to 17:30 today."), "no word inside another");
    }
}
