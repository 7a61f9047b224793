//! What the model is shown after a successful tool call: the result, cut to a size budget, and any
//! warnings of a partial success.

use std::borrow::Cow;

use serde_json::Value;

use super::ToolOutput;
use crate::text::cut_middle;

/// The observation for a successful call, at most `max_chars` characters: the result and the
/// warnings each keep their head and tail, since a result's end often holds the totals or the
/// last item.
pub fn describe_output(output: &ToolOutput, max_chars: usize) -> String {
    // A text result is cut where it is; anything else written by serde_json's writer into bytes
    // (the same text as `Display`, without a formatter call per piece: bench/results/steps.md,
    // "56 KB tool results").
    let result: Cow<str> = match &output.value {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed("(no result)"),
        other => Cow::Owned(serde_json::to_string(other).unwrap_or_default()),
    };
    if output.warnings.is_empty() {
        return cut_middle(&result, max_chars);
    }
    let warnings: Vec<String> = output.warnings.iter().map(|w| format!("- {w}")).collect();
    let warnings = format!("\nWarnings (the call worked, with caveats):\n{}", warnings.join("\n"));
    let warnings = cut_middle(&warnings, max_chars / 3);
    let room = max_chars.saturating_sub(warnings.chars().count());
    format!("{}{}", cut_middle(&result, room), warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_results_keep_head_and_tail_within_budget() {
        let text: String = (0..500).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let cut = describe_output(&ToolOutput { value: json!(text), warnings: vec![], lists: false }, 100);
        assert_eq!(cut.chars().count(), 100);
        assert!(cut.starts_with("abcdef"));
        assert!(cut.ends_with(&text[text.len() - 5..]));
        assert!(cut.contains("…[cut 417 chars]…"));
        assert_eq!(
            describe_output(&ToolOutput { value: json!("short"), warnings: vec![], lists: false }, 100),
            "short"
        );
        assert_eq!(
            describe_output(&ToolOutput { value: json!("abcdef"), warnings: vec![], lists: false }, 3),
            "a…f"
        );
    }

    #[test]
    fn warnings_are_shown_with_the_result() {
        let out = ToolOutput {
            value: json!({"rows": 3}),
            warnings: vec!["2 frames were cross-origin".into()],
            lists: false,
        };
        assert_eq!(
            describe_output(&out, 500),
            "{\"rows\":3}\nWarnings (the call worked, with caveats):\n- 2 frames were cross-origin"
        );
        let big =
            ToolOutput { value: json!("x".repeat(5000)), warnings: vec!["w".repeat(5000)], lists: false };
        assert!(describe_output(&big, 300).chars().count() <= 300);
    }
}
