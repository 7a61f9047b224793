//! The one classifier: a raw failure's class and code, decided by the tool's code, then the error
//! name, then the HTTP status, and by message words only as a last resort (messages change between
//! browser versions; names and statuses do not).

use serde::{Deserialize, Serialize};

use super::{ErrorCode, FailureClass, Origin, RawFailure};

/// A failure's class and code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    /// What the runtime does with it.
    pub class: FailureClass,
    /// What went wrong.
    pub code: ErrorCode,
}

impl Classification {
    /// A code with its default class.
    pub fn of(code: ErrorCode) -> Self {
        Classification { class: code.default_class(), code }
    }
}

/// Classifies a failure from a tool or a model.
pub fn classify(raw: &RawFailure, origin: Origin) -> Classification {
    let mut found = raw
        .code
        .as_deref()
        .filter(|c| !c.trim().is_empty())
        .map(|c| {
            let code = ErrorCode::parse(c);
            // A custom code says what, not how: an HTTP status can still say it is transient.
            let class = match (&code, raw.status.and_then(by_status)) {
                (ErrorCode::Custom(_), Some(status)) => status.class,
                _ => code.default_class(),
            };
            Classification { class, code }
        })
        .or_else(|| raw.name.as_deref().and_then(|n| by_name(n, &raw.message, origin)))
        .or_else(|| raw.status.and_then(by_status))
        .or_else(|| by_message(&raw.message))
        .unwrap_or_else(|| Classification::of(ErrorCode::Internal));
    if origin == Origin::Model {
        found = for_model(found);
    }
    if let Some(class) = raw.hints.class {
        found.class = class;
    }
    found
}

/// Model failures the loop cannot hand back to the model: a model that cannot answer has no one to
/// read a recovery plan.
fn for_model(found: Classification) -> Classification {
    match found.code {
        // Wrong key, unknown model name, no such endpoint: configuration, not a passing state.
        ErrorCode::Permission | ErrorCode::NotFound => {
            Classification { class: FailureClass::Fatal, code: ErrorCode::ModelUnavailable }
        }
        // INVALID_ARGS is about a tool's arguments; from a model (HTTP 400/422, a RangeError for
        // an option) it is the request that was refused.
        ErrorCode::InvalidArgs => {
            Classification { class: FailureClass::Fatal, code: ErrorCode::ModelRequestRejected }
        }
        ErrorCode::Internal => Classification { class: FailureClass::Fatal, ..found },
        _ => found,
    }
}

/// DOMException and JS error names (the Prompt API's, fetch's, IndexedDB's, Web Locks').
fn by_name(name: &str, message: &str, origin: Origin) -> Option<Classification> {
    let model = origin == Origin::Model;
    let code = match name {
        "TimeoutError" => ErrorCode::Timeout,
        "NetworkError" => ErrorCode::Network,
        // Mostly transient per the Prompt API spec; IndexedDB's transaction hiccups likewise.
        "UnknownError" | "OperationError" | "TransactionInactiveError" => ErrorCode::Unavailable,
        "AbortError" if model => ErrorCode::Aborted,
        // The loop's own timeouts and cancels drop the call and never reach here: an AbortError
        // from a tool means the user or the page declined (a dismissed picker), which a retry
        // would only ask again.
        "AbortError" => {
            return Some(Classification { class: FailureClass::Persistent, code: ErrorCode::Aborted })
        }
        "QuotaExceededError" if model => ErrorCode::ContextOverflow,
        "QuotaExceededError" => ErrorCode::QuotaExceeded,
        "NotAllowedError" | "NotSupportedError" if model => ErrorCode::ModelUnavailable,
        "NotAllowedError" | "SecurityError" => ErrorCode::Permission,
        "NotSupportedError" => ErrorCode::Unsupported,
        // A destroyed session is recreated by the backend on retry.
        "InvalidStateError" if model => ErrorCode::Unavailable,
        "InvalidStateError" => ErrorCode::StaleReference,
        "NotFoundError" => ErrorCode::NotFound,
        "NotReadableError" if model => ErrorCode::SafetyBlocked,
        "NotReadableError" => ErrorCode::Permission,
        // The Prompt API raises SyntaxError for an unsatisfiable responseConstraint.
        "SyntaxError" if model => ErrorCode::Unsupported,
        "ConstraintError" => ErrorCode::Conflict,
        "DataError" | "RangeError" => ErrorCode::InvalidArgs,
        // fetch() rejects with a TypeError on network failure; only its message tells them apart.
        "TypeError" if is_fetch_network_message(message) => ErrorCode::Network,
        "TypeError" | "ReferenceError" | "SyntaxError" => ErrorCode::Internal,
        _ => return None,
    };
    Some(Classification::of(code))
}

