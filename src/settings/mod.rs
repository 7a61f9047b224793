//! The settings the page hands keel (the agent's config, the store's options, tool declarations,
//! failure queries): [`read`] turns them into their serde types with errors that say where, and
//! [`ConfigError`] says a setting read is out of range. The stored records ([`read_quietly`]) and
//! the page's messages ([`from_value`], [`read_part`], [`from_parts`]) are read by the same
//! reader, so the module has one `Value` reader. Below the engine and the store, which both read
//! settings, so neither imports the other for it.

mod read;
pub mod tagged;
mod tracked;

pub use read::{read, SettingError};
pub use tracked::read_part;

/// `value` as a `T` through the settings' reader, the module's one `Value` reader (a struct is not
/// read from an array): serde's error, with where it happened (`` at `retry.maxAttempts` ``) when
/// that is below the top. For the page's messages and what comes with them.
pub fn from_value<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, serde_json::Error> {
    tracked::deserialize(value).map_err(placed)
}

/// What a hand-written reader made of parts it read with [`read_part`] (a page message taken apart
/// by moving its parts out): its error placed as [`from_value`] places one (`` at `warnings[0]` ``).
pub fn from_parts<T>(read: impl FnOnce() -> Result<T, serde_json::Error>) -> Result<T, serde_json::Error> {
    tracked::from_parts(read).map_err(placed)
}

/// serde's error, with where it happened when that is below the top.
fn placed((error, place): (serde_json::Error, String)) -> serde_json::Error {
    match place.as_str() {
        "." => error,
        _ => serde::de::Error::custom(format_args!("{error} at `{place}`")),
    }
}

/// `value` as a `T` through the settings' reader, or `None` when it does not read: for values keel
/// wrote itself (the stored records), where only whether it reads matters. One `Value` reader in
/// the module, and no struct read from an array by position (bench/results/wasm-size.md).
pub fn read_quietly<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Option<T> {
    tracked::deserialize(value).ok()
}

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
