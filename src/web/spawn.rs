//! How the worker starts a future: below the host, the stores and the failure log, which all spawn.

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;

/// Starts a future on the worker's event loop (`spawn_local` in the browser, a pool in tests).
pub type Spawner = Rc<dyn Fn(LocalBoxFuture<'static, ()>)>;
