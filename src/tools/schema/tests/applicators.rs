//! The draft 2020-12 keywords added to the validator: each test fails when its keyword is ignored.

use serde_json::json;

use super::{issue, issues, only};
use crate::errors::IssueKind::{Length, Missing, NoMatch, NotAllowed, OutOfRange, UnknownKey};
use crate::tools::{Schema, SchemaError};

#[test]
fn pattern_properties_are_not_additional() {
    // The bug: with `patternProperties` ignored, `x_trace` was an unknown key.
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "patternProperties": {"^x_": {"type": "integer"}},
        "additionalProperties": false
    });
    assert!(issues(schema.clone(), json!({"id": "a", "x_trace": 3})).is_empty());
    assert_eq!(
        only(schema.clone(), json!({"x_trace": "no"})),
        issue("x_trace", crate::errors::IssueKind::WrongType, "an integer", Some(json!("no")))
    );
    assert_eq!(only(schema, json!({"trace": 1})).kind, UnknownKey);
}

#[test]
fn one_of_branches_that_differ_by_multiple_of() {
    // The bug: with `multipleOf` ignored, both branches matched 4 and the oneOf rejected it.
    let schema =
        json!({"oneOf": [{"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 3}]});
    assert!(issues(schema.clone(), json!(4)).is_empty());
    assert!(issues(schema.clone(), json!(9)).is_empty());
    assert_eq!(only(schema.clone(), json!(6)).kind, NoMatch);
    assert_eq!(only(schema, json!(5)).kind, NoMatch);
}

#[test]
fn multiple_of_is_exact_for_big_integers_and_tolerant_for_decimals() {
    let schema = json!({"type": "integer", "multipleOf": 3});
    assert_eq!(
        only(schema.clone(), json!(10)),
        issue("", OutOfRange, "an integer that is a multiple of 3", Some(json!(10)))
    );
    // 2^63 + 1 is a multiple of 3; 2^63 + 2 is not, though both round to the same double.
    assert!(issues(schema.clone(), json!(9_223_372_036_854_775_809u64)).is_empty());
    assert_eq!(only(schema, json!(9_223_372_036_854_775_810u64)).kind, OutOfRange);
    assert!(issues(json!({"multipleOf": 0.0001}), json!(0.0075)).is_empty());
    assert_eq!(only(json!({"multipleOf": 0.0001}), json!(0.00751)).kind, OutOfRange);
    assert_eq!(only(json!({"multipleOf": 0.123456789}), json!(1e308)).kind, OutOfRange);
    assert!(matches!(Schema::compile(&json!({"multipleOf": 0})), Err(SchemaError::WrongKeywordType { .. })));
}

#[test]
fn not_rejects_what_its_schema_accepts() {
    let schema = json!({"not": {"type": "string"}});
    assert!(issues(schema.clone(), json!(1)).is_empty());
    assert_eq!(only(schema, json!("a")), issue("", NotAllowed, "not a string", Some(json!("a"))));
}

#[test]
fn if_then_else_picks_a_branch() {
    let schema = json!({
        "if": {"properties": {"unit": {"const": "c"}}},
        "then": {"properties": {"value": {"maximum": 100}}},
        "else": {"properties": {"value": {"maximum": 212}}}
    });
    assert!(issues(schema.clone(), json!({"unit": "c", "value": 90})).is_empty());
    assert_eq!(only(schema.clone(), json!({"unit": "c", "value": 150})).path, "value");
    assert!(issues(schema.clone(), json!({"unit": "f", "value": 150})).is_empty());
    assert_eq!(only(schema, json!({"unit": "f", "value": 300})).kind, OutOfRange);
}

#[test]
fn property_names_and_counts() {
    let names = json!({"propertyNames": {"maxLength": 3}});
    assert!(issues(names.clone(), json!({"abc": 1})).is_empty());
    assert_eq!(
        only(names, json!({"abcd": 1})),
        issue(
            "abcd",
            NotAllowed,
            "a property name that is a string of at most 3 characters",
            Some(json!("abcd"))
        )
    );
    let counts = json!({"minProperties": 1, "maxProperties": 2});
    assert!(issues(counts.clone(), json!({"a": 1})).is_empty());
    assert_eq!(
        only(counts.clone(), json!({})),
        issue("", Length, "an object with between 1 and 2 keys", Some(json!({})))
    );
    assert_eq!(only(counts, json!({"a": 1, "b": 2, "c": 3})).kind, Length);
}

#[test]
fn dependent_required_and_schemas() {
    let schema = json!({
        "dependentRequired": {"card": ["cvv"]},
        "dependentSchemas": {"express": {"required": ["phone"]}}
    });
    assert!(issues(schema.clone(), json!({"cvv": "1"})).is_empty());
    assert_eq!(
        only(schema.clone(), json!({"card": "4111"})),
        issue("cvv", Missing, "a value, required when \"card\" is sent", None)
    );
    assert_eq!(only(schema.clone(), json!({"express": true})).path, "phone");
    // Draft 7's `dependencies` holds both forms.
    let old = json!({"dependencies": {"card": ["cvv"], "express": {"required": ["phone"]}}});
    assert_eq!(issues(old, json!({"card": 1, "express": 1})).len(), 2);
}

#[test]
fn contains_counts_matching_items() {
    let schema = json!({"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3});
    assert!(issues(schema.clone(), json!(["a", 1, 2])).is_empty());
    assert_eq!(
        only(schema.clone(), json!(["a", 1])),
        issue("", Length, "an array with between 2 and 3 items that is an integer", Some(json!(["a", 1])))
    );
    assert_eq!(only(schema, json!([1, 2, 3, 4])).kind, Length);
    assert_eq!(only(json!({"contains": {"const": 1}}), json!([2])).kind, Length);
    assert!(issues(json!({"contains": {"const": 1}, "minContains": 0}), json!([])).is_empty());
}

#[test]
fn unique_items_uses_json_equality() {
    let schema = json!({"uniqueItems": true});
    assert!(issues(schema.clone(), json!([1, "1", [1], {"a": 1}])).is_empty());
    assert_eq!(
        only(schema.clone(), json!([1, 2, 1.0])),
        issue(
            "",
            NotAllowed,
            "an array with no repeated items (items 0 and 2 are equal)",
            Some(json!([1, 2, 1.0]))
        )
    );
    assert_eq!(only(schema, json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])).kind, NotAllowed);
}

#[test]
fn keywords_keel_cannot_check_fail_compile() {
    for keyword in ["unevaluatedProperties", "unevaluatedItems", "$dynamicRef"] {
        let value = if keyword == "$dynamicRef" { json!("#meta") } else { json!(false) };
        let error = Schema::compile(&json!({ keyword: value })).unwrap_err();
        assert_eq!(
            error,
            SchemaError::Unsupported { path: format!("#/{keyword}"), keyword: keyword.to_owned() }
        );
    }
}

#[test]
fn refs_by_anchor_and_percent_encoded_pointers() {
    let schema = json!({
        "properties": {"a": {"$ref": "#item"}, "b": {"$ref": "#/$defs/per%25cent"}, "c": {"$ref": "#/$defs/sl~1ash"}},
        "$defs": {"item": {"$anchor": "item", "type": "integer"}, "per%cent": {"type": "string"}, "sl/ash": {"type": "null"}}
    });
    assert!(issues(schema.clone(), json!({"a": 1, "b": "x", "c": null})).is_empty());
    let wrong: Vec<String> =
        issues(schema, json!({"a": "1", "b": 2, "c": 3})).into_iter().map(|i| i.path).collect();
    assert_eq!(wrong, ["a", "b", "c"]);
    assert!(matches!(
        Schema::compile(&json!({"$ref": "#nowhere"})),
        Err(SchemaError::UnresolvableRef { .. })
    ));
    assert!(matches!(
        Schema::compile(&json!({"$ref": "#/bad%zz"})),
        Err(SchemaError::UnresolvableRef { .. })
    ));
}
