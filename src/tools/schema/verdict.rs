//! The yes/no check run before the full one: it builds no issue, formats no text and stops at the
//! first failure, so a valid call (the common case) costs a walk and nothing else. When it says no,
//! or cannot tell within the limits, [`super::validate`] walks again and reports every issue; so it
//! must never accept a value the full check would report anything for.

use serde_json::{Map, Number, Value};

use super::applicators::PAIRS_PER_STEP;
use super::lookup::same_key;
use super::node::{head, KeyTest, Node, NodeId, Rules};
use super::numbers::multiple_of;
use super::validate::{same, VALUES_PER_STEP};
use super::{MAX_DEPTH, MAX_STEPS};

/// Whether `value` is valid against the schema rooted at `root`. `false` also when a limit (depth,
/// steps) is reached, which the full check reports.
pub(super) fn accepts(nodes: &[Node], root: NodeId, value: &Value) -> bool {
    let mut verdict = Verdict { nodes, steps: 0 };
    // A budget spent inside a `not` or an `if` must not turn into a pass: the full check reports it.
    verdict.check(root, value, 0) && verdict.steps <= MAX_STEPS
}

/// The state of one yes/no check.
struct Verdict<'a> {
    /// The schema's arena.
    nodes: &'a [Node],
    /// Checks made so far, counted as the full check counts them.
    steps: usize,
}

