//! The recovery envelope: one shape for every failure the model is shown.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::plans::{default_plan, PlanContext};
use super::{Classification, ErrorCode, FailureClass, FieldIssue, RawFailure, Severity};

/// Everything the model needs to recover from one failure: what failed, why it probably failed,
/// numbered steps naming the exact tools to call, what it may call, and what it sent.
///
/// keel's renderers turn it into XML, text or a one-line string for the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    /// What went wrong.
    pub code: ErrorCode,
    /// How the runtime treats it.
    pub class: FailureClass,
    /// How loudly it is reported.
    pub severity: Severity,
    /// The tool that failed, if a tool did.
    pub tool: Option<String>,
    /// What failed, with the specifics.
    pub message: String,
    /// Likely causes, most likely first.
    pub causes: Vec<String>,
    /// Numbered recovery steps naming exact tools.
    pub recovery: Vec<String>,
    /// Tools the model may call next.
    pub available_actions: Vec<String>,
    /// How long to wait before the same call can succeed, in milliseconds.
    pub retry_after_ms: Option<u64>,
    /// Structured facts (the reference, the status, attempts made).
    pub details: Map<String, Value>,
    /// Whether this failure is a normal occurrence rather than a bug.
    pub expected: bool,
    /// The arguments the model sent.
    pub sent: Option<Value>,
    /// Per-field validation issues, for invalid arguments.
    pub issues: Vec<FieldIssue>,
}

/// What the runtime knows about a failing call beyond the failure itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallContext<'a> {
    /// The tool called, if any.
    pub tool: Option<&'a str>,
    /// The arguments sent.
    pub args: Option<&'a Value>,
    /// Tools whose output supplies the ids this tool takes (from its spec).
    pub refs_from: &'a [String],
    /// Every tool the model may call.
    pub available: &'a [String],
    /// Tool names close to the one asked for ("did you mean").
    pub suggestions: &'a [String],
    /// Per-field validation issues, for invalid arguments.
    pub issues: &'a [FieldIssue],
    /// Attempts the runtime made before giving up (0 or 1: the call was tried once).
    pub attempts: u32,
}

impl Envelope {
    /// Builds the envelope for a classified failure: the code's default plan, then every field the
    /// tool set itself on top.
    pub fn from_failure(raw: &RawFailure, classification: Classification, ctx: CallContext<'_>) -> Envelope {
        let plan = default_plan(
            &classification.code,
            &PlanContext {
                tool: ctx.tool,
                refs_from: ctx.refs_from,
                suggestions: ctx.suggestions,
                retry_after_ms: raw.retry_after_ms,
                attempts: ctx.attempts.max(1),
                has_issues: !ctx.issues.is_empty(),
                args: ctx.args,
            },
        );
        let hints = &raw.hints;
        let mut details = Map::new();
        if let Some(status) = raw.status {
            details.insert("status".into(), status.into());
        }
        // The generic class names say nothing a model can act on; a DOMException's name does.
        if let Some(name) = raw.name.as_deref().filter(|n| !matches!(*n, "" | "Error" | "ToolError")) {
            details.insert("error".into(), name.into());
        }
        if ctx.attempts > 1 {
            details.insert("attempts".into(), ctx.attempts.into());
        }
        details.extend(hints.details.clone());
        let severity = hints.severity.unwrap_or(match classification.class {
            FailureClass::Fatal => Severity::Critical,
            _ => Severity::Error,
        });
        let message =
            if raw.message.trim().is_empty() { plan.summary } else { raw.message.trim().to_string() };
        Envelope {
            code: classification.code,
            class: classification.class,
            severity,
            tool: ctx.tool.map(str::to_string),
            message,
            causes: hints.causes.clone().unwrap_or(plan.causes),
            recovery: hints.recovery.clone().unwrap_or(plan.recovery),
            available_actions: hints
                .available_actions
                .clone()
                .unwrap_or_else(|| plan.available_actions.unwrap_or_else(|| ctx.available.to_vec())),
            retry_after_ms: raw.retry_after_ms,
            details,
            expected: hints.expected.unwrap_or(plan.expected),
            sent: ctx.args.cloned(),
            issues: ctx.issues.to_vec(),
        }
    }

    /// Adds one structured detail.
    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Envelope {
        self.details.insert(key.to_string(), value.into());
        self
    }
}
