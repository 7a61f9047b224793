//! Conditions about keys: an `if`/`then`/`else` whose parts only ask which declared keys an object
//! sends and what some of their values are (`"if": {"properties": {"sort": {"const": "date"}},
//! "required": ["sort"]}, "then": {"required": ["from"]}`), rewritten in the terms of the node
//! holding them ([`KeyCondition`]). The yes/no walk then decides the condition from the keys it met
//! while visiting the object's keys, instead of walking each part and looking each required name
//! up again.

use super::node::{head, KeyCondition, KeyTest, Node, NodeId, Rules};

impl Rules {
    /// This node's condition as a [`KeyCondition`], when `if` and each of `then` and `else` present
    /// are sub-schemas with only `properties` and `required` of names this node declares (it
    /// declaring at most 64), besides a `type` allowing objects. Reads [`Rules::property_signs`]
    /// and the sub-schemas' derived fields, so it runs after every node's [`Rules::summarise`].
    fn key_condition(&self, nodes: &[Node]) -> Option<KeyCondition> {
        let (test, then, other) = self.condition?;
        let part = |id: Option<NodeId>| match id {
            Some(id) => self.key_test(nodes, id).map(Some),
            None => Some(None),
        };
        Some(KeyCondition { test: self.key_test(nodes, test)?, then: part(then)?, other: part(other)? })
    }

    /// Sub-schema `id` as a [`KeyTest`] in this node's terms.
    fn key_test(&self, nodes: &[Node], id: NodeId) -> Option<KeyTest> {
        let Some(Node::Rules(part)) = nodes.get(id) else { return None };
        let only_keys = part.head & !head::OBJECT == 0
            && part.type_bits.has("object")
            && part.pattern_properties.is_empty()
            && part.additional.is_none()
            && !part.object_extras;
        if !only_keys {
            return None;
        }
        let required =
            part.required.iter().try_fold(0, |bits, name| Some(bits | self.property_bit(name)?))?;
        let checks = part.properties.iter().map(|(name, schema)| {
            let bit = self.property_bit(name)?;
            Some((bit.trailing_zeros() as usize, *schema))
        });
        Some(KeyTest { required, checks: checks.collect::<Option<_>>()? })
    }
}

/// Sets every node's [`Rules::key_condition`] where its condition is one.
pub(super) fn key_conditions(nodes: &mut [Node]) {
    let derived: Vec<Option<KeyCondition>> = nodes
        .iter()
        .map(|node| match node {
            Node::Rules(rules) => rules.key_condition(nodes),
            Node::Any | Node::Nothing => None,
        })
        .collect();
    for (node, derived) in nodes.iter_mut().zip(derived) {
        if let (Node::Rules(rules), Some(condition)) = (node, derived) {
            rules.key_condition = Some(Box::new(condition));
        }
    }
}
