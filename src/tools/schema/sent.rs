//! What an issue shows of the value sent: enough for the model to recognise it, small enough for
//! its context (a 5 000-character string or a 1 000-item array shrinks to a glimpse).

use serde_json::{Map, Value};

use crate::text::clip;

/// Longest string shown whole, in characters.
const MAX_CHARS: usize = 80;
/// Most items or properties shown of one array or object.
const MAX_ENTRIES: usize = 8;
/// Most values shown in all; past it, containers collapse to `[…]` / `{…}`.
const MAX_VALUES: usize = 40;

/// A shrunk copy of `value`: long strings cut with `…`, long arrays and objects cut with a note of
/// how many entries were left out, nesting past the budget collapsed.
pub(super) fn preview(value: &Value) -> Value {
    let mut budget = MAX_VALUES;
    shrink(value, &mut budget)
}

/// `value` shrunk within what is left of the budget.
fn shrink(value: &Value, budget: &mut usize) -> Value {
    *budget = budget.saturating_sub(1);
    match value {
        Value::String(text) => Value::String(clip(text, MAX_CHARS)),
        Value::Array(_) if *budget == 0 => Value::from("[…]"),
        Value::Object(_) if *budget == 0 => Value::from("{…}"),
        Value::Array(items) => {
            let mut shown: Vec<Value> = Vec::new();
            for item in items.iter().take(MAX_ENTRIES) {
                if *budget == 0 {
                    break;
                }
                shown.push(shrink(item, budget));
            }
            if shown.len() < items.len() {
                shown.push(Value::String(format!("… {} more", items.len() - shown.len())));
            }
            Value::Array(shown)
        }
        Value::Object(map) => {
            let mut shown = Map::new();
            for (key, item) in map.iter().take(MAX_ENTRIES) {
                if *budget == 0 {
                    break;
                }
                shown.insert(clip(key, MAX_CHARS), shrink(item, budget));
            }
            if shown.len() < map.len() {
                shown.insert("…".to_owned(), Value::String(format!("{} more", map.len() - shown.len())));
            }
            Value::Object(shown)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::preview;

    #[test]
    fn small_values_are_shown_whole() {
        let value = json!({"a": [1, 2.5, true, null], "b": "short"});
        assert_eq!(preview(&value), value);
    }

    #[test]
    fn long_strings_are_cut_by_characters() {
        let shown = preview(&Value::from("é".repeat(200)));
        assert_eq!(shown, Value::from(format!("{}…", "é".repeat(79))));
    }

    #[test]
    fn long_arrays_and_objects_say_how_much_was_left_out() {
        let shown = preview(&json!((0..100).collect::<Vec<_>>()));
        assert_eq!(shown, json!([0, 1, 2, 3, 4, 5, 6, 7, "… 92 more"]));
        let map: serde_json::Map<String, Value> = (0..20).map(|i| (format!("k{i}"), json!(i))).collect();
        let shown = preview(&Value::Object(map));
        assert_eq!(shown.as_object().map(|m| m.len()), Some(9));
        assert_eq!(shown["…"], json!("12 more"));
    }

    #[test]
    fn deep_and_wide_values_stay_small() {
        let mut deep = json!(1);
        for _ in 0..100 {
            deep = json!([deep, deep]);
            if deep.to_string().len() > 100_000 {
                break;
            }
        }
        assert!(preview(&deep).to_string().len() < 2_000);
    }
}
