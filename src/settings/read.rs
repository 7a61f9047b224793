//! Reading what the page hands keel (the agent's config, the store's options, tool declarations,
//! failure queries) into their serde types, with errors that say where, what came and what was expected.
//!
//! The types themselves are the one definition of what is accepted: they refuse unknown keys
//! (`deny_unknown_fields`), and [`read`] turns serde's "unknown field `maxStep`, expected one of
//! `maxSteps`, …" into "`maxStep`: unknown key (did you mean `maxSteps`?)", so a key added to a type
//! is accepted, and suggested, with no list to keep in step. serde would also read an object from
//! an array, by position; the reader ([`super::tracked`]) refuses that wherever the type has an
//! object.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tools::closest;

/// A setting that could not be read: where, and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    /// Where, as the page spells it: `config.retry.maxAttempts`, `tools[2].timeoutMs`.
    pub path: String,
    /// What came and what was expected, or the unknown key and the closest known one.
    pub message: String,
    /// Whether the error is an unknown key (rather than a value of the wrong kind).
    pub unknown_key: bool,
    /// For an unknown key, the closest known one (`maxSteps` for `maxStep`).
    pub suggestion: Option<String>,
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.path, self.message)
    }
}

impl std::error::Error for SettingError {}

/// Reads `value` as a `T`. `at` names the value (`config`, `tools[0]`); `also_known` are keys the
/// caller reads apart from `T` (removed from `value` before), offered as suggestions too.
pub fn read<T: DeserializeOwned>(value: &Value, at: &str, also_known: &[&str]) -> Result<T, SettingError> {
    super::tracked::deserialize(value).map_err(|(e, place)| setting_error(&e, &place, at, also_known))
}

/// serde's error at `place` in the page's terms: one function for every type [`read`] reads, not a
/// copy in each.
fn setting_error(error: &serde_json::Error, place: &str, at: &str, also_known: &[&str]) -> SettingError {
    let inner = error.to_string();
    let path = join(at, place);
    match unknown_key(&inner) {
        Some((key, mut known)) => {
            known.extend(also_known.iter().map(|k| k.to_string()));
            // A key's error is placed at its object: the key is added to the path.
            let path = format!("{path}.{key}");
            let suggestion = closest(&key, known.iter().map(String::as_str)).first().map(|s| s.to_string());
            let hint = match &suggestion {
                Some(near) => format!("did you mean `{near}`?"),
                None if known.is_empty() => "it takes no keys".to_string(),
                None => format!("known keys: {}", known.join(", ")),
            };
            SettingError { path, message: format!("unknown key ({hint})"), unknown_key: true, suggestion }
        }
        None => SettingError { path, message: plain(&inner), unknown_key: false, suggestion: None },
    }
}

fn join(at: &str, path: &str) -> String {
    match path {
        "" | "." => at.to_string(),
        p if p.starts_with('[') => format!("{at}{p}"),
        p => format!("{at}.{p}"),
    }
}

/// The key and the known keys of serde's "unknown field `x`, expected one of `a`, `b`" (also
/// "expected `a` or `b`", "expected `a`", "there are no fields").
fn unknown_key(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (key, rest) = rest.split_once('`')?;
    let known = rest.split('`').skip(1).step_by(2).map(str::to_string).collect();
    Some((key.to_string(), known))
}

/// serde's wording, in the page's terms: `invalid type: floating point `1e300`, expected u32` →
/// `got the number 1e300; expected a whole number from 0 to 4294967295`.
fn plain(message: &str) -> String {
    let Some((got, expected)) = message.rsplit_once(", expected ") else { return message.to_string() };
    let got = got
        .trim_start_matches("invalid type: ")
        .trim_start_matches("invalid value: ")
        .replace("floating point", "the number")
        .replace("integer", "the number")
        .replace("sequence", "an array")
        .replace("map", "an object")
        .replace("unit value", "null");
    let expected = match expected {
        "u8" => "a whole number from 0 to 255".to_string(),
        "u16" => "a whole number from 0 to 65535".to_string(),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "u64" | "usize" => "a whole number, 0 or more".to_string(),
        "i32" | "i64" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        other if other.starts_with("struct ") => "an object".to_string(),
        other => other.to_string(),
    };
    if got.starts_with("unknown variant") {
        return format!("{got}; expected {expected}");
    }
    format!("got {got}; expected {expected}")
}
