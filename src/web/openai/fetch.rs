//! [`Http`] over the global `fetch` (a worker's or a window's), with an `AbortController` that is
//! aborted when the call's future is dropped: the loop's timeout or a cancelled run ends the HTTP
//! request too, and the server stops generating.

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, Request, RequestInit, Response};

use crate::errors::RawFailure;
use crate::web::js_error::raw_failure;

use super::response::READ_HEADERS;
use super::{Http, HttpRequest, HttpResponse};

#[wasm_bindgen]
extern "C" {
    /// The global `fetch`, present in windows and workers alike.
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> js_sys::Promise;
}

/// `fetch` as the openai backend's transport.
pub struct FetchHttp;

/// Aborts the request when dropped; after the body is read the abort is a no-op.
struct AbortOnDrop(AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Http for FetchHttp {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        async move {
            let controller = AbortController::new().map_err(|e| raw_failure(&e))?;
            let _abort = AbortOnDrop(controller.clone());
            let headers = Headers::new().map_err(|e| raw_failure(&e))?;
            for (name, value) in &request.headers {
                headers.set(name, value).map_err(|e| raw_failure(&e))?;
            }
            let init = RequestInit::new();
            init.set_method("POST");
            init.set_headers(&headers);
            init.set_body(&JsValue::from_str(&request.body));
            init.set_signal(Some(&controller.signal()));
            let fetch_request =
                Request::new_with_str_and_init(&request.url, &init).map_err(|e| raw_failure(&e))?;
            let answer = JsFuture::from(global_fetch(&fetch_request)).await.map_err(|e| raw_failure(&e))?;
            let answer: Response = answer.dyn_into().map_err(|_| {
                RawFailure::named("TypeError", "fetch resolved to something that is not a Response")
            })?;
            let found = answer.headers();
            let headers = READ_HEADERS
                .iter()
                .filter_map(|name| found.get(name).ok().flatten().map(|value| (name.to_string(), value)))
                .collect();
            let text = answer.text().map_err(|e| raw_failure(&e))?;
            let body = JsFuture::from(text).await.map_err(|e| raw_failure(&e))?;
            Ok(HttpResponse { status: answer.status(), headers, body: body.as_string().unwrap_or_default() })
        }
        .boxed_local()
    }
}
