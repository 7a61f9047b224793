//! Vurb-style XML: `<validation_error>` for per-field issues, `<tool_error>` for everything else.
//!
//! Compact on purpose (small context windows): one element or list item per line, no indentation,
//! empty sections left out. Everything that comes from a tool or the model — names, messages,
//! values, keys — is escaped, so a message cannot close a tag or forge a recovery step.

use std::fmt::Write;

use super::budget::{largest_fitting, Limits};
use super::{clean, json, key_name, non_blank, options_in_expected, quoted_list, show_detail, show_value};
use crate::errors::plans::seconds;
use crate::errors::{Envelope, FieldIssue, IssueKind, Severity};
use crate::text::{clip, head_tail};

/// The smallest budget, in chars, from which XML output is always well-formed: `<tool_error/>`.
pub const XML_MIN_BUDGET: usize = 13;

/// Escapes text content (`&`, `<`, `>`) after [`clean`]ing it.
pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in clean(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes an attribute value: text escaping plus both quotes.
pub(super) fn esc_attr(s: &str) -> String {
    esc(s).replace('"', "&quot;").replace('\'', "&apos;")
}

/// Appends ` name="value"`, the value cut to `max` chars.
fn attr(out: &mut String, name: &str, value: &str, max: usize) {
    let _ = write!(out, " {name}=\"{}\"", esc_attr(&clip(value, max)));
}

/// Appends `<tag>text</tag>` on its own line, unless the text is blank.
fn element(out: &mut String, tag: &str, text: &str) {
    if !text.trim().is_empty() {
        let _ = writeln!(out, "<{tag}>{}</{tag}>", esc(text));
    }
}

/// Renders the envelope with `limits`.
pub(super) fn render(e: &Envelope, l: &Limits) -> String {
    if e.issues.is_empty() {
        tool_error(e, l)
    } else {
        validation_error(e, l)
    }
}

/// The last resort under every squeeze: the code alone, then an empty element, then the code as
/// bare text (not XML, but still the most informative chars there are).
pub(super) fn tiny(e: &Envelope, budget: usize) -> String {
    let code = e.code.as_str();
    let with_code = |k: usize| format!("<tool_error code=\"{}\"/>", esc_attr(&clip(code, k)));
    if let Some(out) = largest_fitting(budget, code.len().max(1), |k| with_code(k + 1)) {
        return out;
    }
    if budget >= XML_MIN_BUDGET {
        return "<tool_error/>".to_string();
    }
    largest_fitting(budget, code.len(), |k| esc(&clip(code, k))).unwrap_or_default()
}

fn tool_error(e: &Envelope, l: &Limits) -> String {
    let mut out = String::from("<tool_error");
    attr(&mut out, "code", e.code.as_str(), l.name);
    // When lean, an absent severity means "error", the common case; warnings must always say so.
    if !l.lean || e.severity != Severity::Error {
        attr(&mut out, "severity", e.severity.as_str(), usize::MAX);
    }
    if !l.lean {
        attr(&mut out, "class", e.class.as_str(), usize::MAX);
    }
    if let Some(tool) = &e.tool {
        attr(&mut out, "tool", tool, l.name);
    }
    if !l.lean {
        // An attribute rather than prose: the text format words it; here it must stay cheap.
        attr(&mut out, "expected", if e.expected { "true" } else { "false" }, usize::MAX);
    }
    out.push_str(">\n");
    element(&mut out, "message", &clip(&e.message, l.message));
    // Details come before the steps because custom plans say "read the details above".
    if l.details > 0 && !e.details.is_empty() {
        out.push_str("<details>\n");
        for (key, value) in e.details.iter().take(l.details) {
            attr_element(&mut out, "detail", "key", &clip(key, l.name), &show_detail(value, l.detail_value));
        }
        out.push_str("</details>\n");
    }
    let causes: Vec<_> = non_blank(&e.causes).take(l.causes).collect();
    if !causes.is_empty() {
        out.push_str("<causes>\n");
        for cause in causes {
            element(&mut out, "cause", cause);
        }
        out.push_str("</causes>\n");
    }
    recovery(&mut out, e, l);
    let actions: Vec<_> = non_blank(&e.available_actions).collect();
    if l.actions > 0 && !actions.is_empty() {
        out.push_str("<available_actions>");
        for action in actions.iter().take(l.actions) {
            let _ = write!(out, "<action>{}</action>", esc(&clip(action, l.name)));
        }
        let hidden = actions.len().saturating_sub(l.actions);
        if hidden > 0 {
            let _ = write!(out, "(+{hidden} more)");
        }
        out.push_str("</available_actions>\n");
    }
    if let Some(ms) = e.retry_after_ms {
        element(&mut out, "retry_after", &seconds(ms));
    }
    you_sent(&mut out, e, l);
    out.push_str("</tool_error>");
    out
}

fn validation_error(e: &Envelope, l: &Limits) -> String {
    let mut out = String::from("<validation_error");
    if let Some(tool) = &e.tool {
        attr(&mut out, "action", tool, l.name);
    }
    out.push_str(">\n");
    for issue in e.issues.iter().take(l.issues) {
        attr_element(&mut out, "field", "name", &clip(issue.display_path(), l.name), &field_text(issue, l));
    }
    let hidden = e.issues.len().saturating_sub(l.issues);
    if hidden > 0 {
        let _ = writeln!(out, "(+{hidden} more fields)");
    }
    recovery(&mut out, e, l);
    you_sent(&mut out, e, l);
    out.push_str("</validation_error>");
    out
}

/// `<tag key="value">text</tag>` on its own line.
fn attr_element(out: &mut String, tag: &str, key: &str, value: &str, text: &str) {
    let _ = writeln!(out, "<{tag} {key}=\"{}\">{}</{tag}>", esc_attr(value), esc(text));
}

fn recovery(out: &mut String, e: &Envelope, l: &Limits) {
    let steps: Vec<_> = non_blank(&e.recovery).take(l.steps).collect();
    if steps.is_empty() {
        return;
    }
    out.push_str("<recovery>\n");
    for (i, step) in steps.iter().enumerate() {
        let _ = writeln!(out, "<step n=\"{}\">{}</step>", i + 1, esc(&clip(step, l.step)));
    }
    out.push_str("</recovery>\n");
}

fn you_sent(out: &mut String, e: &Envelope, l: &Limits) {
    if let Some(sent) = e.sent.as_ref().filter(|_| l.sent > 0) {
        element(out, "you_sent", &head_tail(&json(sent), l.sent));
    }
}

/// One issue as sentences: what was expected, what was sent, the options, the likely typo.
fn field_text(issue: &FieldIssue, l: &Limits) -> String {
    let expected = clip(issue.expected.trim().trim_end_matches('.'), l.expected);
    let options = (l.options > 0 && !issue.options.is_empty())
        .then(|| quoted_list(&issue.options, l.options, l.issue_value));
    let mut out = match issue.kind {
        IssueKind::Missing if expected.is_empty() => "Missing required field.".to_string(),
        IssueKind::Missing => format!("Missing required field. Expected: {expected}."),
        IssueKind::UnknownKey => {
            let key = clip(key_name(&issue.path), l.issue_value);
            match &options {
                Some(options) => format!("Unrecognized key '{key}'. Remove it or use one of: {options}."),
                None => format!("Unrecognized key '{key}'. Remove it."),
            }
        }
        _ => {
            let mut out = String::new();
            if !expected.is_empty() {
                let _ = write!(out, "Expected: {expected}.");
            }
            if let Some(sent) = &issue.sent {
                let _ = write!(out, " You sent: {}.", show_value(sent, l.issue_value));
            }
            if let Some(options) = options.filter(|_| !options_in_expected(&issue.expected, &issue.options)) {
                let _ = write!(out, " Valid options: {options}.");
            }
            out.trim_start().to_string()
        }
    };
    if let Some(suggestion) = issue.suggestion.as_deref().filter(|s| !s.is_empty()) {
        let _ = write!(out, " Did you mean '{}'?", clip(suggestion, l.issue_value));
    }
    out
}
