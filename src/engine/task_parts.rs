//! A part of the task left out: "What's the weather in Paris right now? Then tell me the total of my
//! latest invoice." Qwen called `get_weather`, then answered "The weather in Paris is 18°C with light
//! rain. The total of my latest invoice is 0." without calling `list_invoices` (recovery bench
//! two-part-task, e8c5218, `success: true`); SmolLM2 answered the demo's weather alone after calling
//! `get_weather` twice (the answer asked for after a call made again).
//!
//! A task names a tool when a word of the tool's name says what the tool is about (`invoice` in
//! `list_invoices`; not `get`, `list` or other words any tool's name may hold) and the task holds
//! that word, singular or plural. Such a tool is a part the run left out when, once some call was
//! made, it was never called, and that word is in no name or argument name of a tool that was: the
//! task's "order" is done by `list_orders` when `get_order` waits, and "unit" by `get_weather`'s
//! `unit` argument, not by a `convert_units` among many tools.
//!
//! Under `grounding`, a final answer with such a part left gets an `ANSWER_MISMATCH` envelope naming
//! the tool, once, and the next model call asks for that tool's call alone (`focusedCall`); where
//! the loop would ask for the answer alone (after a call made again, or an answer that was no
//! answer) it asks for that call instead. Over the recovery bench's 32 tasks, every tool a task
//! names this way is one its right answer needs (`two-part-task`), or shares the word with one that
//! is called (`guessed-id`, `not-found-list-first`, `wrong-type` among the distractors).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::errors::{CallContext, ErrorCode, FailureHints, RawFailure};
use crate::text::clip;
use crate::tools::ToolSpec;

use super::answer_check::{Verdict, QUOTED_RESULT_CHARS, QUOTING};
use super::choice::Allowed;
use super::facts::{name_words, tokens};
use super::grounding::states_from;
use super::run::RunState;
use super::unrelated::content_words;

/// Words of tool names that say what a tool does or how, not what it is about, and the verbs of
/// keel's DOM tools that a task uses as other words ("what type of…", "go back", "press release").
const GENERIC: &[&str] = &[
    "access", "active", "back", "browser", "call", "check", "create", "current", "data", "delete", "detail",
    "fetch", "find", "info", "item", "latest", "list", "load", "lookup", "make", "name", "navigate", "open",
    "page", "press", "query", "read", "remove", "scroll", "search", "select", "send", "show", "text", "tool",
    "type", "update", "user", "value", "view",
];

/// The fewest letters a word needs to say what a tool is about (`get`, `set`, `add`, `by` say not).
const MIN_LETTERS: usize = 4;

/// The words of `text` as a set, filled by insert: `collect()` into a BTreeSet sorts first, another
/// copy of std's sort in the module (bench/results/wasm-size.md).
fn word_set(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    set.extend(name_words(text));
    set
}

/// The words of a tool's name that say what it is about.
fn subject_words(name: &str) -> Vec<String> {
    name_words(name)
        .into_iter()
        .filter(|w| w.chars().count() >= MIN_LETTERS && !GENERIC.contains(&w.as_str()))
        .collect()
}

/// The words a called tool covers: those of its name and of its arguments' names.
fn covered_by(spec: &ToolSpec, covered: &mut BTreeSet<String>) {
    covered.extend(name_words(&spec.name));
    if let Some(properties) = spec.input_schema.get("properties").and_then(Value::as_object) {
        for name in properties.keys() {
            covered.extend(name_words(name));
        }
    }
}

/// The first tool of `specs` (in their order) the task names that no call of `called` covers, with
/// the word the task names it by.
pub(crate) fn part_left<'a>(
    task: &str,
    specs: &'a [ToolSpec],
    called: &[&str],
) -> Option<(&'a ToolSpec, String)> {
    if called.is_empty() {
        return None;
    }
    let asked = word_set(task);
    let mut covered = BTreeSet::new();
    for spec in specs.iter().filter(|s| called.contains(&s.name.as_str())) {
        covered_by(spec, &mut covered);
    }
    specs.iter().filter(|s| !called.contains(&s.name.as_str())).find_map(|spec| {
        let word =
            subject_words(&spec.name).into_iter().find(|w| asked.contains(w) && !covered.contains(w))?;
        Some((spec, word))
    })
}

