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
    let mut canonical = String::new();
    write_canonical(value, &mut canonical);
    format!("{:016x}", fnv1a(canonical.as_bytes()))
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            crate::order::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
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
}
