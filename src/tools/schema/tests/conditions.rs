//! The yes/no walk's decisions from the keys it met, each against the full walk (`issues` checks
//! that the two agree): an `if`/`then`/`else` about declared keys (`conditions.rs`), and
//! `dependentRequired` as bits of the declared properties.

use serde_json::{json, Value};

use super::super::node::{KeyTest, Node, Rules};
use super::issues;
use crate::errors::IssueKind::{Missing, OutOfRange, WrongType};
use crate::tools::Schema;

/// The search tool's schema (bench/schema-speed): `if` `sort` is `date`, `then` `from` is required;
/// `to` requires `from`.
fn search() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "maximum": 100},
            "sort": {"enum": ["relevance", "date"]},
            "from": {"type": "string"},
            "to": {"type": "string"}
        },
        "required": ["query"],
        "dependentRequired": {"to": ["from"]},
        "if": {"properties": {"sort": {"const": "date"}}, "required": ["sort"]},
        "then": {"required": ["from"]},
        "additionalProperties": false
    })
}

/// The root node's keywords, with what the compiler derived from them.
fn root(schema: &Value) -> Rules {
    let compiled = Schema::compile(schema).expect("compiles");
    match &compiled.nodes[compiled.root] {
        Node::Rules(rules) => (**rules).clone(),
        _ => panic!("the root has keywords"),
    }
}

/// Whether `value` is valid against `schema`, the two walks agreeing.
fn valid(schema: &Value, value: Value) -> bool {
    issues(schema.clone(), value).is_empty()
}

#[test]
fn a_condition_about_declared_keys_is_rewritten_in_their_bits() {
    let rules = root(&search());
    let condition = rules.key_condition.expect("the condition is about keys");
    // `sort` is the third declared property, `from` the fourth, `to` the fifth.
    assert_eq!(condition.test.required, 1 << 2);
    assert_eq!(condition.test.checks.len(), 1);
    assert_eq!(condition.test.checks[0].0, 2, "the value of `sort` is checked");
    let then = condition.then.expect("then");
    assert_eq!((then.required, then.checks.len()), (1 << 3, 0));
    assert!(condition.other.is_none());
    assert_eq!(rules.dependent_bits, Some(vec![(1 << 4, 1 << 3)]));
}

#[test]
fn values_are_checked_by_their_declared_place() {
    let schema = json!({
        "properties": {"a": {}, "b": {}, "c": {}, "d": {}},
        "if": {"properties": {"d": {"const": 1}, "b": {"const": 2}}},
        "then": {"required": ["a"]},
        "else": {"properties": {"c": {"type": "string"}}}
    });
    let condition = root(&schema).key_condition.expect("the condition is about keys");
    let KeyTest { checks, .. } = &condition.test;
    assert_eq!(checks.iter().map(|check| check.0).collect::<Vec<_>>(), [3, 1]);
    assert_eq!(condition.other.expect("else").checks[0].0, 2);
    assert!(valid(&schema, json!({"a": 0, "b": 2, "d": 1})));
    assert_eq!(issues(schema.clone(), json!({"b": 2, "d": 1}))[0].kind, Missing);
    // `d` is not 1: the test fails and `else` checks `c`.
    assert!(valid(&schema, json!({"b": 2, "d": 3, "c": "x"})));
    assert_eq!(issues(schema.clone(), json!({"b": 2, "d": 3, "c": 1}))[0].kind, WrongType);
    // `b` is missing: `properties` passes without it, the test holds, `then` asks for `a`.
    assert_eq!(issues(schema.clone(), json!({"d": 1, "c": 1}))[0].kind, Missing);
    assert!(valid(&schema, json!({"d": 1, "c": 1, "a": 0})));
}

#[test]
fn the_condition_decides_as_the_walk_does() {
    let schema = search();
    assert!(valid(&schema, json!({"query": "q", "sort": "date", "from": "2026-01-01"})));
    let missing = issues(schema.clone(), json!({"query": "q", "sort": "date"}));
    assert_eq!((missing[0].kind, missing[0].path.as_str()), (Missing, "from"));
    // `sort` is not `date`, or not sent: no `from` needed.
    assert!(valid(&schema, json!({"query": "q", "sort": "relevance"})));
    assert!(valid(&schema, json!({"query": "q", "limit": 5})));
    // A value the test does not look at still fails on its own schema.
    assert_eq!(issues(schema.clone(), json!({"query": "q", "limit": 500}))[0].kind, OutOfRange);
    // Not an object: the condition is walked as before (and holds: nothing is required of a string).
    assert!(!valid(&schema, json!("q")));
}

#[test]
fn else_and_values_in_the_branches_decide_as_the_walk_does() {
    let schema = json!({
        "type": "object",
        "properties": {"unit": {"enum": ["c", "f"]}, "value": {"type": "number"}},
        "if": {"properties": {"unit": {"const": "c"}}, "required": ["unit"]},
        "then": {"properties": {"value": {"maximum": 100}}},
        "else": {"properties": {"value": {"maximum": 212}}, "required": ["value"]}
    });
    assert!(root(&schema).key_condition.is_some());
    assert!(valid(&schema, json!({"unit": "c", "value": 90})));
    assert!(!valid(&schema, json!({"unit": "c", "value": 150})));
    assert!(valid(&schema, json!({"unit": "c"})));
    assert!(valid(&schema, json!({"unit": "f", "value": 150})));
    assert!(!valid(&schema, json!({"unit": "f", "value": 300})));
    assert!(!valid(&schema, json!({"unit": "f"})));
    assert!(!valid(&schema, json!({})));
    assert!(valid(&schema, json!({"value": 200})));
    // The key order does not matter.
    assert!(valid(&schema, json!({"value": 90, "unit": "c"})));
    assert!(!valid(&schema, json!({"value": 150, "unit": "c"})));
}

