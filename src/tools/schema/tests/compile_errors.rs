//! Schemas that do not compile, and the exact errors they give.

use serde_json::{json, Value};

use crate::tools::{Schema, SchemaError};

fn error(schema: Value) -> SchemaError {
    Schema::compile(&schema).expect_err("the schema should not compile")
}

#[test]
fn unresolvable_refs() {
    assert_eq!(
        error(json!({"properties": {"a": {"$ref": "#/$defs/Nope"}}})),
        SchemaError::UnresolvableRef { path: "#/properties/a/$ref".into(), reference: "#/$defs/Nope".into() }
    );
    assert!(matches!(
        error(json!({"$ref": "https://example.com/s.json"})),
        SchemaError::UnresolvableRef { .. }
    ));
    assert!(matches!(error(json!({"$ref": "#anchor"})), SchemaError::UnresolvableRef { .. }));
    assert_eq!(
        error(json!({"$ref": "#/$defs/x"})).to_string(),
        "schema at #/$ref: $ref \"#/$defs/x\" does not resolve (only local refs such as \"#/$defs/Name\" are supported)"
    );
}

#[test]
fn invalid_patterns() {
    let got = error(json!({"properties": {"a": {"pattern": "[a-"}}}));
    let SchemaError::InvalidPattern { path, pattern, reason } = got else { panic!("wrong error: {got:?}") };
    assert_eq!((path.as_str(), pattern.as_str()), ("#/properties/a/pattern", "[a-"));
    assert!(!reason.is_empty());
}

#[test]
fn keywords_of_the_wrong_shape() {
    let got = error(json!({"required": 5}));
    assert_eq!(
        got,
        SchemaError::WrongKeywordType {
            path: "#/required".into(),
            keyword: "required".into(),
            expected: "an array of strings"
        }
    );
    assert_eq!(got.to_string(), "schema at #/required: required must be an array of strings");
    let wrong = |schema: Value| match error(schema) {
        SchemaError::WrongKeywordType { path, expected, .. } => (path, expected),
        other => panic!("wrong error: {other:?}"),
    };
    assert_eq!(wrong(json!({"required": ["a", 1]})), ("#/required".into(), "an array of strings"));
    assert_eq!(wrong(json!({"minLength": -1})), ("#/minLength".into(), "a non-negative integer"));
    assert_eq!(wrong(json!({"maxItems": 1.5})), ("#/maxItems".into(), "a non-negative integer"));
    assert_eq!(wrong(json!({"minimum": "5"})), ("#/minimum".into(), "a number"));
    assert_eq!(
        wrong(json!({"exclusiveMaximum": null})),
        ("#/exclusiveMaximum".into(), "a number or a boolean")
    );
    assert_eq!(wrong(json!({"anyOf": []})), ("#/anyOf".into(), "a non-empty array of schemas"));
    assert_eq!(wrong(json!({"prefixItems": {}})), ("#/prefixItems".into(), "an array of schemas"));
    assert_eq!(wrong(json!({"properties": []})), ("#/properties".into(), "an object of schemas"));
    assert_eq!(wrong(json!({"enum": "a"})), ("#/enum".into(), "an array"));
    assert_eq!(
        wrong(json!({"type": []})),
        ("#/type".into(), "a type name or a non-empty array of type names")
    );
    assert_eq!(wrong(json!({"$ref": 1})), ("#/$ref".into(), "a string"));
    assert!(Schema::compile(&json!({"minLength": 2.0, "description": 5})).is_ok());
}

#[test]
fn unknown_type_names() {
    assert_eq!(
        error(json!({"properties": {"a": {"type": ["string", "str"]}}})),
        SchemaError::UnknownType { path: "#/properties/a/type".into(), name: "str".into() }
    );
}

#[test]
fn non_schemas_where_schemas_go() {
    assert_eq!(
        error(json!({"properties": {"a~b/c": 5}})),
        SchemaError::NotASchema { path: "#/properties/a~0b~1c".into(), found: "a number" }
    );
    assert!(matches!(error(json!("string")), SchemaError::NotASchema { .. }));
    assert!(matches!(error(json!({"items": null})), SchemaError::NotASchema { .. }));
}

#[test]
fn loops_that_never_descend_are_rejected() {
    assert!(matches!(error(json!({"$ref": "#"})), SchemaError::RefCycle { .. }));
    assert!(matches!(
        error(json!({"anyOf": [{"type": "string"}, {"$ref": "#"}]})),
        SchemaError::RefCycle { .. }
    ));
    let pair = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"});
    assert!(matches!(error(pair), SchemaError::RefCycle { .. }));
    // Through a property or an item, recursion descends into the value: fine.
    assert!(Schema::compile(&json!({"properties": {"next": {"$ref": "#"}}, "items": {"$ref": "#"}})).is_ok());
}

#[test]
fn schemas_nested_too_deep() {
    let mut schema = json!({"type": "string"});
    for _ in 0..200 {
        schema = json!({"properties": {"a": schema}});
    }
    assert!(matches!(error(schema), SchemaError::TooDeep { limit: 128, .. }));
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    assert!(matches!(error(json!({"const": deep})), SchemaError::TooDeep { .. }));
}
