//! Models the page runs: each request is a `modelCall` to the page, which runs the author's
//! `async (messages, {schema, signal}) => text` (`custom`) or the Prompt API (`promptApi`, on the web
//! only the page has `LanguageModel`) and answers with `modelResult`. Dropping the call (a timeout, a
//! cancelled run) posts `modelAbort`, which aborts the call's signal on the page. A streaming call
//! (`stream: true`) gets the reply's text in `modelChunk` messages before its `modelResult`: the
//! Prompt API's `promptStreaming`, a custom model (wllama's included) that calls its `onText`.

use std::cell::Cell;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use std::future::Future;
use std::pin::Pin;

use crate::engine::{Model, ModelReply, ModelRequest, ReplySink};
use crate::errors::{classify, ErrorCode, Origin, RawFailure};

use super::protocol::WorkerMessage;
use super::rpc::{wrong_reply, AbortKind, PageReply, Rpc};

/// A model the page runs, for one run.
pub struct PageModel {
    rpc: Rc<Rpc>,
    run_id: String,
    /// The page backend that answers (`custom`, `promptApi`).
    backend: &'static str,
    /// The context window the page reported, shared by every run's model.
    window: Rc<Cell<Option<usize>>>,
}

impl PageModel {
    /// The page's `backend` (`custom`, `promptApi`) for the run `run_id`, asked through `rpc`.
    pub fn new(rpc: Rc<Rpc>, run_id: impl Into<String>, backend: &'static str) -> Self {
        PageModel { rpc, run_id: run_id.into(), backend, window: Rc::default() }
    }

    /// The same, remembering the context window the page reports in `window` (shared between runs).
    pub fn sharing_window(mut self, window: Rc<Cell<Option<usize>>>) -> Self {
        self.window = window;
        self
    }
}

impl PageModel {
    /// A failure whose request the backend refused (`MODEL_REQUEST_REJECTED`: an HTTP 400, a bad
    /// option), its message naming the backend and the status, which the page's error may not say.
    fn named(&self, failure: RawFailure) -> RawFailure {
        if classify(&failure, Origin::Model).code != ErrorCode::ModelRequestRejected {
            return failure;
        }
        let status = failure.status.map_or_else(String::new, |s| format!(" with HTTP {s}"));
        let message =
            format!("The `{}` model backend rejected the request{status}: {}", self.backend, failure.message);
        RawFailure { message, ..failure }
    }
}

impl Model for PageModel {
    /// A `modelCall` to the page, with `stream: true` when there is a sink.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let mut pending = self.rpc.request(AbortKind::Model, |id| WorkerMessage::ModelCall {
            id,
            run_id: self.run_id.clone(),
            backend: self.backend.to_string(),
            request: request.clone(),
            stream: sink.is_some(),
        });
        async move {
            let id = pending.id();
            // The pieces that came are handed over before the reply that follows them is taken.
            let answer = futures_util::future::poll_fn(|cx| {
                if let Some(sink) = sink {
                    for chunk in pending.take_chunks() {
                        sink.text(&chunk);
                    }
                }
                Pin::new(&mut pending).poll(cx)
            })
            .await;
            match answer? {
                PageReply::Model(reply) => {
                    let text = reply.into_result().map_err(|failure| self.named(failure))?;
                    if text.context_window.is_some() {
                        self.window.set(text.context_window);
                    }
                    Ok(ModelReply { text: text.text, usage: text.usage })
                }
                _ => Err(wrong_reply(id, "modelResult")),
            }
        }
        .boxed_local()
    }

    fn context_window(&self) -> Option<usize> {
        self.window.get()
    }
}
