//! A step's write in flight: started when the step commits, so that the store completes it while
//! the engine builds the next prompt and asks the model, and waited for before the engine acts on
//! anything that needs the step stored.
//!
//! A model call changes nothing, so it is sent while the write completes ([`RunState::beside_write`]);
//! its reply is acted on only once the write is settled. Everything else waits for the write first
//! (`settle_write` is the first thing each does): a tool call, a question to the page or the
//! redactor, and every other write. A worker killed meanwhile loses what it lost when the engine
//! waited at once: the step whose write had not completed, and nothing was done after it (no tool
//! run, no answer accepted, nothing else written). The page hears as it did then: a write that
//! fails is told when it has settled, then the next step's `stepStarted`, then that step's events
//! (the text a streaming model sent meanwhile is held until then, [`HeldEvents`]); a step is stored
//! once the page has heard that the next one started. Only the model's backend hears of the call
//! earlier: a page backend's `modelCall` may come before `stepStarted`, and so may the Prompt API's
//! `modelDownload` progress, which its backend posts itself.
//!
//! The store makes a write's requests when its future is first polled (see [`Store`]), so the
//! write is polled once where it starts. Nothing is awaited while it is in flight but the model
//! call: an IndexedDB write that must read first (its session not yet known) is polled beside the
//! call, and its transaction never waits on anything but its own requests. Whether the browser
//! gets on with the commit while the worker works is its affair (`bench/results/browser-commit.md`).

use std::cell::RefCell;
use std::future::Future;

use futures_util::future::{join, poll_immediate, LocalBoxFuture};
use futures_util::FutureExt;

use crate::store::{StepWrite, Store, StoreError};

use super::run::RunState;
use super::Event;

/// A write started and not yet waited for: what it holds, for the warning if it fails.
pub(crate) struct PendingWrite<'a> {
    /// The step it belongs to.
    step: u32,
    /// What a warning names ([`StepWrite::describe`]).
    what: String,
    write: LocalBoxFuture<'a, Result<(), StoreError>>,
}

impl<'a> RunState<'a> {
    /// Starts writing `records`, after the write before it is settled; the store completes it while
    /// the engine goes on, until [`Self::settle_write`].
    pub(crate) async fn start_write(&mut self, records: StepWrite) {
        self.settle_write().await;
        let Some(step) = records.step() else { return };
        let what = records.describe();
        let effects: &'a super::Effects = self.effects;
        let store: &'a dyn Store = effects.store.as_ref();
        let mut write = async move { store.put_step(&records).await }.boxed_local();
        match poll_immediate(&mut write).await {
            Some(result) => self.report_write(step, &what, result),
            None => self.pending_write = Some(PendingWrite { step, what, write }),
        }
    }

    /// Waits for the write under way, if there is one, tells the page if it failed, and then
    /// that the step begun meanwhile started.
    pub(crate) async fn settle_write(&mut self) {
        if let Some(pending) = self.pending_write.take() {
            let result = pending.write.await;
            self.report_write(pending.step, &pending.what, result);
        }
        if let Some(step) = self.unannounced.take() {
            (self.emit)(&Event::StepStarted { step });
        }
    }

    /// Runs `call` (a model call: it changes nothing) while the write under way completes, and
    /// settles the write as soon as it is done, whatever the call is doing: the page is told then
    /// of a failed write and of the step's start, and then of what `held` kept back meanwhile.
    /// Returns once both are done, so that no reply is acted on before its step's write settled.
    pub(crate) async fn beside_write<T>(
        &mut self,
        call: impl Future<Output = T>,
        held: &HeldEvents<'_>,
    ) -> T {
        let settle = async {
            self.settle_write().await;
            held.release();
        };
        join(call, settle).await.0
    }

    fn report_write(&self, step: u32, what: &str, result: Result<(), StoreError>) {
        if let Err(e) = result {
            self.warn(Some(step), store_warning(what, &e));
        }
    }
}

/// What the page is told when writing `what` went wrong: after pruning it was saved all the same.
pub(crate) fn store_warning(what: &str, error: &StoreError) -> String {
    match error {
        StoreError::Pruned(_) => format!("Saved {what}, but {error}"),
        _ => format!("Could not save {what}: {error}"),
    }
}

/// The page's events of a model call sent while the last step's write is in flight (its streamed
/// text): held until that write is settled and the step's start told, then told in order.
pub(crate) struct HeldEvents<'e> {
    emit: &'e dyn Fn(&Event),
    /// The events held so far; `None` once released.
    held: RefCell<Option<Vec<Event>>>,
}

impl<'e> HeldEvents<'e> {
    /// Holds what is told through [`Self::emit`] until [`Self::release`], then passes it to `emit`.
    pub(crate) fn new(emit: &'e dyn Fn(&Event)) -> Self {
        HeldEvents { emit, held: RefCell::new(Some(Vec::new())) }
    }

    /// Tells `event` to the page, or holds it if not released yet.
    pub(crate) fn emit(&self, event: &Event) {
        if let Some(held) = self.held.borrow_mut().as_mut() {
            held.push(event.clone());
            return;
        }
        (self.emit)(event);
    }

    /// Tells the page what was held, and from now on every event as it comes.
    pub(crate) fn release(&self) {
        let held = self.held.borrow_mut().take();
        for event in held.into_iter().flatten() {
            (self.emit)(&event);
        }
    }
}
