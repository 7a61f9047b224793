//! JSON Schema validation of tool arguments that reports every problem at once, in words a small
//! model can act on (see [`FieldIssue`]).
//!
//! Keywords checked (draft 2020-12, with draft 4–7 spellings where they differ): `type` (a name
//! or an array of names; `integer` accepts `3.0`), `properties`, `required`, `additionalProperties`,
//! `patternProperties`, `propertyNames`, `minProperties`/`maxProperties`, `dependentRequired`,
//! `dependentSchemas` (and draft 7's `dependencies`), `enum`, `const`, `items`, `prefixItems` (and
//! draft 4's array-form `items`), `contains`/`minContains`/`maxContains`, `uniqueItems`,
//! `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum` (numbers, or draft 4's booleans),
//! `multipleOf` (exact for integers, beyond 2^53 too), `minLength`/`maxLength` (in characters),
//! `pattern`, `minItems`/`maxItems`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, local
//! `$ref` (`#`, `#/$defs/…`, any JSON pointer, percent-encoded or not, and `#name` for a
//! `"$anchor": "name"`), and the boolean schemas `true` and `false`. `tests/schema_suite.rs` runs
//! the official JSON-Schema-Test-Suite's draft 2020-12 tests against it.
//!
//! Keywords that change what is valid but that keel does not check fail compile with
//! [`SchemaError::Unsupported`] (`unevaluatedProperties`, `unevaluatedItems`, `$dynamicRef`,
//! `$recursiveRef`), as do refs that are not a local fragment ([`SchemaError::UnresolvableRef`]).
//! Annotations (`title`, `description` — kept to explain missing properties —, `default`,
//! `examples`, `format` unless format assertions are asked for, …) and keywords no draft defines
//! are ignored.
//!
//! `pattern`s are ECMA-262 regular expressions with Unicode semantics, translated for regex-lite
//! where the two differ (`ecma.rs`: `\s`, `.`, `\cX`, `\uHHHH`, classes). regex-lite has no
//! lookaround: a `pattern` using it is checked as the `format` beside it when that is one keel
//! asserts (`email`, `uri`, `uuid`, `date`, `date-time`, `time`, `ipv4`, `ipv6`), asserted then
//! whatever [`Formats`] says — Zod's `z.email()` writes such a pattern beside `"format": "email"`
//! —, and otherwise fails compile with [`SchemaError::InvalidPattern`] saying so, as it does in
//! `patternProperties`. Backreferences and Unicode property classes (`\p{Letter}`) fail compile
//! the same way, naming the construct, as does syntax ECMA-262 does not have.
//!
//! For each value: a failed `enum`/`const` is reported alone (the options say everything), then a
//! wrong `type` alone (bounds on the wrong type mean nothing), otherwise every failed bound, every
//! item, every property, every unknown key and every missing property.
//!
//! `anyOf`/`oneOf` with no matching alternative: when one alternative is clearly the one meant, its
//! own issues are reported, pointing into the value; otherwise a single [`IssueKind::NoMatch`]
//! lists the alternatives. An alternative is the one meant when it is the only object alternative
//! whose discriminator (a property with a `const` or one-value `enum`) the value matches, or else
//! the only one that does not reject the value outright (wrong type, not an allowed value, or a
//! nested no-match), after dropping those whose discriminator the value contradicts.
//!
//! Limits keep any schema and any value safe: schemas and values are followed at most
//! 128 levels deep, a check stops after 25 000 steps (a long `enum` costs a step per 8 values),
//! "did you mean" suggestions share a work budget per check, a `pattern` compiles to at most
//! 64 KiB and a schema holds at most 128 distinct ones (each compiled once), and loops of `$ref`s
//! that never descend into the value are rejected at compile time. Hitting a limit while validating yields an
//! [`IssueKind::TooComplex`] issue, never a panic.
//!
//! [`IssueKind::NoMatch`]: crate::errors::IssueKind::NoMatch
//! [`IssueKind::TooComplex`]: crate::errors::IssueKind::TooComplex

mod alternatives;
mod anchored;
mod applicator_keywords;
mod applicators;
mod compile;
mod conditions;
mod describe;
mod ecma;
mod error;
mod formats;
mod keywords;
mod lookup;
mod node;
mod numbers;
mod path;
mod pointer;
mod sent;
mod tags;
#[cfg(test)]
mod tests;
mod validate;
mod verdict;

use serde_json::Value;

use crate::errors::FieldIssue;

pub use error::SchemaError;
pub use formats::Formats;

/// How deep schemas nest, and how deep into a value validation follows them. Tool arguments rarely
/// nest past ten; the limit keeps the call stack small on wasm's 1 MiB stack.
const MAX_DEPTH: usize = 128;

/// How many (sub)schema checks one validation may make before giving up: a guard against schemas
/// whose alternatives multiply (`anyOf` of `anyOf`s reused through `$ref`).
const MAX_STEPS: usize = 25_000;

/// A compiled JSON Schema for a tool's arguments: compile once when the tool is registered,
/// validate every call.
///
/// ```
/// use keel::errors::IssueKind;
/// use keel::tools::Schema;
/// use serde_json::json;
///
/// let schema = Schema::compile(&json!({
///     "type": "object",
///     "properties": { "city": { "type": "string" } },
///     "required": ["city"],
///     "additionalProperties": false
/// }))?;
/// let issues = schema.validate(&json!({ "cty": "Paris" }));
/// assert_eq!(issues[0].kind, IssueKind::UnknownKey);
/// assert_eq!(issues[0].suggestion.as_deref(), Some("city"));
/// assert_eq!(issues[1].kind, IssueKind::Missing);
/// # Ok::<(), keel::tools::SchemaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Schema {
    /// Every compiled (sub)schema; sub-schemas and `$ref`s point into it by index.
    nodes: Vec<node::Node>,
    /// The schema for the whole arguments value.
    root: node::NodeId,
}

impl Schema {
    /// Compiles a JSON Schema document, checking its keywords, resolving its `$ref`s and building its
    /// regexes once.
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        Schema::compile_with(schema, Formats::Annotation)
    }

    /// [`Schema::compile`], with `format` asserted when `formats` says so (`email`, `uri`, `uuid`,
    /// `date`, `date-time`, `time`, `ipv4`, `ipv6`; other names stay annotations).
    ///
    /// ```
    /// use keel::tools::{Formats, Schema};
    /// use serde_json::json;
    ///
    /// let schema = json!({ "type": "string", "format": "date" });
    /// assert!(Schema::compile(&schema)?.is_valid(&json!("2026-02-30")));
    /// assert!(!Schema::compile_with(&schema, Formats::Assertion)?.is_valid(&json!("2026-02-30")));
    /// # Ok::<(), keel::tools::SchemaError>(())
    /// ```
    pub fn compile_with(schema: &Value, formats: Formats) -> Result<Schema, SchemaError> {
        let compiled = compile::compile(schema, formats)?;
        Ok(Schema { nodes: compiled.nodes, root: compiled.root })
    }

    /// Every problem with `value`, in the order met walking the value; empty when it is valid.
    pub fn validate(&self, value: &Value) -> Vec<FieldIssue> {
        // The yes/no walk first: a valid call builds no issue and no text.
        if self.is_valid(value) {
            return Vec::new();
        }
        validate::validate(&self.nodes, self.root, value)
    }

    /// Whether `value` is valid, with no issues built (what [`Schema::validate`] runs first): when
    /// true, `validate` finds nothing; when false, it reports why (or that a limit was reached).
    pub fn is_valid(&self, value: &Value) -> bool {
        verdict::accepts(&self.nodes, self.root, value)
    }
}
