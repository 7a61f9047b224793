#![cfg(all(target_arch = "wasm32", feature = "browser"))]
//! Browser glue tests in a dedicated worker, where the engine runs; the same tests run in a window
//! (`web_window.rs`).

#[macro_use]
mod browser;
#[macro_use]
mod browser_idb;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

all_browser_tests!();
idb_browser_tests!();
