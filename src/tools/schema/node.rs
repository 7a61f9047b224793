//! The compiled form of a schema: an arena of nodes, `$ref`s resolved to node ids, regexes built.

use regex_lite::Regex;

use super::anchored::Anchored;
use super::formats::StringFormat;
use serde_json::Value;

/// Index of a node in [`super::Schema`]'s arena; `$ref`s and sub-schemas point to each other by id,
/// which is what lets a recursive schema compile to a finite graph.
pub(super) type NodeId = usize;

/// One compiled (sub)schema.
#[derive(Debug, Clone)]
pub(super) enum Node {
    /// `true` or `{}`-like: every value is valid.
    Any,
    /// `false`: no value is valid.
    Nothing,
    /// A schema object's keywords.
    Rules(Box<Rules>),
}

/// The keywords of one schema object that validation uses; the rest (`title`, `format`, `default`,
/// `examples`, …) are dropped at compile time.
#[derive(Debug, Clone, Default)]
pub(super) struct Rules {
    /// `type`; `None` when absent.
    pub types: Option<TypeSet>,
    /// `description`, shown for missing properties.
    pub description: Option<String>,
    /// `enum`.
    pub one_of_values: Option<Vec<Value>>,
    /// `const`.
    pub constant: Option<Value>,
    /// The stricter of `minimum` and `exclusiveMinimum`.
    pub lower: Option<Bound>,
    /// The stricter of `maximum` and `exclusiveMaximum`.
    pub upper: Option<Bound>,
    /// `minLength`, in characters.
    pub min_length: Option<u64>,
    /// `maxLength`, in characters.
    pub max_length: Option<u64>,
    /// `pattern`, when regex-lite supports its syntax.
    pub pattern: Option<Pattern>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`, lowered to the tuple length when `items: false` closes a tuple.
    pub max_items: Option<u64>,
    /// `prefixItems` (or draft-4 array-form `items`): schemas for the first items, by position.
    pub prefix_items: Vec<NodeId>,
    /// `items`: the schema for every item past `prefix_items`; `None` when any item goes.
    pub items: Option<NodeId>,
    /// `properties`, in schema order (the order the model is shown them in).
    pub properties: Vec<(String, NodeId)>,
    /// `required`.
    pub required: Vec<String>,
    /// `additionalProperties`; `None` when absent or `true`. A [`Node::Nothing`] forbids unknown keys.
    pub additional: Option<NodeId>,
    /// `allOf`.
    pub all_of: Vec<NodeId>,
    /// `anyOf`.
    pub any_of: Vec<NodeId>,
    /// `oneOf`.
    pub one_of: Vec<NodeId>,
    /// `$ref`, resolved.
    pub reference: Option<NodeId>,
    /// `not`.
    pub not: Option<NodeId>,
    /// `if`, with `then` and `else` (each `None` when absent).
    pub condition: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
    /// `multipleOf`.
    pub multiple_of: Option<Value>,
    /// `patternProperties`, in schema order.
    pub pattern_properties: Vec<(Pattern, NodeId)>,
    /// `propertyNames`.
    pub property_names: Option<NodeId>,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `dependentRequired` (and draft 7's array-form `dependencies`): names required when a key is present.
    pub dependent_required: Vec<(String, Vec<String>)>,
    /// `dependentSchemas` (and draft 7's schema-form `dependencies`): schemas applied when a key is present.
    pub dependent_schemas: Vec<(String, NodeId)>,
    /// `contains`, with `minContains` (default 1) and `maxContains`.
    pub contains: Option<(NodeId, u64, Option<u64>)>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
    /// `format`, when format assertions are on and keel checks this one.
    pub format: Option<StringFormat>,
    /// Which groups of keywords the node has, as [`head`] bits: the yes/no walk reads this one
    /// number first and skips each group the node lacks with one test. This field and the ones
    /// after it are derived from the keywords once all are read (`Rules::summarise`, in
    /// `lookup.rs`).
    pub head: u8,
    /// `type`, or every type when absent: tested without asking whether there is one.
    pub type_bits: TypeSet,
    /// Per entry of `properties`, its name's length, first and last byte in one number
    /// ([`super::lookup::signature`]): a key is looked up by scanning these, then comparing the
    /// one name whose signature matches.
    pub property_signs: Vec<u32>,
    /// Whether a key of an object can meet a schema here (`properties`, `patternProperties`,
    /// `additionalProperties`): without, the yes/no walk does not visit the keys.
    pub keyed: bool,
    /// Per entry of `properties`, whether `required` names it: the yes/no walk counts the
    /// required keys it meets while visiting the keys instead of looking each one up again.
    pub required_flags: Vec<bool>,
    /// How many distinct names `required` holds that `properties` declares.
    pub required_declared: usize,
    /// The distinct names `required` holds that `properties` does not declare, looked up one by one.
    pub required_elsewhere: Vec<String>,
    /// Whether any of `propertyNames`, `minProperties`, `maxProperties`, `dependentRequired`,
    /// `dependentSchemas` is present: without, the yes/no walk skips them with one test.
    pub object_extras: bool,
    /// The property this node requires an object to send with one allowed value, and that value
    /// (`super::tags`): an object without it, or with another value, fails the node. Derived after
    /// every node is compiled, from the property's schema.
    pub tag: Option<(String, Value)>,
    /// Whether an `anyOf` or `oneOf` branch of this node has a [`Rules::tag`]: the yes/no walk then
    /// skips the branches an object's tag rules out.
    pub tagged_branches: bool,
    /// The declared names `required` holds, as bits of [`Rules::properties`] (bit `i` for the
    /// `i`th declared name), when the node declares at most 64: the yes/no walk notes the bits of
    /// the declared keys it meets and compares, instead of looking each name up. `None` past 64.
    pub required_bits: Option<u64>,
    /// `dependentRequired` as bits of [`Rules::properties`] (as [`Rules::required_bits`]), when
    /// every name it holds is declared and the node declares at most 64: per entry, the key that
    /// triggers it and the keys it requires. The yes/no walk tests them against the bits of the
    /// keys it met while visiting them, instead of looking each name up again.
    pub dependent_bits: Option<Vec<(u64, u64)>>,
    /// `if`/`then`/`else` in this node's terms, when each of them only asks about keys it
    /// declares (`super::conditions`): the yes/no walk decides it from the keys it met.
    pub key_condition: Option<Box<KeyCondition>>,
}

/// An `if`, `then` or `else` that only asks about keys its parent node declares, in the parent's
/// terms (`super::conditions`): the keys it requires, and the schemas it has for some keys' values.
#[derive(Debug, Clone, Default)]
pub(super) struct KeyTest {
    /// The bits of the declared properties the sub-schema's `required` names.
    pub required: u64,
    /// Per property the sub-schema has a schema for: its place among the parent's declared
    /// properties, and that schema.
    pub checks: Vec<(usize, NodeId)>,
}

/// A node's `if`, `then` and `else`, each a [`KeyTest`].
#[derive(Debug, Clone, Default)]
pub(super) struct KeyCondition {
    /// `if`.
    pub test: KeyTest,
    /// `then`, when present.
    pub then: Option<KeyTest>,
    /// `else`, when present.
    pub other: Option<KeyTest>,
}

/// The bits of [`Rules::head`].
pub(super) mod head {
    /// One of `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`.
    pub const APPLICATORS: u8 = 1;
    /// `const` or `enum`.
    pub const VALUES: u8 = 1 << 1;
    /// `multipleOf` or a numeric bound.
    pub const NUMBER: u8 = 1 << 2;
    /// `minLength`, `maxLength`, `pattern` or an asserted `format`.
    pub const STRING: u8 = 1 << 3;
    /// Any keyword about arrays (`items`, `prefixItems`, counts, `contains`, `uniqueItems`).
    pub const ARRAY: u8 = 1 << 4;
    /// Any keyword about objects (properties, `required`, names, counts, dependencies).
    pub const OBJECT: u8 = 1 << 5;
}

/// A `pattern` with its source kept for messages.
#[derive(Debug, Clone)]
pub(super) struct Pattern {
    /// The pattern as written in the schema.
    pub source: String,
    /// The compiled pattern.
    pub regex: Regex,
    /// The same pattern as a direct matcher, when it is `^…$` of literals and classes.
    pub anchored: Option<Anchored>,
}

impl Pattern {
    /// Whether the pattern matches somewhere in `text` (JSON Schema patterns are not anchored).
    pub fn is_match(&self, text: &str) -> bool {
        match &self.anchored {
            Some(anchored) => anchored.is_match(text),
            None => self.regex.is_match(text),
        }
    }
}

/// A numeric bound, inclusive or exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Bound {
    /// The bound itself.
    pub value: f64,
    /// Whether the bound itself is excluded.
    pub exclusive: bool,
}

/// A set of JSON Schema type names, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TypeSet(u8);

impl Default for TypeSet {
    /// Every type, as without a `type` keyword.
    fn default() -> TypeSet {
        TypeSet::ALL
    }
}

/// The type names, in the order messages list them.
pub(super) const TYPE_NAMES: [&str; 7] =
    ["string", "number", "integer", "boolean", "object", "array", "null"];

impl TypeSet {
    /// Every type: what no `type` keyword allows.
    pub const ALL: TypeSet = TypeSet((1 << TYPE_NAMES.len()) - 1);

    /// The set holding one type name, or `None` for a name JSON Schema does not define.
    pub fn named(name: &str) -> Option<TypeSet> {
        TYPE_NAMES.iter().position(|&known| known == name).map(|bit| TypeSet(1 << bit))
    }

    /// The union of two sets.
    pub fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    /// Whether the set holds the type name.
    pub fn has(self, name: &str) -> bool {
        TypeSet::named(name).is_some_and(|one| self.0 & one.0 != 0)
    }

    /// Whether a value of this JSON type is allowed; `integer` accepts integral floats such as `3.0`.
    /// Bit tests only: it runs for every value of every valid call.
    #[inline(always)]
    pub fn accepts(self, value: &Value) -> bool {
        let bit = |index: usize| self.0 & (1 << index) != 0;
        match value {
            Value::Null => bit(6),
            Value::Bool(_) => bit(3),
            Value::Number(n) => bit(1) || (bit(2) && is_integral(n)),
            Value::String(_) => bit(0),
            Value::Array(_) => bit(5),
            Value::Object(_) => bit(4),
        }
    }

    /// The names in the set, in message order; `integer` is left out when `number` covers it.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        TYPE_NAMES
            .iter()
            .copied()
            .filter(move |&name| self.has(name) && !(name == "integer" && self.has("number")))
    }
}

/// Whether a JSON number has no fractional part.
pub(super) fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}
