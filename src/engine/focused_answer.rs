//! The focused answer (`focusedAnswer`): when a final answer was no answer — a placeholder, keel's
//! own words, words about none of the run — and a tool has already answered, the next model call
//! asks for the answer alone: the task, the conversation's earlier questions (not their answers), and what
//! the tools returned, with a one-field reply. The whole step prompt (rules, tools, the reply
//! format with its placeholders, the envelope) is what a 135M model could not read its way out of:
//! SmolLM2 copied the format's `<response to the task>` again after the envelope quoted the result
//! it needed (bench/results/recovery-issue9.md). The answer is checked like any other.

use serde_json::{json, Value};

use crate::text::clip;

use super::memory::Remembered;
use super::prompt::{estimate, TokenCounter};
use super::{CallKey, Message, Role, Turn};

/// The instructions of the focused request. No placeholder to copy: the reply's one field is
/// described in words. Chosen on SmolLM2's recorded runs (bench/results/recovery-issue9.md): this
/// wording with the results as `- tool: result` lines got 11 of its 20 runs that had a result
/// right; the same request with each call's arguments and a sentence on what to say when the
/// results fall short, 9.
pub(crate) const INSTRUCTIONS: &str = "Answer the user's question using only the tool results below. Give the values exactly as the results show them. Reply with one JSON object: {\"final_answer\": your answer in one or two sentences}.";

/// The instructions of a focused request to a model that decodes greedily, after one whose answer
/// was refused: the same request would get the same reply (`greedy_replies.rs`), so this one asks
/// the model to copy the results' words. SmolLM2, asked the first way, answered "The status of
/// support ticket 4471 is not yet known." beside "Ticket 4471: waiting for customer reply", and the
/// same request again got the same answer (recovery bench invent-ticket, 0a17a78).
pub(crate) const INSTRUCTIONS_AGAIN: &str = "The last answer did not answer the user's question. Copy, word for word, the part of the tool results below that answers it. Reply with one JSON object: {\"final_answer\": the words you copied}.";

/// How many of the newest distinct results the request quotes.
const MAX_RESULTS: usize = 6;
/// Characters of one result the request quotes.
const RESULT_CHARS: usize = 1_000;
/// How many of the conversation's earlier questions the request quotes.
pub(crate) const MAX_EXCHANGES: usize = 3;
/// Characters of an earlier question the request quotes.
const EXCHANGE_CHARS: usize = 300;

/// The step schema of the focused request: one non-empty string, as the step schema's answer is.
pub(crate) fn answer_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "final_answer": { "type": "string", "minLength": 1 } },
        "required": ["final_answer"],
        "additionalProperties": false
    })
}

/// Whether the run has a result the focused request can quote.
pub(crate) fn has_results(turns: &[Turn]) -> bool {
    turns.iter().any(Turn::worked)
}

/// The focused request's messages: [`INSTRUCTIONS`], then the earlier questions of the
/// conversation, the task (as the question), the newest distinct results of calls that worked
/// (oldest first) and `fact`, a line computed from them (`model_turn.rs`: the sum of amounts the
/// task asks for combined, `answer_shape.rs`; the item at the end it asks for, `latest_listed.rs`),
/// the oldest dropped until the estimate fits `budget_tokens` (the task and one result always
/// stay). `again`: a greedy model's earlier focused answer of the run was refused
/// ([`INSTRUCTIONS_AGAIN`]). `superseded`: calls whose results are left out (see [`result_lines`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn focused_messages(
    task: &str,
    memory: &[Remembered],
    turns: &[Turn],
    superseded: &[CallKey],
    fact: Option<&str>,
    again: bool,
    counter: &dyn TokenCounter,
    budget_tokens: usize,
) -> Vec<Message> {
    let mut results = result_lines(turns, superseded);
    let earlier = exchanges(memory);
    let instructions = if again { INSTRUCTIONS_AGAIN } else { INSTRUCTIONS };
    loop {
        let messages = assemble(instructions, task, &earlier, &results, fact);
        if results.len() <= 1 || estimate(&messages, counter) <= budget_tokens {
            return messages;
        }
        results.remove(0);
    }
}

