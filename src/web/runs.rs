//! Runs in the worker: each is spawned on the event loop with its own cancel token, and runs of one
//! session queue behind each other (a session's history is the previous run's turns), while runs of
//! different sessions interleave.

use std::cell::RefCell;
use std::collections::HashMap;
use std::pin::pin;
use std::rc::Rc;

use futures_util::future::select;
use futures_util::FutureExt;

use crate::engine::{CancelToken, Event, RunOptions};
use crate::errors::RawFailure;

use super::host::WorkerHost;
use super::protocol::{protocol_failure, Run, WorkerMessage};

/// A latch that opens when a run ends, for the next run of its session to wait on. A
/// [`CancelToken`] is exactly that (a flag and the wakers to call when it is set), so it is reused.
#[derive(Clone, Default)]
struct Done(CancelToken);

/// The runs under way and the last run of each session.
#[derive(Default)]
pub(crate) struct Runs {
    cancels: RefCell<HashMap<String, CancelToken>>,
    /// Per session: the id of its last run and the latch that opens when that run ends.
    tails: RefCell<HashMap<String, (String, Done)>>,
}

impl Runs {
    /// Cancels a run; an unknown id (the run already ended) is not an error.
    pub(crate) fn cancel(&self, run_id: &str) {
        let token = self.cancels.borrow().get(run_id).cloned();
        if let Some(token) = token {
            token.cancel();
        }
    }

    /// Cancels every run.
    pub(crate) fn cancel_all(&self) {
        let tokens: Vec<_> = self.cancels.borrow().values().cloned().collect();
        for token in tokens {
            token.cancel();
        }
    }

    /// Registers a run; returns its cancel token, its latch and the latch of the run it queues
    /// behind, or `None` if the id is in use.
    fn admit(&self, run_id: &str, session: &str) -> Option<(CancelToken, Done, Option<Done>)> {
        let mut cancels = self.cancels.borrow_mut();
        if cancels.contains_key(run_id) {
            return None;
        }
        let cancel = CancelToken::new();
        cancels.insert(run_id.to_string(), cancel.clone());
        let done = Done::default();
        let before = self.tails.borrow_mut().insert(session.to_string(), (run_id.to_string(), done.clone()));
        Some((cancel, done, before.map(|(_, done)| done)))
    }

    fn finish(&self, run_id: &str, session: &str) {
        self.cancels.borrow_mut().remove(run_id);
        let mut tails = self.tails.borrow_mut();
        if tails.get(session).is_some_and(|(last, _)| last == run_id) {
            tails.remove(session);
        }
    }
}

/// Ends a run's bookkeeping however its future ends (finished or dropped), and lets the next run
/// of its session go.
struct Finish {
    host: Rc<WorkerHost>,
    run_id: String,
    session: String,
    done: Done,
}

impl Drop for Finish {
    fn drop(&mut self) {
        self.host.runs.finish(&self.run_id, &self.session);
        self.done.0.cancel();
    }
}

impl WorkerHost {
    /// Starts a run: `event`s as it goes, then `runEnded`; `runFailed` if it cannot start.
    pub(crate) fn start_run(self: &Rc<Self>, run: Run) {
        let Some(built) = self.built.borrow().clone() else {
            let error = protocol_failure("no agent yet: send `init` and wait for `ready` before `run`");
            self.rpc.post(&WorkerMessage::RunFailed { run_id: run.run_id, error });
            return;
        };
        let Some((cancel, done, before)) = self.runs.admit(&run.run_id, &run.session) else {
            let error = RawFailure {
                name: Some("TypeError".into()),
                ..RawFailure::coded(
                    "DUPLICATE_RUN_ID",
                    format!("a run `{}` is already under way", run.run_id),
                )
            };
            self.rpc.post(&WorkerMessage::RunFailed { run_id: run.run_id, error });
            return;
        };
        let host = self.clone();
        let task = async move {
            let Run { run_id, task, session } = run;
            let _finish =
                Finish { host: host.clone(), run_id: run_id.clone(), session: session.clone(), done };
            if let Some(before) = before {
                // Wait for the session's previous run, unless this one is cancelled meanwhile (it
                // then ends at once, as cancelled, without touching the session).
                select(pin!(before.0.cancelled()), pin!(cancel.cancelled())).await;
            }
            let agent = built.agent_for(&host.rpc, &run_id);
            let rpc = host.rpc.clone();
            let emit = |event: &Event| {
                rpc.post(&WorkerMessage::Event { run_id: run_id.clone(), event: event.clone() });
            };
            let options = RunOptions { session, run_id: Some(run_id.clone()), cancel };
            let result = agent.run(&task, options, &emit).await;
            host.rpc.post(&WorkerMessage::RunEnded { run_id: run_id.clone(), result });
        };
        (self.spawn)(task.boxed_local());
    }
}
