//! Reading the draft 2019/2020 applicators and counts (`not`, `if`, `patternProperties`,
//! `dependentSchemas`, `contains`, `uniqueItems`, `multipleOf`…) into [`Rules`].

use serde_json::Value;

use super::compile::{child, fragment, Compiler};
use super::error::SchemaError;
use super::formats::{Formats, StringFormat};
use super::keywords::{count, COUNT};
use super::node::{NodeId, Rules};

/// Keywords read before the sibling they go with is known: `if` with `then`/`else`, `contains` with
/// `minContains`/`maxContains`.
#[derive(Default)]
pub(super) struct Later {
    /// `if`.
    pub test: Option<NodeId>,
    /// `then`.
    pub then: Option<NodeId>,
    /// `else`.
    pub other: Option<NodeId>,
    /// `contains`.
    pub contains: Option<NodeId>,
    /// `minContains`.
    pub min_contains: Option<u64>,
    /// `maxContains`.
    pub max_contains: Option<u64>,
}

impl Compiler<'_> {
    /// Reads one keyword that [`Compiler::rules`] does not handle itself; annotations and unknown
    /// keywords are left alone, keywords that change validity but that keel cannot check fail.
    #[inline(never)]
    pub(super) fn applicator(
        &mut self,
        rules: &mut Rules,
        later: &mut Later,
        keyword: &str,
        value: &Value,
        at: String,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let wrong = |expected| SchemaError::WrongKeywordType {
            path: fragment(&at),
            keyword: keyword.to_owned(),
            expected,
        };
        match keyword {
            "not" => rules.not = Some(self.schema(value, at.clone(), depth + 1)?),
            "if" => later.test = Some(self.schema(value, at.clone(), depth + 1)?),
            "then" => later.then = Some(self.schema(value, at.clone(), depth + 1)?),
            "else" => later.other = Some(self.schema(value, at.clone(), depth + 1)?),
            "multipleOf" => {
                let positive = value.as_f64().is_some_and(|m| m > 0.0);
                rules.multiple_of = Some(value.clone()).filter(|_| positive);
                rules.multiple_of.as_ref().ok_or_else(|| wrong("a number greater than 0"))?;
            }
            "patternProperties" => {
                let patterns = value.as_object().ok_or_else(|| wrong("an object of schemas"))?;
                for (source, schema) in patterns {
                    let place = child(&at, source);
                    let id = self.schema(schema, place.clone(), depth + 1)?;
                    // A pattern left unchecked here would turn the keys it names into unknown keys.
                    let pattern = self.pattern(source, &place)?.ok_or_else(|| SchemaError::InvalidPattern {
                        path: fragment(&place),
                        pattern: source.clone(),
                        reason: "lookaround is ECMA-262 syntax keel's regex engine (regex-lite) cannot check, \
                                 and a patternProperties key cannot go unchecked"
                            .to_string(),
                    })?;
                    rules.pattern_properties.push((pattern, id));
                }
            }
            "propertyNames" => rules.property_names = self.optional(value, at.clone(), depth)?,
            "minProperties" => rules.min_properties = Some(count(value).ok_or_else(|| wrong(COUNT))?),
            "maxProperties" => rules.max_properties = Some(count(value).ok_or_else(|| wrong(COUNT))?),
            "dependentRequired" | "dependentSchemas" | "dependencies" => {
                let entries = value.as_object().ok_or_else(|| wrong("an object"))?;
                for (name, entry) in entries {
                    let place = child(&at, name);
                    match entry {
                        Value::Array(names) if keyword != "dependentSchemas" => {
                            let names: Option<Vec<String>> =
                                names.iter().map(|n| n.as_str().map(str::to_owned)).collect();
                            let names = names.ok_or_else(|| wrong("an object of arrays of strings"))?;
                            rules.dependent_required.push((name.clone(), names));
                        }
                        _ if keyword != "dependentRequired" => {
                            let id = self.schema(entry, place, depth + 1)?;
                            rules.dependent_schemas.push((name.clone(), id));
                        }
                        _ => return Err(wrong("an object of arrays of strings")),
                    }
                }
            }
            "contains" => later.contains = Some(self.schema(value, at.clone(), depth + 1)?),
            "minContains" => later.min_contains = Some(count(value).ok_or_else(|| wrong(COUNT))?),
            "maxContains" => later.max_contains = Some(count(value).ok_or_else(|| wrong(COUNT))?),
            "uniqueItems" => rules.unique_items = value.as_bool().ok_or_else(|| wrong("a boolean"))?,
            // An annotation unless assertions were asked for; names keel does not check stay one.
            "format" if self.formats == Formats::Assertion => {
                rules.format = value.as_str().and_then(StringFormat::named);
            }
            // Keywords that change what is valid but that keel cannot check: refusing the schema
            // is better than accepting what it forbids.
            "unevaluatedProperties" | "unevaluatedItems" | "$dynamicRef" | "$recursiveRef" => {
                return Err(SchemaError::Unsupported { path: fragment(&at), keyword: keyword.to_owned() })
            }
            // Annotations (`title`, `format`, `default`, `examples`…) and keywords no draft defines.
            _ => {}
        }
        Ok(())
    }
}