/// The newest [`MAX_RESULTS`] distinct results of calls that worked, oldest first, as
/// `- tool: result` lines (the focused answer's and the focused call's). A call made again with
/// the same arguments shows its latest result only: the earlier one is out of date (a page
/// snapshot before the page changed). With both snapshots of recovery-bench stale-ref shown,
/// SmolLM2 answered "The order number is 4217." twice; with the latest only, "KX-4417".
/// The results of `superseded` calls are left out too while another result is at hand (a
/// result in another unit than the task asks for, once the call in the asked one worked).
pub(crate) fn result_lines(turns: &[Turn], superseded: &[CallKey]) -> Vec<String> {
    let results = lines_of(turns, superseded);
    if results.is_empty() && !superseded.is_empty() {
        return lines_of(turns, &[]);
    }
    results
}

fn lines_of(turns: &[Turn], superseded: &[CallKey]) -> Vec<String> {
    let mut results: Vec<String> = Vec::new();
    let mut calls: Vec<CallKey> = superseded.to_vec();
    for turn in turns.iter().rev().filter(|t| t.worked()) {
        let Some(action) = &turn.action else { continue };
        let call = CallKey::new(&action.tool, &action.args);
        if calls.contains(&call) {
            continue;
        }
        calls.push(call);
        let line = format!("- {}: {}", action.tool, clip(turn.observation.trim(), RESULT_CHARS));
        if !results.contains(&line) {
            results.push(line);
        }
        if results.len() == MAX_RESULTS {
            break;
        }
    }
    results.reverse();
    results
}

fn assemble(
    instructions: &str,
    task: &str,
    earlier: &[String],
    results: &[String],
    fact: Option<&str>,
) -> Vec<Message> {
    let mut user = String::new();
    if !earlier.is_empty() {
        user.push_str("Earlier in this conversation:\n");
        user.push_str(&earlier.join("\n"));
        user.push_str("\n\n");
    }
    user.push_str(&format!("Question: {task}\n\nTool results:\n{}", results.join("\n")));
    if let Some(fact) = fact {
        user.push_str(&format!("\n\n{fact}"));
    }
    vec![Message::new(Role::System, instructions), Message::new(Role::User, user)]
}

