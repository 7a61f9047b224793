//! Web Locks, held by each run for its whole length when its store is IndexedDB, which every tab
//! and worker of the origin sees (a memory store is one worker's, and its runs hold none):
//!
//! - `keel:session:["<database>","<session>"]` orders runs of one session of one database across
//!   tabs (workers): two tabs running the same session queue behind each other instead of
//!   interleaving their turns, and agents on other databases, which share nothing with them, do
//!   not wait for them. Within one worker the per-session queue (`host/runs.rs`) already orders
//!   runs; the lock orders workers. (Until 2026-11-28 the name was `keel:session:<session>`: a tab
//!   still on a package from before and a tab on a newer one do not exclude each other.)
//! - `keel:run:<id>` says the run is live. A run the store still marks `running` is cut off (a
//!   terminated worker, a reload, a crash) exactly when nobody holds its lock: the browser releases
//!   a context's locks when the context goes away. `unfinishedRuns` leaves out runs whose lock is
//!   held, and resuming takes the lock only if it is free, so a live run is never resumed twice.
//!
//! `navigator.locks` exists in dedicated workers. A lock is requested with an `AbortSignal` (or
//! `ifAvailable`), and [`HeldLock`] is held by the run's future: dropping it (the run ended, was
//! cancelled while waiting, or the agent was disposed) releases the lock or withdraws the request.
//! Where the API is missing (native tests, old browsers) runs go on without it, and every stored
//! `running` run counts as cut off, less the worker's own.

/// The lock's name for `session` of the IndexedDB database `database`: the two as a JSON array,
/// so that no pair of names can spell another pair's.
pub fn session_lock_name(database: &str, session: &str) -> String {
    let pair = serde_json::Value::from(vec![database, session]);
    format!("keel:session:{pair}")
}

/// The prefix of every run lock's name.
const RUN_LOCK_PREFIX: &str = "keel:run:";

/// The run lock's name: held while the run is live.
pub fn run_lock_name(run_id: &str) -> String {
    format!("{RUN_LOCK_PREFIX}{run_id}")
}

/// The run ids among lock names: those of live runs.
pub fn live_run_ids(held: &[String]) -> Vec<String> {
    held.iter().filter_map(|name| name.strip_prefix(RUN_LOCK_PREFIX)).map(str::to_string).collect()
}

/// The Web Locks one store's runs hold: those of its IndexedDB database, which every tab and
/// worker of the origin sees; none for a memory store, one worker's alone, whose runs share
/// nothing with anyone.
pub(crate) struct StoreLocks {
    /// The database's name; `None` for a store no other tab or worker sees.
    database: Option<String>,
}

impl StoreLocks {
    /// The locks of the runs of IndexedDB database `name` (which exists only in the browser).
    #[cfg(all(target_arch = "wasm32", feature = "browser"))]
    pub(crate) fn database(name: &str) -> StoreLocks {
        StoreLocks { database: Some(name.to_string()) }
    }

    /// No locks: the store is this worker's alone.
    pub(crate) fn none() -> StoreLocks {
        StoreLocks { database: None }
    }

    /// Waits for the lock of `session` of the database; at once without locks.
    pub(crate) async fn session(&self, session: &str) -> HeldLock {
        match &self.database {
            Some(database) => HeldLock::session(database, session).await,
            None => HeldLock::none(),
        }
    }

    /// Takes the lock of run `run_id` if no one holds it; `None` when the run is live elsewhere.
    /// Always free without locks.
    pub(crate) async fn run_if_free(&self, run_id: &str) -> Option<HeldLock> {
        match self.database {
            Some(_) => HeldLock::run_if_free(run_id).await,
            None => Some(HeldLock::none()),
        }
    }

    /// The ids of the runs live in another tab or worker (their run locks are held); none
    /// without locks.
    pub(crate) async fn live_elsewhere(&self) -> Vec<String> {
        match self.database {
            Some(_) => live_run_ids(&held_lock_names().await),
            None => Vec::new(),
        }
    }
}

#[cfg(all(target_arch = "wasm32", feature = "browser"))]
use web::{held_lock_names, HeldLock};

/// Without Web Locks (native): nothing to hold.
#[cfg(not(all(target_arch = "wasm32", feature = "browser")))]
pub(crate) struct HeldLock;

#[cfg(not(all(target_arch = "wasm32", feature = "browser")))]
impl HeldLock {
    /// No lock.
    fn none() -> HeldLock {
        HeldLock
    }

    /// Nothing to wait for natively.
    async fn session(_database: &str, _session: &str) -> HeldLock {
        HeldLock
    }

    /// Always free natively.
    async fn run_if_free(_run_id: &str) -> Option<HeldLock> {
        Some(HeldLock)
    }
}

/// No locks are held natively.
#[cfg(not(all(target_arch = "wasm32", feature = "browser")))]
async fn held_lock_names() -> Vec<String> {
    Vec::new()
}

#[cfg(all(target_arch = "wasm32", feature = "browser"))]
mod web {
    use std::pin::pin;

    use futures_util::future::{select, Either};
    use js_sys::{Array, Function, Object, Promise, Reflect};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use web_sys::AbortController;

