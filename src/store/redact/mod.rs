//! Redaction: what the store keeps of a tool call's arguments, so that the secrets a model passes
//! to tools (a password, a card number, a token) are not persisted.
//!
//! A [`Redactor`] decides, for each call, the arguments to store, or to drop them whole. There are
//! two, set by `config.store.redact` ([`RedactSetting`]): the declarative [`RedactPolicy`]
//! (`{keys, tools, mask}`), applied in the worker, and the page's own function
//! (`({tool, args}) => args | null`), which the worker asks over the page protocol
//! (`web::redact_hook`). The engine asks once per step, before the step is written, and fails
//! closed: when the redactor fails or does not answer within [`REDACT_TIMEOUT_MS`], the arguments
//! are stored dropped and the page gets a warning.
//!
//! What the store then gets (the [`Scrubber`] works it out):
//! - the step's action with the redacted arguments;
//! - every removed value (each string or number the redactor took out, of [`MIN_SCRUBBED_CHARS`]
//!   chars or more) replaced by the mask wherever the run's stored text holds it: the turns'
//!   thoughts, observations, unreadable replies and other arguments, the failure records'
//!   messages, the run's answer; in each form the renderers write it (escaped, on one line, cut
//!   short next to a `…`);
//! - failure records whose `argsDigest` is that of the redacted arguments (a digest of a short
//!   secret could be brute-forced).
//!
//! A value first removed at a later step is also scrubbed from the steps this run stored before
//! (they are written again); steps stored before a resume are not rewritten.
//!
//! What it leaves alone: the run's task (the page's own text, stored as given), and the run in
//! memory: the model and the tools see the real arguments for the whole run, and the page's
//! events and `RunResult` carry them. What is read back from the store is the redacted form: a
//! session's memory in its next runs, a resumed run's earlier steps, the failure log, exports,
//! OTLP traces.

mod policy;
mod scrub;

use futures_util::future::LocalBoxFuture;
use serde_json::Value;

use crate::errors::RawFailure;
use crate::settings::ConfigError;
use crate::turn::Action;

pub use policy::RedactPolicy;
pub use scrub::{Scrubber, MIN_SCRUBBED_CHARS};

/// What stands in for removed values unless the policy's `mask` says otherwise.
pub const DEFAULT_MASK: &str = "[redacted]";

/// How long the engine waits for a redactor's answer before it stores the arguments dropped.
pub const REDACT_TIMEOUT_MS: u64 = 5_000;

/// Decides what the store keeps of one tool call's arguments.
pub trait Redactor {
    /// The arguments to store for `call`, or `None` to drop them whole. `Err` when it cannot tell
    /// (the page's function threw, or the page is gone): the engine then drops them.
    fn redact<'a>(&'a self, call: &'a Action) -> LocalBoxFuture<'a, Result<Option<Value>, RawFailure>>;

    /// What stands in for what was removed: dropped arguments, masked values, scrubbed text.
    fn mask(&self) -> &str {
        DEFAULT_MASK
    }
}

/// What `config.store.redact` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedactSetting {
    /// The declarative policy, applied in the worker.
    Policy(RedactPolicy),
    /// The page's function, asked before each step is stored. Functions cannot be posted to the
    /// worker: the page keeps it and sends `"page"` in its place.
    PageHook,
}

impl RedactSetting {
    /// Reads `config.store.redact`: `None` when there is none (or `store` is a plain string).
    pub fn from_config(config: &Value) -> Result<Option<RedactSetting>, ConfigError> {
        match config.get("store").and_then(|store| store.get("redact")) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(hook)) if hook == "page" => Ok(Some(RedactSetting::PageHook)),
            Some(policy @ Value::Object(_)) => {
                RedactPolicy::from_json(policy).map(RedactSetting::Policy).map(Some)
            }
            Some(other) => Err(policy::invalid(
                "store.redact".into(),
                other,
                "an object {keys, tools, mask} or a function ({tool, args}) => args | null",
            )),
        }
    }
}

#[cfg(test)]
mod tests;
