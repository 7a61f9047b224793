//! The failure model: every failure gets a class (transient, persistent, fatal) and a code, and
//! persistent ones become a recovery envelope the model can act on.

mod class;
mod code;
mod issue;
mod raw;

pub use class::{FailureClass, Severity};
pub use code::ErrorCode;
pub use issue::{FieldIssue, IssueKind};
pub use raw::{parse_retry_after, FailureHints, Origin, RawFailure};
