//! Identity of a call: the tool and its normalised arguments, so that `{"a":1,"b":2}` and
//! `{"b":2,"a":1}` count as the same call when repeats are looked for.

use serde_json::Value;

/// A tool name plus a digest of its arguments with object keys sorted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallKey {
    /// The tool, as named.
    pub tool: String,
    /// FNV-1a (64-bit, hex) of the canonical arguments JSON.
    pub args_digest: String,
}

impl CallKey {
    /// The key of `tool` called with `args`.
    pub fn new(tool: &str, args: &Value) -> Self {
        CallKey { tool: tool.to_string(), args_digest: digest(args) }
    }
}

/// FNV-1a (64-bit, hex) of `value`'s canonical JSON: equal for equal values whatever their key order.
pub fn digest(value: &Value) -> String {
    let mut canonical = Vec::new();
    write_canonical(value, &mut canonical);
    hex_fnv1a(&canonical)
}

/// The digest of a tool's result: [`digest`] of `[value, warnings]`, without building that array
/// (a copy of the whole result: bench/results/steps.md, "56 KB tool results").
pub fn result_digest(value: &Value, warnings: &[String]) -> String {
    let mut canonical = vec![b'['];
    write_canonical(value, &mut canonical);
    canonical.push(b',');
    write_array(warnings, &mut canonical, |warning, out| write_str(warning, out));
    canonical.push(b']');
    hex_fnv1a(&canonical)
}

/// `value` as compact JSON with object keys sorted. Strings and scalars are written by
/// `serde_json` straight into `out`, as `Value`'s `Display` writes them (the digests are stored:
/// they must not change), without a `String` and the formatting machinery for each.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            crate::order::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(key, out);
                out.push(b':');
                write_canonical(item, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => write_array(items, out, write_canonical),
        Value::String(text) => write_str(text, out),
        scalar => write_json(scalar, out),
    }
}

/// `items` as a JSON array, each written by `write`.
fn write_array<T>(items: &[T], out: &mut Vec<u8>, write: impl Fn(&T, &mut Vec<u8>)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(item, out);
    }
    out.push(b']');
}

/// A string as JSON. serde_json escapes only `"`, `\` and the control chars below U+0020, so a
/// string without them is written as it is, without a buffer of its own (most keys and strings of
/// a result: bench/results/steps.md, "56 KB tool results").
fn write_str(text: &str, out: &mut Vec<u8>) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        write_json(text, out);
    }
}

fn write_json<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Writing a string or a scalar `Value` cannot fail. (serde_json's `to_writer` needs its "std"
    // feature, which links std's I/O errors into the wasm: Cargo.toml.)
    out.extend_from_slice(&serde_json::to_vec(value).unwrap_or_default());
}

/// FNV-1a (64-bit) of `bytes`, as 16 hex digits.
fn hex_fnv1a(bytes: &[u8]) -> String {
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_matter_but_values_do() {
        let a = CallKey::new("t", &json!({"a": 1, "b": {"y": [1, 2], "x": null}}));
        let b = CallKey::new("t", &json!({"b": {"x": null, "y": [1, 2]}, "a": 1}));
        assert_eq!(a, b);
        assert_ne!(a, CallKey::new("t", &json!({"a": 2, "b": {"x": null, "y": [1, 2]}})));
        assert_ne!(a, CallKey::new("u", &json!({"a": 1, "b": {"y": [1, 2], "x": null}})));
        assert_ne!(CallKey::new("t", &json!(["a,b"])), CallKey::new("t", &json!(["a", "b"])));
    }

    #[test]
    fn digests_are_those_already_stored() {
        // The canonical JSON and digests as the first implementation wrote them (through
        // `Value`'s `Display`): idempotency keys and failure records in existing stores hold them.
        let value = json!({"b": {"y": [1, 2.5, "x\"\n\u{e9}"], "x": null}, "a": true, "\u{e9}": -3});
        let mut canonical = Vec::new();
        write_canonical(&value, &mut canonical);
        assert_eq!(
            String::from_utf8(canonical).unwrap(),
            "{\"a\":true,\"b\":{\"x\":null,\"y\":[1,2.5,\"x\\\"\\n\u{e9}\"]},\"\u{e9}\":-3}"
        );
        assert_eq!(digest(&value), "690ebb5c4f610ef4");
        assert_eq!(digest(&json!("plain")), "9ea3bf33eb1d861f");
        assert_eq!(digest(&json!([])), "09612b07b5ecb5a5");
        // Strings written as they are or escaped by serde_json: the same bytes either way.
        let texts = ["plain", "quote \" in", "back\\slash", "tab\there", "\u{1}", "del \u{7f}", "é ü 🦀", ""];
        for text in texts {
            let mut written = Vec::new();
            write_str(text, &mut written);
            assert_eq!(written, serde_json::to_vec(text).unwrap(), "{text:?}");
        }
        // A result's digest is that of `[value, warnings]`.
        for (value, warnings) in [
            (json!({"b": [1, {"z": "é", "a": null}], "a": 2.5}), vec![]),
            (json!("text \"quoted\"\n"), vec!["stale".to_string(), "a \"cut\" list".to_string()]),
            (Value::Null, vec!["one".to_string()]),
            (json!([]), vec![]),
        ] {
            assert_eq!(result_digest(&value, &warnings), digest(&json!([value, warnings])), "{value}");
        }
        assert_eq!(digest(&json!({})), "08f44b07b5901a25");
    }
}
