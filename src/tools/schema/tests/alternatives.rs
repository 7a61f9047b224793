//! `anyOf`, `oneOf` and `allOf`: the alternative meant, or one no-match issue listing them.

use serde_json::{json, Value};

use super::{issue, issues, only};
use crate::errors::IssueKind::{Length, NoMatch, OutOfRange, UnknownKey, WrongType};

fn shape() -> Value {
    json!({
        "oneOf": [
            {"type": "object", "properties": {"kind": {"type": "string", "const": "circle"}, "radius": {"type": "number"}},
             "required": ["kind", "radius"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}},
             "required": ["kind", "side"], "additionalProperties": false}
        ]
    })
}

#[test]
fn a_matching_alternative_is_enough() {
    let either = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    assert!(issues(either.clone(), json!("x")).is_empty());
    assert!(issues(either, json!(3)).is_empty());
    assert!(issues(shape(), json!({"kind": "square", "side": 2})).is_empty());
}

#[test]
fn none_matching_lists_the_alternatives() {
    let nullable = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    assert_eq!(only(nullable, json!(5)), issue("", NoMatch, "one of: a string; null", Some(json!(5))));
    let mixed = json!({"anyOf": [{"type": "integer", "minimum": 1}, {"enum": ["auto"]}, {"$ref": "#/$defs/S"}],
        "$defs": {"S": {"type": "string", "maxLength": 3}}});
    assert_eq!(
        only(mixed, json!(true)).expected,
        "one of: an integer at least 1; exactly \"auto\"; a string of at most 3 characters"
    );
}

#[test]
fn the_discriminator_picks_the_alternative_meant() {
    assert_eq!(
        only(shape(), json!({"kind": "circle", "radius": "big"})),
        issue("radius", WrongType, "a number", Some(json!("big")))
    );
    let got = issues(shape(), json!({"kind": "square", "radius": 2}));
    let kinds: Vec<_> = got.iter().map(|i| (i.path.as_str(), i.kind)).collect();
    assert_eq!(kinds, [("radius", UnknownKey), ("side", crate::errors::IssueKind::Missing)]);
}

#[test]
fn an_unknown_discriminator_lists_the_alternatives() {
    assert_eq!(
        only(shape(), json!({"kind": "triangle"})),
        issue(
            "",
            NoMatch,
            "one of: an object with kind \"circle\"; an object with kind \"square\"",
            Some(json!({"kind": "triangle"}))
        )
    );
}

#[test]
fn the_only_alternative_of_the_right_type_is_the_one_meant() {
    let schema = json!({"properties": {"when": {"anyOf": [
        {"type": "string", "minLength": 10},
        {"type": "null"}
    ]}}});
    assert_eq!(
        only(schema, json!({"when": "soon"})),
        issue("when", Length, "at least 10 characters", Some(json!("soon")))
    );
    let object_or_string =
        json!({"anyOf": [{"type": "string"}, {"properties": {"n": {"maximum": 3}}, "type": "object"}]});
    assert_eq!(only(object_or_string, json!({"n": 4})).path, "n");
}

#[test]
fn one_of_rejects_several_matches() {
    let schema = json!({"oneOf": [{"type": "number"}, {"type": "integer"}]});
    assert!(issues(schema.clone(), json!(1.5)).is_empty());
    assert_eq!(
        only(schema, json!(2)),
        issue("", NoMatch, "exactly one of: a number; an integer (it matches 2 of them)", Some(json!(2)))
    );
}

#[test]
fn all_of_reports_each_member_once() {
    let same_twice = json!({"allOf": [{"type": "string"}, {"type": "string"}]});
    assert_eq!(only(same_twice, json!(1)), issue("", WrongType, "a string", Some(json!(1))));
    let ranges = json!({"allOf": [{"minimum": 2}, {"multipleOf": 7, "maximum": 1}]});
    assert_eq!(
        issues(ranges, json!(1.5)),
        [
            issue("", OutOfRange, "a number at least 2", Some(json!(1.5))),
            issue("", OutOfRange, "a number that is a multiple of 7", Some(json!(1.5))),
            issue("", OutOfRange, "a number at most 1", Some(json!(1.5)))
        ]
    );
}

#[test]
fn nested_alternatives_point_inside() {
    let schema = json!({"anyOf": [
        {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]}},
        {"type": "null"}
    ]});
    assert_eq!(
        only(schema.clone(), json!(["a", {}])),
        issue("[1].id", crate::errors::IssueKind::Missing, "a value", None)
    );
    assert_eq!(only(schema, json!(["a", 3])).kind, NoMatch);
}
