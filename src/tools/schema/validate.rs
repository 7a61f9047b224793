//! Walking a value against the compiled schema, collecting every issue.

use std::collections::HashSet;

use serde_json::{Map, Number, Value};

use super::describe;
use super::lookup::same_key;
use super::node::{Node, NodeId, Rules};
use super::path::{render, Segment};
use super::sent::preview;
use super::{MAX_DEPTH, MAX_STEPS};
use crate::errors::{FieldIssue, IssueKind};
use crate::tools::suggest::{closest, closest_within};

/// Most enum values listed in an issue's `options`; a longer list is noise, the suggestion still helps.
const MAX_OPTIONS: usize = 50;

/// The work all the "did you mean" suggestions of one validation may take (pairs of characters
/// compared): about a millisecond. Past it, issues still come, without suggestions.
const SUGGESTION_BUDGET: usize = 2_000_000;

/// How many enum values one step of the budget pays for: comparing a value with a long `enum` is
/// work too, and 30 000 values against 1 000 options must not stall the worker.
pub(super) const VALUES_PER_STEP: usize = 8;

/// Every issue with `value` against the schema rooted at `root`, duplicates removed.
pub(super) fn validate(nodes: &[Node], root: NodeId, value: &Value) -> Vec<FieldIssue> {
    let mut checker = Checker {
        nodes,
        path: Vec::new(),
        issues: Vec::new(),
        steps: 0,
        exhausted: false,
        suggestions: SUGGESTION_BUDGET,
    };
    checker.check(root, value, 0);
    if checker.exhausted {
        // What was found before the budget ran out may be half of an `anyOf`'s story: say only this.
        return vec![issue(
            String::new(),
            IssueKind::TooComplex,
            format!("a value simple enough to check in {MAX_STEPS} steps"),
            None,
        )];
    }
    // `allOf` members and `$ref` siblings can report the same thing twice.
    let mut seen = HashSet::new();
    checker.issues.retain(|i| seen.insert((i.path.clone(), i.kind, i.expected.clone())));
    checker.issues
}

/// The state of one validation.
pub(super) struct Checker<'a> {
    /// The schema's arena.
    pub nodes: &'a [Node],
    /// Where in the value the check is.
    pub path: Vec<Segment<'a>>,
    /// Issues found so far.
    pub issues: Vec<FieldIssue>,
    /// Checks made so far.
    pub steps: usize,
    /// Whether the step budget ran out.
    pub exhausted: bool,
    /// What is left of the suggestions' budget.
    pub suggestions: usize,
}

impl<'a> Checker<'a> {
    /// Checks `value` against node `id`; `depth` counts nested checks, in the schema and the value.
    pub(super) fn check(&mut self, id: NodeId, value: &'a Value, depth: usize) {
        self.steps += 1;
        if self.exhausted || self.steps > MAX_STEPS {
            self.exhausted = true;
            return;
        }
        if depth > MAX_DEPTH {
            let expected = format!("a value nested at most {MAX_DEPTH} levels deep");
            self.report(IssueKind::TooComplex, expected, Some(value));
            return;
        }
        let nodes = self.nodes;
        match nodes.get(id) {
            Some(Node::Rules(rules)) => self.check_rules(rules, value, depth + 1),
            Some(Node::Nothing) => {
                self.report(IssueKind::NotAllowed, "no value here".to_owned(), Some(value));
            }
            Some(Node::Any) | None => {}
        }
    }

    /// Adds an issue at the current path and returns it, for options and a suggestion.
    pub(super) fn report(
        &mut self,
        kind: IssueKind,
        expected: String,
        sent: Option<&Value>,
    ) -> &mut FieldIssue {
        let at = self.issues.len();
        self.issues.push(issue(render(&self.path), kind, expected, sent.map(preview)));
        &mut self.issues[at]
    }

