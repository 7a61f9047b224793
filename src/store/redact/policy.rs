//! The declarative redaction policy: `config.store.redact = {keys, tools, mask}`.

use std::collections::{BTreeMap, BTreeSet};

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;
use serde_json::Value;

use super::{Redactor, DEFAULT_MASK};
use crate::errors::RawFailure;
use crate::settings::ConfigError;
use crate::text::clip;
use crate::turn::Action;

/// Which arguments to mask, and which calls to drop, before a step is stored.
///
/// - `keys`: argument names whose values are masked in every call, matched case-insensitively at
///   any depth of the arguments, inside arrays too (`password` masks `{"user": {"Password": …}}`
///   and `{"logins": [{"password": …}]}`). A masked value is replaced whole, objects and arrays
///   included.
/// - `tools`: per tool (by exact name), `"drop"` to store none of its arguments, or more names to
///   mask in its calls only.
/// - `mask`: what stands in for a masked value, for dropped arguments and in scrubbed text
///   (default `[redacted]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactPolicy {
    /// Lower-cased.
    keys: BTreeSet<String>,
    tools: BTreeMap<String, ToolRule>,
    mask: String,
}

/// What a policy does with one tool's calls.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ToolRule {
    /// Store none of the arguments.
    Drop,
    /// Mask these names as well (lower-cased).
    Keys(BTreeSet<String>),
}

impl RedactPolicy {
    /// Reads a policy from its JSON (`{keys?, tools?, mask?}`); anything else in it, or a value of
    /// the wrong kind, is an error naming the setting (`store.redact.keys[1]`).
    pub fn from_json(value: &Value) -> Result<RedactPolicy, ConfigError> {
        let Value::Object(fields) = value else {
            return Err(invalid("store.redact".into(), value, "an object {keys, tools, mask}"));
        };
        let mut policy =
            RedactPolicy { keys: BTreeSet::new(), tools: BTreeMap::new(), mask: DEFAULT_MASK.to_string() };
        for (name, value) in fields {
            let field = format!("store.redact.{name}");
            match name.as_str() {
                "keys" => policy.keys = names(&field, value)?,
                "tools" => policy.tools = tools(&field, value)?,
                "mask" => match value {
                    Value::String(mask) => policy.mask = mask.clone(),
                    other => return Err(invalid(field, other, "a string")),
                },
                _ => {
                    // The three keys, each with its own sentence: `expected` is static text.
                    let expected = match crate::tools::closest(name, ["keys", "tools", "mask"]).first() {
                        Some(&"keys") => "not a redaction setting: did you mean `keys`?",
                        Some(&"tools") => "not a redaction setting: did you mean `tools`?",
                        Some(_) => "not a redaction setting: did you mean `mask`?",
                        None => "not a redaction setting: use keys, tools or mask",
                    };
                    return Err(invalid(field, value, expected));
                }
            }
        }
        Ok(policy)
    }

    /// Checks that every tool the policy names is one of `known`: a misspelt name would leave that
    /// tool's arguments stored unredacted.
    pub fn check_tools(&self, known: &[String]) -> Result<(), ConfigError> {
        match self.tools.keys().find(|tool| !known.contains(tool)) {
            Some(tool) => Err(invalid(
                format!("store.redact.tools.{tool}"),
                &Value::String(tool.clone()),
                "the name of one of the agent's tools",
            )),
            None => Ok(()),
        }
    }

    /// The arguments to store for a call to `tool`, or `None` to drop them.
    pub fn apply(&self, tool: &str, args: &Value) -> Option<Value> {
        let extra = match self.tools.get(tool) {
            Some(ToolRule::Drop) => return None,
            Some(ToolRule::Keys(keys)) => Some(keys),
            None => None,
        };
        let masked = |key: &str| {
            let key = key.to_lowercase();
            self.keys.contains(&key) || extra.is_some_and(|extra| extra.contains(&key))
        };
        let mut args = args.clone();
        mask_keys(&mut args, &masked, &self.mask);
        Some(args)
    }
}

impl Redactor for RedactPolicy {
    fn redact<'a>(&'a self, call: &'a Action) -> LocalBoxFuture<'a, Result<Option<Value>, RawFailure>> {
        future::ready(Ok(self.apply(&call.tool, &call.args))).boxed_local()
    }

    fn mask(&self) -> &str {
        &self.mask
    }
}

/// Replaces the value of every key `masked` accepts, at any depth, with `mask`.
fn mask_keys(value: &mut Value, masked: &dyn Fn(&str) -> bool, mask: &str) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if masked(key) {
                    *item = Value::String(mask.to_string());
                } else {
                    mask_keys(item, masked, mask);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| mask_keys(item, masked, mask)),
        _ => {}
    }
}

/// A list of argument names, lower-cased.
fn names(field: &str, value: &Value) -> Result<BTreeSet<String>, ConfigError> {
    let Value::Array(items) = value else {
        return Err(invalid(field.to_string(), value, "an array of argument names"));
    };
    let mut names = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(name) if !name.trim().is_empty() => names.insert(name.to_lowercase()),
            other => {
                return Err(invalid(format!("{field}[{i}]"), other, "an argument name (a non-empty string)"))
            }
        };
    }
    Ok(names)
}

/// `tools`: tool name → `"drop"` or a list of argument names.
fn tools(field: &str, value: &Value) -> Result<BTreeMap<String, ToolRule>, ConfigError> {
    let Value::Object(rules) = value else {
        return Err(invalid(field.to_string(), value, "an object of tool name → \"drop\" or argument names"));
    };
    let mut tools = BTreeMap::new();
    for (tool, rule) in rules {
        tools.insert(tool.clone(), tool_rule(&format!("{field}.{tool}"), rule)?);
    }
    Ok(tools)
}

fn tool_rule(field: &str, rule: &Value) -> Result<ToolRule, ConfigError> {
    match rule {
        Value::String(drop) if drop == "drop" => Ok(ToolRule::Drop),
        Value::Array(_) => names(field, rule).map(ToolRule::Keys),
        other => Err(invalid(field.to_string(), other, "\"drop\" or an array of argument names")),
    }
}

/// The error for `field` set to `value` where `expected` was wanted.
pub(super) fn invalid(field: String, value: &Value, expected: &'static str) -> ConfigError {
    ConfigError { field, value: clip(&value.to_string(), 80), expected }
}
