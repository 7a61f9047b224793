//! Turning a `$ref`'s fragment into a JSON pointer: percent-decoding (`%25` → `%`) and `$anchor`
//! names (`#node` → the pointer of the schema declaring `"$anchor": "node"`).

use serde_json::Value;

use super::compile::child;

/// A URI fragment with its `%XX` escapes decoded; `None` when an escape is malformed or the result
/// is not UTF-8.
pub(super) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Keywords whose values are data, not schemas: an `$anchor` inside them declares nothing.
const DATA_KEYWORDS: [&str; 4] = ["const", "enum", "examples", "default"];

/// The JSON pointer of the one schema declaring `"$anchor": name`; `None` when none does, or when
/// more than one does (which one is meant then depends on base URIs keel does not track).
pub(super) fn find_anchor(root: &Value, name: &str) -> Option<String> {
    let mut found = None;
    let mut stack = vec![(root, String::new())];
    while let Some((value, pointer)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.get("$anchor").and_then(Value::as_str) == Some(name) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some(pointer.clone());
                }
                for (key, child_value) in map {
                    if !DATA_KEYWORDS.contains(&key.as_str()) {
                        stack.push((child_value, child(&pointer, key)));
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    stack.push((item, child(&pointer, &index.to_string())));
                }
            }
            _ => {}
        }
    }
    found
}
