//! What a tool declaration may hold, checked when the agent is built so that a mistake (or a
//! schema no small model could follow) fails `Agent.create` with a clear message instead of a hang
//! or a quietly ignored setting later.

use serde_json::Value;

use super::ToolSpec;

/// The longest wait keel accepts for a timeout or a delay: a day. Longer ones are refused (a
/// `setTimeout` cannot wait past 24.8 days; a longer "timeout" fires at once).
pub const MAX_WAIT_MS: u64 = 86_400_000;

/// The most attempts one call may make, the first included.
pub const MAX_ATTEMPTS: u32 = 100;

/// The most tools an agent may have.
pub const MAX_TOOLS: usize = 256;

/// The longest tool description, in characters: it is written into every prompt.
pub const MAX_DESCRIPTION_CHARS: usize = 10_000;

/// How deep a tool's input schema may nest (objects and arrays of the schema document).
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// The largest input schema, as JSON text, in bytes: it is written into every prompt.
pub const MAX_SCHEMA_BYTES: usize = 100_000;

/// Checks one spec: what is wrong with it, if anything.
pub(super) fn check(spec: &ToolSpec) -> Result<(), String> {
    if let Some(ms) = spec.timeout_ms.filter(|ms| !(1..=MAX_WAIT_MS).contains(ms)) {
        return Err(format!("timeoutMs is {ms}: expected from 1 ms to {MAX_WAIT_MS} ms (a day)"));
    }
    if let Some(n) = spec.max_attempts.filter(|n| !(1..=MAX_ATTEMPTS).contains(n)) {
        return Err(format!("maxAttempts is {n}: expected from 1 (never retry) to {MAX_ATTEMPTS}"));
    }
    if spec.on_unknown_outcome.is_some() && spec.is_idempotent() {
        let declared = if spec.read_only { "readOnly" } else { "idempotent" };
        return Err(format!(
            "onUnknownOutcome is for tools with side effects, and it is declared {declared}: a call of it cut off by a reload is simply made again; drop one of the two"
        ));
    }
    if !spec.ref_kinds.is_empty() && spec.refs_from.is_empty() {
        return Err("refKinds needs refsFrom: the kinds are read from the lines of the tools refsFrom names"
            .to_string());
    }
    if let Some(kind) = spec.ref_kinds.iter().find(|k| k.is_empty() || !k.chars().all(char::is_alphanumeric))
    {
        return Err(format!(
            "refKinds has {kind:?}: each kind is one word of letters and digits, as the listing names it (\"textbox\")"
        ));
    }
    let chars = spec.description.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        return Err(format!("its description has {chars} characters: at most {MAX_DESCRIPTION_CHARS}"));
    }
    let depth = depth(&spec.input_schema);
    if depth > MAX_SCHEMA_DEPTH {
        return Err(format!("its inputSchema nests {depth} levels deep: at most {MAX_SCHEMA_DEPTH}"));
    }
    let bytes = spec.input_schema.to_string().len();
    if bytes > MAX_SCHEMA_BYTES {
        return Err(format!("its inputSchema is {bytes} bytes of JSON: at most {MAX_SCHEMA_BYTES}"));
    }
    Ok(())
}

/// How many objects and arrays deep `value` nests (a scalar is 0), without recursion.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0)];
    while let Some((value, at)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(at + 1);
        stack.extend(children.map(|child| (child, at + 1)));
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(levels: usize) -> Value {
        (1..levels)
            .fold(json!({"type": "object"}), |inner, _| json!({"type": "object", "properties": {"a": inner}}))
    }

    #[test]
    fn limits_are_named_with_what_came() {
        let spec = |f: fn(ToolSpec) -> ToolSpec| check(&f(ToolSpec::new("t", "d", json!({}))));
        assert_eq!(spec(|s| s), Ok(()));
        assert_eq!(
            spec(|s| s.with_timeout_ms(0)).unwrap_err(),
            "timeoutMs is 0: expected from 1 ms to 86400000 ms (a day)"
        );
        assert!(spec(|s| s.with_max_attempts(0)).unwrap_err().starts_with("maxAttempts is 0"));
        assert!(spec(|s| s.with_max_attempts(u32::MAX))
            .unwrap_err()
            .starts_with("maxAttempts is 4294967295"));
        let deep = ToolSpec::new("t", "d", nested(40));
        assert_eq!(depth(&deep.input_schema), 79);
        assert!(check(&deep).unwrap_err().contains("nests 79 levels deep: at most 64"));
        assert_eq!(check(&ToolSpec::new("t", "d", nested(32))), Ok(()));
        let long = ToolSpec::new("t", "x".repeat(MAX_DESCRIPTION_CHARS + 1), json!({}));
        assert!(check(&long).unwrap_err().contains("10001 characters"));
    }
}
