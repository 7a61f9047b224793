//! Properties of `parse_step`: it never panics, canonical steps round-trip untouched, wrapping a
//! step in fences or prose does not change it, and a cut-off step is never read as an action.
#![cfg(not(target_arch = "wasm32"))]

use keel::engine::output::{parse_step, Repair, Step};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1000i32..1000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        any::<String>().prop_map(Value::String),
        "[a-z{}\\[\\]\"',: ]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn args() -> impl Strategy<Value = Value> {
    prop::collection::vec(("[a-zA-Z_]{1,10}", json_value()), 0..5)
        .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>()))
}

fn tool_name() -> impl Strategy<Value = String> {
    // `none` and `final_answer` mean "no tool" and "finish" to the parser; real tools avoid them.
    "[a-z][a-z0-9_]{0,15}".prop_filter("reserved name", |n| {
        !matches!(n.replace('_', "").as_str(), "none" | "null" | "noaction" | "finalanswer")
    })
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (any::<String>(), tool_name(), args()).prop_map(|(thought, tool, args)| Step::Action {
            thought,
            tool,
            args
        }),
        (any::<String>(), any::<String>().prop_filter("blank answer", |a| !a.trim().is_empty()))
            .prop_map(|(thought, answer)| Step::Final { thought, answer }),
    ]
}

/// Text that is not `{` and not a fence, as models write around a step.
fn prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ,.!?:'\n]{0,40}"
}

/// Characters that exercise the scanner and the normaliser.
fn json_ish() -> impl Strategy<Value = String> {
    "[{}\\[\\]\"':,\\\\ a-zA-Z0-9“”‘’\n`_.-]{0,80}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_arbitrary_text(text in any::<String>(), near in json_ish()) {
        let _ = parse_step(&text);
        let _ = parse_step(&near);
    }

    #[test]
    fn never_panics_on_arbitrary_json(value in json_value()) {
        let _ = parse_step(&value.to_string());
        let _ = parse_step(&serde_json::to_string_pretty(&value).unwrap());
    }

    #[test]
    fn canonical_steps_round_trip_without_repairs(step in step()) {
        for text in [serde_json::to_string(&step).unwrap(), serde_json::to_string_pretty(&step).unwrap()] {
            let parsed = parse_step(&text).unwrap();
            prop_assert_eq!(&parsed.step, &step);
            prop_assert_eq!(parsed.repairs, vec![]);
        }
    }

    #[test]
    fn fences_and_prose_do_not_change_the_step(step in step(), before in prose(), after in prose(), fence in any::<bool>()) {
        let json = serde_json::to_string(&step).unwrap();
        let body = if fence { format!("```json\n{json}\n```") } else { json };
        let parsed = parse_step(&format!("{before}{body}{after}")).unwrap();
        prop_assert_eq!(parsed.step, step);
        let mut expected = Vec::new();
        if fence {
            expected.push(Repair::StrippedCodeFence);
        }
        if !before.trim().is_empty() || !after.trim().is_empty() {
            expected.push(Repair::StrippedSurroundingText);
        }
        prop_assert_eq!(parsed.repairs, expected);
    }

    #[test]
    fn a_cut_off_step_is_never_an_action(step in step(), cut in any::<prop::sample::Index>(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&step).unwrap() } else { serde_json::to_string(&step).unwrap() };
        let chars: Vec<char> = text.trim_end().chars().collect();
        let cut: String = chars[..cut.index(chars.len())].iter().collect();
        match parse_step(&cut) {
            Err(_) => {}
            // Only a final answer cut after its own closing quote may be completed, and then it is
            // exactly the answer the model wrote.
            Ok(parsed) => {
                prop_assert!(parsed.repairs.contains(&Repair::ClosedTruncatedJson), "{:?}", parsed);
                prop_assert_eq!(parsed.step, step);
            }
        }
    }

    #[test]
    fn never_panics_on_mutated_steps(step in step(), at in any::<prop::sample::Index>(), insert in json_ish(), delete in 0usize..4) {
        let chars: Vec<char> = serde_json::to_string(&step).unwrap().chars().collect();
        let at = at.index(chars.len() + 1);
        let end = (at + delete).min(chars.len());
        let mutated: String = chars[..at].iter().copied().chain(insert.chars()).chain(chars[end..].iter().copied()).collect();
        let _ = parse_step(&mutated);
    }
}
