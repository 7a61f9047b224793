//! A tool result's digest (`result_digest`, repeat detection) is the digest of `[value, warnings]`
//! written without building that array, and strings are written into the canonical JSON without
//! serde_json where nothing in them needs escaping: for any value and warnings, control
//! characters, quotes, backslashes and multi-byte text included, the digests are equal; and any
//! digest is FNV-1a of the key-sorted JSON serde_json writes (the form stored digests were made in).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use keel::turn::{digest, result_digest};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Text with the characters JSON escapes (`"`, `\`, controls), DEL, and 2- to 4-byte chars.
fn text() -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(
        prop_oneof![
            Just('a'),
            Just('"'),
            Just('\\'),
            Just('\n'),
            Just('\u{1}'),
            Just('\u{1f}'),
            Just('\u{7f}'),
            Just('é'),
            Just('\u{2028}'),
            Just('🦀'),
        ],
        0..12,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// Any JSON value, its strings and keys from [`text`].
fn json_value() -> impl Strategy<Value = Value> {
    common::json_values::json_value(text(), text())
}

/// The reference: keys sorted at every level, written by serde_json, FNV-1a (64-bit) in hex.
fn reference_digest(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            scalar => scalar.clone(),
        }
    }
    let text = serde_json::to_string(&sorted(value)).unwrap();
    let hash =
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn a_results_digest_is_that_of_value_and_warnings(value in json_value(), warnings in prop::collection::vec(text(), 0..3)) {
        prop_assert_eq!(result_digest(&value, &warnings), digest(&json!([value, warnings])));
    }

    #[test]
    fn a_digest_is_fnv_of_the_key_sorted_json_serde_json_writes(value in json_value()) {
        prop_assert_eq!(digest(&value), reference_digest(&value));
    }
}
