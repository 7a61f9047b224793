//! Tags of alternatives: a property an alternative requires and allows one value for (`const`, or
//! a one-value `enum`), as Zod's discriminated unions write. An object without that key, or with
//! another value there, fails the alternative whatever else it holds, so the yes/no walk skips such
//! an `anyOf`/`oneOf` branch instead of walking it.

use serde_json::Value;

use super::alternatives::tag_value;
use super::node::{Node, Rules};

impl Rules {
    /// The tag a node with these keywords requires of an object, if it has one: the first property
    /// that `required` names and whose schema (in `nodes`) allows a single value. Reads
    /// [`Rules::required_flags`], so it runs after [`Rules::summarise`].
    fn find_tag(&self, nodes: &[Node]) -> Option<(String, Value)> {
        let mut declared = self.properties.iter().zip(&self.required_flags);
        declared.find_map(|((name, id), &required)| {
            tag_value(nodes, *id).filter(|_| required).map(|tag| (name.clone(), tag.clone()))
        })
    }
}

/// Sets every node's [`Rules::tag`], then [`Rules::tagged_branches`] from its alternatives' tags.
pub(super) fn tag_alternatives(nodes: &mut [Node]) {
    let tags: Vec<Option<(String, Value)>> = nodes
        .iter()
        .map(|node| match node {
            Node::Rules(rules) => rules.find_tag(nodes),
            Node::Any | Node::Nothing => None,
        })
        .collect();
    let tagged = |id: &usize| tags.get(*id).is_some_and(Option::is_some);
    let flags: Vec<bool> = nodes
        .iter()
        .map(|node| match node {
            Node::Rules(rules) => rules.any_of.iter().chain(&rules.one_of).any(tagged),
            Node::Any | Node::Nothing => false,
        })
        .collect();
    for ((node, tag), flag) in nodes.iter_mut().zip(tags).zip(flags) {
        if let Node::Rules(rules) = node {
            rules.tag = tag;
            rules.tagged_branches = flag;
        }
    }
}
