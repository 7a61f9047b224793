//! Unit tests for schema compilation and validation, with exact expectations on every issue.

mod alternatives;
// proptest does not build for wasm32 (`wasm-pack test` compiles these).
#[cfg(not(target_arch = "wasm32"))]
mod anchored;
mod applicators;
mod compile_errors;
mod conditions;
mod ecma;
mod formats;
mod keywords;
mod limits;
mod objects;
mod tags;
mod zod;

use serde_json::Value;

use super::Schema;
use crate::errors::{FieldIssue, IssueKind};

/// Every issue `value` has against `schema`.
fn issues(schema: Value, value: Value) -> Vec<FieldIssue> {
    let compiled = Schema::compile(&schema).expect("the test schema compiles");
    // The full walk on its own, so that the yes/no walk run first is checked against it here.
    let full = super::validate::validate(&compiled.nodes, compiled.root, &value);
    assert_eq!(compiled.is_valid(&value), full.is_empty(), "the yes/no walk agrees: {full:#?}");
    assert_eq!(compiled.validate(&value), full);
    full
}

/// The one issue `value` has against `schema`.
fn only(schema: Value, value: Value) -> FieldIssue {
    let mut all = issues(schema, value);
    assert_eq!(all.len(), 1, "expected exactly one issue, got {all:#?}");
    all.remove(0)
}

/// An issue with no options or suggestion.
fn issue(path: &str, kind: IssueKind, expected: &str, sent: Option<Value>) -> FieldIssue {
    FieldIssue {
        path: path.to_owned(),
        kind,
        expected: expected.to_owned(),
        sent,
        options: Vec::new(),
        suggestion: None,
    }
}

/// An issue with options and maybe a suggestion.
fn with_options(mut issue: FieldIssue, options: &[&str], suggestion: Option<&str>) -> FieldIssue {
    issue.options = options.iter().map(|o| o.to_string()).collect();
    issue.suggestion = suggestion.map(str::to_owned);
    issue
}
