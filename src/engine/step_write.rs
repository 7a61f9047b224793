//! A step's write in flight: started when the step commits, so that the store completes it while
//! the engine builds the next prompt, and waited for before the engine does anything that needs
//! the step stored.
//!
//! Durability is the same as a write awaited where it starts: the next model call, a tool call,
//! a question to the page or the redactor, and every other write wait for it first (`settle_write`
//! is the first thing each of them does), so a killed worker still loses at most the step under
//! way. Only the next prompt (and the step schema) is built meanwhile; it needs nothing from the
//! store, and tells the page nothing. The page hears as it did when the engine waited at once: a
//! write that fails is told when it is waited for, and the next step's `stepStarted` after that.
//!
//! The store makes a write's requests when its future is first polled (see [`Store`]), so the
//! write is polled once where it starts. Nothing else is awaited while it is in flight: an
//! IndexedDB write that must read first (its session not yet known) is polled again only when it
//! is waited for, and its transaction never waits on anything but its own requests. Whether the
//! browser gets on with the commit while the worker builds is its affair: Chrome did not, on a
//! loaded two-core machine (`bench/results/browser-commit.md`).

use futures_util::future::{poll_immediate, LocalBoxFuture};
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