/// The last [`MAX_EXCHANGES`] questions of the session's earlier runs, without their answers: an
/// earlier answer is text a small model copies. Asked "And in Oslo?" after "What's the weather in
/// Paris?", SmolLM2 answered the focused request with the earlier answer, "Paris: 18°C, cloudy."
/// (recovery bench follow-up-city, fe8590e). The question is what gives a follow-up its sense;
/// what it is about now is in this run's results.
pub(crate) fn exchanges(memory: &[Remembered]) -> Vec<String> {
    let asked: Vec<String> = memory
        .iter()
        .filter_map(|line| match line {
            Remembered::Asked(task) => Some(format!("- The user asked: {}", clip(task, EXCHANGE_CHARS))),
            _ => None,
        })
        .collect();
    let from = asked.len().saturating_sub(MAX_EXCHANGES);
    asked[from..].to_vec()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::engine::prompt::CharEstimate;
    use crate::turn::{Action, Outcome};

    /// The focused request for `task`, nothing superseded, no computed line, asked the first time.
    fn ask(task: &str, memory: &[Remembered], turns: &[Turn], budget_tokens: usize) -> Vec<Message> {
        focused_messages(task, memory, turns, &[], None, false, &CharEstimate::default(), budget_tokens)
    }

    fn call(step: u32, tool: &str, observation: &str, outcome: Outcome) -> Turn {
        Turn {
            step,
            thought: String::new(),
            action: Some(Action { tool: tool.into(), args: json!({"q": step}) }),
            observation: observation.into(),
            outcome,
            reply: None,
        }
    }

    #[test]
    fn quotes_the_task_and_the_results_of_calls_that_worked_only() {
        let turns = vec![
            call(1, "search", "nothing here", Outcome::Failed),
            call(2, "get_price", "BTC: $61,234.50", Outcome::Ok),
            call(3, "get_price", "BTC: $61,234.50", Outcome::Ok),
        ];
        let messages = ask("Price of BTC?", &[], &turns, 10_000);
        assert_eq!(messages[0].content, INSTRUCTIONS);
        let user = &messages[1].content;
        assert!(user.starts_with("Question: Price of BTC?\n\nTool results:\n"), "{user}");
        assert_eq!(user.matches("- get_price: BTC: $61,234.50").count(), 1, "the same result once: {user}");
        assert!(!user.contains("nothing here"), "a failed call's text is not a result: {user}");
    }

    #[test]
    fn a_call_made_again_with_the_same_arguments_shows_its_latest_result_only() {
        let snapshot = |step: u32, page: &str| Turn {
            action: Some(Action { tool: "snapshot".into(), args: json!({}) }),
            ..call(step, "snapshot", page, Outcome::Ok)
        };
        let turns = vec![
            snapshot(1, "e2 button 'Place order'"),
            call(2, "click", "stale", Outcome::Failed),
            snapshot(3, "e8 button 'Place order'"),
            call(4, "click", "Order number: KX-4417.", Outcome::Ok),
        ];
        let lines = result_lines(&turns, &[]);
        assert_eq!(lines, ["- snapshot: e8 button 'Place order'", "- click: Order number: KX-4417."]);
    }

    #[test]
    fn a_superseded_call_is_left_out_unless_it_is_the_only_result() {
        let turns =
            vec![call(1, "get_weather", "31°C", Outcome::Ok), call(2, "get_weather", "88°F", Outcome::Ok)];
        let old = CallKey::new("get_weather", &json!({"q": 1}));
        assert_eq!(result_lines(&turns, std::slice::from_ref(&old)), ["- get_weather: 88°F"]);
        assert_eq!(result_lines(&turns[..1], &[old]), ["- get_weather: 31°C"], "nothing else to quote");
    }

    #[test]
    fn drops_the_oldest_results_to_fit_the_budget_but_keeps_the_newest() {
        let long = "x".repeat(900);
        let turns: Vec<Turn> = (1..=5).map(|s| call(s, "read", &format!("{s}{long}"), Outcome::Ok)).collect();
        let messages = ask("Read it.", &[], &turns, 400);
        let user = &messages[1].content;
        assert!(user.contains("- read: 5x"), "{user}");
        assert!(!user.contains("- read: 1x"), "{user}");
        let tiny = ask("Read it.", &[], &turns, 1);
        assert!(tiny[1].content.contains("- read: 5x"), "the newest result always stays");
    }

    #[test]
    fn quotes_the_conversations_earlier_questions_without_their_answers() {
        let memory = vec![
            Remembered::Asked("Weather in Paris?".into()),
            Remembered::Step(call(1, "weather", "Paris: 18°C", Outcome::Ok)),
            Remembered::Step(Turn::final_answer(2, String::new(), "18°C in Paris.".into())),
        ];
        let turns = vec![call(1, "weather", "Oslo: 4°C", Outcome::Ok)];
        let user = ask("And in Oslo?", &memory, &turns, 10_000)[1].content.clone();
        assert!(
            user.starts_with(
                "Earlier in this conversation:\n- The user asked: Weather in Paris?\n\nQuestion: And in Oslo?"
            ),
            "{user}"
        );
    }

    #[test]
    fn the_schema_asks_for_one_non_empty_answer() {
        let schema = answer_schema();
        assert_eq!(schema["required"], json!(["final_answer"]));
        assert_eq!(schema["properties"]["final_answer"]["minLength"], 1);
        assert!(has_results(&[call(1, "a", "b", Outcome::Warning)]));
        assert!(!has_results(&[call(1, "a", "b", Outcome::Failed)]));
    }
}
