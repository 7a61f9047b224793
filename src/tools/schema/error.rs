//! Why a schema would not compile.

/// A schema keel cannot validate against. Each variant names the place in the schema as a JSON
/// pointer fragment (`#/properties/city/pattern`) so the tool's author can find it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A `$ref` that does not point anywhere in this schema (remote and `$id`/anchor refs included).
    #[error("schema at {path}: $ref \"{reference}\" does not resolve (only local refs such as \"#/$defs/Name\" are supported)")]
    UnresolvableRef {
        /// Where the `$ref` is.
        path: String,
        /// The reference as written.
        reference: String,
    },
    /// A `pattern` that is not an ECMA-262 regular expression, or uses ECMA-262 syntax keel cannot
    /// check (`\p{…}`, backreferences; the reason names it).
    #[error("schema at {path}: pattern {pattern:?} cannot be checked: {reason}")]
    InvalidPattern {
        /// Where the `pattern` is.
        path: String,
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it, naming the construct.
        reason: String,
    },
    /// A keyword whose value has the wrong shape (`"required": 5`).
    #[error("schema at {path}: {keyword} must be {expected}")]
    WrongKeywordType {
        /// Where the keyword is.
        path: String,
        /// The keyword.
        keyword: String,
        /// What its value must be.
        expected: &'static str,
    },
    /// A `type` name JSON Schema does not define (`"type": "str"`).
    #[error("schema at {path}: unknown type {name:?} (the types are string, number, integer, boolean, object, array and null)")]
    UnknownType {
        /// Where the `type` is.
        path: String,
        /// The name as written.
        name: String,
    },
    /// A place that should hold a schema holds something else (`"properties": {"a": 5}`).
    #[error("schema at {path}: expected a schema (an object or a boolean), found {found}")]
    NotASchema {
        /// Where the non-schema is.
        path: String,
        /// The JSON type found there.
        found: &'static str,
    },
    /// `$ref`s and `allOf`/`anyOf`/`oneOf` that lead back to themselves without going into a
    /// property or item, so that checking any value would never end (`{"$ref": "#"}`).
    #[error(
        "schema at {path}: $ref/allOf/anyOf/oneOf loop back to this schema without descending into the value"
    )]
    RefCycle {
        /// A schema on the loop.
        path: String,
    },
    /// More distinct `pattern`s than keel compiles for one schema.
    #[error("schema at {path}: more than {limit} distinct patterns in one schema")]
    TooManyPatterns {
        /// Where the limit was reached.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// A schema (or an `enum`/`const` value in it) nested deeper than keel checks.
    #[error("schema at {path}: nested more than {limit} levels deep")]
    TooDeep {
        /// Where the limit was reached.
        path: String,
        /// The limit.
        limit: usize,
    },
    /// A keyword keel does not check and cannot ignore, since it changes which values are valid
    /// (`unevaluatedProperties`, `$dynamicRef`).
    #[error("schema at {path}: keyword {keyword} is not supported by keel's validator")]
    Unsupported {
        /// Where the keyword is.
        path: String,
        /// The keyword.
        keyword: String,
    },
}
