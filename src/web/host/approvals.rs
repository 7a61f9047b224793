//! The page's side of human approval in the worker: `decide` hands the user's decision to the live
//! run waiting on the call, and `pendingApprovals` lists the calls waiting, live or stored.
//!
//! ```json
//! → {"type": "decide", "id": 4, "callId": "run-1:2", "approved": false, "reason": "not that one"}
//! ← {"type": "decided", "id": 4}
//! → {"type": "pendingApprovals", "id": 5}
//! ← {"type": "pendingApprovals", "id": 5, "approvals": [{"callId": "run-1:2", "runId": "run-1", "tool": "send_email", "live": true, …}]}
//! ```
//!
//! A call stored on a run cut off while it waited (a reload) has no live run to decide it: the page
//! resumes the run with the decision instead (`run` with `resume` and `decision`, `host/runs.rs`).

use std::rc::Rc;

use crate::errors::{KeelErrorCode, RawFailure};
use crate::store::ApprovalRequest;

use super::WorkerHost;
use crate::web::protocol::{CallDecision, PendingApprovalView, RequestId, WorkerMessage};

impl WorkerHost {
    /// Answers `decide`: the decision goes to the live run waiting on the call, or is refused with
    /// `APPROVAL_NOT_PENDING`.
    pub(crate) fn decide(&self, id: RequestId, given: CallDecision) {
        // The run waiting on the call, else the live run the id names (`<run>:<step>`), which
        // says what it waits on instead.
        let approvals = self.runs.approvals.borrow();
        let run_of_id = given.call_id.rsplit_once(':').map(|(run, _)| run);
        let waiting = approvals
            .values()
            .find(|a| a.waiting().as_deref() == Some(given.call_id.as_str()))
            .or_else(|| approvals.get(run_of_id?))
            .cloned();
        drop(approvals);
        let error = match waiting.map(|a| a.decide(&given.call_id, given.decision)) {
            Some(Ok(())) => None,
            Some(Err(e)) => Some(RawFailure::coded(KeelErrorCode::ApprovalNotPending, e.to_string())),
            None => Some(RawFailure::coded(
                KeelErrorCode::ApprovalNotPending,
                format!(
                    "no run of this agent waits for approval of `{}`: it was never asked for, is decided \
                     already, or its run ended; after a reload, agent.pendingApprovals() lists the calls \
                     stored as waiting",
                    given.call_id
                ),
            )),
        };
        self.rpc.post(&WorkerMessage::Decided { id, error });
    }

    /// Answers `pendingApprovals`: the calls stored as waiting on runs left `running`, less those
    /// whose run is live in another tab or worker; `live` when a run of this worker waits on it.
    pub(crate) fn pending_approvals(self: &Rc<Self>, id: RequestId) {
        self.answer_from_unfinished(move |host, found| match found {
            Ok((runs, elsewhere)) => {
                let approvals = runs
                    .iter()
                    .filter_map(ApprovalRequest::of)
                    .filter_map(|request| {
                        let here = host.runs.approvals.borrow().get(&request.run_id).cloned();
                        let live = here
                            .is_some_and(|a| a.waiting().as_deref() == Some(request.call.call_id.as_str()));
                        let mine = host.runs.cancels.borrow().contains_key(&request.run_id);
                        // A run of this worker between calls, or live in another tab, has no call
                        // to decide from here.
                        let listed = live || (!mine && !elsewhere.contains(&request.run_id));
                        listed.then_some(PendingApprovalView { request, live })
                    })
                    .collect();
                WorkerMessage::PendingApprovals { id, approvals, error: None }
            }
            Err(error) => WorkerMessage::PendingApprovals { id, approvals: Vec::new(), error: Some(error) },
        });
    }
}
