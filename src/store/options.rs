//! Which store the worker uses, from the agent's config: `store: "memory"`, `store: "indexeddb"`
//! (the default), or an object: `{name, retention, blockedTimeoutMs}` for IndexedDB with settings,
//! `{kind: "memory"}` for memory; either with `redact` (see [`super::redact`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::retention::Retention;
use crate::settings::read;
use crate::tools::MAX_WAIT_MS;

/// IndexedDB settings. Unknown fields are refused: a misspelt setting must not pass unnoticed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
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
    /// Reads `config.store`; absent or `null` means IndexedDB with the defaults. Its `redact` is
    /// read apart ([`RedactSetting`](super::redact::RedactSetting)).
    pub fn from_config(config: &Value) -> Result<StoreChoice, String> {
        match config.get("store") {
            None | Some(Value::Null) => Ok(StoreChoice::IndexedDb(IdbOptions::default())),
            Some(Value::String(kind)) => Self::of_kind(kind, Map::new()),
            Some(Value::Object(options)) => {
                let mut options = options.clone();
                options.remove("redact");
                match options.remove("kind") {
                    None => Self::of_kind("indexeddb", options),
                    Some(Value::String(kind)) => Self::of_kind(&kind, options),
                    Some(other) => {
                        Err(format!("store: kind {other} is not a store: use \"indexeddb\" or \"memory\""))
                    }
                }
            }
            Some(other) => Err(format!("store: {other} is not a store setting")),
        }
    }

    /// The store `kind` names, with its `options` (memory has none).
    fn of_kind(kind: &str, options: Map<String, Value>) -> Result<StoreChoice, String> {
        match kind {
            "memory" => match options.keys().next() {
                None => Ok(StoreChoice::Memory),
                Some(field) => {
                    Err(format!("store: `{field}` is an IndexedDB setting; the memory store has none"))
                }
            },
            "indexeddb" => {
                let options: IdbOptions = read(&Value::Object(options), "config.store", &["kind", "redact"])
                    .map_err(|e| e.to_string())?;
                if options.blocked_timeout_ms > MAX_WAIT_MS {
                    let ms = options.blocked_timeout_ms;
                    return Err(format!(
                        "`config.store.blockedTimeoutMs` is {ms}: at most {MAX_WAIT_MS} ms (a day)"
                    ));
                }
                Ok(StoreChoice::IndexedDb(options))
            }
            other => Err(format!("store: `{other}` is not a store: use \"indexeddb\" or \"memory\"")),
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
        assert!(idb(json!({"nmae": "mine"})).unwrap_err().contains("nmae"), "a misspelt setting is refused");
    }

    #[test]
    fn an_object_names_its_kind_and_may_carry_a_redaction() {
        let store = |v: Value| StoreChoice::from_config(&json!({ "store": v }));
        assert_eq!(store(json!({"kind": "memory", "redact": {"keys": ["a"]}})), Ok(StoreChoice::Memory));
        assert_eq!(store(json!({"redact": "page"})), Ok(StoreChoice::IndexedDb(IdbOptions::default())));
        let Ok(StoreChoice::IndexedDb(o)) = store(json!({"kind": "indexeddb", "name": "x"})) else {
            panic!("options");
        };
        assert_eq!(o.name, "x");
        assert!(store(json!({"kind": "memory", "name": "x"})).unwrap_err().contains("`name`"));
        assert!(store(json!({"kind": "sqlite"})).unwrap_err().contains("sqlite"));
        assert!(store(json!({"kind": 1})).is_err());
    }
}
