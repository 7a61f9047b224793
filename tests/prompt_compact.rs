//! Compaction: which part of the history goes first as the budget shrinks, and the budget is
//! never exceeded.

mod common;

use common::{answer, assert_well_formed, steps, two_tools};
use keel::engine::{
    build_messages, estimate, CharEstimate, ContextError, Message, PastSteps, PromptInput, Remembered, Turn,
};
use keel::tools::ToolSpec;
use serde_json::json;

const TASK: &str = "Find the weather in every city.";

fn input<'a>(tools: &'a [ToolSpec], turns: &'a [keel::engine::Turn]) -> PromptInput<'a> {
    PromptInput {
        tools,
        task: TASK,
        memory: &[],
        turns,
        final_only: None,
        instructions: None,
        past_steps: PastSteps::Messages,
        withheld_thoughts: &[],
    }
}

fn build(input: &PromptInput, budget: usize) -> Vec<Message> {
    let messages = build_messages(input, &CharEstimate::default(), budget).expect("fits");
    assert!(estimate(&messages, &CharEstimate::default()) <= budget);
    assert_well_formed(&messages, TASK);
    messages
}

fn tokens(messages: &[Message]) -> usize {
    estimate(messages, &CharEstimate::default())
}

/// Tokens of the part never shrunk for this input: system message, task, closing text.
fn fixed(input: &PromptInput) -> usize {
    match build_messages(input, &CharEstimate::default(), 0) {
        Err(ContextError::FixedPartTooLarge { needed, .. }) => needed,
        other => panic!("nothing fits in 0 tokens: {other:#?}"),
    }
}

/// Tokens of the newest step's two messages, uncut.
fn latest_pair(input: &PromptInput) -> usize {
    let full = build(input, usize::MAX);
    tokens(&full[full.len() - 2..])
}

fn observations(messages: &[Message]) -> Vec<&str> {
    // The newest observation ends with the next-step reminder: the observation is what precedes it.
    messages
        .iter()
        .filter_map(|m| m.content.strip_prefix("Observation: "))
        .map(|o| o.split_once("\n\nYour task: ").map_or(o, |(observation, _)| observation))
        .collect()
}

#[test]
fn a_prompt_that_fits_is_left_alone() {
    let tools = two_tools();
    let turns = steps(3, 500);
    let full = build(&input(&tools, &turns), usize::MAX);
    assert_eq!(build(&input(&tools, &turns), tokens(&full)), full);
}

#[test]
fn older_observations_are_cut_first_oldest_first_and_the_newest_stays_whole() {
    let tools = two_tools();
    let turns = steps(4, 2000);
    let inp = input(&tools, &turns);
    let full = build(&inp, usize::MAX);
    let messages = build(&inp, tokens(&full) - 50);
    let obs = observations(&messages);
    assert_eq!(obs.len(), 4, "no step was summarised");
    assert!(obs[0].starts_with("result 1: abc") && obs[0].contains("…[cut 1700 chars]…"), "{}", obs[0]);
    assert_eq!(obs[1..], observations(&full)[1..]);
    assert!(!messages[1].content.contains("Steps so far"));
}

#[test]
fn memory_is_summarised_then_dropped_before_this_runs_steps_shrink() {
    let tools = two_tools();
    let memory: Vec<Remembered> = steps(10, 500).into_iter().map(Remembered::Step).collect();
    let turns = steps(3, 300);
    let mut inp = input(&tools, &turns);
    let without_memory = build(&inp, usize::MAX);
    inp.memory = &memory;
    let full = build(&inp, usize::MAX);

    let summarised = build(&inp, tokens(&full) - 100);
    let lines: Vec<&str> = summarised[1].content.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(lines.len(), 10);
    assert!(lines[0].chars().count() < 110, "oldest line summarised: {}", lines[0]);
    assert!(lines[9].chars().count() > 200, "newest line still in full: {}", lines[9]);
    assert_eq!(summarised[2..], full[2..], "this run's steps untouched");

    let dropped = build(&inp, tokens(&without_memory) + 5);
    assert_eq!(dropped, without_memory);
}

#[test]
fn older_steps_become_one_line_summaries_and_the_newest_stays_whole() {
    let tools = two_tools();
    let turns = steps(6, 1000);
    let inp = input(&tools, &turns);
    let budget = fixed(&inp) + 2 * latest_pair(&inp) + 50;
    let messages = build(&inp, budget);
    let first = &messages[1].content;
    let summarised = first.lines().filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit())).count();
    assert!(summarised >= 1, "{first}");
    assert!(first.contains(&format!(
        "Task: {TASK}\n\nSteps so far (summarised):\n1. get_weather {{\"city\":\"city1\"}} → ok: result 1: abcdefghij{}…",
        "abcdefghij".repeat(4)
    )));
    assert!(!first.contains("omitted"));
    // The rest are still steps, the oldest kept ones with cut observations.
    let kept = (messages.len() - 2) / 2;
    assert_eq!(summarised + kept, 6);
    assert!(messages[2].content.contains(&format!("city{}", summarised + 1)));
    let obs = observations(&messages);
    assert!(obs[..kept - 1].iter().all(|o| o.contains("…[cut 700 chars]…")));
    assert_eq!(obs[kept - 1], turns[5].observation);
}

