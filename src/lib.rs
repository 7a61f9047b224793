//! keel — an in-browser AI agent engine that turns tool failures into recoveries.
//!
//! The core is pure Rust with no web dependencies:
//! - [`engine`]: the ReAct loop, its budgets, retry policy, history and prompt/output handling;
//! - [`errors`]: the failure taxonomy, classification, the recovery envelope and its renderers;
//! - [`tools`]: tool specs, JSON Schema validation and "did you mean" suggestions;
//! - [`store`]: the `Store` trait and the records a run leaves behind;
//! - [`settings`]: reading the page's settings into their types, with errors that say where;
//! - [`turn`]: one step as recorded (`Turn`, `Action`, the call digest), below the engine and the store.
//!
//! [`web`] carries it into the browser: the page↔worker protocol and the worker host (still pure,
//! tested natively), and the thin wasm32-only glue (`startWorker`, timers, JS errors).
//!
//! Effects (the model, the tool host, the store, the clock and a random source) are small traits the
//! engine is generic over; the browser implements them, tests implement them with fakes.
#![warn(missing_docs)]

pub mod engine;
pub mod errors;
mod order;
pub mod settings;
pub mod store;
mod text;
pub mod tools;
pub mod turn;
// Writes js/wire.d.ts, so native only.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod typescript;
pub mod web;
