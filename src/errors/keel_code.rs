//! The codes of the errors keel raises itself (rather than a tool's or a model's failure). The one
//! list: the page's `KeelErrorCode` (js/codes.js and its types) is generated from it by
//! `tests/generated_js.rs`, which fails when the committed file is stale.

/// An error keel raises itself: a setting the page got wrong, a worker that died, a run it cannot
/// resume. On the page, the `code` of a `KeelError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeelErrorCode {
    /// An option, a config key or value, a run option or a failure query is wrong.
    InvalidConfig,
    /// A tool declaration is wrong.
    InvalidTools,
    /// A model choice is wrong (an unknown backend, a malformed custom model's reply).
    InvalidModel,
    /// A message between the page and the worker could not be read.
    ProtocolError,
    /// The worker script failed or crashed.
    WorkerFailed,
    /// Someone called `terminate()` on the worker.
    WorkerTerminated,
    /// The worker left a ping unanswered for `workerTimeoutMs`.
    WorkerUnresponsive,
    /// The worker could not load keel's WebAssembly.
    WasmLoadFailed,
    /// The run is still under way in this or another tab.
    RunLive,
    /// No stored run has this id.
    RunNotFound,
    /// The stored run has already ended.
    RunFinished,
    /// A run with this id already exists.
    DuplicateRunId,
    /// The store could not be read or written.
    StoreUnavailable,
    /// The agent was disposed: what is called on it afterwards fails.
    AgentDisposed,
    /// An approval or rejection named a call that no run waits on.
    ApprovalNotPending,
}

/// Every code with its wire spelling and what it means, in the order the page lists them.
pub const KEEL_ERROR_CODES: &[(KeelErrorCode, &str, &str)] = &[
    (KeelErrorCode::InvalidConfig, "INVALID_CONFIG", "an option, a config key or value, a run option or a failure query is wrong; `path` names where and `suggestion` the closest known key"),
    (KeelErrorCode::InvalidTools, "INVALID_TOOLS", "a tool declaration is wrong (unknown field, out-of-range setting, schema past the limits, duplicate or malformed name)"),
    (KeelErrorCode::InvalidModel, "INVALID_MODEL", "the model choice is wrong"),
    (KeelErrorCode::ProtocolError, "PROTOCOL_ERROR", "a message between the page and the worker could not be read; the request it belonged to fails with it"),
    (KeelErrorCode::WorkerFailed, "WORKER_FAILED", "the worker script failed or crashed; every call waiting on it rejects, and so does every later call"),
    (KeelErrorCode::WorkerTerminated, "WORKER_TERMINATED", "someone called `terminate()` on the worker"),
    (KeelErrorCode::WorkerUnresponsive, "WORKER_UNRESPONSIVE", "the worker left a ping unanswered for `workerTimeoutMs`"),
    (KeelErrorCode::WasmLoadFailed, "WASM_LOAD_FAILED", "the worker could not load keel's WebAssembly"),
    (KeelErrorCode::RunLive, "RUN_LIVE", "the run is still under way (here or in another tab), so it was not resumed or abandoned"),
    (KeelErrorCode::RunNotFound, "RUN_NOT_FOUND", "no stored run has this id"),
    (KeelErrorCode::RunFinished, "RUN_FINISHED", "the stored run has already ended"),
    (KeelErrorCode::DuplicateRunId, "DUPLICATE_RUN_ID", "a run with this id already exists"),
    (KeelErrorCode::StoreUnavailable, "STORE_UNAVAILABLE", "the store could not be read or written"),
    (KeelErrorCode::AgentDisposed, "AGENT_DISPOSED", "the agent was disposed: what is called on it afterwards fails with this"),
    (KeelErrorCode::ApprovalNotPending, "APPROVAL_NOT_PENDING", "`approve` or `reject` named a call that no run waits on (never asked, already decided, or its run ended); `agent.pendingApprovals()` lists those that wait"),
];

impl KeelErrorCode {
    /// The wire spelling (`INVALID_CONFIG`).
    pub fn as_str(self) -> &'static str {
        KEEL_ERROR_CODES.iter().find(|(c, _, _)| *c == self).map(|(_, s, _)| *s).unwrap_or("INTERNAL_ERROR")
    }
}

impl From<KeelErrorCode> for String {
    fn from(code: KeelErrorCode) -> String {
        code.as_str().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once() {
        let mut spellings: Vec<&str> = KEEL_ERROR_CODES.iter().map(|(c, _, _)| c.as_str()).collect();
        spellings.sort_unstable();
        spellings.dedup();
        assert_eq!(spellings.len(), KEEL_ERROR_CODES.len());
        assert!(!spellings.contains(&"INTERNAL_ERROR"));
    }
}
