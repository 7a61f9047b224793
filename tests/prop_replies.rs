//! The page's replies to the worker's requests (`toolResult`, `modelResult`, `redactResult`,
//! `needsApprovalResult`) are read by moving their parts out of the parsed message
//! (`PageMessage::read`); every other message by the settings' reader. Properties, for any
//! reply-shaped object, well formed or not: the two readers agree — the same message, or the same
//! error text, with its place. Both reach a payload through the same `Payload::from_payload`, so
//! this one checks the tag, the reply's own keys and the errors' places; the second checks the
//! payloads: a successful reply's payload is what the payload type's own derive reads from the
//! reply's other keys.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use keel::web::protocol::PageMessage;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any JSON value, strings and keys of any text.
fn json_value() -> impl Strategy<Value = Value> {
    common::json_values::json_value(any::<String>(), "[a-z]{1,6}")
}

/// A value for `key`: usually one of the right type, sometimes anything.
fn field(key: &'static str) -> BoxedStrategy<Value> {
    let right: BoxedStrategy<Value> = match key {
        "id" => (0u64..1000).prop_map(Value::from).boxed(),
        "ok" => any::<bool>().prop_map(Value::Bool).boxed(),
        "error" => prop_oneof![
            Just(json!({"message": "it broke", "code": "TIMEOUT"})),
            Just(json!({"name": "TypeError", "message": "x is undefined", "hints": {"class": "persistent"}})),
            Just(json!({"hints": {"class": "weird"}})),
        ]
        .boxed(),
        "warnings" => prop::collection::vec("[a-z ]{0,8}", 0..3).prop_map(|w| json!(w)).boxed(),
        "lists" | "needsApproval" => any::<bool>().prop_map(Value::Bool).boxed(),
        "text" => "[a-z ]{0,12}".prop_map(Value::String).boxed(),
        "usage" => (0u64..500, 0u64..500)
            .prop_map(|(p, c)| json!({"promptTokens": p, "completionTokens": c}))
            .boxed(),
        "contextWindow" => (0u64..10_000).prop_map(Value::from).boxed(),
        _ => json_value().boxed(),
    };
    prop_oneof![4 => right, 1 => json_value()].boxed()
}

const KEYS: [&str; 12] = [
    "id",
    "ok",
    "error",
    "value",
    "warnings",
    "lists",
    "text",
    "usage",
    "contextWindow",
    "args",
    "needsApproval",
    "extra",
];

/// A reply-shaped object: a reply's tag, then some of the keys any reply may carry, in any order.
fn reply() -> impl Strategy<Value = Value> {
    let tag = prop_oneof![
        Just("toolResult"),
        Just("modelResult"),
        Just("redactResult"),
        Just("needsApprovalResult")
    ];
    let keys = prop::sample::subsequence(KEYS.to_vec(), 0..=KEYS.len()).prop_shuffle();
    (tag, keys, 0..=KEYS.len()).prop_flat_map(|(tag, keys, type_at)| {
        let values: Vec<BoxedStrategy<Value>> = keys.iter().map(|key| field(key)).collect();
        (Just(tag), Just(keys), Just(type_at), values).prop_map(|(tag, keys, type_at, values)| {
            let mut fields: Vec<(String, Value)> = keys.iter().map(|k| k.to_string()).zip(values).collect();
            fields.insert(type_at.min(fields.len()), ("type".to_string(), Value::from(tag)));
            Value::Object(fields.into_iter().collect())
        })
    })
}

/// What a successful reply's payload reads as by its own serde derive, through the settings' reader:
/// `Some` (the payload, or the error's text) when `message` is a well-formed success (its `id` a
/// number, `ok: true`, any `error` a failure), so that only the payload can go wrong.
fn payload_alone(message: &Value) -> Option<Result<PageMessage, String>> {
    let fields = message.as_object()?;
    let error_reads = fields
        .get("error")
        .is_none_or(|e| keel::settings::from_value::<Option<keel::errors::RawFailure>>(e).is_ok());
    if !fields.get("id").is_some_and(Value::is_u64)
        || fields.get("ok") != Some(&Value::Bool(true))
        || !error_reads
    {
        return None;
    }
    let id = fields["id"].as_u64()?;
    let rest: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| !["type", "id", "ok", "error"].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let rest = Value::Object(rest);
    fn read<T: serde::de::DeserializeOwned>(rest: &Value) -> Result<T, String> {
        keel::settings::from_value::<T>(rest).map_err(|e| e.to_string())
    }
    use keel::web::protocol::{ModelText, NeedsApprovalValue, RedactValue, Reply, ToolValue};
    Some(match fields["type"].as_str()? {
        "toolResult" => read::<ToolValue>(&rest).map(|p| PageMessage::ToolResult(Reply::ok(id, p))),
        "modelResult" => read::<ModelText>(&rest).map(|p| PageMessage::ModelResult(Reply::ok(id, p))),
        "redactResult" => read::<RedactValue>(&rest).map(|p| PageMessage::RedactResult(Reply::ok(id, p))),
        "needsApprovalResult" => {
            read::<NeedsApprovalValue>(&rest).map(|p| PageMessage::NeedsApprovalResult(Reply::ok(id, p)))
        }
        _ => return None,
    })
}

/// `message`, read by `PageMessage::read` from its text, gives `expected`: the same message, or a
/// failure whose text ends with the expected error's.
fn read_as(message: &Value, expected: Result<PageMessage, String>) -> Result<(), TestCaseError> {
    let text = message.to_string();
    match (PageMessage::from_json(&text), expected) {
        (Ok(moved), Ok(expected)) => prop_assert_eq!(moved, expected),
        (Err(moved), Err(expected)) => {
            let said = format!(": {expected}");
            prop_assert!(moved.message.ends_with(&said), "{} / {}", moved.message, said);
        }
        (moved, expected) => prop_assert!(false, "{text}: {moved:?} against {expected:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn a_reply_read_by_moving_its_parts_reads_as_the_settings_reader_reads_it(message in reply()) {
        let settings = keel::settings::from_value::<PageMessage>(&message).map_err(|e| e.to_string());
        read_as(&message, settings)?;
    }

    #[test]
    fn a_replys_payload_reads_as_its_own_derive_reads_it(message in reply()) {
        let Some(alone) = payload_alone(&message) else { return Ok(()) };
        read_as(&message, alone)?;
    }
}

#[test]
fn a_large_tool_result_is_read_whole() {
    let rows: Vec<Value> =
        (0..2_000).map(|i| json!({"id": i, "name": format!("item {i}"), "tags": ["a"]})).collect();
    let text =
        json!({"ok": true, "value": rows, "type": "toolResult", "warnings": ["cut"], "id": 4}).to_string();
    let Ok(PageMessage::ToolResult(reply)) = PageMessage::from_json(&text) else { panic!("a toolResult") };
    let tool = reply.into_result().expect("ok");
    assert_eq!(tool.value, Value::Array(rows));
    assert_eq!(tool.warnings, ["cut"]);
}
