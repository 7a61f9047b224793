//! The store the worker writes to, from the agent's config (`store`, see
//! [`StoreChoice`](crate::store::StoreChoice)): IndexedDB by default, opened as the agent is built;
//! memory when asked, and wherever IndexedDB does not exist (native tests, some sandboxed contexts).
//! And what it is given of each call (`store.redact`, see [`crate::store::redact`]): everything,
//! what the declarative policy keeps, or what the page's function keeps.

use std::rc::Rc;

use serde_json::Value;

use super::locks::StoreLocks;
use super::queries::FailureLog;
use super::redact_hook::PageRedactor;
use super::rpc::Rpc;
use super::spawn::Spawner;
use crate::errors::{KeelErrorCode, RawFailure};
use crate::store::redact::{RedactSetting, Redactor};
use crate::store::{IdbOptions, MemoryStore, Store, StoreChoice};

/// The store the agent writes to, the same store as the page's queries read it, and the Web Locks
/// its runs hold.
pub(crate) struct Stores {
    /// Where runs write.
    pub(crate) store: Rc<dyn Store>,
    /// The same store, as the page's queries read it.
    pub(crate) log: Rc<dyn FailureLog>,
    /// IndexedDB is the origin's: another tab's worker may run the same session of the database or
    /// resume the same run, so runs hold its locks. A memory store is this worker's alone: none.
    pub(crate) locks: StoreLocks,
}

/// The store `config.store` asks for; a malformed setting is the page's mistake, reported as such.
pub(crate) fn store_for(config: &Value, spawn: &Spawner) -> Result<Stores, RawFailure> {
    match StoreChoice::from_config(config) {
        Ok(StoreChoice::Memory) => Ok(memory()),
        Ok(StoreChoice::IndexedDb(options)) => Ok(indexeddb(options, spawn)),
        Err(message) => Err(invalid_config(message)),
    }
}

/// The redactor `config.store.redact` asks for, if any; a malformed policy, or one naming a tool
/// the agent does not have (`tools`), is the page's mistake.
pub(crate) fn redactor_for(
    config: &Value,
    tools: &[String],
    rpc: &Rc<Rpc>,
) -> Result<Option<Rc<dyn Redactor>>, RawFailure> {
    let setting = RedactSetting::from_config(config).map_err(|e| invalid_config(e.to_string()))?;
    Ok(match setting {
        None => None,
        Some(RedactSetting::PageHook) => Some(Rc::new(PageRedactor::new(rpc.clone()))),
        Some(RedactSetting::Policy(policy)) => {
            policy.check_tools(tools).map_err(|e| invalid_config(e.to_string()))?;
            Some(Rc::new(policy))
        }
    })
}

/// A setting the page got wrong.
pub(crate) fn invalid_config(message: String) -> RawFailure {
    super::init::invalid_setting(KeelErrorCode::InvalidConfig, message)
}

fn memory() -> Stores {
    let store = Rc::new(MemoryStore::new());
    Stores { store: store.clone(), log: store, locks: StoreLocks::none() }
}

/// IndexedDB, opened now in the background: the first write waits for that open rather than
/// starting its own, and an open that fails surfaces as a store warning on the first write.
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
fn indexeddb(options: IdbOptions, spawn: &Spawner) -> Stores {
    use futures_util::FutureExt;

    use super::indexeddb::IdbStore;

    if !IdbStore::available() {
        return memory();
    }
    let locks = StoreLocks::database(&options.name);
    let store = Rc::new(IdbStore::new(options));
    let opening = store.clone();
    spawn(async move { drop(opening.open().await) }.boxed_local());
    Stores { store: store.clone(), log: store, locks }
}

#[cfg(not(all(target_arch = "wasm32", feature = "browser")))]
fn indexeddb(_: IdbOptions, _: &Spawner) -> Stores {
    memory()
}
