//! Objects: properties, unknown keys, missing properties, paths into nested values, `$ref`s.

use serde_json::{json, Value};

use super::{issue, issues, only, with_options};
use crate::errors::IssueKind::{Missing, OutOfRange, UnknownKey, WrongType};

fn weather() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. \"Paris\""},
            "units": {"type": "string", "enum": ["c", "f"]}
        },
        "required": ["city"],
        "additionalProperties": false
    })
}

#[test]
fn unknown_key_suggests_the_closest_known_one() {
    let unknown = issue("cty", UnknownKey, "one of the known properties", Some(json!("Paris")));
    assert_eq!(
        issues(weather(), json!({"cty": "Paris"})),
        [
            with_options(unknown, &["city", "units"], Some("city")),
            issue("city", Missing, "a string (City name, e.g. \"Paris\")", None)
        ]
    );
}

#[test]
fn a_key_already_sent_is_not_suggested() {
    let got = only(weather(), json!({"city": "Paris", "cty": "Lyon"}));
    assert_eq!((got.kind, got.suggestion), (UnknownKey, None));
    assert_eq!(got.options, ["city", "units"]);
}

#[test]
fn unknown_keys_are_allowed_unless_forbidden() {
    let open = json!({"properties": {"a": {"type": "string"}}});
    assert!(issues(open, json!({"b": 1})).is_empty());
    let typed = json!({"properties": {"a": {}}, "additionalProperties": {"type": "number"}});
    assert_eq!(only(typed, json!({"a": "x", "b": "y"})), issue("b", WrongType, "a number", Some(json!("y"))));
    let closed = only(json!({"additionalProperties": false}), json!({"z": 1}));
    assert_eq!((closed.expected.as_str(), closed.options.len()), ("no properties at all", 0));
}

#[test]
fn every_problem_is_reported_in_walking_order() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer", "minimum": 1},
            "c": {"type": "boolean"}
        },
        "required": ["a", "b", "c"]
    });
    assert_eq!(
        issues(schema, json!({"b": 0, "a": 1})),
        [
            issue("b", OutOfRange, "an integer at least 1", Some(json!(0))),
            issue("a", WrongType, "a string", Some(json!(1))),
            issue("c", Missing, "a boolean", None)
        ]
    );
}

#[test]
fn missing_says_what_to_send() {
    let schema = json!({
        "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9007199254740991_i64}},
        "required": ["n", "undeclared"]
    });
    assert_eq!(
        issues(schema, json!({})),
        [issue("n", Missing, "an integer at least 1", None), issue("undeclared", Missing, "a value", None)]
    );
}

#[test]
fn paths_into_nested_values() {
    let schema = json!({
        "properties": {
            "items": {"type": "array", "items": {"properties": {"qty": {"type": "integer"}}}},
            "a b": {"properties": {"c.d": {"type": "string"}}}
        }
    });
    let value = json!({"items": [{"qty": 1}, {"qty": 2}, {"qty": "3"}], "a b": {"c.d": 4}});
    let paths: Vec<String> = issues(schema, value).into_iter().map(|i| i.path).collect();
    assert_eq!(paths, ["items[2].qty", "[\"a b\"][\"c.d\"]"]);
}

#[test]
fn refs_to_defs_and_definitions() {
    let schema = json!({
        "$defs": {"Qty": {"type": "integer", "minimum": 1, "description": "How many"}},
        "definitions": {"Name": {"type": "string"}},
        "properties": {"qty": {"$ref": "#/$defs/Qty"}, "name": {"$ref": "#/definitions/Name"}},
        "required": ["qty", "name"]
    });
    assert_eq!(
        issues(schema.clone(), json!({"qty": 0})),
        [
            issue("qty", OutOfRange, "an integer at least 1", Some(json!(0))),
            issue("name", Missing, "a string", None)
        ]
    );
    assert_eq!(only(schema, json!({"name": "x"})).expected, "an integer at least 1 (How many)");
}

#[test]
fn escaped_ref_pointers_resolve() {
    let schema = json!({"$defs": {"a/b": {"type": "string"}, "m~n": {"type": "number"}},
        "properties": {"x": {"$ref": "#/$defs/a~1b"}, "y": {"$ref": "#/$defs/m~0n"}}});
    let kinds: Vec<String> =
        issues(schema, json!({"x": 1, "y": "1"})).into_iter().map(|i| i.expected).collect();
    assert_eq!(kinds, ["a string", "a number"]);
}

#[test]
fn recursive_schemas_follow_the_value() {
    let tree = json!({
        "type": "object",
        "properties": {"value": {"type": "number"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "additionalProperties": false
    });
    let value = json!({"value": 1, "children": [{"children": [{}, {"value": "x"}]}]});
    assert_eq!(
        only(tree, value),
        issue("children[0].children[1].value", WrongType, "a number", Some(json!("x")))
    );
}
