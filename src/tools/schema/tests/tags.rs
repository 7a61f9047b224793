//! The yes/no walk's shortcuts, each against the full walk (`issues` checks that the two agree):
//! `anyOf`/`oneOf` branches ruled out by a tag, and `const` tested beside `enum`.

use serde_json::{json, Value};

use super::{issue, issues, only, with_options};
use crate::errors::IssueKind::{NoMatch, NotAllowed, WrongType};
use crate::tools::Schema;

/// A branch tagged `kind: tag` that requires `field` to be a `kind_of`.
fn tagged(tag: Value, field: &str, kind_of: &str) -> Value {
    json!({"type": "object", "properties": {"kind": {"const": tag}, field: {"type": kind_of}},
           "required": ["kind"]})
}

/// Whether `value` is valid against `schema`, the two walks agreeing.
fn valid(schema: &Value, value: Value) -> bool {
    issues(schema.clone(), value).is_empty()
}

#[test]
fn the_tag_is_derived_for_required_one_value_properties_only() {
    let schema = json!({"oneOf": [
        tagged(json!("a"), "x", "number"),
        {"properties": {"kind": {"enum": ["b"]}}, "required": ["kind"]},
        {"properties": {"kind": {"const": "c"}}},
        {"properties": {"kind": {"enum": ["d", "e"]}}, "required": ["kind"]}
    ]});
    let compiled = Schema::compile(&schema).expect("compiles");
    let super::super::node::Node::Rules(root) = &compiled.nodes[compiled.root] else { panic!("rules") };
    assert!(root.tagged_branches);
    let tags: Vec<_> = root
        .one_of
        .iter()
        .map(|&id| match &compiled.nodes[id] {
            super::super::node::Node::Rules(rules) => rules.tag.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(
        tags,
        [Some(("kind".to_owned(), json!("a"))), Some(("kind".to_owned(), json!("b"))), None, None]
    );
}

#[test]
fn branches_sharing_a_tag_value_are_all_tried() {
    let schema = json!({"oneOf": [
        tagged(json!("a"), "x", "number"),
        tagged(json!("a"), "y", "string"),
        tagged(json!("b"), "x", "string")
    ]});
    // Both "a" branches pass: not exactly one.
    assert_eq!(issues(schema.clone(), json!({"kind": "a", "x": 1}))[0].kind, NoMatch);
    // Only the second "a" branch passes.
    assert!(valid(&schema, json!({"kind": "a", "x": "one"})));
    // Only the first.
    assert!(valid(&schema, json!({"kind": "a", "x": 1, "y": 2})));
    assert!(valid(&schema, json!({"kind": "b", "x": "one"})));
    assert!(!valid(&schema, json!({"kind": "b", "x": 1})));
}

#[test]
fn a_missing_tag_rules_out_only_the_branches_that_require_it() {
    let schema = json!({"oneOf": [
        tagged(json!("a"), "x", "number"),
        {"type": "object", "properties": {"z": {"type": "integer"}}, "required": ["z"]}
    ]});
    assert!(valid(&schema, json!({"z": 1})));
    assert!(!valid(&schema, json!({})));
    // A tag that is not required rules nothing out when it is missing: both branches pass here.
    let loose = json!({"oneOf": [
        {"properties": {"kind": {"const": "a"}}},
        {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
    ]});
    assert!(valid(&loose, json!({})));
    assert!(!valid(&loose, json!({"kind": "c"})));
    assert!(valid(&loose, json!({"kind": "a"})));
}

#[test]
fn tags_compare_as_json_values() {
    // `1.0` is the tag `1`; an object tag matches key order aside; `null` is a tag like another.
    let numbers = json!({"oneOf": [tagged(json!(1), "x", "number"), tagged(json!(2), "x", "string")]});
    assert!(valid(&numbers, json!({"kind": 1.0, "x": 5})));
    assert!(valid(&numbers, json!({"kind": 2, "x": "five"})));
    assert!(!valid(&numbers, json!({"kind": "1", "x": 5})));
    let objects = json!({"anyOf": [tagged(json!({"a": 1, "b": [true]}), "x", "number"), tagged(json!(null), "x", "string")]});
    assert!(valid(&objects, json!({"kind": {"b": [true], "a": 1.0}, "x": 5})));
    assert!(valid(&objects, json!({"kind": null, "x": "five"})));
    assert!(!valid(&objects, json!({"kind": null, "x": 5})));
    assert!(!valid(&objects, json!({"kind": {"a": 1}, "x": 5})));
}

#[test]
fn a_value_that_is_not_an_object_is_not_ruled_out_by_tags() {
    // `properties` and `required` say nothing about a number: the tagged branch passes it.
    let schema = json!({"oneOf": [
        {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        {"type": "string"}
    ]});
    assert!(valid(&schema, json!(5)));
    assert!(!valid(&schema, json!("both match")));
    let any = json!({"anyOf": [{"properties": {"kind": {"const": "a"}}, "required": ["kind"]}, {"type": "string"}]});
    assert!(valid(&any, json!([1])));
}

#[test]
fn any_of_skips_ruled_out_branches_and_still_reports_the_one_meant() {
    let schema = json!({"anyOf": [tagged(json!("a"), "x", "number"), tagged(json!("b"), "x", "string")]});
    assert!(valid(&schema, json!({"kind": "b", "x": "one"})));
    assert_eq!(
        only(schema.clone(), json!({"kind": "a", "x": "one"})),
        issue("x", WrongType, "a number", Some(json!("one")))
    );
    assert_eq!(only(schema, json!({"kind": "c"})).kind, NoMatch);
}

#[test]
fn const_beside_applicators_and_inside_properties_is_checked() {
    let with_any_of = json!({"const": {"a": 1}, "anyOf": [{"type": "object"}, {"type": "string"}]});
    assert!(valid(&with_any_of, json!({"a": 1.0})));
    assert_eq!(
        only(with_any_of, json!({"a": 2})),
        with_options(issue("", NotAllowed, "exactly {\"a\":1}", Some(json!({"a": 2}))), &["{\"a\":1}"], None)
    );
    // A property whose schema is only a `const` is decided inline, as an `enum` is.
    let properties = json!({"properties": {"k": {"const": "x"}, "n": {"const": 3, "type": "integer"}}});
    assert!(valid(&properties, json!({"k": "x", "n": 3.0})));
    assert!(!valid(&properties, json!({"k": "y"})));
    assert!(!valid(&properties, json!({"n": 4})));
    assert!(!valid(&properties, json!({"k": ["x"]})));
    // `const` and `enum` together: both must pass.
    let both = json!({"items": {"const": "b", "enum": ["a", "b"]}});
    assert!(valid(&both, json!(["b"])));
    assert!(!valid(&both, json!(["a"])));
}
