//! Failure codes: what went wrong, independent of how it is rendered.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::FailureClass;

/// A failure code. Built-in codes carry default recovery plans; tools may raise their own
/// domain codes (`InvoiceNotFound`) through [`ErrorCode::Custom`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The model named a tool that does not exist.
    UnknownTool,
    /// The arguments did not match the tool's input schema.
    InvalidArgs,
    /// A required argument was missing.
    MissingField,
    /// The model's output could not be read as a step.
    InvalidOutput,
    /// The call took longer than its timeout.
    Timeout,
    /// The callee asked us to slow down (HTTP 429).
    RateLimited,
    /// The callee is temporarily unavailable (HTTP 5xx, a transient browser error).
    Unavailable,
    /// The network failed before an answer came back.
    Network,
    /// The thing asked for does not exist.
    NotFound,
    /// A reference (element, cursor, handle) is no longer valid.
    StaleReference,
    /// The caller may not do this.
    Permission,
    /// The request conflicts with the current state.
    Conflict,
    /// Storage or another quota is full.
    QuotaExceeded,
    /// The prompt no longer fits the model's context window.
    ContextOverflow,
    /// A safety filter refused the input or output.
    SafetyBlocked,
    /// The operation or option is not supported here.
    Unsupported,
    /// No model can run: not available on this device, not allowed, or misconfigured.
    ModelUnavailable,
    /// The model backend refused the request itself (HTTP 400/422, a bad option): a wrong model
    /// name, option or request shape, or a server that cannot take keel's request. Not the tool
    /// arguments' [`ErrorCode::InvalidArgs`]; fatal, as retrying the same request gets the same answer.
    ModelRequestRejected,
    /// The run was cancelled.
    Aborted,
    /// An unexpected error inside a tool or the runtime.
    Internal,
    /// An id or reference argument appears in no earlier result and not in the task: it was
    /// guessed, so the call was not run.
    UnseenId,
    /// A final answer states facts found in no tool result, no tool argument and not in the task.
    UngroundedAnswer,
    /// An argument contradicts a time or a count the task states ("four people" and `people: 1`):
    /// the call was refused once, before it ran; sent again unchanged, it runs.
    ContradictsTask,
    /// A final answer, grounded, does not give what the task asks for: one of several amounts
    /// where the task asks for them combined, or another unit than the one the task names.
    AnswerMismatch,
    /// The user rejected a call that needed their approval (the tool's `needsApproval`): it was
    /// not run. Persistent: the runtime never retries it.
    ApprovalRejected,
    /// A call of a tool with side effects was cut off (a reload, a terminated worker) after its
    /// intent was stored and before its result was: it may or may not have taken effect, so the
    /// resumed run did not make it again. Persistent: never retried by the runtime.
    OutcomeUnknown,
    /// A tool's own code, e.g. `InvoiceNotFound`.
    Custom(String),
}

const BUILT_IN: &[(ErrorCode, &str)] = &[
    (ErrorCode::UnknownTool, "UNKNOWN_TOOL"),
    (ErrorCode::InvalidArgs, "INVALID_ARGS"),
    (ErrorCode::MissingField, "MISSING_FIELD"),
    (ErrorCode::InvalidOutput, "INVALID_OUTPUT"),
    (ErrorCode::Timeout, "TIMEOUT"),
    (ErrorCode::RateLimited, "RATE_LIMITED"),
    (ErrorCode::Unavailable, "UNAVAILABLE"),
    (ErrorCode::Network, "NETWORK_ERROR"),
    (ErrorCode::NotFound, "NOT_FOUND"),
    (ErrorCode::StaleReference, "STALE_REFERENCE"),
    (ErrorCode::Permission, "PERMISSION_DENIED"),
    (ErrorCode::Conflict, "CONFLICT"),
    (ErrorCode::QuotaExceeded, "QUOTA_EXCEEDED"),
    (ErrorCode::ContextOverflow, "CONTEXT_OVERFLOW"),
    (ErrorCode::SafetyBlocked, "SAFETY_BLOCKED"),
    (ErrorCode::Unsupported, "UNSUPPORTED"),
    (ErrorCode::ModelUnavailable, "MODEL_UNAVAILABLE"),
    (ErrorCode::ModelRequestRejected, "MODEL_REQUEST_REJECTED"),
    (ErrorCode::Aborted, "ABORTED"),
    (ErrorCode::Internal, "INTERNAL_ERROR"),
    (ErrorCode::UnseenId, "UNSEEN_ID"),
    (ErrorCode::UngroundedAnswer, "UNGROUNDED_ANSWER"),
    (ErrorCode::ContradictsTask, "CONTRADICTS_TASK"),
    (ErrorCode::AnswerMismatch, "ANSWER_MISMATCH"),
    (ErrorCode::ApprovalRejected, "APPROVAL_REJECTED"),
    (ErrorCode::OutcomeUnknown, "OUTCOME_UNKNOWN"),
];