impl Verdict<'_> {
    /// Whether `value` passes node `id`.
    fn check(&mut self, id: NodeId, value: &Value, depth: usize) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS || depth > MAX_DEPTH {
            return false;
        }
        let nodes = self.nodes;
        match nodes.get(id) {
            Some(Node::Rules(rules)) => self.rules(rules, value, depth + 1),
            Some(Node::Nothing) => false,
            Some(Node::Any) | None => true,
        }
    }

    /// [`Self::check`] for a property's or an item's value, inlined where those are visited: a
    /// scalar against a node with no applicator (most of a tool call) is decided without a call.
    #[inline(always)]
    fn child(&mut self, id: NodeId, value: &Value, depth: usize) -> bool {
        if matches!(value, Value::Array(_) | Value::Object(_)) {
            return self.check(id, value, depth);
        }
        self.steps += 1;
        if self.steps > MAX_STEPS || depth > MAX_DEPTH {
            return false;
        }
        let nodes = self.nodes;
        match nodes.get(id) {
            Some(Node::Rules(rules)) if rules.head & head::APPLICATORS == 0 => {
                self.own(rules, value, depth + 1)
            }
            Some(Node::Rules(rules)) => self.rules(rules, value, depth + 1),
            Some(Node::Nothing) => false,
            Some(Node::Any) | None => true,
        }
    }

    /// A schema object's keywords, in the full check's order.
    fn rules(&mut self, rules: &Rules, value: &Value, depth: usize) -> bool {
        if rules.head & head::APPLICATORS != 0 && !self.applicators(rules, value, depth) {
            return false;
        }
        self.own(rules, value, depth)
    }

    /// The keywords after the applicators: `const`, `enum`, `type`, then those of the value's type.
    #[inline(always)]
    fn own(&mut self, rules: &Rules, value: &Value, depth: usize) -> bool {
        let bits = rules.head;
        if bits & head::VALUES != 0 && !self.allowed(rules, value) {
            return false;
        }
        if !rules.type_bits.accepts(value) {
            return false;
        }
        match value {
            Value::Number(number) => bits & head::NUMBER == 0 || number_ok(rules, number),
            Value::String(text) => bits & head::STRING == 0 || string_ok(rules, text),
            Value::Array(items) => bits & head::ARRAY == 0 || self.items(rules, items, depth),
            Value::Object(map) => bits & head::OBJECT == 0 || self.object(rules, map, value, depth),
            Value::Null | Value::Bool(_) => true,
        }
    }

    /// `const` and `enum`.
    fn allowed(&mut self, rules: &Rules, value: &Value) -> bool {
        if rules.constant.as_ref().is_some_and(|constant| !one_of(std::slice::from_ref(constant), value)) {
            return false;
        }
        let Some(values) = &rules.one_of_values else { return true };
        self.steps = self.steps.saturating_add(values.len() / VALUES_PER_STEP);
        one_of(values, value)
    }

    /// `$ref`, `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`, in the full check's order.
    /// (`const`, which the full check tests after them, is tested with `enum` in [`Self::own`]: a
    /// yes/no answer does not depend on the order, and a valid value passes every keyword.)
    fn applicators(&mut self, rules: &Rules, value: &Value, depth: usize) -> bool {
        if rules.reference.is_some_and(|target| !self.check(target, value, depth)) {
            return false;
        }
        if !rules.all_of.iter().all(|&member| self.check(member, value, depth)) {
            return false;
        }
        let tagged = rules.tagged_branches;
        if !rules.any_of.is_empty()
            && !rules.any_of.iter().any(|&branch| self.branch(branch, tagged, value, depth))
        {
            return false;
        }
        if !rules.one_of.is_empty() {
            // Every branch is tried, as the full check does, so that the steps counted match
            // (a branch the tag rules out counts one).
            let passed =
                rules.one_of.iter().filter(|&&branch| self.branch(branch, tagged, value, depth)).count();
            if passed != 1 {
                return false;
            }
        }
        if rules.not.is_some_and(|id| self.check(id, value, depth)) {
            return false;
        }
        // A condition about keys is decided where the object's keys are visited (`Self::object`).
        let about_keys = rules.key_condition.is_some() && value.is_object();
        if let Some((test, then, other)) = rules.condition.filter(|_| !about_keys) {
            let branch = if self.check(test, value, depth) { then } else { other };
            if branch.is_some_and(|id| !self.check(id, value, depth)) {
                return false;
            }
        }
        true
    }

    /// Whether `value` passes the `anyOf`/`oneOf` branch `id`. With `tagged` (some branch has a
    /// [`Rules::tag`]), an object whose tag key is missing or holds another value fails a tagged
    /// branch at once, for one step: that branch's `required` or the tag's `const` would fail it.
    #[inline]
    fn branch(&mut self, id: NodeId, tagged: bool, value: &Value, depth: usize) -> bool {
        if let (true, Value::Object(map), Some(Node::Rules(rules))) = (tagged, value, self.nodes.get(id)) {
            if let Some((name, tag)) = &rules.tag {
                if !get(map, name).is_some_and(|sent| same(tag, sent)) {
                    self.steps += 1;
                    return false;
                }
            }
        }
        self.check(id, value, depth)
    }

    /// `minItems`, `maxItems`, `contains`, `uniqueItems`, `prefixItems` and `items`.
    fn items(&mut self, rules: &Rules, items: &[Value], depth: usize) -> bool {
        let count = items.len() as u64;
        if rules.min_items.is_some_and(|min| count < min) || rules.max_items.is_some_and(|max| count > max) {
            return false;
        }
        if let Some((id, min, max)) = rules.contains {
            let found = items.iter().filter(|item| self.check(id, item, depth)).count() as u64;
            if found < min || max.is_some_and(|max| found > max) {
                return false;
            }
        }
        if rules.unique_items {
            let pairs = items.len().saturating_mul(items.len().saturating_sub(1)) / 2;
            self.steps = self.steps.saturating_add(pairs / PAIRS_PER_STEP);
            if self.steps > MAX_STEPS {
                return false;
            }
            if (1..items.len()).any(|j| (0..j).any(|i| same(&items[i], &items[j]))) {
                return false;
            }
        }
        items.iter().enumerate().all(|(index, item)| {
            match rules.prefix_items.get(index).copied().or(rules.items) {
                Some(schema) => self.child(schema, item, depth),
                None => true,
            }
        })
    }

    /// The object keywords: properties, patterns, unknown and missing keys, names, counts and
    /// dependencies.
    fn object(&mut self, rules: &Rules, map: &Map<String, Value>, value: &Value, depth: usize) -> bool {
        // Which declared properties were sent: bit `i` for the `i`th, `i` taken modulo 64 (exact
        // for a node declaring at most 64, the only ones whose bits, `Rules::required_bits` and
        // the like, are read).
        let present = if !rules.keyed {
            // No key has a schema to pass (a `required`-only `then`, say), and no name is declared.
            Some(0)
        } else if rules.pattern_properties.is_empty()
            && rules.additional.is_none()
            && rules.properties.len() < map.len()
        {
            // Only `properties`, fewer than the keys sent (an `if`, a `oneOf` branch's tag):
            // looking the declared names up costs less than looking every key up.
            self.declared(rules, map, depth)
        } else {
            self.keys(rules, map, depth)
        };
        let Some(present) = present else { return false };
        let required_met = match rules.required_bits {
            Some(bits) => present & bits == bits,
            // More than 64 declared properties: `required`'s declared names looked up one by one.
            None => rules
                .properties
                .iter()
                .zip(&rules.required_flags)
                .all(|((name, _), &required)| !required || has_key(map, name)),
        };
        if !required_met || !rules.required_elsewhere.iter().all(|name| has_key(map, name)) {
            return false;
        }
        if let Some(condition) = &rules.key_condition {
            let branch = if self.key_test(rules, &condition.test, map, present, depth) {
                &condition.then
            } else {
                &condition.other
            };
            if branch.as_ref().is_some_and(|part| !self.key_test(rules, part, map, present, depth)) {
                return false;
            }
        }
        !rules.object_extras || self.object_extras(rules, map, present, value, depth)
    }

    /// Whether `map` passes an `if`, `then` or `else` about its keys (a [`KeyTest`] of node
    /// `rules`), from the keys `present`; steps and depth counted as [`Self::check`] on that
    /// sub-schema counts them.
    fn key_test(
        &mut self,
        rules: &Rules,
        test: &KeyTest,
        map: &Map<String, Value>,
        present: u64,
        depth: usize,
    ) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS || depth > MAX_DEPTH {
            return false;
        }
        // The values first, then `required`, as the walk of the sub-schema goes; a value is looked
        // up only when its key was sent.
        test.checks.iter().all(|&(index, id)| {
            present & (1 << index) == 0
                || rules
                    .properties
                    .get(index)
                    .and_then(|(name, _)| get(map, name))
                    .is_none_or(|item| self.child(id, item, depth + 1))
        }) && present & test.required == test.required
    }

    /// Every key against `patternProperties`, `properties` and `additionalProperties`: the
    /// declared ones sent (bit `i` for the `i`th, modulo 64), or `None` when a value fails. (The
    /// bits are returned, not written through a reference: kept in a register.)
    fn keys(&mut self, rules: &Rules, map: &Map<String, Value>, depth: usize) -> Option<u64> {
        let mut present = 0;
        // Where the next key is expected among `properties`: models mostly send the keys in the
        // order the schema declares them, so one comparison usually finds a key.
        let mut next = 0;
        for (key, item) in map {
            let mut matched = false;
            for (pattern, id) in &rules.pattern_properties {
                if pattern.is_match(key) {
                    matched = true;
                    if !self.child(*id, item, depth) {
                        return None;
                    }
                }
            }
            let index = match rules.properties.get(next) {
                Some((name, _)) if same_key(name, key) => Some(next),
                _ if rules.properties.is_empty() => None,
                _ => rules.property_index(key),
            };
            let passed = match (index, rules.additional) {
                (Some(index), _) => {
                    next = index + 1;
                    present |= 1 << (index % 64);
                    self.child(rules.properties[index].1, item, depth)
                }
                (None, _) if matched => true,
                (None, Some(id)) => self.child(id, item, depth),
                (None, None) => true,
            };
            if !passed {
                return None;
            }
        }
        Some(present)
    }

    /// `properties` alone, by declared name: the ones sent (as [`Self::keys`]), or `None` when a
    /// value fails.
    fn declared(&mut self, rules: &Rules, map: &Map<String, Value>, depth: usize) -> Option<u64> {
        let mut present = 0;
        for (index, (name, id)) in rules.properties.iter().enumerate() {
            if let Some(item) = get(map, name) {
                present |= 1 << (index % 64);
                if !self.child(*id, item, depth) {
                    return None;
                }
            }
        }
        Some(present)
    }

    /// `propertyNames`, `minProperties`/`maxProperties`, `dependentRequired` and `dependentSchemas`.
    fn object_extras(
        &mut self,
        rules: &Rules,
        map: &Map<String, Value>,
        present: u64,
        value: &Value,
        depth: usize,
    ) -> bool {
        if let Some(id) = rules.property_names {
            for key in map.keys() {
                if !self.check(id, &Value::String(key.clone()), depth) {
                    return false;
                }
            }
        }
        let count = map.len() as u64;
        if rules.min_properties.is_some_and(|min| count < min)
            || rules.max_properties.is_some_and(|max| count > max)
        {
            return false;
        }
        let dependent_ok = match &rules.dependent_bits {
            Some(bits) => bits.iter().all(|&(key, needed)| present & key == 0 || present & needed == needed),
            None => rules
                .dependent_required
                .iter()
                .all(|(key, names)| !has_key(map, key) || names.iter().all(|name| has_key(map, name))),
        };
        if !dependent_ok {
            return false;
        }
        rules
            .dependent_schemas
            .iter()
            .all(|(present, id)| !has_key(map, present) || self.check(*id, value, depth))
    }
}

