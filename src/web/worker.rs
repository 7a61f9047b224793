//! The worker's entry point: `startWorker()` wires a [`WorkerHost`] to the dedicated worker's
//! `postMessage` and message events. `js/worker.js` calls it once the wasm is initialised.

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::clock::{WebClock, WebRandom};
use super::host::{Control, WorkerHost};
use super::protocol::{protocol_failure, WorkerMessage};
use super::rpc::Transport;
use super::wire::Header;

/// Posts messages to the page as plain objects.
struct PostMessage(DedicatedWorkerGlobalScope);

impl Transport for PostMessage {
    fn post(&self, message: &WorkerMessage) {
        // Our own JSON always parses, and posting a plain object cannot fail to clone.
        if let Ok(object) = js_sys::JSON::parse(&message.to_json()) {
            let _ = self.0.post_message(&object);
        }
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
    let host = WorkerHost::new(
        Rc::new(PostMessage(scope.clone())),
        Rc::new(WebClock::new()),
        Rc::new(WebRandom),
        Rc::new(wasm_bindgen_futures::spawn_local),
    );
    // Where the worker has `LanguageModel` (Chrome extensions), it calls it directly.
    host.set_opener(super::prompt_api::opener());
    let handle = {
        let scope = scope.clone();
        move |data: JsValue| {
            // `JSON.stringify` throws on a cycle or a BigInt, and gives no string for `undefined`:
            // the message's header is then read off the object, so the request it belongs to
            // still gets its answer.
            let text = match js_sys::JSON::stringify(&data) {
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
            };
            if host.handle(text.as_deref().unwrap_or("null")) == Control::Close {
                scope.set_onmessage(None);
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