#[test]
fn a_condition_asking_more_than_declared_keys_is_left_to_the_walk() {
    let declared = json!({"a": {"type": "integer"}, "b": {}, "c": {}, "d": {}, "e": {}});
    let with = |condition: Value| {
        let mut schema = json!({"properties": declared.clone()});
        schema.as_object_mut().unwrap().extend(condition.as_object().unwrap().clone());
        schema
    };
    let left = [
        // A name the node does not declare.
        json!({"if": {"required": ["z"]}, "then": {"required": ["a"]}}),
        json!({"if": {"required": ["a"]}, "then": {"properties": {"z": {"const": 1}}}}),
        // Keywords other than `properties` and `required`.
        json!({"if": {"required": ["a"]}, "then": {"minProperties": 2}}),
        json!({"if": {"required": ["a"]}, "else": {"additionalProperties": false}}),
        json!({"if": {"required": ["a"], "not": {"required": ["b"]}}, "then": {"required": ["c"]}}),
        json!({"if": {"type": "string"}, "then": {"required": ["a"]}}),
        json!({"if": {"required": ["a"], "const": {"a": 1}}, "then": {"required": ["b"]}}),
        // A boolean part.
        json!({"if": {"required": ["a"]}, "then": false}),
    ];
    let values = [json!({}), json!({"a": 1}), json!({"a": 1, "b": 2}), json!({"z": 1}), json!({"a": "x"})];
    for condition in left {
        let schema = with(condition);
        assert!(root(&schema).key_condition.is_none(), "{schema}");
        for value in &values {
            // `issues` holds the two walks to each other.
            issues(schema.clone(), value.clone());
        }
    }
    // Values of every declared property checked: still about keys.
    let all = with(
        json!({"if": {"properties": {"a": {}, "b": {}, "c": {}}}, "then": {"properties": {"d": {}, "e": {}}}}),
    );
    assert!(root(&all).key_condition.is_some());
}

#[test]
fn dependent_required_by_bits_decides_as_the_walk_does() {
    let schema = search();
    assert!(valid(&schema, json!({"query": "q", "from": "a", "to": "b"})));
    assert!(valid(&schema, json!({"query": "q", "from": "a"})));
    let missing = issues(schema.clone(), json!({"query": "q", "to": "b"}));
    assert_eq!((missing[0].kind, missing[0].path.as_str()), (Missing, "from"));
    // A name the node does not declare: looked up as before.
    let loose = json!({"properties": {"to": {}}, "dependentRequired": {"to": ["from"], "at": ["to"]}});
    assert_eq!(root(&loose).dependent_bits, None);
    assert!(valid(&loose, json!({"to": 1, "from": 2})));
    assert!(!valid(&loose, json!({"to": 1})));
    assert!(!valid(&loose, json!({"at": 1})));
    assert!(valid(&loose, json!({"at": 1, "to": 1, "from": 1})));
}

#[test]
fn a_node_declaring_more_than_64_properties_looks_names_up() {
    // `p66`'s bit would be `p2`'s modulo 64.
    let properties: serde_json::Map<String, Value> = (0..70).map(|i| (format!("p{i}"), json!({}))).collect();
    let schema = json!({
        "properties": properties,
        "required": ["p1", "p67"],
        "dependentRequired": {"p66": ["p10"]},
        "if": {"required": ["p65"]},
        "then": {"required": ["p3"]}
    });
    let rules = root(&schema);
    assert_eq!((rules.required_bits, rules.dependent_bits.as_ref()), (None, None));
    assert!(rules.key_condition.is_none());
    assert!(valid(&schema, json!({"p1": 0, "p67": 0, "p2": 0})));
    assert!(valid(&schema, json!({"p1": 0, "p67": 0, "p66": 0, "p10": 0, "p65": 0, "p3": 0})));
    assert!(!valid(&schema, json!({"p1": 0, "p67": 0, "p66": 0})));
    assert!(!valid(&schema, json!({"p1": 0, "p67": 0, "p65": 0})));
    assert!(!valid(&schema, json!({"p1": 0, "p3": 0})));
    assert!(!valid(&schema, json!({"p67": 0, "p65": 0, "p3": 0})));
    // At 64, the bits are exact.
    let properties: serde_json::Map<String, Value> = (0..64).map(|i| (format!("p{i}"), json!({}))).collect();
    let schema = json!({"properties": properties, "required": ["p63"], "dependentRequired": {"p63": ["p0"]}});
    assert_eq!(root(&schema).required_bits, Some(1 << 63));
    assert!(valid(&schema, json!({"p63": 0, "p0": 0})));
    assert!(!valid(&schema, json!({"p63": 0})));
    assert!(!valid(&schema, json!({"p0": 0})));
}

#[test]
fn required_declared_names_are_met_by_their_bits() {
    let schema = search();
    assert_eq!(root(&schema).required_bits, Some(1));
    assert!(!valid(&schema, json!({"limit": 1})));
    assert!(!valid(&schema, json!({"sort": "date", "from": "x"})));
    let both = json!({"properties": {"a": {}, "b": {}}, "required": ["b", "a", "c"]});
    assert_eq!(root(&both).required_bits, Some(0b11));
    assert!(valid(&both, json!({"a": 1, "b": 2, "c": 3})));
    assert!(!valid(&both, json!({"a": 1, "c": 3})));
    assert!(!valid(&both, json!({"b": 1, "c": 3})));
    assert!(!valid(&both, json!({"a": 1, "b": 2})));
    // Through the walk by declared name (fewer declared than sent).
    assert!(!valid(&both, json!({"a": 1, "c": 3, "d": 4})));
    assert!(valid(&both, json!({"a": 1, "b": 2, "c": 3, "d": 4})));
}
