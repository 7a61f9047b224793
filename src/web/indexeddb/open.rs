//! Opening the database: the versioned upgrade (the pending [`Migration`]s, in order, inside the
//! upgrade transaction), a bounded wait when another connection blocks the upgrade, and closing
//! on `versionchange` so that this connection never blocks another tab's upgrade in turn.

use std::cell::{Cell, RefCell};
use std::future::IntoFuture;
use std::pin::pin;
use std::rc::Rc;

use futures_util::future::{select, Either};
use idb::{DatabaseEvent, Event, KeyPath, ObjectStoreParams, Request};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbDatabase, IdbFactory, IdbOpenDbRequest};

use super::tx::{idb_error, js_error};
use crate::engine::Clock;
use crate::store::layout::{pending, target_version, Migration, Step};
use crate::store::StoreError;
use crate::web::clock::WebClock;

/// The IndexedDB factory of this global (window or worker), if it has one.
pub(super) fn factory() -> Result<IdbFactory, StoreError> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .ok()
        .and_then(|f| f.dyn_into::<IdbFactory>().ok())
        .ok_or_else(|| StoreError::Unavailable("IndexedDB is not available in this context".into()))
}

/// Opens `name` at the version `migrations` produce, running the ones it lacks. `on_close` runs when
/// another connection asks this one to go (an upgrade or a deletion elsewhere): the connection is
/// closed first. Waits at most `blocked_timeout_ms` for connections that block an upgrade.
pub(super) async fn open(
    name: &str,
    migrations: &'static [Migration],
    blocked_timeout_ms: u64,
    on_close: impl FnOnce() + 'static,
) -> Result<IdbDatabase, StoreError> {
    let version = target_version(migrations);
    let raw = factory()?.open_with_u32(name, version).map_err(|e| js_error("open the database", &e))?;
    let mut request = idb::request::OpenDatabaseRequest::from(raw.clone());
    let failure: Rc<RefCell<Option<String>>> = Rc::default();
    let upgrade_failure = failure.clone();
    request.on_upgrade_needed(move |event| {
        if let Err(e) = upgrade(&event, migrations) {
            *upgrade_failure.borrow_mut() = Some(e);
            // Aborting the upgrade fails the open and leaves the database as it was.
            if let Some(tx) = event.target().ok().and_then(|r| r.transaction()) {
                let _ = tx.abort();
            }
        }
    });
    let blocked = Rc::new(Cell::new(false));
    let seen = blocked.clone();
    request.on_blocked(move |_| seen.set(true));
    let opened = match select(pin!(request.into_future()), WebClock::new().sleep(blocked_timeout_ms)).await {
        Either::Left((opened, _)) => opened,
        Either::Right(_) => {
            give_up(&raw);
            return Err(StoreError::Unavailable(if blocked.get() {
                format!(
                    "database `{name}` cannot be upgraded to version {version}: it is blocked by another tab \
                     holding an older version open; close or reload the other tabs"
                )
            } else {
                format!("database `{name}` did not open within {blocked_timeout_ms} ms")
            }));
        }
    };
    let db: IdbDatabase = match opened {
        Ok(db) => db.into(),
        Err(e) => {
            return Err(match failure.borrow_mut().take() {
                Some(why) => {
                    StoreError::Unavailable(format!("upgrading `{name}` to version {version} failed: {why}"))
                }
                None => idb_error(&format!("open database `{name}`"), &e),
            })
        }
    };
    let closing = db.clone();
    let on_version_change = Closure::once_into_js(move || {
        closing.close();
        on_close();
    });
    db.set_onversionchange(Some(on_version_change.unchecked_ref()));
    Ok(db)
}

/// Leaves an open request we stopped waiting for: should it still go through later, its upgrade
/// is aborted and its connection closed, so nothing half-built or unowned stays behind.
fn give_up(raw: &IdbOpenDbRequest) {
    let abort = Closure::once_into_js(|event: web_sys::Event| {
        let tx =
            event.target().and_then(|t| t.dyn_into::<IdbOpenDbRequest>().ok()).and_then(|r| r.transaction());
        if let Some(tx) = tx {
            let _ = tx.abort();
        }
    });
    let close = Closure::once_into_js(|event: web_sys::Event| {
        let db =
            event.target().and_then(|t| t.dyn_into::<IdbOpenDbRequest>().ok()).and_then(|r| r.result().ok());
        if let Some(db) = db.and_then(|d| d.dyn_into::<IdbDatabase>().ok()) {
            db.close();
        }
    });
    raw.set_onupgradeneeded(Some(abort.unchecked_ref()));
    raw.set_onsuccess(Some(close.unchecked_ref()));
    raw.set_onerror(None);
    raw.set_onblocked(None);
}

/// Runs the migrations a database at the event's old version lacks.
fn upgrade(event: &idb::event::VersionChangeEvent, migrations: &[Migration]) -> Result<(), String> {
    let old = event.old_version().map_err(|e| e.to_string())?;
    let db = event.database().map_err(|e| e.to_string())?;
    let tx = event.target().ok().and_then(|r| r.transaction()).ok_or("no upgrade transaction")?;
    for migration in pending(migrations, old)? {
        for step in migration.steps {
            apply(step, &db, &tx).map_err(|e| format!("version {}: {step:?}: {e}", migration.version))?;
        }
    }
    Ok(())
}

fn apply(step: &Step, db: &idb::Database, tx: &idb::Transaction) -> Result<(), idb::Error> {
    match *step {
        Step::CreateStore { store, key } => {
            let mut params = ObjectStoreParams::new();
            params.key_path(Some(key_path(key)));
            db.create_object_store(store, params).map(drop)
        }
        Step::CreateIndex { store, index, key } => {
            tx.object_store(store)?.create_index(index, key_path(key), None).map(drop)
        }
    }
}

fn key_path(key: &[&str]) -> KeyPath {
    match key {
        [one] => KeyPath::new_single(one),
        many => KeyPath::new_array(many.iter().copied()),
    }
}

/// Deletes a database (tests, and a page resetting everything). Waits at most `timeout_ms` when
/// another connection blocks the deletion.
pub async fn delete_database(name: &str, timeout_ms: u64) -> Result<(), StoreError> {
    let request = factory()?.delete_database(name).map_err(|e| js_error("delete the database", &e))?;
    let request = idb::request::DeleteDatabaseRequest::from(request);
    match select(pin!(request.into_future()), WebClock::new().sleep(timeout_ms)).await {
        Either::Left((done, _)) => done.map_err(|e| idb_error("delete the database", &e)),
        Either::Right(_) => {
            Err(StoreError::Unavailable(format!("deleting `{name}` is blocked by a connection still open")))
        }
    }
}
