//! The `custom` model backend: each request is a `modelCall` to the page, which runs the author's
//! `async (messages, {schema, signal}) => text` and answers with `modelResult`. Dropping the call (a
//! timeout, a cancelled run) posts `modelAbort`, which aborts the function's signal.

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use crate::engine::{Model, ModelReply, ModelRequest};
use crate::errors::RawFailure;

use super::protocol::WorkerMessage;
use super::rpc::{wrong_reply, AbortKind, PageReply, Rpc};

/// A model the page runs, for one run.
pub struct PageModel {
    rpc: Rc<Rpc>,
    run_id: String,
}

impl PageModel {
    /// The page's model for the run `run_id`, asked through `rpc`.
    pub fn new(rpc: Rc<Rpc>, run_id: impl Into<String>) -> Self {
        PageModel { rpc, run_id: run_id.into() }
    }
}

impl Model for PageModel {
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let pending = self.rpc.request(AbortKind::Model, |id| WorkerMessage::ModelCall {
            id,
            run_id: self.run_id.clone(),
            request: request.clone(),
        });
        async move {
            let id = pending.id();
            match pending.await? {
                PageReply::Model(reply) => reply.into_model_reply(),
                PageReply::Tool(_) => Err(wrong_reply(id, "modelResult")),
            }
        }
        .boxed_local()
    }
}
