#![cfg(target_arch = "wasm32")]
//! Browser glue tests in a dedicated worker, where the engine runs; the same tests run in a window (`web_window.rs`).

mod browser;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
async fn sleep_resolves_after_its_delay() {
    browser::sleep_resolves_after_its_delay().await;
}

#[wasm_bindgen_test]
async fn dropping_a_sleep_clears_its_timer() {
    browser::dropping_a_sleep_clears_its_timer().await;
}

#[wasm_bindgen_test]
async fn replies_are_matched_by_id_and_a_dropped_request_posts_its_abort() {
    browser::replies_are_matched_by_id_and_a_dropped_request_posts_its_abort().await;
}

#[wasm_bindgen_test]
async fn a_hung_tool_times_out_under_real_timers_and_is_aborted() {
    browser::a_hung_tool_times_out_under_real_timers_and_is_aborted().await;
}

#[wasm_bindgen_test]
async fn thrown_js_values_cross_as_structured_failures() {
    browser::thrown_js_values_cross_as_structured_failures().await;
}
