//! Which store the worker uses, from the agent's config: `store: "memory"`, `store: "indexeddb"`
//! (the default), or `store: {name, retention, blockedTimeoutMs}` for IndexedDB with settings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::retention::Retention;

/// IndexedDB settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IdbOptions {
    /// The database's name.
    pub name: String,
    /// How much history to keep.
    pub retention: Retention,
    /// How long to wait for other tabs to close an older version of the database before giving up
    /// with a clear error (an upgrade is blocked while they keep it open).
    pub blocked_timeout_ms: u64,
}

impl Default for IdbOptions {
    fn default() -> Self {
        IdbOptions { name: "keel".into(), retention: Retention::default(), blocked_timeout_ms: 3_000 }
    }
}

/// The store the config asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// Nothing persisted.
    Memory,
    /// IndexedDB, falling back to memory where it does not exist.
    IndexedDb(IdbOptions),
}

impl StoreChoice {
    /// Reads `config.store`; absent or `null` means IndexedDB with the defaults.
    pub fn from_config(config: &Value) -> Result<StoreChoice, String> {
        match config.get("store") {
            None | Some(Value::Null) => Ok(StoreChoice::IndexedDb(IdbOptions::default())),
            Some(Value::String(kind)) => match kind.as_str() {
                "memory" => Ok(StoreChoice::Memory),
                "indexeddb" => Ok(StoreChoice::IndexedDb(IdbOptions::default())),
                other => Err(format!("store: `{other}` is not a store: use \"indexeddb\" or \"memory\"")),
            },
            Some(options @ Value::Object(_)) => serde_json::from_value(options.clone())
                .map(StoreChoice::IndexedDb)
                .map_err(|e| format!("store: {e}")),
            Some(other) => Err(format!("store: {other} is not a store setting")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_config_picks_the_store_and_defaults_to_indexeddb() {
        let idb = |v: Value| StoreChoice::from_config(&json!({ "store": v }));
        assert_eq!(StoreChoice::from_config(&json!({})), Ok(StoreChoice::IndexedDb(IdbOptions::default())));
        assert_eq!(idb(json!("memory")), Ok(StoreChoice::Memory));
        let Ok(StoreChoice::IndexedDb(o)) = idb(json!({"name": "mine", "retention": {"maxRuns": 3}})) else {
            panic!("options");
        };
        assert_eq!((o.name.as_str(), o.retention.max_runs, o.blocked_timeout_ms), ("mine", Some(3), 3_000));
        assert!(idb(json!("sqlite")).unwrap_err().contains("sqlite"));
        assert!(idb(json!(3)).is_err());
        assert!(idb(json!({"name": 3})).is_err());
    }
}
