//! The keywords that check a value on the side and judge by the outcome: `not`, `if`/`then`/`else`,
//! `contains`, `propertyNames`, `dependentSchemas`; and the counts that go with them (`uniqueItems`,
//! `minProperties`/`maxProperties`, `dependentRequired`).

use serde_json::{Map, Value};

use super::describe;
use super::node::{NodeId, Rules};
use super::path::Segment;
use super::validate::{same, Checker};
use crate::errors::IssueKind;

/// How many pairs of items one step of the budget pays for in `uniqueItems`.
pub(super) const PAIRS_PER_STEP: usize = 8;

impl<'a> Checker<'a> {
    /// Whether `value` passes node `id`; its issues are dropped, its steps still count.
    fn passes(&mut self, id: NodeId, value: &'a Value, depth: usize) -> bool {
        let outer = std::mem::take(&mut self.issues);
        self.check(id, value, depth);
        let passed = self.issues.is_empty();
        self.issues = outer;
        passed
    }

    /// [`Self::passes`] for a value made on the spot (a property name), with the same budget.
    fn passes_made(&mut self, id: NodeId, value: &Value, depth: usize) -> bool {
        let mut side = Checker {
            nodes: self.nodes,
            path: Vec::new(),
            issues: Vec::new(),
            steps: self.steps,
            exhausted: self.exhausted,
            suggestions: 0,
        };
        side.check(id, value, depth);
        self.steps = side.steps;
        self.exhausted = side.exhausted;
        side.issues.is_empty()
    }

    /// `not` and `if`/`then`/`else`.
    pub(super) fn check_conditions(&mut self, rules: &'a Rules, value: &'a Value, depth: usize) {
        if let Some(id) = rules.not {
            if self.passes(id, value, depth) {
                let expected = format!("not {}", describe::brief(self.nodes, id, 0));
                self.report(IssueKind::NotAllowed, expected, Some(value));
            }
        }
        if let Some((test, then, other)) = rules.condition {
            let branch = if self.passes(test, value, depth) { then } else { other };
            if let Some(id) = branch {
                self.check(id, value, depth);
            }
        }
    }

    /// `contains` with `minContains`/`maxContains`, and `uniqueItems`.
    pub(super) fn check_array(
        &mut self,
        rules: &'a Rules,
        items: &'a [Value],
        value: &'a Value,
        depth: usize,
    ) {
        if let Some((id, min, max)) = rules.contains {
            let found = items.iter().filter(|item| self.passes(id, item, depth)).count() as u64;
            if found < min || max.is_some_and(|max| found > max) {
                let (min, max) = (Some(min).filter(|&m| m > 0), max);
                let counted = describe::length(min, max, "item");
                let what = describe::brief(self.nodes, id, 0);
                let expected =
                    format!("an array with {counted} that {} {what}", if found == 1 { "is" } else { "are" });
                self.report(IssueKind::Length, expected, Some(value));
            }
        }
        if rules.unique_items {
            let pairs = items.len().saturating_mul(items.len().saturating_sub(1)) / 2;
            self.steps = self.steps.saturating_add(pairs / PAIRS_PER_STEP);
            if self.steps > super::MAX_STEPS {
                return;
            }
            let repeated =
                (1..items.len()).find_map(|j| (0..j).find(|&i| same(&items[i], &items[j])).map(|i| (i, j)));
            if let Some((first, again)) = repeated {
                let expected =
                    format!("an array with no repeated items (items {first} and {again} are equal)");
                self.report(IssueKind::NotAllowed, expected, Some(value));
            }
        }
    }

    /// `propertyNames`, `minProperties`/`maxProperties`, `dependentRequired` and `dependentSchemas`.
    pub(super) fn check_object(
        &mut self,
        rules: &'a Rules,
        map: &'a Map<String, Value>,
        value: &'a Value,
        depth: usize,
    ) {
        if let Some(id) = rules.property_names {
            for key in map.keys() {
                let name = Value::String(key.clone());
                if !self.passes_made(id, &name, depth) {
                    self.path.push(Segment::Key(key));
                    let expected = format!("a property name that is {}", describe::brief(self.nodes, id, 0));
                    self.report(IssueKind::NotAllowed, expected, Some(&name));
                    self.path.pop();
                }
            }
        }
        let count = map.len() as u64;
        if rules.min_properties.is_some_and(|min| count < min)
            || rules.max_properties.is_some_and(|max| count > max)
        {
            let expected = format!(
                "an object with {}",
                describe::length(rules.min_properties, rules.max_properties, "key")
            );
            self.report(IssueKind::Length, expected, Some(value));
        }
        for (present, names) in &rules.dependent_required {
            if !map.contains_key(present) {
                continue;
            }
            for name in names.iter().filter(|name| !map.contains_key(*name)) {
                self.path.push(Segment::Key(name));
                let what = describe::missing(self.nodes, rules, name);
                self.report(IssueKind::Missing, format!("{what}, required when {present:?} is sent"), None);
                self.path.pop();
            }
        }
        for (present, id) in &rules.dependent_schemas {
            if map.contains_key(present) {
                self.check(*id, value, depth);
            }
        }
    }
}
