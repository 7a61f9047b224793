//! How a failure is handled (its class) and how loudly it is reported (its severity).

use serde::{Deserialize, Serialize};

/// What the runtime does with a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum FailureClass {
    /// Likely to pass if tried again later: the runtime retries it without bothering the model.
    Transient,
    /// Retrying the same call will not help: the model gets a recovery plan and the loop goes on.
    Persistent,
    /// Nothing the model can do: the run stops with the reason.
    Fatal,
}

impl FailureClass {
    /// The lowercase wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Transient => "transient",
            FailureClass::Persistent => "persistent",
            FailureClass::Fatal => "fatal",
        }
    }
}

/// How an envelope presents itself to the model (Vurb's levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// An advisory: the call did its job, with caveats.
    Warning,
    /// The call failed; the model should follow the recovery plan.
    Error,
    /// A failure that ends the run.
    Critical,
}

impl Severity {
    /// The lowercase wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }
}
