//! proptest strategies for JSON values, shared by the property tests.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Any JSON value up to three levels deep: null, booleans, integers, numbers in eighths, strings
/// from `strings`, and arrays and objects (keys from `keys`) of those.
pub fn json_value(
    strings: impl Strategy<Value = String> + Clone + 'static,
    keys: impl Strategy<Value = String> + Clone + 'static,
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1000i32..1000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        strings.prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..5)
                .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}
