//! The OpenAI-compatible chat-completions backend (llama.cpp's `llama-server`, llama-cpp-python,
//! Ollama, LM Studio, vLLM, OpenAI itself): one `POST {baseUrl}/chat/completions` per step, called
//! with `fetch` from the worker.
//!
//! Everything that decides is pure and tested natively: [`request`] builds the call, [`response`]
//! reads the answer or the failure, and [`OpenaiModel`] ties them to an [`Http`] transport. Only
//! `fetch.rs` (wasm32) touches the browser: `fetch` with an `AbortController` that is aborted when
//! the call's future is dropped, which is how the loop's timeouts and cancellation reach the server.
//!
//! CORS: the page's origin is not the server's, so the server must answer the preflight (`OPTIONS`,
//! for `Content-Type: application/json` and `Authorization`) and send `Access-Control-Allow-Origin`;
//! `llama-server`, Ollama (`OLLAMA_ORIGINS`) and LM Studio can. A cross-origin script sees
//! `Retry-After` only if the server lists it in `Access-Control-Expose-Headers`; without it a 429 is
//! still retried, with the retry policy's own backoff.

pub mod request;
pub mod response;
pub mod sse;

#[cfg(all(target_arch = "wasm32", feature = "browser"))]
pub mod fetch;

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use serde::{Deserialize, Serialize};

use std::cell::RefCell;

use crate::engine::{Clock, Model, ModelReply, ModelRequest, ReplySink};
use crate::errors::{ErrorCode, RawFailure};

/// How the step schema reaches an OpenAI-compatible server (`responseFormat` of the `openai` model
/// option): `"jsonSchema"` (OpenAI's `response_format: {type: "json_schema"}`; llama-server, LM
/// Studio, vLLM, Ollama; the default), `"jsonObject"` (`{type: "json_object", schema}`:
/// llama-cpp-python's server), or `"none"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ResponseFormat {
    /// `{"type": "json_schema", "json_schema": {"name", "strict": false, "schema"}}`: OpenAI's
    /// format, which `llama-server`, LM Studio, vLLM and Ollama read too.
    #[default]
    JsonSchema,
    /// `{"type": "json_object", "schema"}`: the Anyscale-style format llama-cpp-python's server
    /// reads (it rejects `json_schema` with an HTTP 500); `llama-server` reads it too.
    JsonObject,
    /// No `response_format`: for servers that support neither (the step is still parsed and
    /// validated, with repairs and format errors, as for any unconstrained backend).
    None,
}

/// Where and what to ask: the `openai` model option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenaiConfig {
    /// The API root, e.g. `http://127.0.0.1:8080/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// The model name the server expects.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub api_key: Option<String>,
    /// How the step schema is sent.
    pub response_format: ResponseFormat,
    /// Whether to ask for the reply as a stream of events (`stream: true`) when the loop streams:
    /// off for a server or proxy that cannot stream.
    pub stream: bool,
}

/// One HTTP `POST` to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The full URL.
    pub url: String,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
}

/// What came back: the status, the headers the backend reads, and the body as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// Header names (lower case) and values; only [`response::READ_HEADERS`] are needed.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl HttpResponse {
    /// A header's value, by its lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends an HTTP request: `fetch` in the browser, a script in tests.
pub trait Http {
    /// Sends `request`. A network failure is a `TypeError` whose message says "Failed to fetch";
    /// dropping the future must abort the request.
    fn send<'a>(&'a self, request: &'a HttpRequest) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>>;

    /// Sends `request` as [`Http::send`] does, handing `on_body` each piece of a 2xx answer's body
    /// as it arrives; the response still carries the whole body. A body that breaks off mid-way is
    /// a `NetworkError`. A transport that cannot stream hands nothing over (the default).
    fn send_streaming<'a>(
        &'a self,
        request: &'a HttpRequest,
        on_body: &'a dyn Fn(&str),
    ) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        let _ = on_body;
        self.send(request)
    }
}

/// The transport for builds with no `fetch` (native): every call fails, saying so.
pub struct NoHttp;

impl Http for NoHttp {
    fn send<'a>(&'a self, _: &'a HttpRequest) -> LocalBoxFuture<'a, Result<HttpResponse, RawFailure>> {
        let failure = RawFailure {
            name: Some("NotSupportedError".into()),
            ..RawFailure::coded(
                ErrorCode::ModelUnavailable.as_str(),
                "this build of keel has no `fetch`: the openai backend runs in a browser",
            )
        };
        futures_util::future::ready(Err(failure)).boxed_local()
    }
}

/// This platform's transport: `fetch` on wasm32, [`NoHttp`] elsewhere.
pub fn platform_http() -> Rc<dyn Http> {
    #[cfg(all(target_arch = "wasm32", feature = "browser"))]
    return Rc::new(fetch::FetchHttp);
    #[cfg(not(all(target_arch = "wasm32", feature = "browser")))]
    Rc::new(NoHttp)
}

/// A model behind an OpenAI-compatible server.
pub struct OpenaiModel {
    config: OpenaiConfig,
    http: Rc<dyn Http>,
    clock: Rc<dyn Clock>,
}

impl OpenaiModel {
    /// The model `config` describes, reached through `http`; `clock` dates Retry-After values.
    pub fn new(config: OpenaiConfig, http: Rc<dyn Http>, clock: Rc<dyn Clock>) -> Self {
        OpenaiModel { config, http, clock }
    }
}

impl Model for OpenaiModel {
    /// With a sink and `stream` on, asks for server-sent events and hands `sink` each piece's new
    /// text; otherwise asks for the whole reply.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let sink = sink.filter(|_| self.config.stream);
        async move {
            let http_request = request::build(&self.config, request, sink.is_some());
            let (url, clock) = (&http_request.url, &self.clock);
            let Some(sink) = sink else {
                let answer =
                    self.http.send(&http_request).await.map_err(|e| request::on_network(e, &http_request))?;
                return response::read(&answer, url, clock.now_ms());
            };
            let live = RefCell::new(sse::SseDecoder::new());
            let on_body = |piece: &str| {
                let added = live.borrow_mut().push(piece);
                if !added.is_empty() {
                    sink.text(&added);
                }
            };
            let answer = self
                .http
                .send_streaming(&http_request, &on_body)
                .await
                .map_err(|e| request::on_network(e, &http_request))?;
            let now = clock.now_ms();
            if (200..300).contains(&answer.status) && sse::is_event_stream(&answer) {
                sse::read(&answer, url, now)
            } else {
                response::read(&answer, url, now)
            }
        }
        .boxed_local()
    }

    /// Every request asks for temperature 0 and the fixed seed (`request.rs`): the same request
    /// gets the same reply from a local server (llama.cpp), and a hosted one varies at most
    /// slightly, which asking again is no way to use.
    fn greedy(&self) -> bool {
        true
    }
}
