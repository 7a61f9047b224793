//! One problem with one argument: the unit of a validation failure.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What kind of problem a [`FieldIssue`] reports (`wrongType`, camelCase like the rest of the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum IssueKind {
    /// A required property is absent.
    Missing,
    /// The value has the wrong JSON type.
    WrongType,
    /// The value is not one of the allowed values (`enum`, `const`).
    NotAllowed,
    /// The object has a property the schema does not allow.
    UnknownKey,
    /// A number is outside its bounds (`minimum`, `maximum`, exclusive bounds).
    OutOfRange,
    /// A string or array is too short or too long.
    Length,
    /// A string does not match its `pattern`.
    Pattern,
    /// No alternative of an `anyOf` / `oneOf` matched, or more than one `oneOf` did.
    NoMatch,
    /// The value is nested too deeply (or is too large) to check; nothing past that point was checked.
    TooComplex,
}

/// A single validation problem, with everything the model needs to fix it in one go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FieldIssue {
    /// Where: `city`, `items[2].qty`; the empty string is the arguments object itself.
    pub path: String,
    /// What kind of problem.
    pub kind: IssueKind,
    /// What was expected, in words (`a string`, `at most 10`, `one of "c", "f"`).
    pub expected: String,
    /// The value sent, when there was one (absent for a missing field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub sent: Option<Value>,
    /// The valid options, when they are few enough to list (enum values, allowed keys).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub options: Vec<String>,
    /// The closest valid key or value, when one is close enough to be a likely typo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub suggestion: Option<String>,
}

impl FieldIssue {
    /// The path as shown to the model: `(root)` for the arguments object itself.
    pub fn display_path(&self) -> &str {
        if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        }
    }
}
