//! Values and schemas at the limits: deep nesting, many alternatives, odd keys. Nothing may panic
//! or overflow the stack.

use serde_json::{json, Value};

use super::{issues, only};
use crate::errors::IssueKind::{TooComplex, WrongType};
use crate::tools::{Schema, SchemaError};

/// `levels` arrays nested in one another around `1`, built without recursion.
fn nested_arrays(levels: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// Takes a deeply nested value apart iteratively: serde_json drops values recursively.
fn drop_deep(mut value: Value) {
    while let Value::Array(mut items) = value {
        value = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn ten_thousand_nested_arrays_stop_at_the_depth_limit() {
    let deep = nested_arrays(10_000);
    let schema = Schema::compile(&json!({"type": "array", "items": {"$ref": "#"}})).expect("compiles");
    let got = schema.validate(&deep);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].kind, TooComplex);
    assert_eq!(got[0].expected, "a value nested at most 128 levels deep");
    assert!(got[0].path.starts_with("[0][0]"));
    assert!(got[0].sent.as_ref().is_some_and(|sent| sent.to_string().len() < 1_000));
    for open in [json!({}), json!(true), json!({"type": "array"}), json!({"items": {}})] {
        assert!(Schema::compile(&open).expect("compiles").validate(&deep).is_empty());
    }
    let nullable = json!({"anyOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#"}}]});
    let got = Schema::compile(&nullable).expect("compiles").validate(&deep);
    assert!(!got.is_empty() && got.len() < 5, "{got:?}");
    drop_deep(deep);
}

#[test]
fn deep_values_against_enums_do_not_recurse_forever() {
    let deep = nested_arrays(10_000);
    let schema = Schema::compile(&json!({"enum": [[[[1]]]], "const": [1]})).expect("compiles");
    // A failed `const` is reported alone, like a failed `enum`.
    assert_eq!(schema.validate(&deep).len(), 1);
    drop_deep(deep);
}

#[test]
fn multiplying_alternatives_hit_the_step_budget() {
    // Each level tries both alternatives of the next: 2^40 checks without a budget.
    let mut defs = serde_json::Map::new();
    for level in 0..40 {
        let next = json!({"$ref": format!("#/$defs/l{}", level + 1)});
        defs.insert(format!("l{level}"), json!({"anyOf": [next, next]}));
    }
    defs.insert("l40".into(), json!({"type": "string"}));
    let schema = json!({"$defs": defs, "$ref": "#/$defs/l0"});
    let got = only(schema.clone(), json!(1));
    assert_eq!((got.kind, got.path.as_str()), (TooComplex, ""));
    assert!(issues(schema, json!("fine")).is_empty());
}

#[test]
fn many_issues_are_all_reported() {
    let schema = json!({"items": {"type": "string"}});
    let got = issues(schema, json!((0..1000).collect::<Vec<_>>()));
    assert_eq!(got.len(), 1000);
    assert!(got.iter().all(|i| i.kind == WrongType));
    assert_eq!(got[999].path, "[999]");
}

#[test]
fn odd_keys_and_values() {
    let schema = json!({"properties": {"": {"type": "string"}, "\u{0}\n\"": {"type": "number"}},
        "additionalProperties": false});
    let got = issues(schema, json!({"": 1, "\u{0}\n\"": "x", "\u{1F600}": 1.5e300}));
    let paths: Vec<&str> = got.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["[\"\"]", "[\"\\u0000\\n\\\"\"]", "[\"\u{1F600}\"]"]);
}

#[test]
fn patterns_are_bounded_in_size_and_number_and_compiled_once() {
    let huge = Schema::compile(&json!({"type": "string", "pattern": "a{99999}"})).unwrap_err();
    assert!(matches!(huge, SchemaError::InvalidPattern { .. }), "{huge}");
    assert!(huge.to_string().contains("a{99999}"), "{huge}");
    let many: serde_json::Map<String, Value> = (0..300)
        .map(|i| (format!("p{i}"), json!({"type": "string", "pattern": format!("^x{i}$")})))
        .collect();
    let error = Schema::compile(&json!({"type": "object", "properties": many})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "schema at #/properties/p128/pattern: more than 128 distinct patterns in one schema"
    );
    // The same pattern a thousand times is one compilation, and still checked everywhere.
    let same: serde_json::Map<String, Value> = (0..1000)
        .map(|i| (format!("p{i}"), json!({"type": "string", "pattern": "^[a-z]{1,200}$"})))
        .collect();
    let schema = Schema::compile(&json!({"type": "object", "properties": same})).unwrap();
    assert_eq!(schema.validate(&json!({"p7": "ok", "p999": "NO"}))[0].path, "p999");
}