#[test]
fn the_oldest_summaries_give_way_to_an_omitted_marker() {
    let tools = two_tools();
    let turns = steps(30, 200);
    let inp = input(&tools, &turns);
    let messages = build(&inp, fixed(&inp) + 2 * latest_pair(&inp) + 60);
    let first = &messages[1].content;
    let omitted: usize = first
        .split_once("Steps so far (summarised):\n(")
        .and_then(|(_, rest)| rest.split_once(" earlier steps omitted)"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no marker in {first}"));
    let lines = first.lines().filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit())).count();
    let kept = (messages.len() - 2) / 2;
    assert_eq!(omitted + lines + kept, 30);
    assert!(
        first.contains(&format!("\n{}. get_weather", omitted + 1)),
        "summaries continue after the marker"
    );
    assert_eq!(observations(&messages).last().copied(), Some(turns[29].observation.as_str()));
}

#[test]
fn one_huge_result_is_capped_before_it_can_wipe_out_the_history() {
    let tools = two_tools();
    let mut turns = steps(3, 200);
    turns[2].observation = "x".repeat(20_000);
    let inp = input(&tools, &turns);
    let messages = build(&inp, fixed(&inp) + 3000);
    let obs = observations(&messages);
    assert_eq!(obs.len(), 3, "the small older steps survive");
    assert_eq!(obs[..2], [turns[0].observation.as_str(), turns[1].observation.as_str()]);
    assert!(obs[2].contains("…[cut ") && obs[2].chars().count() > 4000, "{}", obs[2].len());
}

#[test]
fn at_the_last_resort_the_newest_observation_is_cut_but_kept() {
    let tools = two_tools();
    let mut turns = steps(3, 200);
    turns[2].observation = format!("RECOVERY: {} 1. call search_rooms", "y".repeat(20_000));
    let inp = input(&tools, &turns);
    let budget = fixed(&inp) + 200;
    let messages = build(&inp, budget);
    let newest = observations(&messages).pop().expect("newest kept");
    assert!(newest.starts_with("RECOVERY: yyy") && newest.ends_with("1. call search_rooms"), "{newest}");
    assert!(
        tokens(&messages) >= budget - 10,
        "the cut uses the room there is (less per-piece rounding): {} of {budget}: {messages:#?}",
        tokens(&messages)
    );
    assert!(messages[1].content.contains("earlier steps omitted") || messages[1].content.contains("1. get_"));
}

#[test]
fn a_newest_step_too_big_to_keep_is_summarised_or_omitted() {
    let tools = two_tools();
    let mut turns = steps(2, 100);
    turns[1].thought = "z".repeat(5_000);
    turns[1].action =
        Some(keel::engine::Action { tool: "get_weather".into(), args: json!({"q": "w".repeat(5000)}) });
    let inp = input(&tools, &turns);
    for extra in [0, 3, 10, 30, 60] {
        let messages = build(&inp, fixed(&inp) + extra);
        assert_eq!(messages.len(), 2, "no room for the step itself: {messages:#?}");
    }
}

#[test]
fn fixed_part_too_large_says_what_it_needs() {
    let tools = two_tools();
    let turns = steps(2, 100);
    let inp = input(&tools, &turns);
    let needed = fixed(&inp);
    let err = build_messages(&inp, &CharEstimate::default(), needed - 1).unwrap_err();
    assert_eq!(err, ContextError::FixedPartTooLarge { needed, budget: needed - 1 });
    let text = err.to_string();
    assert!(
        text.contains(&needed.to_string()) && text.contains("fewer tools") && text.contains("larger context")
    );
    let minimal = build(&inp, needed);
    assert_eq!(minimal.len(), 2);
    assert!(minimal[1].content.starts_with(&format!("Task: {TASK}")), "{minimal:#?}");
}

#[test]
fn the_forced_final_text_survives_any_compaction() {
    let tools = two_tools();
    let turns = steps(8, 3000);
    let mut inp = input(&tools, &turns);
    inp.final_only = Some("Too many failures");
    let min = fixed(&inp);
    for budget in (min..min + 4000).step_by(97) {
        if let Ok(messages) = build_messages(&inp, &CharEstimate::default(), budget) {
            assert!(tokens(&messages) <= budget);
            assert_well_formed(&messages, TASK);
            assert!(messages.last().unwrap().content.contains("Too many failures. Do not call any tool."));
        }
    }
}

