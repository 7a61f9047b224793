//! Reading one schema object's keywords into [`Rules`], checking each keyword's shape.

use regex_lite::RegexBuilder;
use serde_json::{Map, Value};

use super::anchored::Anchored;
use super::applicator_keywords::Later;
use super::compile::{child, fragment, Compiler};
use super::ecma::{translate, Refusal};
use super::error::SchemaError;
use super::formats::StringFormat;
use super::node::{Bound, NodeId, Pattern, Rules, TypeSet};
use super::MAX_DEPTH;

impl Compiler<'_> {
    /// The keywords of the schema object at `pointer`, and its `$ref` (resolved later).
    pub(super) fn rules(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) -> Result<(Box<Rules>, Option<String>), SchemaError> {
        let mut rules = Box::<Rules>::default();
        let mut reference = None;
        let (mut minimum, mut maximum) = (None, None);
        let (mut draft4_exclusive_min, mut draft4_exclusive_max) = (false, false);
        let mut later = Later::default();
        for (keyword, value) in map {
            let at = child(pointer, keyword);
            let wrong = |expected| SchemaError::WrongKeywordType {
                path: fragment(&at),
                keyword: keyword.clone(),
                expected,
            };
            match keyword.as_str() {
                "type" => rules.types = Some(types(value, &at)?),
                // An annotation: a malformed one costs nothing but its text.
                "description" => rules.description = value.as_str().map(str::to_owned),
                "enum" => {
                    let values = value.as_array().ok_or_else(|| wrong("an array"))?;
                    shallow_enough(value, &at)?;
                    rules.one_of_values = Some(values.clone());
                }
                "const" => {
                    shallow_enough(value, &at)?;
                    rules.constant = Some(value.clone());
                }
                "minimum" => minimum = Some(value.as_f64().ok_or_else(|| wrong("a number"))?),
                "maximum" => maximum = Some(value.as_f64().ok_or_else(|| wrong("a number"))?),
                "exclusiveMinimum" => match value {
                    Value::Bool(flag) => draft4_exclusive_min = *flag,
                    _ => rules.lower = exclusive(value).ok_or_else(|| wrong("a number or a boolean"))?,
                },
                "exclusiveMaximum" => match value {
                    Value::Bool(flag) => draft4_exclusive_max = *flag,
                    _ => rules.upper = exclusive(value).ok_or_else(|| wrong("a number or a boolean"))?,
                },
                "minLength" => rules.min_length = Some(count(value).ok_or_else(|| wrong(COUNT))?),
                "maxLength" => rules.max_length = Some(count(value).ok_or_else(|| wrong(COUNT))?),
                "minItems" => rules.min_items = Some(count(value).ok_or_else(|| wrong(COUNT))?),
                "maxItems" => rules.max_items = Some(count(value).ok_or_else(|| wrong(COUNT))?),
                "pattern" => {
                    let source = value.as_str().ok_or_else(|| wrong("a string"))?;
                    rules.pattern = self.pattern(source, &at)?;
                    if rules.pattern.is_none() {
                        // Lookaround: checked as the `format` beside it, or refused.
                        rules.format = Some(lookaround_cover(map, source, &at)?);
                    }
                }
                "prefixItems" => rules.prefix_items = self.list(value, &at, depth, false)?,
                // Draft 4's tuple form; `prefixItems` replaced it.
                "items" if value.is_array() && !map.contains_key("prefixItems") => {
                    rules.prefix_items = self.list(value, &at, depth, false)?;
                }
                "items" if !value.is_array() => rules.items = self.optional(value, at, depth)?,
                "properties" => {
                    let properties = value.as_object().ok_or_else(|| wrong("an object of schemas"))?;
                    for (name, schema) in properties {
                        let id = self.schema(schema, child(&at, name), depth + 1)?;
                        rules.properties.push((name.clone(), id));
                    }
                }
                "required" => {
                    let names = value.as_array().ok_or_else(|| wrong("an array of strings"))?;
                    for name in names {
                        let name = name.as_str().ok_or_else(|| wrong("an array of strings"))?;
                        rules.required.push(name.to_owned());
                    }
                }
                "additionalProperties" => rules.additional = self.optional(value, at, depth)?,
                "allOf" => rules.all_of = self.list(value, &at, depth, true)?,
                "anyOf" => rules.any_of = self.list(value, &at, depth, true)?,
                "oneOf" => rules.one_of = self.list(value, &at, depth, true)?,
                "$ref" => reference = Some(value.as_str().ok_or_else(|| wrong("a string"))?.to_owned()),
                // The applicators and counts added for draft 2020-12, in their own (not inlined)
                // function so that this one's stack frame, paid per nesting level, stays small.
                _ => self.applicator(&mut rules, &mut later, keyword, value, at, depth)?,
            }
        }
        rules.condition = later.test.map(|test| (test, later.then, later.other));
        rules.contains = later.contains.map(|id| (id, later.min_contains.unwrap_or(1), later.max_contains));
        let inclusive = |value, exclusive| Bound { value, exclusive };
        rules.lower = stricter(rules.lower, minimum.map(|m| inclusive(m, draft4_exclusive_min)), f64::gt);
        rules.upper = stricter(rules.upper, maximum.map(|m| inclusive(m, draft4_exclusive_max)), f64::lt);
        if rules.items.is_some_and(|id| self.is_nothing(id)) {
            // `items: false` closes a tuple: say so as a length, not as one issue per extra item.
            let tuple = rules.prefix_items.len() as u64;
            rules.max_items = Some(rules.max_items.map_or(tuple, |max| max.min(tuple)));
            rules.items = None;
        }
        Ok((rules, reference))
    }

    /// A sub-schema where `true` means "no constraint", stored as `None`.
    pub(super) fn optional(
        &mut self,
        value: &Value,
        at: String,
        depth: usize,
    ) -> Result<Option<NodeId>, SchemaError> {
        match value {
            Value::Bool(true) => Ok(None),
            _ => self.schema(value, at, depth + 1).map(Some),
        }
    }

    /// An array of sub-schemas (`allOf`, `prefixItems`…), non-empty when the keyword requires it.
    fn list(
        &mut self,
        value: &Value,
        at: &str,
        depth: usize,
        non_empty: bool,
    ) -> Result<Vec<NodeId>, SchemaError> {
        let keyword = at.rsplit('/').next().unwrap_or_default().to_owned();
        let wrong = |expected| SchemaError::WrongKeywordType { path: fragment(at), keyword, expected };
        let schemas = match value.as_array() {
            Some(schemas) if !(non_empty && schemas.is_empty()) => schemas,
            _ if non_empty => return Err(wrong("a non-empty array of schemas")),
            _ => return Err(wrong("an array of schemas")),
        };
        let mut ids = Vec::with_capacity(schemas.len());
        for (index, schema) in schemas.iter().enumerate() {
            ids.push(self.schema(schema, child(at, &index.to_string()), depth + 1)?);
        }
        Ok(ids)
    }
}

