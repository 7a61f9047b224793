//! A thrown JS value as a [`RawFailure`]: the one conversion is `toRawFailure` in `js/errors.js`,
//! shared with the page (which converts its tools' errors), so both sides read errors alike.

use wasm_bindgen::prelude::*;

use crate::errors::RawFailure;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = toRawFailure)]
    fn to_raw_failure(error: &JsValue, now_ms: f64) -> JsValue;
}

/// Reads a thrown value (an `Error`, a `DOMException`, a `ToolError`, a `Response`, anything) as a
/// structured failure: name, message, status, code, Retry-After and a `ToolError`'s recovery fields.
pub fn raw_failure(error: &JsValue) -> RawFailure {
    let plain = to_raw_failure(error, js_sys::Date::now());
    js_sys::JSON::stringify(&plain)
        .ok()
        .and_then(|text| text.as_string())
        // Through a `Value`, as the page's messages are: RawFailure needs no text reader of its own.
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&super::wire::well_formed(&text).0).ok())
        .and_then(|value| crate::settings::read_quietly(&value))
        .unwrap_or_else(|| RawFailure::named("TypeError", "a thrown value could not be read as an error"))
}