/// Other spellings tools commonly use for the built-in codes (Vurb, Node errno, HTTP reason phrases).
const ALIASES: &[(&str, ErrorCode)] = &[
    ("VALIDATION_ERROR", ErrorCode::InvalidArgs),
    ("BAD_REQUEST", ErrorCode::InvalidArgs),
    ("INVALID_ARGUMENT", ErrorCode::InvalidArgs),
    ("MISSING_REQUIRED_FIELD", ErrorCode::MissingField),
    ("UNKNOWN_ACTION", ErrorCode::UnknownTool),
    ("ETIMEDOUT", ErrorCode::Timeout),
    ("DEADLINE_EXCEEDED", ErrorCode::Timeout),
    ("TOO_MANY_REQUESTS", ErrorCode::RateLimited),
    ("SERVER_BUSY", ErrorCode::Unavailable),
    ("SERVICE_UNAVAILABLE", ErrorCode::Unavailable),
    ("ECONNRESET", ErrorCode::Network),
    ("ECONNREFUSED", ErrorCode::Network),
    ("ENOTFOUND", ErrorCode::Network),
    ("NETWORK", ErrorCode::Network),
    ("STALE_REF", ErrorCode::StaleReference),
    ("UNAUTHORIZED", ErrorCode::Permission),
    ("FORBIDDEN", ErrorCode::Permission),
    ("PERMISSION", ErrorCode::Permission),
    ("INTERNAL", ErrorCode::Internal),
    // OpenAI-compatible servers (llama.cpp, vLLM) answer an oversized prompt with HTTP 400 and this code.
    ("CONTEXT_LENGTH_EXCEEDED", ErrorCode::ContextOverflow),
];

impl ErrorCode {
    /// The built-in codes' wire spellings, in the order the page lists them.
    pub fn built_in() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(_, s)| *s)
    }

    /// The wire spelling: `SCREAMING_SNAKE` for built-in codes, the tool's own spelling otherwise.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::Custom(code) => code,
            known => BUILT_IN.iter().find(|(c, _)| c == known).map(|(_, s)| *s).unwrap_or("INTERNAL_ERROR"),
        }
    }

    /// Reads a code a tool or a JS error supplied. Built-in spellings and common aliases
    /// (case-insensitive, `-` or `_`) map to the built-in code; anything else is kept as a custom code.
    pub fn parse(text: &str) -> ErrorCode {
        let norm: String = text
            .trim()
            .chars()
            .map(|c| if c == '-' || c == ' ' { '_' } else { c.to_ascii_uppercase() })
            .collect();
        if let Some((code, _)) = BUILT_IN.iter().find(|(_, s)| *s == norm) {
            return code.clone();
        }
        if let Some((_, code)) = ALIASES.iter().find(|(s, _)| *s == norm) {
            return code.clone();
        }
        ErrorCode::Custom(text.trim().to_string())
    }

    /// The class a failure with this code has unless the tool says otherwise.
    pub fn default_class(&self) -> FailureClass {
        match self {
            ErrorCode::Timeout | ErrorCode::RateLimited | ErrorCode::Unavailable | ErrorCode::Network => {
                FailureClass::Transient
            }
            ErrorCode::ModelUnavailable | ErrorCode::ModelRequestRejected | ErrorCode::Aborted => {
                FailureClass::Fatal
            }
            _ => FailureClass::Persistent,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(ErrorCode::parse(&text))
    }
}

/// `ErrorCode` serialises as its string; its TypeScript type is generated into `js/codes.d.ts`,
/// and the wire types that carry one (`src/typescript.rs`) name it. Under `cfg(test)` on every
/// target, as the derives that use it are (`wasm-pack test` compiles them for wasm32).
#[cfg(test)]
impl ts_rs::TS for ErrorCode {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;

    fn name(_: &ts_rs::Config) -> String {
        "ErrorCode".to_string()
    }

    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_codes_round_trip_through_their_spelling() {
        for (code, text) in BUILT_IN {
            assert_eq!(code.as_str(), *text);
            assert_eq!(&ErrorCode::parse(text), code);
        }
    }

    #[test]
    fn aliases_and_case_map_to_built_in_codes() {
        assert_eq!(ErrorCode::parse("validation-error"), ErrorCode::InvalidArgs);
        assert_eq!(ErrorCode::parse("not_found"), ErrorCode::NotFound);
        assert_eq!(ErrorCode::parse("ECONNRESET"), ErrorCode::Network);
    }

    #[test]
    fn unknown_codes_stay_custom_with_their_spelling() {
        let code = ErrorCode::parse("InvoiceNotFound");
        assert_eq!(code, ErrorCode::Custom("InvoiceNotFound".into()));
        assert_eq!(code.as_str(), "InvoiceNotFound");
        assert_eq!(code.default_class(), FailureClass::Persistent);
    }
}