#[test]
fn a_realistic_four_tool_prompt_leaves_most_of_a_9k_window() {
    let tools = vec![
        ToolSpec::new(
            "search_products",
            "Searches the shop's catalogue. Returns up to max_results products with id, name, price.",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to search for"},
                    "max_results": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5}},
                "required": ["query"], "additionalProperties": false}),
        ),
        ToolSpec::new(
            "get_product",
            "Details of one product: description, sizes, stock.",
            json!({"type": "object", "properties": {"product_id": {"type": "string",
                "description": "An id from search_products"}}, "required": ["product_id"],
                "additionalProperties": false}),
        )
        .with_refs_from(["search_products"]),
        ToolSpec::new(
            "add_to_cart",
            "Adds a product to the cart.",
            json!({"type": "object", "properties": {
                "product_id": {"type": "string"},
                "size": {"type": "string", "enum": ["XS", "S", "M", "L", "XL"]},
                "quantity": {"type": "integer", "minimum": 1, "default": 1}},
                "required": ["product_id", "size"], "additionalProperties": false}),
        )
        .with_refs_from(["search_products", "get_product"]),
        ToolSpec::new(
            "get_cart",
            "Lists the cart's items and total.",
            json!({"type": "object", "properties": {}}),
        ),
    ];
    let task = "Find a blue rain jacket under 80 euros in size M and add it to my cart.";
    let inp = PromptInput { task, ..input(&tools, &[]) };
    let messages = build_messages(&inp, &CharEstimate::default(), 9_000).expect("fits");
    let used = estimate(&messages, &CharEstimate::default());
    let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
    // Measured: 2,113 characters, 616 tokens with the default estimate (6.8% of 9,000).
    assert_eq!((chars, used), (2_113, 616), "update the measurement above");
    assert!(used < 1_000, "the fixed part should leave most of the window to history: {used}");
}

/// `n` earlier exchanges of the session: each what was asked, a call, and the answer.
fn conversation(n: u32) -> Vec<Remembered> {
    (1..=n)
        .flat_map(|i| {
            let call = steps(i, 300).pop().expect("a step");
            let answered: Turn =
                answer(2, &format!("answer {i}: sunny in city{i}. {}", "More detail. ".repeat(15)));
            [
                Remembered::Asked(format!(
                    "question {i}: the weather in city{i}? {}",
                    "Be precise. ".repeat(15)
                )),
                Remembered::Step(call),
                Remembered::Step(answered),
            ]
        })
        .collect()
}

#[test]
fn earlier_questions_and_answers_are_dropped_oldest_first_within_the_budget() {
    let tools = two_tools();
    let memory = conversation(6);
    let turns = steps(2, 200);
    let mut inp = input(&tools, &turns);
    let without_memory = tokens(&build(&inp, usize::MAX));
    inp.memory = &memory;
    let full = build(&inp, usize::MAX);
    let first = &full[1].content;
    let at = |s: &str| first.find(s).unwrap_or_else(|| panic!("{s:?} missing from {first}"));
    for i in 1..6 {
        assert!(at(&format!("User asked: question {i}:")) < at(&format!("You answered: answer {i}:")));
        assert!(at(&format!("You answered: answer {i}:")) < at(&format!("User asked: question {}:", i + 1)));
    }
    assert!(at("You answered: answer 6:") < at("Task: "));

    let mut kept_before = 6;
    let mut some_but_not_all = 0;
    for budget in (without_memory..tokens(&full)).rev().step_by(20) {
        // `build` checks the budget is kept.
        let messages = build(&inp, budget);
        let first = &messages[1].content;
        let kept: Vec<u32> = (1..=6).filter(|i| first.contains(&format!("question {i}:"))).collect();
        let answered: Vec<u32> = (1..=6).filter(|i| first.contains(&format!("answer {i}:"))).collect();
        let newest: Vec<u32> = (7 - kept.len() as u32..=6).collect();
        assert_eq!(kept, newest, "budget {budget}: the oldest questions go first");
        assert!(answered.iter().all(|i| *i + 1 >= newest.first().copied().unwrap_or(7)), "budget {budget}");
        assert!(kept.len() <= kept_before, "budget {budget}: less room never keeps more");
        kept_before = kept.len();
        some_but_not_all += usize::from(!kept.is_empty() && kept.len() < 6);
    }
    assert!(some_but_not_all > 0, "some budget keeps only the newest exchanges");
    assert_eq!(build(&inp, without_memory + 5), build(&input(&tools, &turns), usize::MAX));
}
