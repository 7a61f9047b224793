//! One keyword at a time: type, bounds, lengths, pattern, enum, const, items, boolean schemas.

use serde_json::json;

use super::super::{Schema, SchemaError};
use super::{issue, issues, only, with_options};
use crate::errors::IssueKind::{Length, NotAllowed, OutOfRange, Pattern, WrongType};

#[test]
fn type_names_and_unions() {
    assert_eq!(only(json!({"type": "string"}), json!(5)), issue("", WrongType, "a string", Some(json!(5))));
    let nullable = json!({"type": ["string", "null"]});
    assert!(issues(nullable.clone(), json!(null)).is_empty());
    assert_eq!(only(nullable, json!(true)), issue("", WrongType, "a string or null", Some(json!(true))));
    let three = json!({"type": ["string", "number", "boolean"]});
    assert_eq!(only(three, json!([])).expected, "a string, a number or a boolean");
    assert_eq!(only(json!({"type": "object"}), json!([1])).expected, "an object");
    assert_eq!(only(json!({"type": "array"}), json!({})).expected, "an array");
}

#[test]
fn integer_accepts_integral_floats_and_number_accepts_integers() {
    assert!(issues(json!({"type": "integer"}), json!(3.0)).is_empty());
    assert!(issues(json!({"type": "integer"}), json!(-7)).is_empty());
    assert_eq!(
        only(json!({"type": "integer"}), json!(3.5)),
        issue("", WrongType, "an integer", Some(json!(3.5)))
    );
    assert!(issues(json!({"type": "number"}), json!(3)).is_empty());
    assert_eq!(only(json!({"type": ["integer", "number"]}), json!("1")).expected, "a number");
}

#[test]
fn wrong_type_says_the_limits_too() {
    let schema = json!({"type": "integer", "minimum": 1, "maximum": 10});
    assert_eq!(only(schema, json!("5")).expected, "an integer at least 1 and at most 10");
}

#[test]
fn inclusive_bounds() {
    let schema = json!({"type": "number", "minimum": 1});
    assert_eq!(only(schema.clone(), json!(0)), issue("", OutOfRange, "a number at least 1", Some(json!(0))));
    assert!(issues(schema, json!(1)).is_empty());
    let schema = json!({"type": "integer", "minimum": 1, "maximum": 10});
    assert_eq!(only(schema.clone(), json!(11)).expected, "an integer at least 1 and at most 10");
    assert!(issues(schema, json!(10)).is_empty());
    assert_eq!(only(json!({"maximum": 2.5}), json!(2.75)).expected, "a number at most 2.5");
}

#[test]
fn exclusive_bounds_numeric_and_draft4() {
    let schema = json!({"exclusiveMinimum": 0});
    assert_eq!(
        only(schema.clone(), json!(0)),
        issue("", OutOfRange, "a number greater than 0", Some(json!(0)))
    );
    assert!(issues(schema, json!(0.001)).is_empty());
    let draft4 = json!({"minimum": 0, "exclusiveMinimum": true, "maximum": 5, "exclusiveMaximum": true});
    assert_eq!(only(draft4.clone(), json!(5)).expected, "a number greater than 0 and less than 5");
    assert!(issues(draft4, json!(4.9)).is_empty());
    // With both forms present the stricter bound wins.
    let both = json!({"minimum": 3, "exclusiveMinimum": 1});
    assert_eq!(only(both, json!(2)).expected, "a number at least 3");
    let not_draft4 = json!({"minimum": 0, "exclusiveMinimum": false});
    assert!(issues(not_draft4, json!(0)).is_empty());
}

#[test]
fn bounds_ignore_other_types() {
    assert!(issues(json!({"minimum": 5, "minLength": 3, "minItems": 2}), json!(true)).is_empty());
}

#[test]
fn string_lengths_count_characters() {
    let schema = json!({"type": "string", "maxLength": 3});
    assert!(issues(schema.clone(), json!("héé")).is_empty());
    assert_eq!(only(schema, json!("abcd")), issue("", Length, "at most 3 characters", Some(json!("abcd"))));
    assert_eq!(only(json!({"minLength": 1}), json!("")).expected, "at least 1 character");
    assert_eq!(
        only(json!({"minLength": 2, "maxLength": 4}), json!("a")).expected,
        "between 2 and 4 characters"
    );
    assert_eq!(only(json!({"minLength": 2, "maxLength": 2}), json!("a")).expected, "exactly 2 characters");
}

#[test]
fn patterns_search_unanchored_and_report_their_source() {
    let schema = json!({"type": "string", "pattern": "^[a-z]+$"});
    assert_eq!(
        only(schema, json!("abc1")),
        issue("", Pattern, "matching pattern ^[a-z]+$", Some(json!("abc1")))
    );
    assert!(issues(json!({"pattern": "[0-9]"}), json!("a1b")).is_empty());
    assert!(issues(json!({"pattern": "^\\d{4}-\\d{2}$"}), json!("2024-05")).is_empty());
}

