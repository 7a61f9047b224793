#![cfg(all(target_arch = "wasm32", feature = "browser"))]
//! Browser glue tests in a window; the same tests run in a dedicated worker (`web_worker.rs`).

#[macro_use]
mod browser;
#[macro_use]
mod browser_idb;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

all_browser_tests!();
idb_browser_tests!();