    /// Checks a schema object's keywords.
    fn check_rules(&mut self, rules: &'a Rules, value: &'a Value, depth: usize) {
        if let Some(target) = rules.reference {
            self.check(target, value, depth);
        }
        for &member in &rules.all_of {
            self.check(member, value, depth);
        }
        if !rules.any_of.is_empty() {
            self.alternatives(&rules.any_of, false, value, depth);
        }
        if !rules.one_of.is_empty() {
            self.alternatives(&rules.one_of, true, value, depth);
        }
        self.check_conditions(rules, value, depth);
        if !self.allowed_value(rules, value) || !self.right_type(rules, value) {
            return;
        }
        match value {
            Value::Number(number) => self.check_number(rules, number, value),
            Value::String(text) => self.check_string(rules, text, value),
            Value::Array(items) => self.check_items(rules, items, value, depth),
            Value::Object(map) => {
                self.check_properties(rules, map, depth);
                self.check_object(rules, map, value, depth);
            }
            Value::Null | Value::Bool(_) => {}
        }
    }

    /// `enum` and `const`; false when the value is not allowed (and that is reported).
    fn allowed_value(&mut self, rules: &'a Rules, value: &'a Value) -> bool {
        let (expected, allowed) = match (&rules.constant, &rules.one_of_values) {
            (Some(constant), _) if !same(constant, value) => {
                (format!("exactly {}", describe::json_text(constant)), std::slice::from_ref(constant))
            }
            (_, Some(values)) if !self.one_of_values(values, value) => {
                (describe::one_of(values), &values[..])
            }
            _ => return true,
        };
        let target = match value {
            Value::String(text) => Some(text.clone()),
            Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
            _ => None,
        }
        .filter(|_| self.suggestions > 0);
        let listed = allowed.len() <= MAX_OPTIONS;
        let options: Vec<String> = if listed || target.is_some() {
            allowed.iter().map(describe::option_text).collect()
        } else {
            Vec::new()
        };
        let suggestion = target.and_then(|target| {
            let found = closest_within(&target, options.iter().map(String::as_str), &mut self.suggestions);
            found.first().map(|s| s.to_string())
        });
        let issue = self.report(IssueKind::NotAllowed, expected, Some(value));
        if listed {
            issue.options = options;
        }
        issue.suggestion = suggestion;
        false
    }

    /// Whether `value` is one of `values`, paying for the comparisons out of the step budget.
    fn one_of_values(&mut self, values: &[Value], value: &Value) -> bool {
        self.steps = self.steps.saturating_add(values.len() / VALUES_PER_STEP);
        values.iter().any(|v| same(v, value))
    }

    /// `type`; false when the value has the wrong type (and that is reported).
    fn right_type(&mut self, rules: &'a Rules, value: &'a Value) -> bool {
        match rules.types {
            Some(types) if !types.accepts(value) => {
                self.report(IssueKind::WrongType, describe::rules_brief(self.nodes, rules, 0), Some(value));
                false
            }
            _ => true,
        }
    }

    /// The numeric bounds.
    fn check_number(&mut self, rules: &Rules, number: &Number, value: &'a Value) {
        if rules.multiple_of.as_ref().is_some_and(|m| !super::numbers::multiple_of(number, m)) {
            let noun = describe::number_noun(rules);
            let step = rules.multiple_of.as_ref().map(Value::to_string).unwrap_or_default();
            self.report(IssueKind::OutOfRange, format!("{noun} that is a multiple of {step}"), Some(value));
        }
        let Some(x) = number.as_f64() else { return };
        let below = rules.lower.is_some_and(|b| if b.exclusive { x <= b.value } else { x < b.value });
        let above = rules.upper.is_some_and(|b| if b.exclusive { x >= b.value } else { x > b.value });
        if below || above {
            let noun = describe::number_noun(rules);
            let range = describe::range(rules.lower, rules.upper, false).unwrap_or_default();
            self.report(IssueKind::OutOfRange, format!("{noun} {range}"), Some(value));
        }
    }

