//! The failure model: every failure gets a class (transient, persistent, fatal) and a code, and
//! the model is shown a recovery envelope it can act on.

mod class;
mod classify;
mod code;
mod envelope;
mod fitting_plans;
mod issue;
mod keel_code;
mod plans;
pub(crate) use plans::quoted;
mod raw;
pub mod render;

pub use class::{FailureClass, Severity};
pub use classify::{classify, Classification};
pub use code::ErrorCode;
pub use envelope::{CallContext, Envelope};
pub use issue::{FieldIssue, IssueKind};
pub use keel_code::{KeelErrorCode, KEEL_ERROR_CODES};
pub use raw::{parse_retry_after, FailureHints, Origin, RawFailure, MAX_RETRY_AFTER_MS};
