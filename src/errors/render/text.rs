//! Verdex-style text: an icon and a title, the facts, why it probably happened, and
//! `🔧 Action Required:` with numbered steps — the shape small models follow best in plain prose.

use std::fmt::Write;

use super::budget::Limits;
use super::{clean, json, non_blank, options_in_expected, quoted_list, show_detail, show_value};
use crate::errors::plans::seconds;
use crate::errors::{Envelope, ErrorCode, FieldIssue, IssueKind, Severity};
use crate::text::{clip, head_tail};

/// Renders the envelope with `limits`.
pub(super) fn render(e: &Envelope, l: &Limits) -> String {
    let mut lines = vec![header(e, l)];
    if let Some(tool) = &e.tool {
        lines.push(format!("Tool: {}", line(tool, l.name)));
    }
    // A validation failure's message only restates the title; when lean the fields say more.
    let restates = l.lean && !e.issues.is_empty();
    if !e.message.trim().is_empty() && l.message > 0 && !restates {
        lines.push(line(&e.message, l.message));
    }
    if e.issues.is_empty() {
        for (key, value) in e.details.iter().take(l.details) {
            lines.push(format!(
                "{}: {}",
                label(&line(key, l.name)),
                clean(&show_detail(value, l.detail_value))
            ));
        }
        let causes: Vec<_> = non_blank(&e.causes).take(l.causes).collect();
        // Telling normal from unexpected keeps the model from treating every failure as fatal.
        let (verdict, lead) = if e.expected {
            ("This is often normal.", "Likely causes:")
        } else {
            ("This is unexpected.", "Possible causes:")
        };
        if !causes.is_empty() {
            lines.push(format!("{verdict} {lead}"));
            lines.extend(causes.iter().map(|c| format!("• {}", line(c, usize::MAX))));
        } else if !l.lean {
            lines.push(verdict.to_string());
        }
    } else {
        lines.push("Fields to fix:".to_string());
        lines.extend(e.issues.iter().take(l.issues).map(|issue| format!("• {}", issue_text(issue, l))));
        let hidden = e.issues.len().saturating_sub(l.issues);
        if hidden > 0 {
            lines.push(format!("(+{hidden} more fields)"));
        }
    }
    let steps: Vec<_> = non_blank(&e.recovery).take(l.steps).collect();
    if !steps.is_empty() {
        // A warning's call did its job: its steps are advice, not a required fix.
        let heading =
            if e.severity == Severity::Warning { "🔧 Next steps:" } else { "🔧 Action Required:" };
        lines.push(heading.to_string());
        lines.extend(steps.iter().enumerate().map(|(i, s)| format!("{}. {}", i + 1, line(s, l.step))));
    }
    let actions: Vec<_> = non_blank(&e.available_actions).cloned().collect();
    if e.issues.is_empty() && l.actions > 0 && !actions.is_empty() {
        let shown: Vec<_> = actions.iter().take(l.actions).map(|a| line(a, l.name)).collect();
        let hidden = actions.len().saturating_sub(l.actions);
        let more = if hidden > 0 { format!(" (+{hidden} more)") } else { String::new() };
        // "actions", not "tools": the steps refer to this list as available_actions.
        lines.push(format!("Available actions: {}{more}", shown.join(", ")));
    }
    if let Some(ms) = e.retry_after_ms.filter(|_| e.issues.is_empty()) {
        lines.push(format!("Retry after: {}", seconds(ms)));
    }
    if let Some(sent) = e.sent.as_ref().filter(|_| l.sent > 0) {
        lines.push(format!("You sent: {}", clean(&head_tail(&json(sent), l.sent))));
    }
    lines.join("\n")
}

/// The last resort under every squeeze: the icon and the code, cut to fit.
pub(super) fn tiny(e: &Envelope, budget: usize) -> String {
    clip(&format!("{} {}", icon(e.severity), clean(e.code.as_str())), budget)
}

fn icon(severity: Severity) -> &'static str {
    match severity {
        Severity::Warning => "⚠️",
        Severity::Error | Severity::Critical => "❌",
    }
}

/// `❌ Stale Reference (STALE_REFERENCE)`: a title to read, the code to match on.
fn header(e: &Envelope, l: &Limits) -> String {
    let code = line(e.code.as_str(), l.name);
    let title = if l.lean { String::new() } else { title(&e.code) };
    if title.is_empty() || title == code {
        format!("{} {code}", icon(e.severity))
    } else {
        format!("{} {} ({code})", icon(e.severity), line(&title, l.name))
    }
}

