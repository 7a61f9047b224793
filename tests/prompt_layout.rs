//! The prompt's layout: the system message's structure, the task message, the steps and the
//! forced-final message.

mod common;

use common::{answer, assert_well_formed, call, two_tools};
use keel::engine::{
    build_messages, CharEstimate, Message, Outcome, PastSteps, PromptInput, Remembered, Role,
};
use keel::tools::ToolSpec;
use serde_json::json;

/// A budget nothing here comes near, so no compaction happens.
const BIG: usize = 100_000;

fn input<'a>(tools: &'a [ToolSpec], task: &'a str) -> PromptInput<'a> {
    PromptInput {
        tools,
        task,
        memory: &[],
        turns: &[],
        final_only: None,
        instructions: None,
        past_steps: PastSteps::Messages,
        withheld_thoughts: &[],
    }
}

fn build(input: &PromptInput) -> Vec<Message> {
    build_messages(input, &CharEstimate::default(), BIG).expect("fits")
}

#[test]
fn the_system_message_has_rules_tools_and_format_in_that_order() {
    let tools = two_tools();
    let messages = build(&input(&tools, "Weather in Paris?"));
    let system = &messages[0].content;
    let lines: Vec<&str> = system.lines().collect();
    assert_eq!(lines[0], "You are an agent. You complete the user's task step by step by calling tools.");
    for rule in [
        "1. Reply with exactly one JSON object and nothing else.",
        "2. One action per reply; you then get its Observation.",
        "4. Take ids and references only from earlier observations; never guess them.",
        "5. When a tool fails, follow the numbered recovery steps in its observation.",
        "6. Never repeat a call that failed with the same args.",
        "8. If you cannot finish, reply with final_answer and say plainly what failed.",
    ] {
        assert!(lines.contains(&rule), "missing rule {rule:?} in\n{system}");
    }
    let at = |line: &str| lines.iter().position(|l| *l == line).unwrap_or_else(|| panic!("no {line:?}"));
    assert!(at("Rules:") < at("Tools:") && at("Tools:") < at("Output, one of:"));
    assert_eq!(lines[at("Tools:") + 1], "- get_weather: Current weather for a city.");
    assert_eq!(
        lines[at("Tools:") + 2],
        r#"  args: {"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"],"additionalProperties":false}"#
    );
    assert_eq!(
        lines[at("Tools:") + 3],
        "- book_room: Books a hotel room by id. (ids come from: search_rooms)"
    );
    // A property named `title` is an argument, not schema noise: it stays.
    assert!(lines[at("Tools:") + 4].contains(r#""title":{"type":"string","description":"Mr, Ms…"}"#));
    assert!(!system.contains("$schema") && !system.contains("GetWeatherArgs"));
    assert_eq!(
        lines[at("Output, one of:") + 3],
        r#"Example action: {"thought":"<what you know so far and what this call is for>","action":{"tool":"get_weather","args":{"city":"<city>"}}}"#
    );
    assert!(lines.last().unwrap().starts_with(r#"Example final: {"thought":"#));
}

#[test]
fn instructions_go_after_the_rules_and_no_tools_means_final_answers_only() {
    let mut inp = input(&[], "Say hi.");
    inp.instructions = Some("  Answer in French.  ");
    let system = build(&inp)[0].content.clone();
    assert!(system.contains(
        "say plainly what failed.\n\nAnswer in French.\n\nTools: none. Reply only with final_answer."
    ));
    assert!(!system.contains("\"action\""), "{system}");
}

#[test]
fn the_task_comes_first_with_memory_before_it() {
    let tools = two_tools();
    let mut inp = input(&tools, "And in Rome?");
    assert_eq!(build(&inp)[1], Message::new(Role::User, "Task: And in Rome?"));
    let memory = [
        Remembered::Asked("What is the weather\nin Paris?".into()),
        Remembered::Step(call(
            1,
            "get_weather",
            json!({"city": "Paris"}),
            "{\"temp\":18,\n\"sky\":\"sunny\"}",
            Outcome::Ok,
        )),
        Remembered::Step(answer(2, "18°C and sunny in Paris.")),
        Remembered::Asked("Book a table.".into()),
        Remembered::Ended("The run was cancelled before it finished.".into()),
    ];
    inp.memory = &memory;
    let messages = build(&inp);
    assert_well_formed(&messages, "And in Rome?");
    assert_eq!(
        messages[1].content,
        "Earlier in this conversation:\n\
         - User asked: What is the weather in Paris?\n\
         - get_weather {\"city\":\"Paris\"} → ok: {\"temp\":18, \"sky\":\"sunny\"}\n\
         - You answered: 18°C and sunny in Paris.\n\
         - User asked: Book a table.\n\
         - The run ended without an answer: The run was cancelled before it finished.\n\nTask: And in Rome?"
    );
}

#[test]
fn each_step_is_its_json_then_its_observation() {
    let tools = two_tools();
    let turns = [
        call(1, "book_room", json!({"room_id": "r9"}), "NOT_FOUND: no room r9", Outcome::Failed),
        answer(2, "I could not book r9."),
    ];
    let mut inp = input(&tools, "Book r9");
    inp.turns = &turns;
    let messages = build(&inp);
    assert_well_formed(&messages, "Book r9");
    assert_eq!(messages.len(), 5, "a final step has no observation: {messages:#?}");
    assert_eq!(
        messages[2],
        Message::new(
            Role::Assistant,
            r#"{"thought":"step 1","action":{"tool":"book_room","args":{"room_id":"r9"}}}"#
        )
    );
    assert_eq!(messages[3], Message::new(Role::User, "Observation: NOT_FOUND: no room r9"));
    assert_eq!(
        messages[4],
        Message::new(Role::Assistant, r#"{"thought":"done","final_answer":"I could not book r9."}"#)
    );
}

#[test]
fn a_final_answer_the_run_went_on_from_is_followed_by_a_user_message() {
    let turns = [answer(1, "too early"), call(2, "get_weather", json!({}), "ok", Outcome::Ok)];
    let mut inp = input(&[], "t");
    inp.turns = &turns;
    let messages = build(&inp);
    assert_well_formed(&messages, "t");
    assert_eq!(messages[3], Message::new(Role::User, "Continue."));
}

const FINAL_TAIL: &str =
    ". Do not call any tool. Reply now with {\"thought\": ..., \"final_answer\": ...}: give \
                          what you found, and say plainly what failed and that the task is not complete.";

#[test]
fn the_newest_observation_ends_with_the_task_and_the_next_move_and_only_the_newest() {
    let tools = two_tools();
    let turns = [
        call(1, "get_weather", json!({"city": "Paris"}), "18°C", Outcome::Ok),
        call(2, "get_weather", json!({"city": "Rome"}), "24°C", Outcome::Ok),
    ];
    let mut inp = input(&tools, "Weather in Paris and Rome?");
    let first_step = build(&inp);
    assert_eq!(first_step.len(), 2, "no observation yet, no reminder");
    assert_eq!(first_step[1].content, "Task: Weather in Paris and Rome?");
    inp.turns = &turns;
    let messages = build(&inp);
    assert_eq!(messages[3].content, "Observation: 18°C", "an older observation stays as it was");
    assert_eq!(
        messages[5].content,
        "Observation: 24°C\n\nYour task: Weather in Paris and Rome?\nNext: if the observations above answer the \
         task, reply with final_answer now. Otherwise reply with the one action that gets you closer."
    );
}

#[test]
fn the_forced_final_text_closes_the_last_user_message() {
    let tools = two_tools();
    let turns = [call(1, "book_room", json!({"room_id": "r9"}), "NOT_FOUND", Outcome::Failed)];
    let mut inp = input(&tools, "Book r9");
    inp.turns = &turns;
    inp.final_only = Some("You have had 5 failures in a row.");
    let messages = build(&inp);
    assert_well_formed(&messages, "Book r9");
    assert_eq!(messages.len(), 4);
    let expected = format!("Observation: NOT_FOUND\n\nYou have had 5 failures in a row{FINAL_TAIL}");
    assert_eq!(messages[3].content, expected);

    inp.turns = &[];
    let messages = build(&inp);
    assert_eq!(messages.len(), 2);
    assert!(messages[1].content.ends_with(&format!("\n\nYou have had 5 failures in a row{FINAL_TAIL}")));
}

#[test]
fn the_forced_final_text_after_a_final_step_is_its_own_message() {
    let turns = [answer(1, "maybe")];
    let mut inp = input(&[], "t");
    inp.turns = &turns;
    inp.final_only = Some("Step budget spent");
    let messages = build(&inp);
    assert_well_formed(&messages, "t");
    assert_eq!(messages.last().unwrap(), &Message::new(Role::User, format!("Step budget spent{FINAL_TAIL}")));
}
