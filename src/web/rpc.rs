//! The worker's pending-request table: a request posts a message with a fresh id and waits for the
//! page's reply with that id. Dropping the wait while the reply is still pending posts the matching
//! abort message: the core's timeouts and cancellation drop the call's future, and this is how they
//! reach the page's `AbortSignal`.
//!
//! No web dependencies: the transport is a trait, so the table is tested natively and in the browser
//! with a transport that records what would be posted.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::errors::RawFailure;

use super::protocol::{
    protocol_failure, ModelText, NeedsApprovalValue, RedactValue, Reply, RequestId, ToolValue, WorkerMessage,
};

/// Where the worker's messages go: `postMessage` in the browser, a list in tests.
pub trait Transport {
    /// Posts one message to the page.
    fn post(&self, message: &WorkerMessage);

    /// Sends what [`Transport::post`] holds back, now (a transport that batches messages until
    /// the end of the turn); nothing to do for one that sends each message at once.
    fn flush(&self) {}
}

/// A reply from the page to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum PageReply {
    /// A `toolResult`.
    Tool(Reply<ToolValue>),
    /// A `modelResult`.
    Model(Reply<ModelText>),
    /// A `redactResult`.
    Redact(Reply<RedactValue>),
    /// A `needsApprovalResult`.
    NeedsApproval(Reply<NeedsApprovalValue>),
}

impl PageReply {
    fn id(&self) -> RequestId {
        match self {
            PageReply::Tool(r) => r.id(),
            PageReply::Model(r) => r.id(),
            PageReply::Redact(r) => r.id(),
            PageReply::NeedsApproval(r) => r.id(),
        }
    }
}

/// What a dropped request posts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbortKind {
    /// `toolAbort`.
    Tool,
    /// `modelAbort`.
    Model,
    /// Nothing: the page's redaction function has nothing to abort, and its late answer is ignored.
    Redact,
    /// Nothing: the page's `needsApproval` function is asked and its late answer ignored.
    NeedsApproval,
}

/// One slot of the table: the reply once it came, the pieces of a streamed reply not yet taken,
/// who to wake, and the run that asked.
#[derive(Default)]
struct Slot {
    reply: Option<Result<PageReply, RawFailure>>,
    chunks: Vec<String>,
    waker: Option<Waker>,
    run_id: Option<String>,
}

/// The pending-request table and the transport its messages go through.
pub struct Rpc {
    transport: Rc<dyn Transport>,
    next_id: Cell<RequestId>,
    pending: RefCell<HashMap<RequestId, Rc<RefCell<Slot>>>>,
}

impl Rpc {
    /// A table posting through `transport`.
    pub fn new(transport: Rc<dyn Transport>) -> Rc<Rpc> {
        Rc::new(Rpc { transport, next_id: Cell::new(1), pending: RefCell::new(HashMap::new()) })
    }

    /// Posts a message that expects no reply.
    pub fn post(&self, message: &WorkerMessage) {
        self.transport.post(message);
    }

    /// Sends the messages posted so far now, before the work this turn spawned first runs.
    pub fn flush(&self) {
        self.transport.flush();
    }

    /// Posts the message `make(id)` for a fresh id and returns the wait for its reply.
    pub fn request(
        self: &Rc<Self>,
        kind: AbortKind,
        make: impl FnOnce(RequestId) -> WorkerMessage,
    ) -> PendingReply {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let message = make(id);
        let run_id = match &message {
            WorkerMessage::ToolCall { run_id, .. } | WorkerMessage::ModelCall { run_id, .. } => {
                Some(run_id.clone())
            }
            _ => None,
        };
        let slot = Rc::new(RefCell::new(Slot { run_id, ..Slot::default() }));
        self.pending.borrow_mut().insert(id, slot.clone());
        self.transport.post(&message);
        PendingReply { rpc: self.clone(), id, kind, slot }
    }

    /// Hands a reply to the request waiting for it. Returns false when no request has that id: it
    /// was aborted (or answered) already, a normal race the caller ignores.
    pub fn resolve(&self, reply: PageReply) -> bool {
        let Some(slot) = self.pending.borrow_mut().remove(&reply.id()) else { return false };
        Self::fill(&slot, Ok(reply));
        true
    }

    /// Hands a piece of a streamed reply to the request `id` (a `modelChunk`): the waiting call
    /// takes it with [`PendingReply::take_chunks`]. Ignored when no request has that id.
    pub fn chunk(&self, id: RequestId, text: String) {
        let Some(slot) = self.pending.borrow().get(&id).cloned() else { return };
        let waker = {
            let mut slot = slot.borrow_mut();
            slot.chunks.push(text);
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Fails the request `id` with `failure` (its reply came but could not be read). Returns false
    /// when no request has that id.
    pub fn fail(&self, id: RequestId, failure: RawFailure) -> bool {
        let Some(slot) = self.pending.borrow_mut().remove(&id) else { return false };
        Self::fill(&slot, Err(failure));
        true
    }

    /// The run that made the pending request `id`, if a run made it.
    pub fn run_of(&self, id: RequestId) -> Option<String> {
        self.pending.borrow().get(&id).and_then(|slot| slot.borrow().run_id.clone())
    }

    /// Fails every pending request with `failure` (the worker is being disposed); no abort is posted.
    pub fn fail_all(&self, failure: &RawFailure) {
        let slots: Vec<_> = self.pending.borrow_mut().drain().map(|(_, slot)| slot).collect();
        for slot in slots {
            Self::fill(&slot, Err(failure.clone()));
        }
    }

    /// How many requests wait for a reply.
    pub fn pending_count(&self) -> usize {
        self.pending.borrow().len()
    }

    fn fill(slot: &RefCell<Slot>, reply: Result<PageReply, RawFailure>) {
        let waker = {
            let mut slot = slot.borrow_mut();
            slot.reply = Some(reply);
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The wait for one reply. Dropping it before the reply came posts its abort, if it has one.
pub struct PendingReply {
    rpc: Rc<Rpc>,
    id: RequestId,
    kind: AbortKind,
    slot: Rc<RefCell<Slot>>,
}

impl PendingReply {
    /// The request's id.
    pub fn id(&self) -> RequestId {
        self.id
    }

    /// The pieces of a streamed reply that came since the last call, in order. Polling the wait
    /// after a piece came wakes it as a reply would, so a caller can take them as they come.
    pub fn take_chunks(&self) -> Vec<String> {
        std::mem::take(&mut self.slot.borrow_mut().chunks)
    }
}

impl Future for PendingReply {
    type Output = Result<PageReply, RawFailure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.slot.borrow_mut();
        match slot.reply.take() {
            Some(reply) => Poll::Ready(reply),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for PendingReply {
    fn drop(&mut self) {
        // Still in the table: no reply came (a taken reply was removed by `resolve`).
        if self.rpc.pending.borrow_mut().remove(&self.id).is_some() {
            let abort = match self.kind {
                AbortKind::Tool => Some(WorkerMessage::ToolAbort { id: self.id }),
                AbortKind::Model => Some(WorkerMessage::ModelAbort { id: self.id }),
                AbortKind::Redact | AbortKind::NeedsApproval => None,
            };
            if let Some(abort) = abort {
                self.rpc.transport.post(&abort);
            }
        }
    }
}

/// The failure for a reply of the wrong kind (a `modelResult` answering a `toolCall`).
pub fn wrong_reply(id: RequestId, expected: &str) -> RawFailure {
    protocol_failure(format!("request {id} expected a `{expected}` reply and got another kind"))
}
