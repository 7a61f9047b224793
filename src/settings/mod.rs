//! The settings the page hands keel (the agent's config, the store's options, tool declarations,
//! failure queries): [`read`] turns them into their serde types with errors that say where, and
//! [`ConfigError`] says a setting read is out of range. Below the engine and the store, which both
//! read settings, so neither imports the other for it.

mod read;
pub mod tagged;
mod tracked;

pub use read::{read, SettingError};

/// A setting outside the range the loop can work with, or malformed (`store.redact`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config `{field}` is {value}: {expected}")]
pub struct ConfigError {
    /// The setting, as named in JS (camelCase), with its path: `retry.jitter`, `store.redact.keys[1]`.
    pub field: String,
    /// The value given.
    pub value: String,
    /// What it must be.
    pub expected: &'static str,
}
