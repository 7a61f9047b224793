//! A schema's expectations in plain words: "an integer at least 1", "one of \"c\", \"f\"".

use serde_json::Value;

use super::node::{Bound, Node, NodeId, Rules, TypeSet};
use crate::text::clip;

/// How deep a description follows `$ref`s and alternatives before settling for "a value".
const MAX_DEPTH: usize = 4;
/// Most enum values spelled out in `expected`; the issue's `options` carry the rest.
const MAX_LISTED: usize = 10;
/// Longest description quoted for a missing property, and longest value written in a description.
const MAX_TEXT: usize = 120;
/// Zod writes `z.number().int()` as bounds of ±(2^53 − 1): noise when describing what to send.
const SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A (sub)schema in a few words.
pub(super) fn brief(nodes: &[Node], id: NodeId, depth: usize) -> String {
    match nodes.get(id) {
        Some(Node::Rules(rules)) => rules_brief(nodes, rules, depth),
        Some(Node::Nothing) => "no value".to_owned(),
        Some(Node::Any) | None => "any value".to_owned(),
    }
}

/// A schema object in a few words: its allowed values, or its types with their limits.
pub(super) fn rules_brief(nodes: &[Node], rules: &Rules, depth: usize) -> String {
    if depth > MAX_DEPTH {
        return "a value".to_owned();
    }
    if let Some(constant) = &rules.constant {
        return json_text(constant);
    }
    if let Some(values) = &rules.one_of_values {
        return one_of(values);
    }
    if let Some(types) = rules.types.or_else(|| implied_types(rules)) {
        let nouns: Vec<String> = types.names().map(|name| noun(nodes, rules, name)).collect();
        return join_or(&nouns);
    }
    let alternatives = if rules.any_of.is_empty() { &rules.one_of } else { &rules.any_of };
    match (rules.reference, rules.all_of.first()) {
        (Some(target), _) | (None, Some(&target)) => brief(nodes, target, depth + 1),
        (None, None) if !alternatives.is_empty() => {
            let nouns: Vec<String> = alternatives.iter().map(|&id| brief(nodes, id, depth + 1)).collect();
            join_or(&dedup(nouns))
        }
        (None, None) => "any value".to_owned(),
    }
}

/// Alternatives (`anyOf`/`oneOf` branches) listed for a no-match issue.
pub(super) fn alternatives(nodes: &[Node], branches: &[NodeId]) -> String {
    dedup(branches.iter().map(|&id| brief(nodes, id, 0)).collect()).join("; ")
}

/// What a missing property should be, with its description when the schema gives one.
pub(super) fn missing(nodes: &[Node], rules: &Rules, name: &str) -> String {
    let Some(id) = rules.property(name).or(rules.additional) else { return "a value".to_owned() };
    let what = brief(nodes, id, 0);
    match description(nodes, id) {
        Some(text) => format!("{what} ({})", clip(text, MAX_TEXT)),
        None => what,
    }
}

/// `one of "c", "f"`, listing at most [`MAX_LISTED`] values.
pub(super) fn one_of(values: &[Value]) -> String {
    let listed: Vec<String> = values.iter().take(MAX_LISTED).map(json_text).collect();
    match values.len() {
        0 => "no value (the enum is empty)".to_owned(),
        1 => format!("exactly {}", listed.join("")),
        n if n > MAX_LISTED => format!("one of {}, … ({n} values in all)", listed.join(", ")),
        _ => format!("one of {}", listed.join(", ")),
    }
}

/// An allowed value as an `options` entry: strings bare, anything else as JSON.
pub(super) fn option_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => json_text(other),
    }
}

/// A value as JSON text, cut if long.
pub(super) fn json_text(value: &Value) -> String {
    clip(&value.to_string(), MAX_TEXT)
}

/// "an integer" when only integers are allowed, else "a number".
pub(super) fn number_noun(rules: &Rules) -> &'static str {
    match rules.types {
        Some(types) if types.has("integer") && !types.has("number") => "an integer",
        _ => "a number",
    }
}