/// The messages Chromium, Firefox and WebKit give fetch's network TypeError.
fn is_fetch_network_message(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    ["failed to fetch", "networkerror when attempting to fetch", "load failed", "network request failed"]
        .iter()
        .any(|w| m.contains(w))
}

/// HTTP statuses.
fn by_status(status: u16) -> Option<Classification> {
    let code = match status {
        408 => ErrorCode::Timeout,
        429 => ErrorCode::RateLimited,
        400 | 422 => ErrorCode::InvalidArgs,
        401 | 403 => ErrorCode::Permission,
        404 | 410 => ErrorCode::NotFound,
        409 | 412 => ErrorCode::Conflict,
        413 => ErrorCode::QuotaExceeded,
        501 | 505 => ErrorCode::Unsupported,
        500..=599 => ErrorCode::Unavailable,
        400..=499 => ErrorCode::InvalidArgs,
        _ => return None,
    };
    Some(Classification::of(code))
}

/// Message words, the last resort for errors with no name, code or status.
fn by_message(message: &str) -> Option<Classification> {
    let m = message.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| m.contains(w));
    let code = if has(&["timed out", "timeout"]) {
        ErrorCode::Timeout
    } else if has(&["rate limit", "too many requests"]) {
        ErrorCode::RateLimited
    } else if has(&["failed to fetch", "network", "connection reset", "connection refused", "load failed"]) {
        ErrorCode::Network
    } else if has(&["stale", "detached", "no longer attached"]) {
        ErrorCode::StaleReference
    } else if has(&["not found", "does not exist", "no such"]) {
        ErrorCode::NotFound
    } else if has(&["permission", "forbidden", "not allowed", "unauthorized"]) {
        ErrorCode::Permission
    } else {
        return None;
    };
    Some(Classification::of(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::FailureHints;

    fn tool(raw: RawFailure) -> (FailureClass, ErrorCode) {
        let c = classify(&raw, Origin::Tool);
        (c.class, c.code)
    }

    fn model(raw: RawFailure) -> (FailureClass, ErrorCode) {
        let c = classify(&raw, Origin::Model);
        (c.class, c.code)
    }

    #[test]
    fn http_statuses() {
        use FailureClass::*;
        assert_eq!(tool(RawFailure::http(429, "slow down")), (Transient, ErrorCode::RateLimited));
        assert_eq!(tool(RawFailure::http(503, "")), (Transient, ErrorCode::Unavailable));
        assert_eq!(tool(RawFailure::http(502, "")), (Transient, ErrorCode::Unavailable));
        assert_eq!(tool(RawFailure::http(408, "")), (Transient, ErrorCode::Timeout));
        assert_eq!(tool(RawFailure::http(404, "")), (Persistent, ErrorCode::NotFound));
        assert_eq!(tool(RawFailure::http(403, "")), (Persistent, ErrorCode::Permission));
        assert_eq!(tool(RawFailure::http(422, "")), (Persistent, ErrorCode::InvalidArgs));
        assert_eq!(tool(RawFailure::http(501, "")), (Persistent, ErrorCode::Unsupported));
    }

    #[test]
    fn a_model_backends_400_is_a_rejected_request_not_a_tools_bad_arguments() {
        use FailureClass::*;
        assert_eq!(model(RawFailure::http(400, "bad temperature")), (Fatal, ErrorCode::ModelRequestRejected));
        assert_eq!(model(RawFailure::http(422, "")), (Fatal, ErrorCode::ModelRequestRejected));
        assert_eq!(model(RawFailure::http(418, "")), (Fatal, ErrorCode::ModelRequestRejected));
        // The same status from a tool is still its arguments.
        assert_eq!(tool(RawFailure::http(400, "")), (Persistent, ErrorCode::InvalidArgs));
    }

    #[test]
    fn prompt_api_dom_exceptions_from_the_model() {
        use FailureClass::*;
        assert_eq!(model(RawFailure::named("UnknownError", "")), (Transient, ErrorCode::Unavailable));
        assert_eq!(model(RawFailure::named("OperationError", "")), (Transient, ErrorCode::Unavailable));
        assert_eq!(model(RawFailure::named("NetworkError", "")), (Transient, ErrorCode::Network));
        assert_eq!(model(RawFailure::named("InvalidStateError", "")), (Transient, ErrorCode::Unavailable));
        assert_eq!(model(RawFailure::named("NotSupportedError", "")), (Fatal, ErrorCode::ModelUnavailable));
        assert_eq!(model(RawFailure::named("NotAllowedError", "")), (Fatal, ErrorCode::ModelUnavailable));
        assert_eq!(model(RawFailure::named("AbortError", "")), (Fatal, ErrorCode::Aborted));
        assert_eq!(
            model(RawFailure::named("QuotaExceededError", "")),
            (Persistent, ErrorCode::ContextOverflow)
        );
        assert_eq!(model(RawFailure::named("NotReadableError", "")), (Persistent, ErrorCode::SafetyBlocked));
        assert_eq!(model(RawFailure::named("SyntaxError", "")), (Persistent, ErrorCode::Unsupported));
        assert_eq!(model(RawFailure::named("TypeError", "bad option")), (Fatal, ErrorCode::Internal));
        assert_eq!(model(RawFailure::named("RangeError", "topK")), (Fatal, ErrorCode::ModelRequestRejected));
    }

    #[test]
    fn the_same_name_means_different_things_for_tools() {
        use FailureClass::*;
        assert_eq!(tool(RawFailure::named("NotSupportedError", "")), (Persistent, ErrorCode::Unsupported));
        assert_eq!(tool(RawFailure::named("QuotaExceededError", "")), (Persistent, ErrorCode::QuotaExceeded));
        assert_eq!(tool(RawFailure::named("InvalidStateError", "")), (Persistent, ErrorCode::StaleReference));
        assert_eq!(tool(RawFailure::named("AbortError", "")), (Persistent, ErrorCode::Aborted));
        assert_eq!(
            tool(RawFailure::named("TransactionInactiveError", "")),
            (Transient, ErrorCode::Unavailable)
        );
    }

    #[test]
    fn fetch_type_errors_are_network_failures_and_other_type_errors_are_bugs() {
        use FailureClass::*;
        assert_eq!(tool(RawFailure::named("TypeError", "Failed to fetch")), (Transient, ErrorCode::Network));
        assert_eq!(tool(RawFailure::named("TypeError", "Load failed")), (Transient, ErrorCode::Network));
        assert_eq!(
            tool(RawFailure::named("TypeError", "x.map is not a function")),
            (Persistent, ErrorCode::Internal)
        );
    }

    #[test]
    fn the_tools_code_wins_over_name_status_and_message() {
        use FailureClass::*;
        let raw = RawFailure { status: Some(500), ..RawFailure::coded("STALE_REF", "Element e5 timed out") };
        assert_eq!(tool(raw), (Persistent, ErrorCode::StaleReference));
        let custom = RawFailure { status: Some(503), ..RawFailure::coded("BillingDown", "") };
        assert_eq!(tool(custom), (Transient, ErrorCode::Custom("BillingDown".into())));
        assert_eq!(
            tool(RawFailure::coded("InvoiceNotFound", "")),
            (Persistent, ErrorCode::Custom("InvoiceNotFound".into()))
        );
    }

    #[test]
    fn the_tool_may_override_the_class() {
        let hints = FailureHints { class: Some(FailureClass::Fatal), ..Default::default() };
        let raw = RawFailure::coded("NOT_FOUND", "").with_hints(hints);
        assert_eq!(tool(raw), (FailureClass::Fatal, ErrorCode::NotFound));
    }

    #[test]
    fn message_words_are_the_last_resort() {
        use FailureClass::*;
        assert_eq!(tool(RawFailure::message("Request timed out")), (Transient, ErrorCode::Timeout));
        assert_eq!(tool(RawFailure::message("Element e5 is stale")), (Persistent, ErrorCode::StaleReference));
        assert_eq!(tool(RawFailure::message("weird")), (Persistent, ErrorCode::Internal));
        // A known name wins over misleading words.
        assert_eq!(tool(RawFailure::named("NotFoundError", "timed out")), (Persistent, ErrorCode::NotFound));
    }
}
