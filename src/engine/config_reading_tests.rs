//! The agent's config read by [`crate::settings::read`]: unknown keys, values of the wrong kind
//! and arrays for objects, each named where it is.

use crate::engine::AgentConfig;
use crate::settings::read;
use serde_json::{json, Value};

fn config(value: Value) -> String {
    read::<AgentConfig>(&value, "config", &["store"]).unwrap_err().to_string()
}

#[test]
fn unknown_keys_name_the_closest_known_key_at_any_depth() {
    assert_eq!(config(json!({"maxStep": 3})), "`config.maxStep`: unknown key (did you mean `maxSteps`?)");
    assert_eq!(
        config(json!({"retry": {"maxAttemps": 2}})),
        "`config.retry.maxAttemps`: unknown key (did you mean `maxAttempts`?)"
    );
    assert_eq!(config(json!({"stor": "memory"})), "`config.stor`: unknown key (did you mean `store`?)");
    assert!(config(json!({"zzzzzz": 1})).contains("known keys: maxSteps,"));
}

#[test]
fn values_of_the_wrong_kind_say_what_came_and_what_was_expected() {
    assert_eq!(
        config(json!({"maxSteps": -1})),
        format!("`config.maxSteps`: got the number `-1`; expected a whole number from 0 to {}", u32::MAX)
    );
    assert_eq!(
        config(json!({"maxSteps": 1e300})),
        format!("`config.maxSteps`: got the number `1e+300`; expected a whole number from 0 to {}", u32::MAX)
    );
    assert!(config(json!({"format": "html"})).starts_with("`config.format`: unknown variant `html`"));
    assert_eq!(config(json!({"retry": "x"})), "`config.retry`: got string \"x\"; expected an object");
}

#[test]
fn an_array_is_not_read_as_an_object_by_position() {
    assert_eq!(config(json!([3, 5])), "`config`: got an array; expected an object (with named keys)");
    assert_eq!(
        config(json!({"retry": [3, 100]})),
        "`config.retry`: got an array; expected an object (with named keys)"
    );
    let read: AgentConfig = read(&json!({"maxSteps": 3}), "config", &[]).unwrap();
    assert_eq!(read.max_steps, 3);
}