/// A part of a task of several, left out of an answer that gives another: the first tool of
/// `specs` the task names by a word whose tools that worked (`worked`: each tool's latest result,
/// lowercase) returned values (a token with a digit) of which `answer` states none
/// (`grounding::states_from`, or a word of its own in the result), while it states something of
/// another part the task names; with that word. SmolLM2 called `list_invoices` and `get_weather`
/// and answered "Paris: 18°C, light rain.</thought>…" (recovery bench two-part-task, 565d6dd,
/// `success: true`). An answer about the one part of a task is not judged so: "cold" for a
/// weather of -3°C is terse, not partial.
pub(crate) fn part_unstated(
    task: &str,
    answer: &str,
    specs: &[ToolSpec],
    worked: &[(&str, String)],
) -> Option<(String, String)> {
    let asked = word_set(task);
    let result_of = |name: &str| worked.iter().find(|(tool, _)| *tool == name).map(|(_, r)| r.as_str());
    // The answer's own words, not the task's: "It is waiting for customer reply." states a status.
    let task_words = content_words(task);
    let task_lower = task.to_lowercase();
    let said: Vec<String> = content_words(answer).into_iter().filter(|w| !task_words.contains(w)).collect();
    let states = |result: &str| {
        states_from(answer, result, &task_lower) || {
            let returned = content_words(result);
            said.iter().any(|w| returned.contains(w))
        }
    };
    // Each part: the word, the first tool of it that worked, whether its results hold values, and
    // whether the answer states any of them.
    let mut parts: Vec<(String, &str, bool, bool)> = Vec::new();
    for spec in specs.iter().filter(|s| result_of(&s.name).is_some()) {
        for word in subject_words(&spec.name).into_iter().filter(|w| asked.contains(w)) {
            if parts.iter().any(|(w, ..)| *w == word) {
                continue;
            }
            let group = specs.iter().filter(|s| subject_words(&s.name).contains(&word));
            let results: Vec<&str> = group.filter_map(|s| result_of(&s.name)).collect();
            let valued =
                results.iter().any(|r| tokens(r).iter().any(|t| t.chars().any(|c| c.is_ascii_digit())));
            let stated = results.iter().any(|r| states(r));
            parts.push((word, spec.name.as_str(), valued, stated));
        }
    }
    if !parts.iter().any(|(.., stated)| *stated) {
        return None;
    }
    let (word, tool, ..) = parts.into_iter().find(|(_, _, valued, stated)| *valued && !*stated)?;
    Some((tool.to_string(), word))
}

