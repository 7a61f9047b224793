//! Property tests: compiling and validating never panic, whatever the schema and the value, and
//! what validation reports is well-formed.
#![cfg(not(target_arch = "wasm32"))]

use keel::errors::IssueKind;
use keel::tools::Schema;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// A scalar JSON value (finite numbers only: JSON has no others).
fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        any::<f64>().prop_filter("JSON numbers are finite", |f| f.is_finite()).prop_map(Value::from),
        prop_oneof!["[a-c_]{0,4}", ".{0,12}", "\\PC{80,120}"].prop_map(Value::from),
    ]
}

/// Any JSON value, at most 5 levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-c]{0,3}|.{0,5}", inner), 0..6)
                .prop_map(|entries| Value::Object(object(entries))),
        ]
    })
}

/// A type name, now and then one JSON Schema does not define.
fn type_name() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just("string"),
        Just("number"),
        Just("integer"),
        Just("boolean"),
        Just("object"),
        Just("array"),
        Just("null"),
        Just("str"),
    ]
    .prop_map(Value::from)
}

/// `$ref` targets: good, dangling and remote.
fn reference() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just("#"),
        Just("#/$defs/a"),
        Just("#/$defs/b"),
        Just("#/definitions/c"),
        Just("#/properties/a"),
        Just("#/items"),
        Just("#/$defs/missing"),
        Just("https://example.com/schema.json"),
    ]
    .prop_map(Value::from)
}

/// A number, or now and then something a numeric keyword must not hold.
fn numberish() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (-20i64..20).prop_map(Value::from),
        2 => (-20.0f64..20.0).prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::from),
        1 => scalar(),
    ]
}

/// One keyword and its value, as Zod or a careless hand would write it.
fn keyword(schema: BoxedStrategy<Value>) -> impl Strategy<Value = (String, Value)> {
    let named = |name: &'static str| move |value: Value| (name.to_owned(), value);
    let names = "[a-c]{1,2}";
    prop_oneof![
        prop_oneof![type_name(), prop::collection::vec(type_name(), 0..3).prop_map(Value::from)]
            .prop_map(named("type")),
        prop::collection::vec((names, schema.clone()), 0..4)
            .prop_map(|entries| Value::Object(object(entries)))
            .prop_map(named("properties")),
        prop::collection::vec(names, 0..3).prop_map(|required| json!(required)).prop_map(named("required")),
        prop_oneof![any::<bool>().prop_map(Value::from), schema.clone()]
            .prop_map(named("additionalProperties")),
        prop::collection::vec(json_value(), 0..4).prop_map(Value::from).prop_map(named("enum")),
        json_value().prop_map(named("const")),
        prop_oneof![schema.clone(), prop::collection::vec(schema.clone(), 0..3).prop_map(Value::from)]
            .prop_map(named("items")),
        prop::collection::vec(schema.clone(), 0..3).prop_map(Value::from).prop_map(named("prefixItems")),
        (
            prop_oneof![Just("minimum"), Just("maximum"), Just("exclusiveMinimum"), Just("exclusiveMaximum")],
            numberish()
        )
            .prop_map(|(name, value)| (name.to_owned(), value)),
        (prop_oneof![Just("minLength"), Just("maxLength"), Just("minItems"), Just("maxItems")], numberish())
            .prop_map(|(name, value)| (name.to_owned(), value)),
        prop_oneof![
            Just("^[a-z]+$"),
            Just("[0-9]"),
            Just("a{2,3}"),
            Just("("),
            Just("^(?!x).*"),
            Just("\\p{L}")
        ]
        .prop_map(Value::from)
        .prop_map(named("pattern")),
        (prop_oneof![Just("anyOf"), Just("oneOf"), Just("allOf")], prop::collection::vec(schema, 0..3))
            .prop_map(|(name, list)| (name.to_owned(), Value::from(list))),
        reference().prop_map(named("$ref")),
        ("description|title|format|default|[a-z$]{1,6}", json_value()),
    ]
}

/// A schema built from the keyword list, with `$defs` for its refs to land on.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::from),
        type_name().prop_map(|name| json!({ "type": name })),
        Just(json!({})),
        reference().prop_map(|target| json!({ "$ref": target })),
    ];
    let sub = leaf.prop_recursive(4, 40, 5, |inner| {
        prop::collection::vec(keyword(inner), 0..5).prop_map(|entries| Value::Object(object(entries)))
    });
    (sub.clone(), sub.clone(), sub).prop_map(|(mut root, a, b)| {
        if let Value::Object(map) = &mut root {
            map.insert("$defs".to_owned(), json!({ "a": a, "b": b }));
            map.insert("definitions".to_owned(), json!({ "c": {"type": "string"} }));
        }
        root
    })
}

/// An object from entries, later keys winning.
fn object(entries: Vec<(String, Value)>) -> Map<String, Value> {
    entries.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_as_a_schema_never_panics(schema in json_value(), value in json_value()) {
        match Schema::compile(&schema) {
            Ok(compiled) => { compiled.validate(&value); }
            Err(error) => prop_assert!(!error.to_string().is_empty()),
        }
    }

    #[test]
    fn schema_shaped_input_never_panics_and_issues_are_well_formed(schema in schema(), value in json_value()) {
        let Ok(compiled) = Schema::compile(&schema) else { return Ok(()) };
        let issues = compiled.validate(&value);
        prop_assert_eq!(&issues, &compiled.validate(&value), "validation is deterministic");
        // The yes/no walk `validate` runs first rejects only what the full walk reports.
        prop_assert_eq!(compiled.is_valid(&value), issues.is_empty(), "is_valid agrees with validate");
        for issue in &issues {
            prop_assert!(!issue.expected.is_empty());
            prop_assert_eq!(issue.sent.is_none(), issue.kind == IssueKind::Missing || issue.path.is_empty() && issue.kind == IssueKind::TooComplex && issues.len() == 1);
            if let Some(suggestion) = &issue.suggestion {
                prop_assert!(issue.options.is_empty() || issue.options.contains(suggestion));
            }
            if let Some(Value::String(sent)) = &issue.sent {
                prop_assert!(sent.chars().count() <= 80);
            }
        }
    }

    #[test]
    fn trivial_schemas_accept_or_reject_everything(value in json_value()) {
        for accepting in [json!(true), json!({}), json!({"description": "anything", "format": "x"})] {
            prop_assert!(Schema::compile(&accepting).map(|s| s.validate(&value).is_empty()).unwrap_or(false));
        }
        let rejecting = Schema::compile(&json!(false)).map(|s| s.validate(&value));
        prop_assert_eq!(rejecting.map(|issues| issues.len()), Ok(1));
    }

    #[test]
    fn unreferenced_definitions_change_nothing(schema in schema(), unused in json_value(), value in json_value()) {
        let Ok(compiled) = Schema::compile(&schema) else { return Ok(()) };
        let mut extended = schema.clone();
        if let Some(Value::Object(defs)) = extended.get_mut("$defs") {
            defs.insert("unused".to_owned(), unused);
        }
        let extended = Schema::compile(&extended).map(|s| s.validate(&value));
        prop_assert_eq!(extended, Ok(compiled.validate(&value)));
    }
}
