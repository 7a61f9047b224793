//! The page's redaction function (`config.store.redact = ({tool, args}) => args | null`) as a
//! [`Redactor`]: before a step is stored, the worker posts `redact` with the call and the page
//! answers `redactResult` with the arguments to keep (`null` drops them). Functions cannot be
//! posted, so the page keeps it and sends `redact: "page"` in the config.
//!
//! ```json
//! → {"type": "redact", "id": 9, "tool": "login", "args": {"user": "bob", "password": "…"}}
//! ← {"type": "redactResult", "id": 9, "ok": true, "args": {"user": "bob", "password": "***"}}
//! ```
//!
//! A function that throws answers `ok: false`; one that never answers is given up after
//! [`REDACT_TIMEOUT_MS`](crate::store::redact::REDACT_TIMEOUT_MS). Either way the engine stores
//! the arguments dropped and warns the page.

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use serde_json::Value;

use crate::engine::Action;
use crate::errors::RawFailure;
use crate::store::redact::Redactor;

use super::protocol::WorkerMessage;
use super::rpc::{wrong_reply, AbortKind, PageReply, Rpc};

/// Asks the page's redaction function over the worker's pending-request table.
pub struct PageRedactor {
    rpc: Rc<Rpc>,
}

impl PageRedactor {
    /// A redactor asking the page through `rpc`.
    pub fn new(rpc: Rc<Rpc>) -> Self {
        PageRedactor { rpc }
    }
}

impl Redactor for PageRedactor {
    fn redact<'a>(&'a self, call: &'a Action) -> LocalBoxFuture<'a, Result<Option<Value>, RawFailure>> {
        let pending = self.rpc.request(AbortKind::Redact, |id| WorkerMessage::Redact {
            id,
            tool: call.tool.clone(),
            args: call.args.clone(),
        });
        async move {
            let id = pending.id();
            match pending.await? {
                PageReply::Redact(reply) => {
                    Ok(Some(reply.into_result()?.args).filter(|args| !args.is_null()))
                }
                _ => Err(wrong_reply(id, "redactResult")),
            }
        }
        .boxed_local()
    }
}