impl RunState<'_> {
    /// The tool a part of the task is left to and the word the task names it by, under `grounding`,
    /// while the model may call any tool (`part_left`).
    pub(crate) fn task_part_left(&self) -> Option<(String, String)> {
        if !self.agent.config.grounding || self.allowed() != Allowed::Any {
            return None;
        }
        // Calls of tools the agent has: before one, the tool choice decides (as `choice.rs` reads it).
        let tools = &self.agent.tools;
        let called: Vec<&str> = self
            .turns
            .iter()
            .filter_map(|t| t.action.as_ref())
            .map(|a| a.tool.as_str())
            .filter(|name| tools.get(name).is_some())
            .collect();
        let (spec, word) = part_left(&self.task, self.agent.tools.specs(), &called)?;
        Some((spec.name.clone(), word))
    }

    /// Sends back a final answer given while a part of the task is left (`task_part_left`), once,
    /// naming the tool, and asks for that tool's call next (`focusedCall`); an answer given so
    /// again ends the run unsuccessful. `None`: no part is left.
    pub(crate) async fn check_parts(&mut self, step: u32, thought: &str, reply: &str) -> Option<Verdict> {
        let (tool, word) = self.task_part_left()?;
        let hints = FailureHints {
            causes: Some(vec!["The answer was given before every part of the task was done.".to_string()]),
            recovery: Some(vec![
                format!("Call `{tool}` now."),
                "Then give the final_answer to every part of the task, from what the tools returned."
                    .to_string(),
            ]),
            available_actions: Some(vec![tool.clone()]),
            ..Default::default()
        };
        let part = Part {
            word,
            left: format!("`{tool}` has not been called"),
            said: format!("`{tool}` was never called"),
        };
        if self.agent.config.focused_call {
            self.focus_call = Some(tool);
        }
        Some(self.send_part_back(step, thought, reply, part, hints).await)
    }

    /// Sends back, once, a grounded answer stating nothing of what the tools of a part of the task
    /// returned (`part_unstated`), quoting the result, and asks for the answer alone next
    /// (`focusedAnswer`); an answer given so again ends the run unsuccessful. `None`: every part
    /// the task names by a tool is stated.
    pub(crate) async fn check_part_stated(
        &mut self,
        step: u32,
        thought: &str,
        answer: &str,
        reply: &str,
    ) -> Option<Verdict> {
        if !self.agent.config.grounding {
            return None;
        }
        let worked: Vec<(&str, String)> =
            self.outputs.iter().map(|(tool, result)| (tool.as_str(), result.to_lowercase())).collect();
        let (tool, word) = part_unstated(&self.task, answer, self.agent.tools.specs(), &worked)?;
        let result = self.outputs.get(&tool).map(|r| clip(r.trim(), QUOTED_RESULT_CHARS)).unwrap_or_default();
        let hints = FailureHints {
            causes: Some(vec!["The answer was given for one part of the task only.".to_string()]),
            recovery: Some(vec![
                format!("`{tool}`{QUOTING}{result}\""),
                "Answer every part of the task, with the values exactly as the results show them."
                    .to_string(),
            ]),
            ..Default::default()
        };
        let part = Part {
            word,
            left: format!("states nothing `{tool}` returned"),
            said: format!("the answer stated nothing `{tool}` returned"),
        };
        self.focus_answer_next();
        Some(self.send_part_back(step, thought, reply, part, hints).await)
    }

    /// The answer with `part` left, as both checks judge it: the first time sent back with an
    /// `ANSWER_MISMATCH` envelope (`hints`: its causes and plan), the next time replaced by the
    /// honest answer, the run unsuccessful (the next step's focus, set by the caller, then unused).
    async fn send_part_back(
        &mut self,
        step: u32,
        thought: &str,
        reply: &str,
        part: Part,
        hints: FailureHints,
    ) -> Verdict {
        let Part { word, left, said } = part;
        if self.part_warned {
            self.answer_withheld = true;
            let why = format!("the answer left out a part of it: the task asks about '{word}', and {said}");
            return Verdict::Replace(self.honest_answer(&why));
        }
        self.part_warned = true;
        let message =
            format!("Your final_answer leaves out a part of the task: it asks about '{word}', and {left}.");
        let raw = RawFailure::message(message).with_hints(hints);
        let envelope = self.envelope(ErrorCode::AnswerMismatch, &raw, None, CallContext::default());
        self.reject_reply(step, thought.to_string(), envelope, reply.to_string()).await;
        Verdict::Retry
    }
}

/// A part of the task an answer left: the task's word for it, and what the envelope (`left`) and
/// the honest answer (`said`) say of its tool.
struct Part {
    word: String,
    left: String,
    said: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::facts::singular;
    use serde_json::json;

    fn tool(name: &str, args: &[&str]) -> ToolSpec {
        let properties: serde_json::Map<String, Value> =
            args.iter().map(|a| (a.to_string(), json!({"type": "string"}))).collect();
        ToolSpec::new(name, "A tool.", json!({"type": "object", "properties": properties}))
    }

    const TWO_PARTS: &str =
        "What's the weather in Paris right now? Then tell me the total of my latest invoice.";

    fn left(task: &str, specs: &[ToolSpec], called: &[&str]) -> Option<(String, String)> {
        part_left(task, specs, called).map(|(s, w)| (s.name.clone(), w))
    }

    #[test]
    fn a_tool_the_task_names_and_no_call_covers_is_a_part_left() {
        let specs = [tool("get_weather", &["city"]), tool("list_invoices", &[])];
        assert_eq!(
            left(TWO_PARTS, &specs, &["get_weather"]),
            Some(("list_invoices".to_string(), "invoice".to_string()))
        );
        assert_eq!(left(TWO_PARTS, &specs, &["get_weather", "list_invoices"]), None);
        assert_eq!(left(TWO_PARTS, &specs, &[]), None, "before any call the tool choice decides");
        let camel = [tool("getWeather", &["city"]), tool("listInvoices", &[])];
        assert_eq!(left(TWO_PARTS, &camel, &["getWeather"]).map(|(n, _)| n).as_deref(), Some("listInvoices"));
    }

