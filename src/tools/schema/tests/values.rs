//! `enum` and `const` tested on strings by signature (length, first and last byte) before the
//! strings are compared, in the yes/no walk, each against the full walk (`issues` checks that the
//! two agree).

use serde_json::{json, Value};

use super::issues;

/// Whether `value` is valid against `schema`, the two walks agreeing.
fn valid(schema: &Value, value: Value) -> bool {
    issues(schema.clone(), value).is_empty()
}

#[test]
fn strings_of_one_signature_are_still_compared() {
    let choices = json!({"enum": ["from", "foam", "a________________z"]});
    assert!(valid(&choices, json!("from")));
    assert!(valid(&choices, json!("foam")));
    assert!(!valid(&choices, json!("fxxm")));
    assert!(valid(&choices, json!("a________________z")));
    assert!(!valid(&choices, json!("a_______x________z")));
    let constant = json!({"const": "date"});
    assert!(valid(&constant, json!("date")));
    assert!(!valid(&constant, json!("dxte")));
    assert!(!valid(&constant, json!("dates")));
}

#[test]
fn strings_meet_the_values_that_are_not_strings() {
    let mixed = json!({"enum": [1, null, "a", {"a": 1}, ""]});
    assert!(valid(&mixed, json!("a")));
    assert!(valid(&mixed, json!("")));
    assert!(!valid(&mixed, json!("b")));
    assert!(valid(&mixed, json!(1.0)));
    assert!(valid(&mixed, json!(null)));
    assert!(!valid(&mixed, json!(2)));
    assert!(!valid(&json!({"enum": [null, 1]}), json!("")));
    assert!(!valid(&json!({"const": 1}), json!("1")));
    assert!(!valid(&json!({"const": null}), json!("")));
    assert!(valid(&json!({"const": ""}), json!("")));
    // `const` and `enum` together: both hold.
    let both = json!({"const": "b", "enum": ["a", "b"]});
    assert!(valid(&both, json!("b")));
    assert!(!valid(&both, json!("a")));
}