    /// A Web Lock held (or requested) by a run; dropping it lets go.
    pub(crate) struct HeldLock {
        /// Withdraws a request not yet granted (a no-op once granted).
        abort: Option<AbortController>,
        /// Resolving it ends the lock callback's promise, which releases the lock.
        release: Option<Function>,
    }

    impl Drop for HeldLock {
        fn drop(&mut self) {
            if let Some(abort) = &self.abort {
                abort.abort();
            }
            if let Some(release) = &self.release {
                let _ = release.call0(&JsValue::UNDEFINED);
            }
        }
    }

    impl HeldLock {
        /// No lock: nothing to let go.
        pub(super) fn none() -> HeldLock {
            HeldLock { abort: None, release: None }
        }

        /// Waits for the lock of `session` of `database`. Dropping the future while it waits
        /// withdraws the request.
        pub(super) async fn session(database: &str, session: &str) -> HeldLock {
            let name = super::session_lock_name(database, session);
            request(&name, false).await.unwrap_or_else(HeldLock::none)
        }

        /// Takes the run's lock if no one holds it; `None` when the run is live elsewhere.
        pub(super) async fn run_if_free(run_id: &str) -> Option<HeldLock> {
            request(&super::run_lock_name(run_id), true).await
        }
    }

    /// Requests lock `name`: waiting for it, or only `if_available`. `None` only when it was not
    /// available; without the API, or if the request fails, the run goes on without the lock.
    async fn request(name: &str, if_available: bool) -> Option<HeldLock> {
        let Some(locks) = lock_manager() else { return Some(HeldLock::none()) };
        // `signal` and `ifAvailable` do not go together; an `ifAvailable` request never waits.
        let abort = if if_available { None } else { AbortController::new().ok() };
        let mut release = None;
        let released = Promise::new(&mut |resolve, _| release = Some(resolve));
        let mut granted_fn = None;
        let granted = Promise::new(&mut |resolve, _| granted_fn = Some(resolve));
        // Held from here on: dropped mid-wait, it aborts the request and resolves `released`, so a
        // grant that comes later is let go at once.
        let lock = HeldLock { abort: abort.clone(), release };
        let Some(granted_fn) = granted_fn else { return Some(lock) };
        let callback = Closure::once_into_js(move |held: JsValue| -> JsValue {
            // `null`: an `ifAvailable` request found the lock taken.
            let _ = granted_fn.call1(&JsValue::UNDEFINED, &JsValue::from_bool(!held.is_null()));
            if held.is_null() {
                JsValue::UNDEFINED
            } else {
                released.into()
            }
        });
        let options = Object::new();
        match &abort {
            Some(abort) => drop(Reflect::set(&options, &"signal".into(), &abort.signal())),
            None => drop(Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE)),
        }
        let request = Reflect::get(&locks, &"request".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .and_then(|f| f.call3(&locks, &JsValue::from_str(name), &options, &callback).ok())
            .and_then(|p| p.dyn_into::<Promise>().ok());
        let Some(request) = request else { return Some(lock) };
        let (granted, request) = (JsFuture::from(granted), JsFuture::from(request));
        let granted = match select(pin!(granted), pin!(request)).await {
            Either::Left((granted, _)) => granted,
            // The request settled first: it failed (go on without the lock), or it was an
            // `ifAvailable` one whose callback has already said whether it got the lock.
            Either::Right((Err(_), _)) => return Some(lock),
            Either::Right((Ok(_), granted)) => granted.await,
        };
        match granted.map(|g| g.as_bool()) {
            Ok(Some(false)) => None,
            _ => Some(lock),
        }
    }

    /// The names of the locks held by any context of this origin (`navigator.locks.query()`);
    /// empty without the API.
    pub(super) async fn held_lock_names() -> Vec<String> {
        let Some(locks) = lock_manager() else { return Vec::new() };
        let query = Reflect::get(&locks, &"query".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .and_then(|f| f.call0(&locks).ok())
            .and_then(|p| p.dyn_into::<Promise>().ok());
        let Some(query) = query else { return Vec::new() };
        let Ok(snapshot) = JsFuture::from(query).await else { return Vec::new() };
        let held = Reflect::get(&snapshot, &"held".into()).unwrap_or(JsValue::UNDEFINED);
        let held: Array = held.dyn_into().unwrap_or_default();
        held.iter().filter_map(|info| Reflect::get(&info, &"name".into()).ok()?.as_string()).collect()
    }

    /// `navigator.locks` of this global, if it has one.
    fn lock_manager() -> Option<JsValue> {
        let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
        let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
        (!locks.is_undefined() && !locks.is_null()).then_some(locks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_locks_name_the_live_runs_and_session_locks_do_not() {
        let held =
            [run_lock_name("run-1-ab"), session_lock_name("keel", "run-2"), run_lock_name("keel:run:x")];
        assert_eq!(live_run_ids(&held), ["run-1-ab", "keel:run:x"]);
        assert_eq!(session_lock_name("keel", "s"), r#"keel:session:["keel","s"]"#);
    }

    #[test]
    fn a_session_lock_names_its_database_and_no_two_pairs_share_a_name() {
        assert_ne!(session_lock_name("a", "s"), session_lock_name("b", "s"));
        assert_ne!(session_lock_name("a:b", "c"), session_lock_name("a", "b:c"));
        assert_ne!(session_lock_name("a\",b", "c"), session_lock_name("a", "b\",\"c"));
    }
}