    #[test]
    fn a_word_a_called_tool_covers_by_name_or_argument_leaves_nothing() {
        let orders = [tool("list_orders", &[]), tool("get_order", &["order_id"])];
        assert_eq!(left("What is the total of my most recent order?", &orders, &["list_orders"]), None);
        let weather = [tool("get_weather", &["city", "unit"]), tool("convert_units", &["value"])];
        assert_eq!(left("What's the temperature in Austin? Use unit F.", &weather, &["get_weather"]), None);
        let without_unit = [tool("get_weather", &["city"]), tool("convert_units", &["value"])];
        assert_eq!(
            left("What's the temperature in Austin? Use unit F.", &without_unit, &["get_weather"]),
            Some(("convert_units".to_string(), "unit".to_string())),
            "the same task names the converter when nothing called covers `unit`"
        );
    }

    #[test]
    fn generic_and_short_words_name_no_tool() {
        let specs = [tool("get_weather", &["city"]), tool("search_page", &[]), tool("set_tab", &[])];
        assert_eq!(left("Search the page for the weather, then set a tab.", &specs, &["get_weather"]), None);
        let dom = [tool("snapshot", &[]), tool("type", &["ref", "text"]), tool("click", &["ref"])];
        assert_eq!(left("What type of battery does the lamp take?", &dom, &["snapshot"]), None);
        assert_eq!(
            left("Click the Subscribe button and give me the code.", &dom, &["snapshot"])
                .map(|(n, _)| n)
                .as_deref(),
            Some("click")
        );
    }

    #[test]
    fn an_answer_stating_nothing_a_named_tool_returned_leaves_its_part() {
        let specs = [tool("get_weather", &["city"]), tool("list_invoices", &[])];
        let worked = [
            ("get_weather", "paris: 18°c, light rain.".to_string()),
            (
                "list_invoices",
                "inv-2025-014 (2025-06-30): $1,250.00\ninv-2025-009 (2025-03-31): $980.00".to_string(),
            ),
        ];
        let unstated = |answer: &str| part_unstated(TWO_PARTS, answer, &specs, &worked);
        assert_eq!(
            unstated("Paris: 18°C, light rain.</thought>"),
            Some(("list_invoices".to_string(), "invoice".to_string()))
        );
        assert_eq!(unstated("18°C and light rain; your latest invoice is $1,250.00."), None);
        assert_eq!(
            unstated("Your latest invoice is $1,250.00."),
            Some(("get_weather".to_string(), "weather".to_string())),
            "the weather part, stated by none of its values"
        );
        let orders = [tool("list_orders", &[]), tool("get_order", &["order_id"])];
        let worked = [
            ("list_orders", "ord-5521 (2025-09-02), ord-5310 (2025-08-14)".to_string()),
            ("get_order", "ord-5521: 3 items, total $42.50".to_string()),
        ];
        let task = "What is the total of my most recent order?";
        assert_eq!(
            part_unstated(task, "It comes to $42.50.", &orders, &worked),
            None,
            "one tool of the word stated"
        );
        let ticket = [tool("get_ticket", &["id"])];
        let status = [("get_ticket", "ticket 4471: waiting for customer reply".to_string())];
        let task = "What is the status of support ticket 4471?";
        assert_eq!(part_unstated(task, "It is waiting for a customer reply.", &ticket, &status), None);
        assert_eq!(
            part_unstated(task, "The ticket 4471 is closed.", &ticket, &status),
            None,
            "one part: an answer stating nothing of it is for the grounding check, not a part left"
        );
        let both = [tool("get_weather", &["city"]), tool("get_ticket", &["id"])];
        let worked = [("get_weather", "oslo: -3°c".to_string()), ("get_ticket", status[0].1.clone())];
        let task = "Weather in Oslo, and the status of ticket 4471?";
        assert_eq!(
            part_unstated(task, "Ticket 4471 is waiting for a customer reply.", &both, &worked),
            Some(("get_weather".to_string(), "weather".to_string())),
            "the task's own number states nothing the tool returned; the status states the other part"
        );
        assert_eq!(
            part_unstated(task, "Cold; waiting for customer reply.", &both, &worked).map(|p| p.1),
            Some("weather".into())
        );
        let words_only = [("get_weather", "sunny".to_string())];
        assert_eq!(
            part_unstated(TWO_PARTS, "Nice.", &specs, &words_only),
            None,
            "a result with no value to state"
        );
    }

    #[test]
    fn plurals_and_camel_case_are_read_as_words() {
        assert_eq!(name_words("listUnpaidInvoices"), ["list", "unpaid", "invoice"]);
        assert_eq!(singular("entries"), "entry");
        assert_eq!(singular("boxes"), "box");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("address"), "address");
        assert_eq!(singular("headlines"), "headline");
    }
}
