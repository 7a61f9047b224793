//! Runs in the worker: each is spawned on the event loop with its own cancel token, and runs of one
//! session queue behind each other (a session's history is the previous run's turns), while runs of
//! different sessions interleave. Across tabs, a run holds its session's Web Lock (`locks.rs`)
//! from before its first read of the session to its last write, and its own run lock for its
//! whole life in this worker, which is what tells a live run from a cut-off one. Only with a store
//! other tabs see (IndexedDB), the session's lock named with the database: a memory store's runs
//! hold no locks.
//!
//! A `run` with `resume` picks up a stored run left `running`: its session is read from the store,
//! its run lock is taken if free (if not, the run is live in another tab or worker, and resuming is
//! refused at once), it queues like any run, and once it holds the session's lock it is read again
//! and, if still `running`, continued from its last committed step or ended as interrupted.

use std::cell::RefCell;
use std::collections::HashMap;
use std::pin::pin;
use std::rc::Rc;

use futures_util::future::select;
use futures_util::FutureExt;

use crate::engine::{Agent, Approvals, CancelToken, Effects, Event, RunOptions, RunResult};
use crate::errors::{KeelErrorCode, RawFailure};

use super::WorkerHost;
use crate::store::{RunRecord, RunStatus, SavedRun};
use crate::web::protocol::{protocol_failure, CallDecision, Resume, Run, WorkerMessage};

/// A latch that opens when a run ends, for the next run of its session to wait on. A
/// [`CancelToken`] is exactly that (a flag and the wakers to call when it is set), so it is reused.
#[derive(Clone, Default)]
struct Done(CancelToken);

/// The runs under way and the last run of each session.
#[derive(Default)]
pub(crate) struct Runs {
    pub(crate) cancels: RefCell<HashMap<String, CancelToken>>,
    /// Where each live run takes the user's decisions on calls waiting for approval.
    pub(crate) approvals: RefCell<HashMap<String, Approvals>>,
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
        self.approvals.borrow_mut().remove(run_id);
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
    /// `warning`, if any, is said first in the run's events (its task was made valid Unicode).
    pub(crate) fn start_run(self: &Rc<Self>, run: Run, warning: Option<String>) {
        let Some(built) = self.built.borrow().clone() else {
            let error = protocol_failure("no agent yet: send `init` and wait for `ready` before `run`");
            self.rpc.post(&WorkerMessage::RunFailed { run_id: run.run_id, error });
            return;
        };
        let host = self.clone();
        let task = async move {
            let mut run = run;
            if run.decision.is_some() && run.resume != Some(Resume::Continue) {
                let error = protocol_failure("a `decision` goes with `resume: \"continue\"` only");
                return host.rpc.post(&WorkerMessage::RunFailed { run_id: run.run_id, error });
            }
            if run.resume.is_some() {
                // The session to queue in is the stored run's.
                match built.store.load_run(&run.run_id).await {
                    Ok(Some(saved)) => run.session = saved.run.session,
                    Ok(None) => {
                        return host.refuse(
                            &run.run_id,
                            KeelErrorCode::RunNotFound,
                            "no stored run has this id",
                        )
                    }
                    Err(e) => {
                        return host.refuse(&run.run_id, KeelErrorCode::StoreUnavailable, &e.to_string())
                    }
                }
            }
            let Some((cancel, done, before)) = host.runs.admit(&run.run_id, &run.session) else {
                return match run.resume {
                    Some(_) => host.refuse_live(&run.run_id, "in this agent"),
                    None => host.refuse(
                        &run.run_id,
                        KeelErrorCode::DuplicateRunId,
                        "a run with this id is already under way",
                    ),
                };
            };
            let Run { run_id, task, session, resume, decision } = run;
            let approvals = match &decision {
                Some(given) => Approvals::decided(&given.call_id, given.decision.clone()),
                None => Approvals::new(),
            };
            host.runs.approvals.borrow_mut().insert(run_id.clone(), approvals.clone());
            let _finish =
                Finish { host: host.clone(), run_id: run_id.clone(), session: session.clone(), done };
            // Held until the run's future ends, after its last write. A fresh run's id is new, so
            // its lock is free unless another tab picked the same id. A store no other tab sees
            // (memory) needs no locks: no other tab can run its sessions or resume its runs.
            let Some(_live) = built.locks.run_if_free(&run_id).await else {
                return match resume {
                    Some(_) => host.refuse_live(&run_id, "in another tab or worker"),
                    None => host.refuse(
                        &run_id,
                        KeelErrorCode::DuplicateRunId,
                        "another tab or worker runs a run with this id",
                    ),
                };
            };
            // Wait for the session's previous run here, then for other tabs' runs of the session,
            // unless this one is cancelled meanwhile (it then ends at once, as cancelled, without
            // touching the session; dropping the lock's future withdraws the request).
            let ready = async {
                if let Some(before) = before {
                    before.0.cancelled().await;
                }
                built.locks.session(&session).await
            };
            let _lock = match select(pin!(ready), pin!(cancel.cancelled())).await {
                futures_util::future::Either::Left((lock, _)) => Some(lock),
                futures_util::future::Either::Right(_) => None,
            };
            let effects = built.effects_for(&host.rpc, &run_id);
            let rpc = host.rpc.clone();
            let emit = |event: &Event| {
                rpc.post(&WorkerMessage::Event { run_id: run_id.clone(), event: event.clone() });
            };
            if let Some(message) = warning {
                emit(&Event::Warning { step: None, message });
            }
            let options = RunOptions { session, run_id: Some(run_id.clone()), cancel, approvals };
            let result = match resume {
                None => built.agent.run(&effects, &task, options, &emit).await,
                Some(mode) => {
                    match resume_run(&built.agent, &effects, &run_id, mode, decision, options, &emit).await {
                        Ok(result) => result,
                        Err((code, message)) => return host.refuse(&run_id, code, &message),
                    }
                }
            };
            host.rpc.post(&WorkerMessage::RunEnded { run_id: run_id.clone(), result });
        };
        (self.spawn)(task.boxed_local());
    }