/// What a length keyword must be.
pub(super) const COUNT: &str = "a non-negative integer";

/// `type`: one name or a non-empty array of names.
fn types(value: &Value, at: &str) -> Result<TypeSet, SchemaError> {
    let one = |name: &Value| {
        let name = name.as_str().ok_or_else(|| SchemaError::WrongKeywordType {
            path: fragment(at),
            keyword: "type".to_owned(),
            expected: "a type name or a non-empty array of type names",
        })?;
        TypeSet::named(name)
            .ok_or_else(|| SchemaError::UnknownType { path: fragment(at), name: name.to_owned() })
    };
    match value {
        Value::Array(names) if !names.is_empty() => {
            let mut set = one(&names[0])?;
            for name in &names[1..] {
                set = set.union(one(name)?);
            }
            Ok(set)
        }
        Value::Array(_) => one(&Value::Null),
        name => one(name),
    }
}

/// A numeric `exclusiveMinimum`/`exclusiveMaximum` (draft 6 on).
fn exclusive(value: &Value) -> Option<Option<Bound>> {
    value.as_f64().map(|value| Some(Bound { value, exclusive: true }))
}

/// A count: a non-negative integer, written `3` or `3.0`.
pub(super) fn count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f <= u64::MAX as f64).map(|f| f as u64)
    })
}

