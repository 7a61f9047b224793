//! `anyOf` / `oneOf`: which alternative the model meant, so its issues can be reported instead of a
//! bare "matched none of them".

use serde_json::{Map, Value};

use super::describe;
use super::node::{Node, NodeId};
use super::path::render;
use super::validate::{same, Checker};
use crate::errors::{FieldIssue, IssueKind};

/// How many `$ref`s to follow looking for an alternative's discriminator.
const MAX_HOPS: usize = 8;

impl<'a> Checker<'a> {
    /// Checks `value` against alternatives; `exactly_one` for `oneOf`. See the module docs of
    /// [`super`] for what is reported when none matches.
    pub(super) fn alternatives(
        &mut self,
        branches: &'a [NodeId],
        exactly_one: bool,
        value: &'a Value,
        depth: usize,
    ) {
        let outer = std::mem::take(&mut self.issues);
        let mut results = Vec::with_capacity(branches.len());
        for &branch in branches {
            self.check(branch, value, depth);
            let issues = std::mem::take(&mut self.issues);
            let passed = issues.is_empty();
            results.push(issues);
            // One match settles an `anyOf`; trying the rest could only cost time.
            if passed && !exactly_one {
                break;
            }
        }
        self.issues = outer;
        if self.exhausted {
            return;
        }
        let passed = results.iter().filter(|issues| issues.is_empty()).count();
        if passed == 1 || (passed > 1 && !exactly_one) {
            return;
        }
        let listed = describe::alternatives(self.nodes, branches);
        if passed > 1 {
            let expected = format!("exactly one of: {listed} (it matches {passed} of them)");
            self.report(IssueKind::NoMatch, expected, Some(value));
        } else if let Some(meant) = self.meant(branches, &results, value) {
            self.issues.append(&mut results[meant]);
        } else {
            self.report(IssueKind::NoMatch, format!("one of: {listed}"), Some(value));
        }
    }

    /// The alternative clearly meant, if there is one.
    fn meant(&self, branches: &[NodeId], results: &[Vec<FieldIssue>], value: &Value) -> Option<usize> {
        let tags: Vec<Option<bool>> = branches
            .iter()
            .map(|&branch| match value {
                Value::Object(map) => discriminator(self.nodes, branch, map),
                _ => None,
            })
            .collect();
        if let [only] = positions(&tags, |_, tag| *tag == Some(true))[..] {
            return Some(only);
        }
        let here = render(&self.path);
        let near = positions(&tags, |index, tag| *tag != Some(false) && !rejected_at(&results[index], &here));
        match near[..] {
            [only] => Some(only),
            _ => None,
        }
    }
}

/// The indexes of `tags` that `keep` accepts.
fn positions(tags: &[Option<bool>], keep: impl Fn(usize, &Option<bool>) -> bool) -> Vec<usize> {
    tags.iter().enumerate().filter(|(index, tag)| keep(*index, tag)).map(|(index, _)| index).collect()
}

/// Whether an alternative turned the value at `here` down outright, rather than something inside it.
fn rejected_at(issues: &[FieldIssue], here: &str) -> bool {
    issues.iter().any(|issue| {
        issue.path == here
            && matches!(issue.kind, IssueKind::WrongType | IssueKind::NotAllowed | IssueKind::NoMatch)
    })
}

/// Whether `map` carries the alternative's tag: `Some(true)` if a tag property (one with a `const` or
/// one-value `enum`, like Zod's discriminated unions) is present and matches, `Some(false)` if one is
/// present and differs, `None` if the alternative has no tag or the value sent none.
fn discriminator(nodes: &[Node], branch: NodeId, map: &Map<String, Value>) -> Option<bool> {
    let mut id = branch;
    for _ in 0..MAX_HOPS {
        let Some(Node::Rules(rules)) = nodes.get(id) else { return None };
        let mut matched = None;
        for (name, property) in &rules.properties {
            let (Some(tag), Some(sent)) = (tag_value(nodes, *property), map.get(name)) else { continue };
            if !same(tag, sent) {
                return Some(false);
            }
            matched = Some(true);
        }
        match rules.reference {
            Some(next) if matched.is_none() && rules.properties.is_empty() => id = next,
            _ => return matched,
        }
    }
    None
}

/// The one value a property schema allows, if it allows only one.
pub(super) fn tag_value(nodes: &[Node], id: NodeId) -> Option<&Value> {
    let Some(Node::Rules(rules)) = nodes.get(id) else { return None };
    match (&rules.constant, &rules.one_of_values) {
        (Some(constant), _) => Some(constant),
        (None, Some(values)) if values.len() == 1 => values.first(),
        _ => None,
    }
}