/// Whether `value` is one of `values` (`enum`); strings, the usual case, compared directly.
fn one_of(values: &[Value], value: &Value) -> bool {
    match value {
        Value::String(text) => values.iter().any(|v| matches!(v, Value::String(t) if same_key(t, text))),
        _ => values.iter().any(|v| same(v, value)),
    }
}

/// Objects this small are searched key by key: comparing a few short strings costs less than
/// hashing the name (serde_json's map hashes with SipHash).
const SCANNED_KEYS: usize = 8;

/// Whether `map` has the key `name`.
fn has_key(map: &Map<String, Value>, name: &str) -> bool {
    get(map, name).is_some()
}

/// The value of key `name` in `map`: small maps are scanned ([`SCANNED_KEYS`]), larger ones hashed.
fn get<'v>(map: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    if map.len() <= SCANNED_KEYS {
        map.iter().find(|(key, _)| same_key(key, name)).map(|(_, value)| value)
    } else {
        map.get(name)
    }
}

/// `multipleOf` and the numeric bounds.
fn number_ok(rules: &Rules, number: &Number) -> bool {
    if rules.multiple_of.as_ref().is_some_and(|m| !multiple_of(number, m)) {
        return false;
    }
    let Some(x) = number.as_f64() else { return true };
    let below = rules.lower.is_some_and(|b| if b.exclusive { x <= b.value } else { x < b.value });
    let above = rules.upper.is_some_and(|b| if b.exclusive { x >= b.value } else { x > b.value });
    !(below || above)
}

/// `minLength`, `maxLength` (in characters, counted only when the byte length does not settle
/// them), `pattern` and an asserted `format`.
fn string_ok(rules: &Rules, text: &str) -> bool {
    // A string holds between a quarter of its bytes (rounded up) and all of them in characters:
    // most bounds are settled by its byte length without counting.
    let bytes = text.len() as u64;
    let settled = rules.min_length.is_none_or(|min| bytes.div_ceil(4) >= min)
        && rules.max_length.is_none_or(|max| bytes <= max);
    if !settled {
        let chars = text.chars().count() as u64;
        if rules.min_length.is_some_and(|min| chars < min) || rules.max_length.is_some_and(|max| chars > max)
        {
            return false;
        }
    }
    rules.pattern.as_ref().is_none_or(|pattern| pattern.is_match(text))
        && rules.format.is_none_or(|format| format.accepts(text))
}
