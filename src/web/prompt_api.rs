//! The Prompt API called by the worker itself, where the worker has `LanguageModel` (Chrome enables
//! it in extension workers). The backend is `js/backends/prompt-api.js`, the module the page uses on
//! the web, imported here as a wasm-bindgen snippet: one implementation for both places.

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use crate::engine::{Event, Model, ModelReply, ModelRequest, ReplySink};
use crate::errors::RawFailure;

use super::js_error::raw_failure;
use super::model_source::{ModelSource, Opener, Opening};
use super::protocol::{protocol_failure, ModelChoice, ModelText, WorkerMessage};
use super::rpc::Rpc;

#[wasm_bindgen(module = "/js/backends/prompt-api.js")]
extern "C" {
    #[wasm_bindgen(js_name = hasLanguageModel)]
    fn has_language_model() -> bool;

    #[wasm_bindgen(js_name = openPromptApi)]
    fn open_prompt_api() -> js_sys::Promise;

    /// One agent's Prompt API backend (`PromptApiBackend` in the JS module).
    #[derive(Clone)]
    pub type PromptApiBackend;

    #[wasm_bindgen(method)]
    fn complete(this: &PromptApiBackend, messages: &JsValue, options: &JsValue) -> js_sys::Promise;

    #[wasm_bindgen(method, getter, js_name = contextWindow)]
    fn context_window(this: &PromptApiBackend) -> Option<f64>;

    #[wasm_bindgen(method)]
    fn dispose(this: &PromptApiBackend);
}

/// Opens the Prompt API in this worker when it has `LanguageModel` and the page chose it.
pub fn opener() -> Opener {
    Rc::new(|choice: &ModelChoice| (*choice == ModelChoice::PromptApi && has_language_model()).then(open))
}

/// Checks availability (a clear NotSupportedError when the model cannot run here).
pub fn open() -> Opening {
    async {
        let backend = JsFuture::from(open_prompt_api()).await.map_err(|e| raw_failure(&e))?;
        Ok(Rc::new(PromptApiModels { backend: backend.unchecked_into() }) as Rc<dyn ModelSource>)
    }
    .boxed_local()
}

/// The backend shared by the runs of one agent.
pub struct PromptApiModels {
    backend: PromptApiBackend,
}

impl ModelSource for PromptApiModels {
    fn for_run(&self, rpc: &Rc<Rpc>, run_id: &str) -> Rc<dyn Model> {
        Rc::new(PromptApiModel { backend: self.backend.clone(), rpc: rpc.clone(), run_id: run_id.into() })
    }

    fn dispose(&self) {
        self.backend.dispose();
    }
}

/// The Prompt API for one run: download progress goes to the page as the run's events.
pub struct PromptApiModel {
    backend: PromptApiBackend,
    rpc: Rc<Rpc>,
    run_id: String,
}

/// Aborts the call's signal when the call's future is dropped before it settled.
struct AbortOnDrop(Option<AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}

fn js(value: &impl serde::Serialize) -> JsValue {
    serde_json::to_string(value).ok().and_then(|t| js_sys::JSON::parse(&t).ok()).unwrap_or(JsValue::UNDEFINED)
}

impl PromptApiModel {
    fn download_listener(&self) -> Closure<dyn FnMut(JsValue)> {
        let (rpc, run_id) = (self.rpc.clone(), self.run_id.clone());
        Closure::new(move |progress: JsValue| {
            let number =
                |key: &str| js_sys::Reflect::get(&progress, &key.into()).ok().and_then(|v| v.as_f64());
            let event =
                Event::ModelDownload { loaded: number("loaded").unwrap_or(0.0), total: number("total") };
            rpc.post(&WorkerMessage::Event { run_id: run_id.clone(), event });
        })
    }
}

impl Model for PromptApiModel {
    /// One step; with a sink, through `promptStreaming`, each chunk handed to it as it comes.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        async move {
            let controller = AbortController::new().map_err(|e| raw_failure(&e))?;
            let on_download = self.download_listener();
            // The closure must be 'static: the chunks go through a queue the call drains. The
            // backend calls it synchronously from its read loop, so each chunk is one call.
            let queue = Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
            let waker = Rc::new(std::cell::RefCell::new(None::<std::task::Waker>));
            let on_text = {
                let (queue, waker) = (queue.clone(), waker.clone());
                Closure::<dyn FnMut(JsValue)>::new(move |text: JsValue| {
                    if let Some(text) = text.as_string() {
                        queue.borrow_mut().push(text);
                    }
                    if let Some(w) = waker.borrow_mut().take() {
                        w.wake();
                    }
                })
            };
            let options = js_sys::Object::new();
            let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&options, &key.into(), value);
            set("schema", &request.schema.as_ref().map_or(JsValue::UNDEFINED, js))
                .and_then(|_| set("signal", &controller.signal()))
                .and_then(|_| set("onDownload", on_download.as_ref()))
                .and_then(|_| match sink {
                    Some(_) => set("onText", on_text.as_ref()),
                    None => Ok(true),
                })
                .map_err(|e| raw_failure(&e))?;
            let mut abort = AbortOnDrop(Some(controller));
            let mut call = JsFuture::from(self.backend.complete(&js(&request.messages), &options));
            let settled = futures_util::future::poll_fn(|cx| {
                *waker.borrow_mut() = Some(cx.waker().clone());
                if let Some(sink) = sink {
                    for chunk in std::mem::take(&mut *queue.borrow_mut()) {
                        sink.text(&chunk);
                    }
                }
                call.poll_unpin(cx)
            })
            .await;
            // Settled: nothing to abort, and the listeners are not called after this (the backend
            // stops reporting once the call ends or its signal aborts).
            abort.0 = None;
            drop(on_download);
            drop(on_text);
            let value = settled.map_err(|e| raw_failure(&e))?;
            let text = js_sys::JSON::stringify(&value).ok().and_then(|t| t.as_string()).unwrap_or_default();
            // Through a `Value`, as the page's messages are: ModelText needs no text reader of its own.
            let reply: ModelText = serde_json::from_str(&text)
                .and_then(|value: serde_json::Value| crate::settings::from_value(&value))
                .map_err(|e| protocol_failure(format!("the Prompt API backend answered oddly: {e}")))?;
            Ok(ModelReply { text: reply.text, usage: reply.usage })
        }
        .boxed_local()
    }

    fn context_window(&self) -> Option<usize> {
        self.backend.context_window().filter(|w| w.is_finite() && *w >= 0.0).map(|w| w as usize)
    }
}
