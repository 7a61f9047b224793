//! The browser runtime: the engine in a dedicated Web Worker, talking to the page over typed
//! messages.
//!
//! - [`protocol`]: the page↔worker messages (plain serde types); [`init`] reads what `init` carries;
//! - [`wire`]: the page's JSON text before serde reads it (lone surrogates replaced, the header of
//!   an unreadable message);
//! - [`rpc`]: the pending-request table (request id → reply; a dropped request posts its abort);
//! - [`tool_host`] and [`js_model`]: the tool host and the models the page runs (`custom`, and the
//!   Prompt API on the web) over that table;
//! - [`openai`]: the OpenAI-compatible chat-completions backend (pure; `fetch` on wasm32);
//! - [`fallback`]: a chain of backends, the next on unavailability or a persistent failure;
//! - [`models`]: the backends a `ModelChoice` names, checked at `init` and built per run;
//! - [`model_source`]: where the Prompt API runs (the page, or the worker where it has `LanguageModel`);
//! - [`queries`]: the failure log from the page (`query` → `queryResult`);
//! - [`redact_hook`]: the page's redaction function, asked before each step is stored;
//! - [`host`]: what the worker does with each message (init, runs queued per session, cancel,
//!   dispose); `runs` starts, resumes and abandons runs;
//! - [`locks`]: the Web Locks a run holds on its session, so tabs do not interleave turns.
//!
//! These have no web dependencies and are tested natively too. Only the glue is wasm32-only (and
//! behind the default feature `browser`, which bench/size leaves out to weigh the engine alone):
//! `worker` (the `startWorker` entry: `postMessage` and the message listener), `clock` (`setTimeout`,
//! `Math.random`), `js_error` (a thrown JS value → [`crate::errors::RawFailure`]), `prompt_api`
//! (the Prompt API called from the worker, where the worker has `LanguageModel`) and `indexeddb`
//! (the durable store).

pub mod fallback;
pub mod host;
pub mod init;
pub mod js_model;
pub mod locks;
pub mod model_source;
pub mod models;
pub mod openai;
pub mod protocol;
mod protocol_read;
pub mod queries;
pub mod redact_hook;
pub mod rpc;
mod spawn;
mod stores;
pub mod tool_host;
pub mod wire;

#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod clock;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod indexeddb;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod js_error;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod prompt_api;
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod worker;

/// The worker's heap: talc in place of Rust's default wasm allocator (dlmalloc). The worker is
/// single-threaded (no `atomics`).
#[cfg(all(target_arch = "wasm32", feature = "browser", not(target_feature = "atomics")))]
#[global_allocator]
static HEAP: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