/// A human title for a code: a few built-in codes read better reworded, the rest (custom codes
/// included) are split into words: `STALE_REFERENCE`, `InvoiceNotFound` → `Stale Reference`,
/// `Invoice Not Found`.
fn title(code: &ErrorCode) -> String {
    match code {
        ErrorCode::InvalidArgs => return "Invalid Arguments".to_string(),
        ErrorCode::Unavailable => return "Service Unavailable".to_string(),
        ErrorCode::SafetyBlocked => return "Blocked by Safety Filter".to_string(),
        ErrorCode::Aborted => return "Cancelled".to_string(),
        _ => {}
    }
    // Codes with other chars (`Weird<Code>`) are not words; the code alone says it best.
    if !code.as_str().chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' ')) {
        return String::new();
    }
    let mut words: Vec<String> = Vec::new();
    let mut prev: Option<char> = None;
    for c in code.as_str().chars() {
        if c == '_' || c == '-' || c.is_whitespace() {
            words.push(String::new());
        } else {
            let boundary = c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
            match words.last_mut() {
                Some(word) if !boundary => word.push(c),
                _ => words.push(c.to_string()),
            }
        }
        prev = Some(c);
    }
    let words: Vec<String> = words.iter().filter(|w| !w.is_empty()).map(|w| capitalize(w)).collect();
    words.join(" ")
}

/// `word` with its first letter upper case (an ASCII letter: std's Unicode upper-case table
/// costs 4.8 KB of gzip wasm for a title's first letter, bench/results/wasm-size.md; a code or
/// key that starts with another letter keeps it as written) and the rest lower case.
fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| {
            std::iter::once(first.to_ascii_uppercase()).chain(chars.flat_map(char::to_lowercase)).collect()
        })
        .unwrap_or_default()
}

/// A detail key as a label: `entity_id` → `Entity id`.
fn label(key: &str) -> String {
    capitalize(&key.replace('_', " ")).replace("  ", " ")
}

/// One safe line of at most `max` chars of content.
fn line(s: &str, max: usize) -> String {
    clean(&clip(s.trim(), max))
}

/// One issue as a bullet: `units: expected one of "c", "f", you sent 'k' (did you mean 'c'?)`.
fn issue_text(issue: &FieldIssue, l: &Limits) -> String {
    let path = line(issue.display_path(), l.name);
    let expected = clip(issue.expected.trim().trim_end_matches('.'), l.expected);
    let options = (l.options > 0 && !issue.options.is_empty())
        .then(|| quoted_list(&issue.options, l.options, l.issue_value));
    let mut out = match issue.kind {
        IssueKind::Missing if expected.is_empty() => format!("{path}: missing"),
        IssueKind::Missing => format!("{path}: missing; expected {expected}"),
        IssueKind::UnknownKey => match &options {
            Some(options) => format!("{path}: unrecognized key; remove it or use one of {options}"),
            None => format!("{path}: unrecognized key; remove it"),
        },
        _ => {
            let mut parts = Vec::new();
            if !expected.is_empty() {
                parts.push(format!("expected {expected}"));
            }
            if let Some(sent) = &issue.sent {
                parts.push(format!("you sent {}", show_value(sent, l.issue_value)));
            }
            let mut out = format!("{path}: {}", parts.join(", "));
            if let Some(options) = options.filter(|_| !options_in_expected(&issue.expected, &issue.options)) {
                let _ = write!(out, "; valid options: {options}");
            }
            out
        }
    };
    if let Some(suggestion) = issue.suggestion.as_deref().filter(|s| !s.is_empty()) {
        let _ = write!(out, " (did you mean '{}'?)", clip(suggestion, l.issue_value));
    }
    clean(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_read_as_words() {
        assert_eq!(title(&ErrorCode::StaleReference), "Stale Reference");
        assert_eq!(title(&ErrorCode::Custom("InvoiceNotFound".into())), "Invoice Not Found");
        assert_eq!(title(&ErrorCode::Custom("already-paid".into())), "Already Paid");
        assert_eq!(title(&ErrorCode::Custom("HTTP2Error".into())), "Http2 Error");
        assert_eq!(title(&ErrorCode::Custom("__".into())), "");
        assert_eq!(title(&ErrorCode::Custom("a<b>".into())), "");
        assert_eq!(label("entity_id"), "Entity id");
        // A first letter that is not ASCII is kept as written.
        assert_eq!(title(&ErrorCode::Custom("échec".into())), "échec");
    }
}