    /// `minLength`, `maxLength`, `pattern` and an asserted `format`.
    fn check_string(&mut self, rules: &Rules, text: &str, value: &'a Value) {
        let chars = text.chars().count() as u64;
        if rules.min_length.is_some_and(|min| chars < min) || rules.max_length.is_some_and(|max| chars > max)
        {
            let expected = describe::length(rules.min_length, rules.max_length, "character");
            self.report(IssueKind::Length, expected, Some(value));
        }
        if let Some(pattern) = rules.pattern.as_ref().filter(|p| !p.is_match(text)) {
            self.report(IssueKind::Pattern, format!("matching pattern {}", pattern.source), Some(value));
        }
        if let Some(format) = rules.format.filter(|f| !f.accepts(text)) {
            self.report(IssueKind::Pattern, format.expected().to_owned(), Some(value));
        }
    }

    /// `minItems`, `maxItems`, `prefixItems` and `items`.
    fn check_items(&mut self, rules: &'a Rules, items: &'a [Value], value: &'a Value, depth: usize) {
        let count = items.len() as u64;
        if rules.min_items.is_some_and(|min| count < min) || rules.max_items.is_some_and(|max| count > max) {
            let expected =
                format!("an array of {}", describe::length(rules.min_items, rules.max_items, "item"));
            self.report(IssueKind::Length, expected, Some(value));
        }
        self.check_array(rules, items, value, depth);
        for (index, item) in items.iter().enumerate() {
            if let Some(schema) = rules.prefix_items.get(index).copied().or(rules.items) {
                self.path.push(Segment::Index(index));
                self.check(schema, item, depth);
                self.path.pop();
            }
        }
    }

    /// `properties`, `additionalProperties` and `required`.
    fn check_properties(&mut self, rules: &'a Rules, map: &'a Map<String, Value>, depth: usize) {
        for (key, item) in map {
            self.path.push(Segment::Key(key));
            let mut matched = false;
            for (pattern, id) in &rules.pattern_properties {
                if pattern.is_match(key) {
                    matched = true;
                    self.check(*id, item, depth);
                }
            }
            match (rules.property(key), rules.additional) {
                (Some(id), _) => self.check(id, item, depth),
                (None, _) if matched => {}
                (None, Some(id)) if matches!(self.nodes.get(id), Some(Node::Nothing)) => {
                    self.unknown_key(rules, key, item, map);
                }
                (None, Some(id)) => self.check(id, item, depth),
                (None, None) => {}
            }
            self.path.pop();
        }
        for name in &rules.required {
            if !map.contains_key(name) {
                self.path.push(Segment::Key(name));
                self.report(IssueKind::Missing, describe::missing(self.nodes, rules, name), None);
                self.path.pop();
            }
        }
    }

    /// A key `additionalProperties: false` forbids, with the allowed keys and the likeliest one meant.
    fn unknown_key(&mut self, rules: &Rules, key: &str, item: &'a Value, map: &Map<String, Value>) {
        let known: Vec<&str> = rules.properties.iter().map(|(name, _)| name.as_str()).collect();
        // A key already sent is not what this one was meant to be.
        let unsent = known.iter().copied().filter(|name| !map.contains_key(*name));
        let suggestion = closest(key, unsent).first().map(|s| s.to_string());
        let expected = if known.is_empty() { "no properties at all" } else { "one of the known properties" };
        let issue = self.report(IssueKind::UnknownKey, expected.to_owned(), Some(item));
        issue.options = known.iter().map(|name| name.to_string()).collect();
        issue.suggestion = suggestion;
    }
}

/// A new issue with no options or suggestion.
fn issue(path: String, kind: IssueKind, expected: String, sent: Option<Value>) -> FieldIssue {
    FieldIssue { path, kind, expected, sent, options: Vec::new(), suggestion: None }
}

/// JSON equality as JSON Schema means it: `1` equals `1.0`. Values nested past [`MAX_DEPTH`] compare
/// unequal rather than risk the stack (schema values were checked to be shallower at compile time).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    same_within(a, b, 0)
}

/// [`same`], `depth` levels down.
fn same_within(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => same_key(x, y),
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_within(x, y, depth + 1))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_within(v, w, depth + 1)))
        }
        _ => a == b,
    }
}
