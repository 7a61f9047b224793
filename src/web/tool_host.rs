//! The tool host of the browser: each attempt is a `toolCall` to the page, which runs the author's
//! `execute(args, {signal, attempt, idempotencyKey})` and answers with `toolResult`. Dropping the
//! call (a timeout, a cancelled run) posts `toolAbort`, which aborts the tool's signal. For a tool whose
//! `needsApproval` is a function, each call is first a `needsApproval` request the page answers
//! with `needsApprovalResult` (`needsApproval: true` to wait for the user).

use std::collections::HashMap;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use crate::engine::{ToolCall, ToolHost, ToolOutput};
use crate::errors::RawFailure;
use crate::tools::ToolSpec;

use super::protocol::WorkerMessage;
use super::rpc::{wrong_reply, AbortKind, PageReply, Rpc};

/// Each tool's attempt timeout, told to the page with every call (the worker enforces it).
#[derive(Debug, Clone, Default)]
pub struct Timeouts {
    default_ms: u64,
    per_tool: HashMap<String, u64>,
}

impl Timeouts {
    /// The timeouts of `specs`, `default_ms` for those that set none.
    pub fn new(specs: &[ToolSpec], default_ms: u64) -> Self {
        let per_tool = specs.iter().filter_map(|s| Some((s.name.clone(), s.timeout_ms?))).collect();
        Timeouts { default_ms, per_tool }
    }

    /// The timeout of `tool`.
    pub fn of(&self, tool: &str) -> u64 {
        self.per_tool.get(tool).copied().unwrap_or(self.default_ms)
    }
}

/// Calls the page's tools for one run.
pub struct RpcToolHost {
    rpc: Rc<Rpc>,
    run_id: String,
    timeouts: Rc<Timeouts>,
}

impl RpcToolHost {
    /// A host for the run `run_id`, posting through `rpc`.
    pub fn new(rpc: Rc<Rpc>, run_id: impl Into<String>, timeouts: Rc<Timeouts>) -> Self {
        RpcToolHost { rpc, run_id: run_id.into(), timeouts }
    }
}

impl ToolHost for RpcToolHost {
    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>> {
        let pending = self.rpc.request(AbortKind::Tool, |id| WorkerMessage::ToolCall {
            id,
            run_id: self.run_id.clone(),
            tool: call.tool.clone(),
            args: call.args.clone(),
            attempt: call.attempt,
            timeout_ms: self.timeouts.of(&call.tool),
            idempotency_key: call.idempotency_key.clone(),
        });
        async move {
            let id = pending.id();
            match pending.await? {
                PageReply::Tool(reply) => reply.into_tool_output(),
                _ => Err(wrong_reply(id, "toolResult")),
            }
        }
        .boxed_local()
    }

    fn needs_approval<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<bool, RawFailure>> {
        let pending = self.rpc.request(AbortKind::NeedsApproval, |id| WorkerMessage::NeedsApproval {
            id,
            run_id: self.run_id.clone(),
            tool: call.tool.clone(),
            args: call.args.clone(),
        });
        async move {
            let id = pending.id();
            match pending.await? {
                PageReply::NeedsApproval(reply) => Ok(reply.into_result()?.needs_approval),
                _ => Err(wrong_reply(id, "needsApprovalResult")),
            }
        }
        .boxed_local()
    }
}
