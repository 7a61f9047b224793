//! A fallback chain of model backends (`model: [a, b, c]`): one [`Model`] that asks the first
//! backend, and moves to the next when the one answering now cannot go on.
//!
//! - **Transient** failures (429, 5xx, network, timeouts) go back to the loop unchanged: its one
//!   retry policy retries them on the same backend, with backoff and Retry-After. The chain does not
//!   retry on its own, which would multiply the attempts and hide the retries from the trace.
//! - Failures **about the prompt**, which the loop answers itself and another backend would most
//!   likely meet too, go back unchanged: a context overflow (compact and ask again), a safety block
//!   (withhold the last observation), a rejected step schema while constraining (ask without it), and
//!   an abort.
//! - Any other failure (fatal: unavailable, unauthorised, unknown model, misconfigured; or
//!   persistent) moves the chain to the next backend **for the rest of the run**, tells the page with
//!   a warning event naming both backends and why, and asks the next one at once, so the loop sees
//!   one answer. When the last backend fails too, the chain returns that failure (its class and code
//!   unchanged) with a message listing every backend tried and how each failed.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use crate::engine::{Model, ModelReply, ModelRequest, ReplySink};
use crate::errors::{classify, Classification, ErrorCode, FailureClass, Origin, RawFailure};

/// Where the chain's warnings go: the run's `warning` events in the worker, a list in tests.
pub type WarningSink = Rc<dyn Fn(String)>;

/// One member of a chain: a label for messages and its model.
pub struct Backend {
    /// How messages name it, e.g. `openai llama3 at http://127.0.0.1:8080/v1`.
    pub label: String,
    /// The model.
    pub model: Rc<dyn Model>,
}

/// Models tried in order; see the module docs for when it moves on.
pub struct FallbackModel {
    backends: Vec<Backend>,
    current: Cell<usize>,
    tried: RefCell<Vec<String>>,
    warn: WarningSink,
}

impl FallbackModel {
    /// A chain over `backends`, first choice first, warning through `warn` when it moves on.
    pub fn new(backends: Vec<Backend>, warn: WarningSink) -> Self {
        FallbackModel { backends, current: Cell::new(0), tried: RefCell::new(Vec::new()), warn }
    }

    /// The index of the backend that answers now.
    pub fn current(&self) -> usize {
        self.current.get()
    }
}

/// Whether a failure (classified) should move the chain to its next backend.
pub fn falls_back(found: &Classification, request: &ModelRequest) -> bool {
    if found.class == FailureClass::Transient {
        return false;
    }
    match found.code {
        ErrorCode::ContextOverflow | ErrorCode::SafetyBlocked | ErrorCode::Aborted => false,
        ErrorCode::Unsupported => request.schema.is_none(),
        _ => true,
    }
}

impl Model for FallbackModel {
    /// Each backend streams to `sink` where it can; a backend given up on mid-stream has its text
    /// discarded.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        async move {
            loop {
                let index = self.current.get();
                let Some(backend) = self.backends.get(index) else {
                    return Err(RawFailure {
                        name: Some("NotSupportedError".into()),
                        ..RawFailure::coded(
                            ErrorCode::ModelUnavailable.as_str(),
                            "the model fallback chain is empty",
                        )
                    });
                };
                let failure = match backend.model.complete(request, sink).await {
                    Ok(reply) => return Ok(reply),
                    Err(failure) => failure,
                };
                let found = classify(&failure, Origin::Model);
                if !falls_back(&found, request) {
                    return Err(failure);
                }
                if let Some(sink) = sink {
                    sink.discard(&found.code);
                }
                let total = self.backends.len();
                let why = format!("{} ({}): {}", backend.label, found.code, failure.message);
                self.tried.borrow_mut().push(why);
                let Some(next) = self.backends.get(index + 1) else {
                    let tried = self.tried.borrow();
                    let list: Vec<String> =
                        tried.iter().enumerate().map(|(i, t)| format!("{}. {t}", i + 1)).collect();
                    let message = format!("Every model backend failed: {}", list.join("; "));
                    return Err(RawFailure { message, ..failure });
                };
                self.current.set(index + 1);
                (self.warn)(format!(
                    "Model backend {} of {total} ({}) failed with {}: {} Falling back to backend {} ({}) \
                     for the rest of the run.",
                    index + 1,
                    backend.label,
                    found.code,
                    sentence(&failure.message),
                    index + 2,
                    next.label
                ));
            }
        }
        .boxed_local()
    }

    /// Greedy when every backend of the chain is: the same request goes to the same backend
    /// until one fails for good.
    fn greedy(&self) -> bool {
        self.backends.iter().all(|b| b.model.greedy())
    }
}

/// A message as a sentence: a full stop added when it has none.
fn sentence(message: &str) -> String {
    let message = message.trim();
    if message.ends_with(['.', '!', '?']) {
        message.to_string()
    } else {
        format!("{message}.")
    }
}
