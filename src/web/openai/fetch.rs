//! [`Http`] over the global `fetch` (a worker's or a window's), with an `AbortController` that is
//! aborted when the call's future is dropped: the loop's timeout or a cancelled run ends the HTTP
//! request too, and the server stops generating. A streamed answer's body is read piece by piece
//! (`getReader()`, decoded with a streaming `TextDecoder`), and a read that fails mid-body is a
//! `NetworkError`: the connection dropped after the answer began.

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, Headers, ReadableStreamDefaultReader, Request, RequestInit, Response, TextDecodeOptions,
    TextDecoder,
};

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
        send(request, None).boxed_local()
    }

    fn send_streaming<'a>(
        &'a self,
        request: &'a HttpRequest,
        on_body: &'a dyn Fn(&str),
    ) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        send(request, Some(on_body)).boxed_local()
    }
}

async fn send(request: &HttpRequest, on_body: Option<&dyn Fn(&str)>) -> Result<HttpResponse, RawFailure> {
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
    let fetch_request = Request::new_with_str_and_init(&request.url, &init).map_err(|e| raw_failure(&e))?;
    let answer = JsFuture::from(global_fetch(&fetch_request)).await.map_err(|e| raw_failure(&e))?;
    let answer: Response = answer
        .dyn_into()
        .map_err(|_| RawFailure::named("TypeError", "fetch resolved to something that is not a Response"))?;
    let found = answer.headers();
    let headers = READ_HEADERS
        .iter()
        .filter_map(|name| found.get(name).ok().flatten().map(|value| (name.to_string(), value)))
        .collect();
    let streamed = on_body.filter(|_| answer.ok()).zip(answer.body());
    let body = match streamed {
        Some((on_body, stream)) => read_pieces(&stream, on_body).await?,
        None => {
            let text = answer.text().map_err(|e| raw_failure(&e))?;
            let body = JsFuture::from(text).await.map_err(|e| raw_failure(&e))?;
            body.as_string().unwrap_or_default()
        }
    };
    Ok(HttpResponse { status: answer.status(), headers, body })
}

/// Reads `stream` to its end, handing each decoded piece to `on_body`; returns the whole text.
async fn read_pieces(stream: &web_sys::ReadableStream, on_body: &dyn Fn(&str)) -> Result<String, RawFailure> {
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let decoder = TextDecoder::new().map_err(|e| raw_failure(&e))?;
    let streaming = TextDecodeOptions::new();
    streaming.set_stream(true);
    let mut whole = String::new();
    loop {
        let read = JsFuture::from(reader.read()).await.map_err(|e| broken(&e))?;
        let field = |key: &str| js_sys::Reflect::get(&read, &key.into()).unwrap_or(JsValue::UNDEFINED);
        if field("done").is_truthy() {
            break;
        }
        let bytes: js_sys::Uint8Array = field("value").unchecked_into();
        let piece =
            decoder.decode_with_js_u8_array_and_options(&bytes, &streaming).map_err(|e| raw_failure(&e))?;
        if !piece.is_empty() {
            on_body(&piece);
            whole.push_str(&piece);
        }
    }
    let rest = decoder.decode().map_err(|e| raw_failure(&e))?;
    if !rest.is_empty() {
        on_body(&rest);
        whole.push_str(&rest);
    }
    Ok(whole)
}

/// A body read that failed mid-way: the browser says `TypeError: network error`; keel says where.
fn broken(error: &JsValue) -> RawFailure {
    let cause = raw_failure(error);
    RawFailure::named("NetworkError", format!("the answer's body broke off mid-way: {}", cause.message))
}
