//! Property: for any history and any budget, the prompt either fits the budget or the fixed part
//! alone is too large — never a panic, never an overflow, and always well formed.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{assert_well_formed, two_tools};
use keel::engine::{
    build_messages, estimate, Action, CharEstimate, ContextError, Outcome, PastSteps, PromptInput,
    Remembered, TokenCounter, Transcript, Turn,
};
use proptest::prelude::*;
use serde_json::json;

/// A counter whose count of a concatenation exceeds the sum of its parts' counts, so counting
/// pieces separately underestimates: the exact check after assembly must catch it.
struct Superadditive;

impl TokenCounter for Superadditive {
    fn count(&self, text: &str) -> usize {
        let chars = text.chars().count();
        chars / 3 + chars * chars / 20_000
    }
}

/// Counts words and punctuation, roughly as a real tokenizer does.
struct Words;

impl TokenCounter for Words {
    fn count(&self, text: &str) -> usize {
        text.split_whitespace().map(|w| 1 + w.chars().filter(|c| !c.is_alphanumeric()).count()).sum()
    }
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::string::string_regex(&format!("[a-z ]{{0,{max}}}")).expect("valid regex"),
        proptest::string::string_regex(&format!("[\\PC\\n]{{0,{max}}}")).expect("valid regex"),
    ]
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![Just(Outcome::Ok), Just(Outcome::Warning), Just(Outcome::Failed), Just(Outcome::Final)]
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        1u32..40,
        text(300),
        proptest::option::of((text(12), text(200))),
        prop_oneof![text(80), text(3000)],
        outcome(),
    )
        .prop_map(|(step, thought, action, observation, outcome)| Turn {
            step,
            thought,
            action: action.map(|(tool, arg)| Action { tool, args: json!({ "q": arg, "n": 3 }) }),
            observation,
            outcome,
            reply: None,
        })
}

/// A line of the session's memory: an earlier task, step or ending.
fn remembered() -> impl Strategy<Value = Remembered> {
    prop_oneof![
        turn().prop_map(Remembered::Step),
        prop_oneof![text(80), text(1500)].prop_map(Remembered::Asked),
        text(300).prop_map(Remembered::Ended),
    ]
}

#[derive(Debug)]
struct Case {
    tools: usize,
    task: String,
    memory: Vec<Remembered>,
    turns: Vec<Turn>,
    final_only: Option<String>,
    instructions: Option<String>,
    budget: usize,
    counter: usize,
    past_steps: PastSteps,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0usize..=2,
        text(200),
        proptest::collection::vec(remembered(), 0..8),
        proptest::collection::vec(turn(), 0..20),
        proptest::option::of(text(60)),
        proptest::option::of(text(300)),
        prop_oneof![0usize..1_000, 0usize..12_000],
        0usize..4,
        any::<bool>(),
    )
        .prop_map(|(tools, task, memory, turns, final_only, instructions, budget, counter, log)| Case {
            tools,
            task,
            memory,
            turns,
            final_only,
            instructions,
            budget,
            counter,
            past_steps: if log { PastSteps::Log } else { PastSteps::Messages },
        })
}

fn counter(which: usize) -> Box<dyn TokenCounter> {
    match which {
        0 => Box::new(CharEstimate::default()),
        1 => Box::new(CharEstimate { chars_per_token: 1.0 }),
        2 => Box::new(Superadditive),
        _ => Box::new(Words),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_prompt_fits_or_the_fixed_part_is_too_large(case in case()) {
        let tools = two_tools();
        let input = PromptInput {
            tools: &tools[..case.tools],
            task: &case.task,
            memory: &case.memory,
            turns: &case.turns,
            final_only: case.final_only.as_deref(),
            instructions: case.instructions.as_deref(),
            withheld_thoughts: &[],
            past_steps: case.past_steps,
        };
        let counter = counter(case.counter);
        match build_messages(&input, counter.as_ref(), case.budget) {
            Ok(messages) => {
                let used = estimate(&messages, counter.as_ref());
                prop_assert!(used <= case.budget, "{used} > {}", case.budget);
                assert_well_formed(&messages, &case.task);
                if let Some(reason) = &case.final_only {
                    let last = &messages.last().expect("messages").content;
                    prop_assert!(last.contains(reason.trim().trim_end_matches('.')));
                    prop_assert!(last.ends_with("that the task is not complete."));
                }
                let again = build_messages(&input, counter.as_ref(), case.budget);
                prop_assert_eq!(Ok(messages), again, "deterministic");
            }
            Err(ContextError::FixedPartTooLarge { needed, budget }) => {
                prop_assert_eq!(budget, case.budget);
                prop_assert!(needed > budget);
                // The reported need is enough.
                prop_assert!(build_messages(&input, counter.as_ref(), needed).is_ok());
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    #[test]
    fn more_budget_never_keeps_fewer_steps(case in case()) {
        let tools = two_tools();
        let input = PromptInput {
            tools: &tools,
            task: &case.task,
            memory: &[],
            turns: &case.turns,
            final_only: None,
            instructions: None,
            withheld_thoughts: &[],
            // Counts messages: in the log form every step is in one message.
            past_steps: PastSteps::Messages,
        };
        let counter = CharEstimate::default();
        let kept = |budget| build_messages(&input, &counter, budget).map(|m| m.len()).unwrap_or(0);
        prop_assert!(kept(case.budget) <= kept(case.budget + 500));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A run's [`Transcript`], reused step after step (the newest observation sometimes replaced
    /// in place, as a withheld one is, the budget sometimes lowered, as after an overflow, and the
    /// tools offered and the instructions sometimes other ones, as tool selection and a focused
    /// step make them), gives at every step exactly the prompt a full rebuild of the same history
    /// gives.
    #[test]
    fn the_incremental_transcript_equals_a_full_rebuild(case in case(), withheld in any::<bool>()) {
        let tools = two_tools();
        let counter = counter(case.counter);
        let mut transcript = Transcript::new();
        let mut turns: Vec<Turn> = Vec::new();
        let mut budget = case.budget;
        for (k, turn) in case.turns.iter().enumerate() {
            turns.push(turn.clone());
            if withheld && k % 3 == 1 {
                turns.last_mut().expect("a turn").observation = "[withheld]".into();
            }
            if k % 5 == 4 {
                budget = budget * 2 / 3;
            }
            // Some thoughts replayed empty (`replayThoughts`), as a run decides at each commit.
            let mut withheld: Vec<u32> = turns.iter().map(|t| t.step).filter(|s| s % 4 == 1).collect();
            withheld.sort_unstable();
            withheld.dedup();
            let offered = if k % 3 == 2 { &tools[case.tools.min(1)..case.tools] } else { &tools[..case.tools] };
            let instructions = if k % 4 == 3 { Some("Be brief.") } else { case.instructions.as_deref() };
            let input = PromptInput {
                tools: offered,
                task: &case.task,
                memory: &case.memory,
                turns: &turns,
                withheld_thoughts: &withheld,
                final_only: case.final_only.as_deref(),
                instructions,
                past_steps: case.past_steps,
            };
            let incremental = transcript.build(&input, counter.as_ref(), budget);
            prop_assert_eq!(incremental, build_messages(&input, counter.as_ref(), budget), "step {}", k + 1);
        }
    }
}
