//! The worker's entry point: `startWorker()` wires a [`WorkerHost`] to the dedicated worker's
//! `postMessage` and message events. `js/worker.js` calls it once the wasm is initialised.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::clock::{WebClock, WebRandom};
use super::host::{Control, WorkerHost};
use super::protocol::{protocol_failure, WorkerMessage};
use super::rpc::Transport;
use super::wire::Header;

/// Posts messages to the page as JSON text, batched: the first message of a batch queues a
/// microtask that posts the batch, one JSON array, so what the engine posts before that microtask
/// runs (a step's events and the request after them) is one message.
///
/// Text, not objects: a string is copied by `postMessage`, an object's graph walked twice (here to
/// clone it, on the page to rebuild it), and the worker is where a step's time goes — posting
/// objects was a quarter of its time per step (`bench/results/browser-step.md`); the page parses
/// the text. Together: a step's events and its model or tool request are one message, not four to
/// six (the page handles each message as a task of its own). A message waits at most for the work
/// already queued in its turn before it leaves.
struct Outbox {
    scope: DedicatedWorkerGlobalScope,
    /// `[` and the batch's messages so far, comma-separated; empty when nothing waits.
    text: RefCell<String>,
    /// Calls [`Outbox::flush`]; queued as a microtask by a batch's first message.
    flush: js_sys::Function,
}

impl Outbox {
    /// The worker's outbox; it lives as long as the worker.
    fn new(scope: DedicatedWorkerGlobalScope) -> Rc<Outbox> {
        Rc::new_cyclic(|outbox: &std::rc::Weak<Outbox>| {
            let outbox = outbox.clone();
            let flush = Closure::<dyn FnMut()>::new(move || {
                if let Some(outbox) = outbox.upgrade() {
                    outbox.flush();
                }
            });
            let function = flush.as_ref().unchecked_ref::<js_sys::Function>().clone();
            flush.forget();
            Outbox { scope, text: RefCell::new(String::new()), flush: function }
        })
    }
}

impl Transport for Outbox {
    fn post(&self, message: &WorkerMessage) {
        let mut text = self.text.borrow_mut();
        if text.is_empty() {
            text.push('[');
            self.scope.queue_microtask(&self.flush);
        } else {
            text.push(',');
        }
        text.push_str(&message.to_json());
    }

    /// Posts what waits, if anything: at the end of the batch's turn, or sooner when asked.
    fn flush(&self) {
        let mut text = std::mem::take(&mut *self.text.borrow_mut());
        if text.is_empty() {
            return;
        }
        text.push(']');
        // Posting a string cannot fail to clone.
        let _ = self.scope.post_message(&JsValue::from_str(&text));
    }
}

/// The `type`, `id` and `runId` of a message object JSON cannot carry.
fn header_of(data: &JsValue) -> Header {
    let field = |name: &str| js_sys::Reflect::get(data, &JsValue::from_str(name)).ok();
    let id = field("id").and_then(|v| v.as_f64()).filter(|id| id.fract() == 0.0 && *id >= 0.0);
    Header {
        kind: field("type").and_then(|v| v.as_string()),
        id: id.map(|id| id as u64),
        run_id: field("runId").and_then(|v| v.as_string()),
    }
}

/// Starts the engine in this dedicated worker: every message from the page is handled from now
/// on. `early` holds messages that arrived while the wasm was loading, handled first, in order.
///
/// ```js
/// import init, { startWorker } from "./keel.js";
/// await init();
/// startWorker(bufferedMessages);
/// ```
#[wasm_bindgen(js_name = startWorker)]
pub fn start_worker(early: Option<js_sys::Array>) -> Result<(), JsError> {
    let scope: DedicatedWorkerGlobalScope = js_sys::global()
        .dyn_into()
        .map_err(|_| JsError::new("startWorker() must be called in a dedicated worker"))?;
    let outbox = Outbox::new(scope.clone());
    let host = WorkerHost::new(
        outbox.clone(),
        Rc::new(WebClock::new()),
        Rc::new(WebRandom),
        Rc::new(wasm_bindgen_futures::spawn_local),
    );
    // Where the worker has `LanguageModel` (Chrome extensions), it calls it directly.
    host.set_opener(super::prompt_api::opener());
    let handle = {
        let scope = scope.clone();
        move |data: JsValue| {
            // The page posts its replies as JSON text (`js/agent.js`), read as it is; anything else
            // is written as JSON. `JSON.stringify` throws on a cycle or a BigInt, and gives no
            // string for `undefined`: the message's header is then read off the object, so the
            // request it belongs to still gets its answer.
            let text = match data.as_string() {
                Some(text) => Some(text),
                None => match js_sys::JSON::stringify(&data) {
                    Ok(text) => text.as_string(),
                    Err(e) => {
                        let why = super::js_error::raw_failure(&e).message;
                        let header = header_of(&data);
                        let failure = protocol_failure(format!(
                            "the worker could not read {}: it cannot be written as JSON ({why})",
                            header.describe()
                        ));
                        host.unreadable(&header, failure);
                        return;
                    }
                },
            };
            if host.handle(text.as_deref().unwrap_or("null")) == Control::Close {
                scope.set_onmessage(None);
                // What this turn posted goes before the worker closes.
                outbox.flush();
                scope.close();
            }
        }
    };
    for data in early.iter().flat_map(|a| a.iter()) {
        handle(data);
    }
    let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| handle(event.data()));
    scope.set_onmessage(Some(listener.as_ref().unchecked_ref()));
    // The listener lives as long as the worker.
    listener.forget();
    Ok(())
}
