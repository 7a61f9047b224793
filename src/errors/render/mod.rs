//! Renderers: an [`Envelope`] as prompt text the model reads, within a size budget.
//!
//! - [`Format::Xml`] (Vurb style): tagged sections, everything user-controlled escaped. The default.
//! - [`Format::Text`] (Verdex style): `❌ Title`, facts, causes, `🔧 Action Required:` numbered steps.
//! - [`Format::Plain`]: the naive one-liner agents usually send, kept as the baseline to beat.
//!
//! The budget is a maximum size in **chars** (Unicode scalar values), not tokens: count on roughly
//! four chars per token for English. The output never exceeds it. When the full rendering is too
//! big, parts shrink in the order they stop being worth their chars: the echoed arguments first,
//! then details, causes, per-field texts and the list of available actions; the code, the message
//! and the recovery steps go last.

mod budget;
mod plain;
mod text;
mod xml;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Envelope;
use crate::text::{clip, head_tail};

pub use xml::XML_MIN_BUDGET;

/// How an envelope is shown to the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Vurb-style XML (`<tool_error>`, `<validation_error>`): the most structure per char.
    #[default]
    Xml,
    /// Verdex-style text with an icon, bullets and numbered steps.
    Text,
    /// `Error: <message>` and nothing else: the baseline for benchmarks, not for production use.
    Plain,
}

/// Renders `envelope` in `format` in at most `budget` chars (not tokens; about 4 chars per token).
///
/// Never panics and never exceeds the budget. Over budget, parts are shortened or dropped whole in
/// a fixed order, so XML stays well-formed from [`XML_MIN_BUDGET`] chars on; below that, and as the
/// text format's last resort, the output is the code cut to fit. Give it hundreds of chars: at
/// about 200 the code, the message and the first step still survive (cut), at 120 the message.
pub fn render(envelope: &Envelope, format: Format, budget: usize) -> String {
    let out = match format {
        Format::Xml => budget::fit(budget, |l| xml::render(envelope, l), |b| xml::tiny(envelope, b)),
        Format::Text => budget::fit(budget, |l| text::render(envelope, l), |b| text::tiny(envelope, b)),
        Format::Plain => plain::render(envelope, budget),
    };
    // The renderers already fit; this turns "should" into "never exceeds" whatever they do.
    clip(&out, budget)
}

/// Length in chars, the unit of every budget and limit here.
fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// One line of safe text: line breaks and tabs become spaces (each item is one line in every
/// format), other control chars and the XML non-characters become U+FFFD, since XML 1.0 cannot
/// carry them even escaped and in plain text they garble the prompt.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// Every form in which the renderers may write the text `s` whole: as given, on one line
/// ([`clean`]), escaped as XML text and as an XML attribute, and each of these as the inside of a
/// JSON string (the echoed arguments). Redaction scrubs a removed value in all of them.
pub(crate) fn written_forms(s: &str) -> Vec<String> {
    let quoted = json(&Value::String(s.to_string()));
    let inside_json = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')).unwrap_or(s);
    let mut forms = Vec::new();
    for base in [s, inside_json] {
        for form in [base.to_string(), clean(base), xml::esc(base), xml::esc_attr(base)] {
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms
}

/// Compact JSON. Serializing a `Value` cannot fail; an empty string would be the harmless answer.
fn json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A value as the model sees it in a sentence: strings in single quotes, anything else as JSON,
/// at most `max` chars of content.
fn show_value(value: &Value, max: usize) -> String {
    match value {
        Value::String(s) => format!("'{}'", clip(s, max)),
        other => head_tail(&json(other), max),
    }
}

/// A detail's value: strings bare (`e5`, not `"e5"`), anything else as JSON.
fn show_detail(value: &Value, max: usize) -> String {
    match value {
        Value::String(s) => clip(s, max),
        other => head_tail(&json(other), max),
    }
}

/// `'a', 'b', 'c' (+2 more)`: at most `count` items of at most `max` chars each.
fn quoted_list(items: &[String], count: usize, max: usize) -> String {
    let mut out =
        items.iter().take(count).map(|o| format!("'{}'", clip(o, max))).collect::<Vec<_>>().join(", ");
    let hidden = items.len().saturating_sub(count);
    if hidden > 0 {
        let sep = if out.is_empty() { "" } else { " " };
        out.push_str(&format!("{sep}(+{hidden} more)"));
    }
    out
}

/// Whether every option already appears, quoted, in the expected text (`one of "c", "f"`): then
/// listing them again would only spend the model's context.
fn options_in_expected(expected: &str, options: &[String]) -> bool {
    options.iter().all(|o| expected.contains(&format!("\"{o}\"")) || expected.contains(&format!("'{o}'")))
}

/// The key an unknown-key issue is about: the last segment of its path (`items[0].cty` → `cty`).
fn key_name(path: &str) -> &str {
    path.rsplit('.').next().filter(|k| !k.is_empty()).unwrap_or("(root)")
}

/// Non-blank items, for lists where an empty entry would only be noise.
fn non_blank(items: &[String]) -> impl Iterator<Item = &String> {
    items.iter().filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_in_lowercase_and_default_to_xml() {
        assert_eq!(Format::default(), Format::Xml);
        assert_eq!(serde_json::to_string(&Format::Text).unwrap(), "\"text\"");
        assert_eq!(serde_json::from_str::<Format>("\"plain\"").unwrap(), Format::Plain);
    }

    #[test]
    fn written_forms_cover_flattening_and_both_escapings() {
        assert_eq!(written_forms("plain"), ["plain"]);
        let forms = written_forms("a<\"b\"\n");
        for form in ["a<\"b\"\n", "a<\"b\" ", "a&lt;\"b\" ", "a&lt;&quot;b&quot; ", "a<\\\"b\\\"\\n"] {
            assert!(forms.iter().any(|f| f == form), "{form:?} not in {forms:?}");
        }
    }

    #[test]
    fn clean_flattens_lines_and_replaces_controls() {
        assert_eq!(clean("a\nb\tc\u{7}d\u{FFFF}"), "a b c\u{FFFD}d\u{FFFD}");
    }

    #[test]
    fn options_are_not_repeated_when_expected_lists_them() {
        let opts = vec!["c".to_string(), "f".to_string()];
        assert!(options_in_expected("one of \"c\", \"f\"", &opts));
        assert!(!options_in_expected("a unit", &opts));
        assert_eq!(quoted_list(&opts, 1, 10), "'c' (+1 more)");
        assert_eq!(key_name("items[0].cty"), "cty");
        assert_eq!(key_name(""), "(root)");
    }
}
