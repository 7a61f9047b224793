//! Conditions about keys: an `if`/`then`/`else` whose parts only ask which declared keys an object
//! sends and what some of their values are (`"if": {"properties": {"sort": {"const": "date"}},
//! "required": ["sort"]}, "then": {"required": ["from"]}`), rewritten in the terms of the node
//! holding them ([`KeyCondition`]). The yes/no walk then decides the condition from the keys it met
//! while visiting the object's keys, instead of walking each part and looking each name up again.

use super::node::{head, KeyCondition, KeyTest, Node, NodeId, Rules};

/// Values kept per object for a [`KeyCondition`]: a condition checking more declared properties'
/// values is left to the walk.
pub(super) const WATCHED_VALUES: usize = 4;

impl Rules {
    /// This node's condition as a [`KeyCondition`] and the bits of the properties whose values it
    /// checks, when `if` and each of `then` and `else` present are sub-schemas with only
    /// `properties` (of names this node declares, when it declares at most 64) and `required` (the same),
    /// besides a `type` allowing objects. Reads [`Rules::property_signs`] and the sub-schemas'
    /// derived fields, so it runs after every node's [`Rules::summarise`].
    fn key_condition(&self, nodes: &[Node]) -> Option<(KeyCondition, u64)> {
        let (test, then, other) = self.condition?;
        let mut watched = 0;
        let mut part = |id: NodeId| self.key_test(nodes, id, &mut watched);
        let test = part(test)?;
        let then = then.map(&mut part).map_or(Some(None), |test| test.map(Some))?;
        let other = other.map(&mut part).map_or(Some(None), |test| test.map(Some))?;
        if watched.count_ones() as usize > WATCHED_VALUES {
            return None;
        }
        let mut condition = KeyCondition { test, then, other };
        // Checks were written with the property's bit; each value is kept at the rank of its bit.
        let parts = [Some(&mut condition.test), condition.then.as_mut(), condition.other.as_mut()];
        for check in parts.into_iter().flatten().flat_map(|test| test.checks.iter_mut()) {
            check.0 = (watched & ((1u64 << check.0) - 1)).count_ones() as usize;
        }
        Some((condition, watched))
    }

    /// Sub-schema `id` as a [`KeyTest`] in this node's terms, its checks holding the property's
    /// bit position (made a rank by [`Rules::key_condition`]); adds the properties whose values
    /// it checks to `watched`.
    fn key_test(&self, nodes: &[Node], id: NodeId, watched: &mut u64) -> Option<KeyTest> {
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
        let mut checks = Vec::with_capacity(part.properties.len());
        for (name, schema) in &part.properties {
            let bit = self.property_bit(name)?;
            *watched |= bit;
            checks.push((bit.trailing_zeros() as usize, *schema));
        }
        Some(KeyTest { required, checks })
    }
}

/// Sets every node's [`Rules::key_condition`] and [`Rules::watched`] where its condition is one.
pub(super) fn key_conditions(nodes: &mut [Node]) {
    let derived: Vec<Option<(KeyCondition, u64)>> = nodes
        .iter()
        .map(|node| match node {
            Node::Rules(rules) => rules.key_condition(nodes),
            Node::Any | Node::Nothing => None,
        })
        .collect();
    for (node, derived) in nodes.iter_mut().zip(derived) {
        if let (Node::Rules(rules), Some((condition, watched))) = (node, derived) {
            rules.key_condition = Some(Box::new(condition));
            rules.watched = watched;
        }
    }
}
