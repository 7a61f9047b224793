//! Web Locks: a run holds `keel:session:<name>` for its whole length, so two tabs (two workers)
//! running the same session queue behind each other instead of interleaving their turns. Within
//! one worker the per-session queue (`runs.rs`) already orders runs; the lock orders workers.
//!
//! `navigator.locks` exists in dedicated workers. The lock is requested with an `AbortSignal`, and
//! [`SessionLock`] is held by the run's future: dropping it (the run ended, was cancelled while
//! waiting, or the agent was disposed) releases the lock or withdraws the request. Where the API
//! is missing (native tests, old browsers) runs go on without it.

/// The lock's name for a session.
pub fn lock_name(session: &str) -> String {
    format!("keel:session:{session}")
}

#[cfg(target_arch = "wasm32")]
pub(crate) use web::SessionLock;

/// Without Web Locks (native): nothing to hold.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) struct SessionLock;

#[cfg(not(target_arch = "wasm32"))]
impl SessionLock {
    /// Nothing to wait for natively.
    pub(crate) async fn acquire(_session: &str) -> SessionLock {
        SessionLock
    }
}

#[cfg(target_arch = "wasm32")]
mod web {
    use std::pin::pin;

    use futures_util::future::select;
    use js_sys::{Function, Object, Promise, Reflect};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use web_sys::AbortController;

    /// A session lock held (or requested) by a run; dropping it lets go.
    pub(crate) struct SessionLock {
        /// Withdraws a request not yet granted (a no-op once granted).
        abort: Option<AbortController>,
        /// Resolving it ends the lock callback's promise, which releases the lock.
        release: Option<Function>,
    }

    impl Drop for SessionLock {
        fn drop(&mut self) {
            if let Some(abort) = &self.abort {
                abort.abort();
            }
            if let Some(release) = &self.release {
                let _ = release.call0(&JsValue::UNDEFINED);
            }
        }
    }

    impl SessionLock {
        /// Waits for the session's lock. Dropping the future while it waits withdraws the request.
        pub(crate) async fn acquire(session: &str) -> SessionLock {
            let none = SessionLock { abort: None, release: None };
            let Some(locks) = lock_manager() else { return none };
            let Ok(abort) = AbortController::new() else { return none };
            let mut release = None;
            let released = Promise::new(&mut |resolve, _| release = Some(resolve));
            let mut granted_fn = None;
            let granted = Promise::new(&mut |resolve, _| granted_fn = Some(resolve));
            // Held from here on: dropped mid-wait, it aborts the request and resolves `released`.
            let lock = SessionLock { abort: Some(abort.clone()), release };
            let Some(granted_fn) = granted_fn else { return lock };
            let callback = Closure::once_into_js(move |_lock: JsValue| -> JsValue {
                let _ = granted_fn.call0(&JsValue::UNDEFINED);
                released.into()
            });
            let options = Object::new();
            let _ = Reflect::set(&options, &"signal".into(), &abort.signal());
            let name = JsValue::from_str(&super::lock_name(session));
            let request = Reflect::get(&locks, &"request".into())
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .and_then(|f| f.call3(&locks, &name, &options, &callback).ok())
                .and_then(|p| p.dyn_into::<Promise>().ok());
            let Some(request) = request else { return lock };
            // The request settles before the grant only when it fails: go on without the lock.
            let (granted, request) = (JsFuture::from(granted), JsFuture::from(request));
            let _ = select(pin!(granted), pin!(request)).await;
            lock
        }
    }

    /// `navigator.locks` of this global, if it has one.
    fn lock_manager() -> Option<JsValue> {
        let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
        let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
        (!locks.is_undefined() && !locks.is_null()).then_some(locks)
    }
}
