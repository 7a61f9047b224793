//! The browser runtime: the engine in a dedicated Web Worker, talking to the page over typed
//! messages.
//!
//! - [`protocol`]: the page↔worker messages (plain serde types);
//! - [`rpc`]: the pending-request table (request id → reply; a dropped request posts its abort);
//! - [`tool_host`] and [`js_model`]: the tool host and the `custom` model backend over that table;
//! - [`host`]: what the worker does with each message (init, runs queued per session, cancel,
//!   dispose).
//!
//! These have no web dependencies and are tested natively too. Only the glue is wasm32-only:
//! `worker` (the `startWorker` entry: `postMessage` and the message listener), `clock` (`setTimeout`,
//! `Math.random`), `js_error` (a thrown JS value → [`crate::errors::RawFailure`]) and `indexeddb`
//! (the durable store).

pub mod host;
pub mod js_model;
pub mod protocol;
pub mod rpc;
mod runs;
mod stores;
pub mod tool_host;

#[cfg(target_arch = "wasm32")]
pub mod clock;
#[cfg(target_arch = "wasm32")]
pub mod indexeddb;
#[cfg(target_arch = "wasm32")]
pub mod js_error;
#[cfg(target_arch = "wasm32")]
pub mod worker;
