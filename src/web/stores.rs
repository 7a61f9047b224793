//! The store the worker writes to, from the agent's config (`store`, see
//! [`StoreChoice`](crate::store::StoreChoice)): IndexedDB by default, opened as the agent is built;
//! memory when asked, and wherever IndexedDB does not exist (native tests, some sandboxed contexts).

use std::rc::Rc;

use serde_json::Value;

use super::host::Spawner;
use super::queries::FailureLog;
use crate::errors::RawFailure;
use crate::store::{IdbOptions, MemoryStore, Store, StoreChoice};

/// The store the agent writes to, and the same store as the page's queries read it.
pub(crate) type Stores = (Rc<dyn Store>, Rc<dyn FailureLog>);

/// The store `config.store` asks for; a malformed setting is the page's mistake, reported as such.
pub(crate) fn store_for(config: &Value, spawn: &Spawner) -> Result<Stores, RawFailure> {
    match StoreChoice::from_config(config) {
        Ok(StoreChoice::Memory) => Ok(memory()),
        Ok(StoreChoice::IndexedDb(options)) => Ok(indexeddb(options, spawn)),
        Err(message) => {
            Err(RawFailure { name: Some("TypeError".into()), ..RawFailure::coded("INVALID_CONFIG", message) })
        }
    }
}

/// IndexedDB, opened now in the background: the first write waits for that open rather than
/// starting its own, and an open that fails surfaces as a store warning on the first write.
fn memory() -> Stores {
    let store = Rc::new(MemoryStore::new());
    (store.clone(), store)
}

#[cfg(target_arch = "wasm32")]
fn indexeddb(options: IdbOptions, spawn: &Spawner) -> Stores {
    use futures_util::FutureExt;

    use super::indexeddb::IdbStore;

    if !IdbStore::available() {
        return memory();
    }
    let store = Rc::new(IdbStore::new(options));
    let opening = store.clone();
    spawn(async move { drop(opening.open().await) }.boxed_local());
    (store.clone(), store)
}

#[cfg(not(target_arch = "wasm32"))]
fn indexeddb(_: IdbOptions, _: &Spawner) -> Stores {
    memory()
}