#[test]
fn lookaround_patterns_are_refused_unless_a_format_checks_them_and_other_ecmascript_only_syntax_refused() {
    // Lookaround alone cannot be checked: refused, naming the pattern and the way out.
    let lookahead = json!({"type": "string", "pattern": "^(?!\\.)[a-z.]+$"});
    match Schema::compile(&lookahead) {
        Err(SchemaError::InvalidPattern { path, pattern, reason }) => {
            assert_eq!((path.as_str(), pattern.as_str()), ("#/pattern", "^(?!\\.)[a-z.]+$"));
            assert!(reason.contains("lookaround") && reason.contains("email, uri, uuid"), "{reason}");
        }
        other => panic!("lookaround alone should be refused: {other:?}"),
    }
    // Beside a format keel does not assert, too, and the message names that format.
    let hostname = json!({"type": "string", "format": "hostname", "pattern": "^(?!-)[a-z-]+$"});
    let error = Schema::compile(&hostname).expect_err("refused").to_string();
    assert!(error.contains("not \"hostname\""), "{error}");
    // Beside a format keel asserts, the format is checked in the pattern's place, even with
    // formats left as annotations (Zod's `z.email()` writes exactly this).
    let email =
        json!({"type": "string", "format": "email", "pattern": "^(?!\\.)(?!.*\\.\\.)[a-z.]+@[a-z]+\\.io$"});
    assert!(issues(email.clone(), json!("ann@b.io")).is_empty());
    for wrong in [".ann@b.io", "a..nn@b.io", "no-at-sign"] {
        assert_eq!(only(email.clone(), json!(wrong)).kind, Pattern, "{wrong}");
    }
    for (pattern, named) in [("^\\p{Lu}", "`\\p{…}`"), ("(a)\\1", "`\\1`"), ("(?<x>a)\\k<x>", "`\\k<…>`")]
    {
        match Schema::compile(&json!({"pattern": pattern})) {
            Err(SchemaError::InvalidPattern { reason, .. }) => assert!(reason.contains(named), "{reason}"),
            other => panic!("{pattern} should be refused: {other:?}"),
        }
    }
    // Unchecked in patternProperties, it would refuse the keys it names: refused instead.
    let keys = json!({"patternProperties": {"^(?!x)": true}, "additionalProperties": false});
    assert!(matches!(Schema::compile(&keys), Err(SchemaError::InvalidPattern { .. })));
}

#[test]
fn enum_lists_options_and_suggests_the_closest() {
    let schema = json!({"type": "string", "enum": ["c", "f"]});
    let expected = issue("", NotAllowed, "one of \"c\", \"f\"", Some(json!("C")));
    assert_eq!(only(schema.clone(), json!("C")), with_options(expected, &["c", "f"], Some("c")));
    let far = only(schema.clone(), json!("kelvin"));
    assert_eq!((far.options.len(), far.suggestion), (2, None));
    // The options say everything: no separate wrong-type issue.
    assert_eq!(only(schema, json!(5)).kind, NotAllowed);
}

#[test]
fn enum_compares_numbers_by_value_and_suggests_across_types() {
    let schema = json!({"enum": [1, 2, 3]});
    assert!(issues(schema.clone(), json!(2.0)).is_empty());
    let expected = issue("", NotAllowed, "one of 1, 2, 3", Some(json!("2")));
    assert_eq!(only(schema, json!("2")), with_options(expected, &["1", "2", "3"], Some("2")));
    assert!(issues(json!({"enum": [{"a": [1]}, null]}), json!({"a": [1.0]})).is_empty());
}

#[test]
fn long_enums_are_summarised() {
    let values: Vec<String> = (0..60).map(|i| format!("v{i}")).collect();
    let got = only(json!({"enum": values}), json!("x"));
    assert!(got.expected.ends_with(", … (60 values in all)"), "{}", got.expected);
    assert!(got.options.is_empty());
}

#[test]
fn const_is_exact() {
    let expected = issue("", NotAllowed, "exactly \"circle\"", Some(json!("circel")));
    assert_eq!(
        only(json!({"const": "circle"}), json!("circel")),
        with_options(expected, &["circle"], Some("circle"))
    );
    assert!(issues(json!({"const": null}), json!(null)).is_empty());
    assert_eq!(only(json!({"enum": ["only"]}), json!("x")).expected, "exactly \"only\"");
}

#[test]
fn items_are_checked_each_with_its_index() {
    let schema = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(
        issues(schema, json!([1, "2", 3.5])),
        [
            issue("[1]", WrongType, "an integer", Some(json!("2"))),
            issue("[2]", WrongType, "an integer", Some(json!(3.5)))
        ]
    );
}

#[test]
fn item_counts() {
    assert_eq!(
        only(json!({"minItems": 1}), json!([])),
        issue("", Length, "an array of at least 1 item", Some(json!([])))
    );
    assert_eq!(only(json!({"maxItems": 2}), json!([1, 2, 3])).expected, "an array of at most 2 items");
}

#[test]
fn tuples_by_position_closed_by_items_false() {
    let schema = json!({"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false});
    assert_eq!(
        issues(schema, json!(["a", "b", 3])),
        [
            issue("", Length, "an array of at most 2 items", Some(json!(["a", "b", 3]))),
            issue("[1]", WrongType, "a number", Some(json!("b")))
        ]
    );
    let open = json!({"prefixItems": [{"type": "string"}], "items": {"type": "boolean"}});
    assert_eq!(only(open, json!(["a", true, 1])).path, "[2]");
    let draft4 = json!({"items": [{"type": "string"}, {"type": "number"}]});
    assert_eq!(only(draft4, json!([1, 2, "extra is fine"])).path, "[0]");
}

#[test]
fn boolean_schemas() {
    assert!(issues(json!(true), json!({"anything": [1]})).is_empty());
    assert!(issues(json!({}), json!("x")).is_empty());
    assert_eq!(only(json!(false), json!(1)), issue("", NotAllowed, "no value here", Some(json!(1))));
    let forbidden = json!({"properties": {"x": false}});
    assert_eq!(only(forbidden, json!({"x": 1})).path, "x");
}

#[test]
fn long_values_sent_are_shortened() {
    let long = "x".repeat(500);
    let got = only(json!({"type": "number"}), json!(long));
    assert_eq!(got.sent, Some(json!(format!("{}…", "x".repeat(79)))));
}