/// Of two bounds, the one that lets fewer numbers through; `beyond` says which value is stricter.
fn stricter(a: Option<Bound>, b: Option<Bound>, beyond: fn(&f64, &f64) -> bool) -> Option<Bound> {
    match (a, b) {
        (Some(a), Some(b)) if a.value == b.value => {
            Some(Bound { value: a.value, exclusive: a.exclusive || b.exclusive })
        }
        (Some(a), Some(b)) => Some(if beyond(&a.value, &b.value) { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// The most distinct `pattern`s one schema may hold: each costs a regex compilation.
const MAX_PATTERNS: usize = 128;

/// The largest compiled regex, in bytes (regex-lite's estimate): ample for the patterns tool
/// schemas use (formats, ids, codes), and a bound on compile and match time (`a{99999}` took 10 ms
/// to compile, and a schema could repeat it).
const MAX_PATTERN_BYTES: usize = 64 * 1024;

impl Compiler<'_> {
    /// Compiles a `pattern` once per schema, translated from ECMA-262 (`ecma.rs`); `None` when it
    /// uses lookaround, which regex-lite has no engine for (the caller checks it another way or
    /// refuses it); backreferences and `\p{…}` fail.
    pub(super) fn pattern(&mut self, source: &str, at: &str) -> Result<Option<Pattern>, SchemaError> {
        if let Some(compiled) = self.patterns.get(source) {
            return Ok(compiled.clone());
        }
        if self.patterns.len() >= MAX_PATTERNS {
            return Err(SchemaError::TooManyPatterns { path: fragment(at), limit: MAX_PATTERNS });
        }
        let invalid = |reason: String| SchemaError::InvalidPattern {
            path: fragment(at),
            pattern: source.to_owned(),
            reason,
        };
        let compiled = match translate(source) {
            Ok(translated) => {
                let regex = RegexBuilder::new(&translated)
                    .size_limit(MAX_PATTERN_BYTES)
                    .build()
                    .map_err(|error| invalid(error.to_string()))?;
                Some(Pattern { source: source.to_owned(), regex, anchored: Anchored::parse(source) })
            }
            Err(Refusal::EcmaOnly(_)) => None,
            Err(Refusal::Invalid(reason)) => return Err(invalid(reason)),
        };
        self.patterns.insert(source.to_owned(), compiled.clone());
        Ok(compiled)
    }
}

/// The formats whose assertion stands in for a lookaround `pattern` beside them.
const COVERING_FORMATS: &str = "email, uri, uuid, date, date-time, time, ipv4 or ipv6";

/// The check that stands in for a `pattern` with lookaround (regex-lite has none): the `format`
/// of the same schema, asserted whatever `formats` says, when it is one keel checks. Zod's
/// `z.email()` writes such a pattern beside `"format": "email"`, and the pattern says no more than
/// an e-mail address: leading, trailing and doubled dots, which the format refuses too. Without
/// such a format the schema is refused, naming the pattern: nothing goes unchecked in silence.
fn lookaround_cover(map: &Map<String, Value>, source: &str, at: &str) -> Result<StringFormat, SchemaError> {
    let format = map.get("format").and_then(Value::as_str);
    format.and_then(StringFormat::named).ok_or_else(|| SchemaError::InvalidPattern {
        path: fragment(at),
        pattern: source.to_owned(),
        reason: format!(
            "lookaround ((?=, (?!, (?<=, (?<!) is ECMA-262 syntax keel's regex engine (regex-lite) \
             cannot check; keel checks such a pattern only beside a `format` it asserts in the \
             pattern's place ({COVERING_FORMATS}){}: write the pattern without lookaround, or give \
             the field one of those formats",
            format.map_or(String::new(), |f| format!(", not {f:?}"))
        ),
    })
}

/// Rejects `enum`/`const` values nested deeper than keel checks; measured with an explicit stack so
/// the measuring itself cannot overflow.
fn shallow_enough(value: &Value, at: &str) -> Result<(), SchemaError> {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(SchemaError::TooDeep { path: fragment(at), limit: MAX_DEPTH });
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}