    /// Answers `unfinishedRuns`: stored runs left `running`, less the live ones: this worker's, and
    /// those whose run lock another tab or worker holds.
    pub(crate) fn unfinished_runs(self: &Rc<Self>, id: u64) {
        self.answer_from_unfinished(move |host, found| match found {
            Ok((mut runs, elsewhere)) => {
                runs.retain(|r| {
                    !host.runs.cancels.borrow().contains_key(&r.id) && !elsewhere.contains(&r.id)
                });
                WorkerMessage::UnfinishedRuns { id, runs, error: None }
            }
            Err(error) => WorkerMessage::UnfinishedRuns { id, runs: Vec::new(), error: Some(error) },
        });
    }

    /// Reads the stored runs left `running` and the ids of the runs live in another tab or worker
    /// (their run locks are held), and posts what `reply` makes of them, or of the failure: no agent
    /// yet, or the store could not be read. `unfinishedRuns` and `pendingApprovals` answer from it.
    pub(crate) fn answer_from_unfinished(
        self: &Rc<Self>,
        reply: impl FnOnce(&WorkerHost, Result<(Vec<RunRecord>, Vec<String>), RawFailure>) -> WorkerMessage
            + 'static,
    ) {
        let Some(built) = self.built.borrow().clone() else {
            let error = protocol_failure("no agent yet: send `init` and wait for `ready` first");
            self.rpc.post(&reply(self, Err(error)));
            return;
        };
        let host = self.clone();
        (self.spawn)(
            async move {
                let found = match built.store.unfinished_runs().await {
                    Ok(runs) => Ok((runs, built.locks.live_elsewhere().await)),
                    Err(e) => Err(RawFailure::coded(KeelErrorCode::StoreUnavailable, e.to_string())),
                };
                host.rpc.post(&reply(&host, found));
            }
            .boxed_local(),
        );
    }

    fn refuse(&self, run_id: &str, code: KeelErrorCode, message: &str) {
        let error = RawFailure::coded(code, format!("run `{run_id}`: {message}"));
        self.rpc.post(&WorkerMessage::RunFailed { run_id: run_id.to_string(), error });
    }

    /// Refuses to resume or abandon a run that is live `where_`: it is not cut off.
    fn refuse_live(&self, run_id: &str, where_: &str) {
        let message = format!(
            "it is still under way {where_}, so it was not cut off; resume or abandon it only once it \
             has stopped (it is then listed by unfinishedRuns)"
        );
        self.refuse(run_id, KeelErrorCode::RunLive, &message);
    }
}

/// Continues or abandons the stored run `run_id`, read again now that its session's lock is held:
/// if it is no longer `running`, another tab finished it meanwhile.
async fn resume_run(
    agent: &Agent,
    effects: &Effects,
    run_id: &str,
    mode: Resume,
    decision: Option<CallDecision>,
    options: RunOptions,
    emit: &dyn Fn(&Event),
) -> Result<RunResult, (KeelErrorCode, String)> {
    let saved = effects.store.load_run(run_id).await;
    let SavedRun { run, turns } = match saved {
        Ok(Some(saved)) => saved,
        Ok(None) => return Err((KeelErrorCode::RunNotFound, "no stored run has this id".into())),
        Err(e) => return Err((KeelErrorCode::StoreUnavailable, e.to_string())),
    };
    if run.status != RunStatus::Running {
        let status = serde_json::to_value(run.status).unwrap_or_default();
        return Err((KeelErrorCode::RunFinished, format!("the run has already ended ({status})")));
    }
    if let Some(given) = decision {
        let waits_on = run.pending_approval.as_ref().map(|p| p.call_id.as_str());
        if waits_on != Some(given.call_id.as_str()) {
            let waits = waits_on.map_or("on no call".to_string(), |call| format!("on `{call}`"));
            let message = format!("no call `{}` waits for approval: the run waits {waits}", given.call_id);
            return Err((KeelErrorCode::ApprovalNotPending, message));
        }
    }
    let (run, turns) = SavedRun { run, turns }.into_parts();
    Ok(match mode {
        Resume::Continue => agent.resume(effects, run, turns, options, emit).await,
        Resume::Abandon => agent.abandon(effects, run, turns, emit).await,
    })
}