/// "at least 1 and at most 10", "greater than 0"; `None` without bounds. With `brief`, Zod's
/// safe-integer bounds are left out.
pub(super) fn range(lower: Option<Bound>, upper: Option<Bound>, brief: bool) -> Option<String> {
    let worth = |bound: &Bound| !(brief && bound.value.abs() >= SAFE_INTEGER);
    let lower = lower
        .filter(worth)
        .map(|b| format!("{} {}", if b.exclusive { "greater than" } else { "at least" }, number(b.value)));
    let upper = upper
        .filter(worth)
        .map(|b| format!("{} {}", if b.exclusive { "less than" } else { "at most" }, number(b.value)));
    match (lower, upper) {
        (Some(lower), Some(upper)) => Some(format!("{lower} and {upper}")),
        (lower, upper) => lower.or(upper),
    }
}

/// "at least 3 characters", "between 1 and 5 items", "exactly 2 items".
pub(super) fn length(min: Option<u64>, max: Option<u64>, unit: &str) -> String {
    let units = |n: u64| if n == 1 { format!("{n} {unit}") } else { format!("{n} {unit}s") };
    match (min, max) {
        (Some(min), Some(max)) if min == max => format!("exactly {}", units(max)),
        (Some(min), Some(max)) => format!("between {min} and {}", units(max)),
        (Some(min), None) => format!("at least {}", units(min)),
        (None, Some(max)) => format!("at most {}", units(max)),
        (None, None) => format!("any number of {unit}s"),
    }
}

/// A number as people write it: `3`, not `3.0`.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e16 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// One type with its limits: "a string of at most 10 characters", "an object with kind \"circle\"".
fn noun(nodes: &[Node], rules: &Rules, name: &str) -> String {
    let limits = match name {
        "string" => {
            let length = (rules.min_length.is_some() || rules.max_length.is_some())
                .then(|| format!("of {}", length(rules.min_length, rules.max_length, "character")));
            let pattern = rules.pattern.as_ref().map(|p| format!("matching pattern {}", p.source));
            [length, pattern].into_iter().flatten().collect::<Vec<_>>().join(" ")
        }
        "number" | "integer" => range(rules.lower, rules.upper, true).unwrap_or_default(),
        "array" if rules.min_items.is_some() || rules.max_items.is_some() => {
            format!("of {}", length(rules.min_items, rules.max_items, "item"))
        }
        "object" => tags(nodes, rules),
        _ => String::new(),
    };
    let article = match name {
        "null" => "",
        "integer" | "object" | "array" => "an ",
        _ => "a ",
    };
    let noun = format!("{article}{name}");
    if limits.is_empty() {
        noun
    } else {
        format!("{noun} {limits}")
    }
}

/// "with kind \"circle\"" for an object's tag properties (`const`), which tell alternatives apart.
fn tags(nodes: &[Node], rules: &Rules) -> String {
    let tags: Vec<String> = rules
        .properties
        .iter()
        .filter_map(|(name, id)| match nodes.get(*id) {
            Some(Node::Rules(property)) => {
                property.constant.as_ref().map(|c| format!("{name} {}", json_text(c)))
            }
            _ => None,
        })
        .collect();
    if tags.is_empty() {
        String::new()
    } else {
        format!("with {}", tags.join(" and "))
    }
}

/// The type a schema without `type` implies by its keywords, if any.
fn implied_types(rules: &Rules) -> Option<TypeSet> {
    let name = if !rules.properties.is_empty() || !rules.required.is_empty() || rules.additional.is_some() {
        "object"
    } else if rules.items.is_some()
        || !rules.prefix_items.is_empty()
        || rules.min_items.or(rules.max_items).is_some()
    {
        "array"
    } else if rules.min_length.or(rules.max_length).is_some() || rules.pattern.is_some() {
        "string"
    } else if rules.lower.or(rules.upper).is_some() {
        "number"
    } else {
        return None;
    };
    TypeSet::named(name)
}

/// A node's description, or its `$ref` target's (Zod puts `.describe()` text on either).
fn description(nodes: &[Node], id: NodeId) -> Option<&str> {
    let Some(Node::Rules(rules)) = nodes.get(id) else { return None };
    rules.description.as_deref().or_else(|| match rules.reference.and_then(|target| nodes.get(target)) {
        Some(Node::Rules(target)) => target.description.as_deref(),
        _ => None,
    })
}

/// "a", "a or b", "a, b or c".
fn join_or(words: &[String]) -> String {
    match words {
        [] => "any value".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `words` without repeats, first occurrences kept.
fn dedup(words: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(words.len());
    for word in words {
        if !kept.contains(&word) {
            kept.push(word);
        }
    }
    kept
}
