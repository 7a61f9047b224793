//! The page↔worker messages, as plain serde types with a `type` tag and camelCase fields.
//!
//! The page posts plain objects (structured clone), which the worker reads through
//! `JSON.stringify` and `serde_json`; the worker posts JSON text of an array of these messages (those
//! it posted in a row, `worker.rs`), which the page parses (`js/worker-messages.js`). So the
//! serde behaviour tested natively here is exactly the one the browser runs. Failures always travel as a structured [`RawFailure`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{Decision, Event, ModelReply, ModelRequest, RunResult, ToolOutput, Usage};
use crate::errors::{KeelErrorCode, RawFailure};
use crate::settings::tagged::Tagged;
use crate::store::ApprovalRequest;

use super::openai::ResponseFormat;
use super::wire::{well_formed, Header};

pub use super::wire::RequestId;

/// Which model backend the worker should use.
///
/// `custom`, `openai` and `fallback` are built in this version; the other kinds are reserved so that
/// the page and the worker already agree on their names, and the worker answers them with a clear
/// `initFailed` (or, inside a fallback chain, moves past them with a warning).
// Deserialize is by hand (below), without serde's `Content` buffering: see crate::settings::tagged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub enum ModelChoice {
    /// The page runs the author's `async (messages, {schema, signal}) => text` function.
    Custom {
        /// Whether the function decodes greedily (temperature 0: the same messages get the same
        /// text), as `keel-agent/wllama` does by default: the loop then never asks it a request
        /// it already answered in the run, and reuses that reply. Default false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        greedy: bool,
    },
    /// Chrome's built-in Prompt API (`LanguageModel`).
    PromptApi,
    /// An OpenAI-compatible chat completions server.
    #[serde(rename_all = "camelCase")]
    Openai {
        /// The API root, e.g. `http://127.0.0.1:8080/v1`; `/chat/completions` is appended.
        base_url: String,
        /// The model name to ask for.
        model: String,
        /// A bearer token, if the server wants one: sent as `Authorization: Bearer <apiKey>`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        api_key: Option<String>,
        /// How the step schema is sent (`jsonSchema` unless the server needs another shape).
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<ResponseFormat>", optional))]
        response_format: ResponseFormat,
        /// Whether steps are asked for as server-sent events (`stream: true`) while `config.stream`
        /// is on, so the run shows the text as it comes (`token` events). Default true; false for a
        /// server or a proxy that cannot stream.
        #[serde(default = "streams")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        stream: bool,
    },
    /// A GGUF model in the browser through wllama.
    #[serde(rename_all = "camelCase")]
    Wllama {
        /// Where the GGUF file is.
        model_url: String,
    },
    /// Backends to try in order: the next on unavailability or a persistent failure.
    Fallback {
        /// The chain, first choice first.
        chain: Vec<ModelChoice>,
    },
}

/// [`ModelChoice`] externally tagged, read from its `kind` and the rest ([`Tagged::read`]): the
/// same variants, fields and serde attributes.
#[derive(Deserialize)]
#[serde(remote = "ModelChoice", rename_all = "camelCase", deny_unknown_fields)]
enum ModelChoiceTwin {
    Custom {
        #[serde(default)]
        greedy: bool,
    },
    PromptApi,
    #[serde(rename_all = "camelCase")]
    Openai {
        base_url: String,
        model: String,
        #[serde(default)]
        api_key: Option<String>,
        #[serde(default)]
        response_format: ResponseFormat,
        #[serde(default = "streams")]
        stream: bool,
    },
    #[serde(rename_all = "camelCase")]
    Wllama {
        model_url: String,
    },
    Fallback {
        chain: Vec<ModelChoice>,
    },
}

impl<'de> Deserialize<'de> for ModelChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const SHAPE: Tagged = Tagged {
            tag: "kind",
            expecting: "internally tagged enum ModelChoice",
            variants: &["custom", "promptApi", "openai", "wllama", "fallback"],
        };
        SHAPE.read(d, |variant| ModelChoiceTwin::deserialize(variant))
    }
}

impl ModelChoice {
    /// The `kind` tag, for messages about the choice.
    pub fn kind(&self) -> &'static str {
        match self {
            ModelChoice::Custom { .. } => "custom",
            ModelChoice::PromptApi => "promptApi",
            ModelChoice::Openai { .. } => "openai",
            ModelChoice::Wllama { .. } => "wllama",
            ModelChoice::Fallback { .. } => "fallback",
        }
    }
}

/// `init`: the agent's tools, model and settings, as the page gave them. The worker reads each
/// into its type when it builds the agent (init.rs), so a mistake in one is an `initFailed` naming
/// where it is (`tools[1].timeoutMs`), not an unreadable message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Init {
    /// The tools ([`ToolSpec`](crate::tools::ToolSpec)s), without their `execute` functions (those stay on the page).
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<crate::tools::ToolSpec>>", optional))]
    pub tools: Vec<Value>,
    /// The model backend (a [`ModelChoice`]).
    #[cfg_attr(test, ts(as = "ModelChoice"))]
    pub model: Value,
    /// A partial `AgentConfig`, with `store`: missing fields take their defaults.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Value>", optional))]
    pub config: Value,
}

/// `run`: start a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// The page's id for the run; every message about it carries it.
    pub run_id: String,
    /// The task.
    pub task: String,
    /// The session; runs of one session queue behind each other.
    #[serde(default = "default_session")]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub session: String,
    /// Set to pick up the stored run `runId` cut off earlier (a terminated worker, a reload)
    /// instead of starting `task`: `continue` resumes it from its last committed step, `abandon`
    /// ends it as interrupted. Its task and session are the stored ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub resume: Option<Resume>,
    /// With `resume: "continue"`: the user's decision on the call the stored run waits on (after a
    /// reload, `agent.approve(callId)`), taken by the resumed run instead of asking again. Refused
    /// with `APPROVAL_NOT_PENDING` when the run does not wait on that call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub decision: Option<CallDecision>,
}

/// A decision on one call that waits for approval.
// Deserialize by hand, without serde's `Content` buffering for `flatten` (protocol_read.rs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallDecision {
    /// The call, `<run>:<step>`.
    pub call_id: String,
    /// Approved or rejected, and why.
    #[serde(flatten)]
    pub decision: Decision,
}

/// What to do with a cut-off run (`run` with `resume`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Resume {
    /// Continue from the step after the last committed one.
    Continue,
    /// End it as interrupted, with what it had.
    Abandon,
}

fn streams() -> bool {
    true
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn default_session() -> String {
    "default".to_string()
}

/// How a `modelCall`'s first message is made from the previous call's message at its place: the
/// previous content's first `head` and last `tail` UTF-16 code units (JavaScript's string units)
/// around the content carried, and, with `span`, a run of the previous content inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Edit {
    /// Units kept from the start of the previous content.
    pub head: u32,
    /// Units kept from the end of the previous content.
    pub tail: u32,
    /// A run of the previous content kept in the middle: a window of steps that moved on by one
    /// (its oldest line gone, a newer one added) is mostly the window before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub span: Option<Span>,
}

/// The previous content's units `from..to`, placed after the first `at` units of the content
/// carried: the middle is `carried[..at] + previous[from..to] + carried[at..]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Span {
    /// Units of the carried content before the run.
    pub at: u32,
    /// Where the run starts in the previous content.
    pub from: u32,
    /// Where it ends (exclusive).
    pub to: u32,
}

/// The page's answer to a request of the worker: `ok: true` with the payload, or `ok: false`
/// with an `error`. An `ok` reply whose payload cannot be read is refused as a whole, saying what
/// was wrong with the payload (never read as "ok but no result"), and so is an `ok: false` without
/// an `error`.
// The two variants are the wire's two shapes (the tag is a boolean, so `ok` is a `Flag`): the
// TypeScript is derived from them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum Reply<T> {
    /// The call succeeded.
    Ok {
        /// The request answered.
        id: RequestId,
        /// `true`.
        #[cfg_attr(test, ts(type = "true"))]
        ok: Flag<true>,
        /// What it returned.
        #[serde(flatten)]
        payload: T,
    },
    /// The call failed.
    Failed {
        /// The request answered.
        id: RequestId,
        /// `false`.
        #[cfg_attr(test, ts(type = "false"))]
        ok: Flag<false>,
        /// Why.
        error: RawFailure,
    },
}

/// A boolean that can only be `OK`: a [`Reply`]'s `ok`, which tells its two shapes apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flag<const OK: bool>;

impl<const OK: bool> Serialize for Flag<OK> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(OK)
    }
}

/// A tool's result (`toolResult` with `ok: true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct ToolValue {
    /// What the tool returned (`null` for `undefined`).
    pub value: Value,
    /// Caveats the tool reported with `ctx.warn()`.
    pub warnings: Vec<String>,
    /// Whether the tool said, with `ctx.listed()`, that the result lists ids anew (`false` when
    /// absent).
    pub lists: bool,
}

/// A model's answer (`modelResult` with `ok: true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelText {
    /// The text the model wrote.
    pub text: String,
    /// Token counts, when the backend knows them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub usage: Option<Usage>,
    /// The model's context window in tokens, when the backend knows it (the Prompt API's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub context_window: Option<usize>,
}

/// The page's `needsApproval` function's answer (`needsApprovalResult` with `ok: true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NeedsApprovalValue {
    /// Whether the call waits for approval.
    pub needs_approval: bool,
}

/// A failure-log answer (`queryResult` with `ok: true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct QueryValue {
    /// The answer: failure records, stats, an export, or what a deletion removed.
    pub value: Value,
}

/// What the page's redaction function kept (`redactResult` with `ok: true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct RedactValue {
    /// The arguments to store; `null` drops them.
    pub args: Value,
}

impl<T> Reply<T> {
    /// A success.
    pub fn ok(id: RequestId, payload: T) -> Self {
        Reply::Ok { id, ok: Flag, payload }
    }

    /// A failure.
    pub fn failed(id: RequestId, error: RawFailure) -> Self {
        Reply::Failed { id, ok: Flag, error }
    }

    /// The request answered.
    pub fn id(&self) -> RequestId {
        match self {
            Reply::Ok { id, .. } | Reply::Failed { id, .. } => *id,
        }
    }

    /// The payload or the failure.
    pub fn into_result(self) -> Result<T, RawFailure> {
        match self {
            Reply::Ok { payload, .. } => Ok(payload),
            Reply::Failed { error, .. } => Err(error),
        }
    }
}

impl Reply<ToolValue> {
    /// The tool's output as the engine wants it.
    pub fn into_tool_output(self) -> Result<ToolOutput, RawFailure> {
        self.into_result().map(|v| ToolOutput { value: v.value, warnings: v.warnings, lists: v.lists })
    }
}

impl Reply<ModelText> {
    /// The model's reply as the engine wants it.
    pub fn into_model_reply(self) -> Result<ModelReply, RawFailure> {
        self.into_result().map(|m| ModelReply { text: m.text, usage: m.usage })
    }
}

/// A message from the page to the worker.
// Deserialize by hand, without serde's `Content` buffering (protocol_read.rs).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PageMessage {
    /// Build the agent. Answered by `ready` or `initFailed`.
    Init(Init),
    /// Start a run. Answered by `event`s and one `runEnded` (or `runFailed`).
    Run(Run),
    /// Cancel a run; the call under way is aborted.
    #[serde(rename_all = "camelCase")]
    Cancel {
        /// The run.
        run_id: String,
    },
    /// A tool's result.
    ToolResult(Reply<ToolValue>),
    /// A custom model's result.
    ModelResult(Reply<ModelText>),
    /// A piece of a streaming model call's reply, sent as the page's backend generates it, before
    /// its `modelResult`. One for a call no longer waited on is ignored.
    ModelChunk {
        /// The `modelCall`'s id.
        id: RequestId,
        /// The text, following the call's earlier chunks.
        text: String,
    },
    /// The page's redaction function's answer.
    RedactResult(Reply<RedactValue>),
    /// The page's `needsApproval` function's answer.
    NeedsApprovalResult(Reply<NeedsApprovalValue>),
    /// The user's decision on a call a live run of this worker waits on. Answered by `decided`
    /// with the same id: an error (`APPROVAL_NOT_PENDING`) when no run here waits on it.
    Decide {
        /// Echoed by `decided`.
        id: RequestId,
        /// The call and the decision.
        #[serde(flatten)]
        decision: CallDecision,
    },
    /// List the calls waiting for approval: this worker's live runs' and those stored on runs cut
    /// off while they waited. Answered by `pendingApprovals` with the same id.
    PendingApprovals {
        /// Echoed by the answer.
        id: RequestId,
    },
    /// Ask the failure log (see [`super::queries`]). Answered by one `queryResult` with its id.
    Query {
        /// The page's id for the query, echoed by `queryResult`.
        id: RequestId,
        /// What to list, count, export or delete: a [`StoreQuery`](super::queries::StoreQuery), read when it is answered, so
        /// that a mistake in it fails this query, naming the key.
        #[cfg_attr(test, ts(as = "super::queries::StoreQuery"))]
        query: Value,
    },
    /// List the runs left `running` in the store (cut off, not resumed). Answered by
    /// `unfinishedRuns` with the same id.
    UnfinishedRuns {
        /// Echoed by the answer.
        id: RequestId,
    },
    /// Are you there? Answered at once by `pong` with the same id: the page's liveness check
    /// while it waits for the worker (see `js/agent.js`).
    Ping {
        /// Echoed by `pong`.
        id: RequestId,
    },
    /// Get ready for an `init` that has not come yet: a spare worker started ahead of
    /// `Agent.create` (`Agent.preload()`, js/spare.js) sends it once the wasm is loading. The worker
    /// runs an `init`'s work on throwaway input (default settings, one tool, no store) and keeps
    /// nothing, so that the real `init` finds its code compiled. Answered by `warmed`.
    Warm,
    /// Cancel everything and close the worker.
    Dispose,
}

/// A message from the worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase")]
#[allow(clippy::large_enum_variant)] // a message is built, posted and dropped at once
pub enum WorkerMessage {
    /// The agent is built; runs may start.
    Ready {
        /// Caveats about what `init` carried (text made valid Unicode).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
        warnings: Vec<String>,
    },
    /// The answer to `warm`: the engine is loaded and its `init` work has run once.
    Warmed,
    /// The answer to `ping`.
    Pong {
        /// The ping's id.
        id: RequestId,
    },
    /// The agent could not be built (bad tool spec, unavailable backend).
    InitFailed {
        /// Why.
        error: RawFailure,
    },
    /// Something happened in a run.
    #[serde(rename_all = "camelCase")]
    Event {
        /// The run.
        run_id: String,
        /// What happened.
        event: Event,
    },
    /// A run ended, cancelled runs included.
    #[serde(rename_all = "camelCase")]
    RunEnded {
        /// The run.
        run_id: String,
        /// How it ended.
        result: RunResult,
    },
    /// A run could not start (no agent yet, a run id already in use).
    #[serde(rename_all = "camelCase")]
    RunFailed {
        /// The run.
        run_id: String,
        /// Why.
        error: RawFailure,
    },
    /// Run one attempt of a page tool.
    #[serde(rename_all = "camelCase")]
    ToolCall {
        /// The request, echoed by `toolResult`.
        id: RequestId,
        /// The run asking.
        run_id: String,
        /// The tool.
        tool: String,
        /// Its validated arguments.
        args: Value,
        /// 1 for the first attempt.
        attempt: u32,
        /// The attempt's timeout; the worker aborts it with `toolAbort` when it fires.
        timeout_ms: u64,
        /// The call's idempotency key: the same for every attempt, and when the call is made again
        /// after a reload (what the tool receives as `ctx.idempotencyKey`).
        idempotency_key: String,
    },
    /// Abort a tool attempt: its timeout fired or its run was cancelled.
    ToolAbort {
        /// The request.
        id: RequestId,
    },
    /// Ask the page's custom model function for a step.
    #[serde(rename_all = "camelCase")]
    ModelCall {
        /// The request, echoed by `modelResult`.
        id: RequestId,
        /// The run asking.
        run_id: String,
        /// Which of the page's backends answers: `custom` or `promptApi` (a chain may hold both).
        backend: String,
        /// The step schema, and the messages after the first `keep`: the page keeps the messages
        /// of the run's previous call to this backend and reuses their first `keep` (a step's
        /// prompt is mostly the one before it), so a call carries what changed, not the prompt.
        /// Its `schema` is null when `sameSchema` is set.
        request: ModelRequest,
        /// Whether the call's schema is the run's previous call's to this backend, which the page
        /// keeps with its messages: the schema is then not carried (it is the same from one step
        /// to the next unless the tools offered or the calls allowed change).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        same_schema: bool,
        /// How many leading messages of this run's previous `modelCall` to this backend come
        /// before `request.messages` (0: the call carries the whole prompt).
        #[serde(default, skip_serializing_if = "is_zero")]
        #[cfg_attr(test, ts(as = "Option<u32>", optional))]
        keep: u32,
        /// When set, the first message of `request.messages` is the previous call's message at
        /// `keep` with its middle rewritten: its content here is the new middle only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        edit: Option<Edit>,
        /// How many messages of the previous call, from its message at `keep + 1 + skip` on,
        /// follow the first message of `request.messages` before the rest of them (the steps
        /// before the newest, after the session's memory or the summary that `edit` rewrote).
        #[serde(default, skip_serializing_if = "is_zero")]
        #[cfg_attr(test, ts(as = "Option<u32>", optional))]
        again: u32,
        /// How many messages of the previous call after its message at `keep` are left out
        /// before the `again` reused: the steps that moved into the summary since.
        #[serde(default, skip_serializing_if = "is_zero")]
        #[cfg_attr(test, ts(as = "Option<u32>", optional))]
        skip: u32,
        /// Whether the page should hand the reply's text over as it is generated (`modelChunk`
        /// messages with this id, before `modelResult`), where its backend can stream.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        stream: bool,
    },
    /// Abort a model call.
    ModelAbort {
        /// The request.
        id: RequestId,
    },
    /// Ask the page's redaction function (`config.store.redact`) what to store of a call's
    /// arguments, before its step is stored. Never aborted: a late answer is ignored.
    Redact {
        /// The request, echoed by `redactResult`.
        id: RequestId,
        /// The tool called.
        tool: String,
        /// The arguments it was called with.
        args: Value,
    },
    /// Ask the page's `needsApproval` function whether this call of a `perCall` tool waits for
    /// approval. Never aborted: a late answer is ignored.
    #[serde(rename_all = "camelCase")]
    NeedsApproval {
        /// The request, echoed by `needsApprovalResult`.
        id: RequestId,
        /// The run asking.
        run_id: String,
        /// The tool.
        tool: String,
        /// The call's validated arguments.
        args: Value,
    },
    /// The answer to `decide`.
    Decided {
        /// The request's id.
        id: RequestId,
        /// Why the decision was refused, if it was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        error: Option<RawFailure>,
    },
    /// The answer to `pendingApprovals`: calls waiting for approval, oldest run first; `live`
    /// ones wait in a run of this worker (decide them with `decide`), the others on stored runs
    /// cut off while they waited (decide them by resuming the run with a `decision`).
    PendingApprovals {
        /// The request's id.
        id: RequestId,
        /// The calls.
        approvals: Vec<PendingApprovalView>,
        /// Why the store could not be read, if it could not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        error: Option<RawFailure>,
    },
    /// The answer to a `query`.
    QueryResult(Reply<QueryValue>),
    /// The answer to `unfinishedRuns`: runs left `running` that this worker is not running,
    /// oldest first (a run live in another tab is listed too; resuming it waits for its session's
    /// lock and then finds it finished).
    UnfinishedRuns {
        /// The request's id.
        id: RequestId,
        /// The runs.
        runs: Vec<crate::store::RunRecord>,
        /// Why the store could not be read, if it could not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        error: Option<RawFailure>,
    },
    /// A message the worker could not read or act on.
    Error {
        /// What was wrong with it.
        error: RawFailure,
    },
}

/// A call waiting for approval as the page lists it (`agent.pendingApprovals()`): the stored
/// request, and whether it waits in a live run of this worker. `args` are as stored: redacted when
/// the agent redacts (`argsRedacted`), and such a call is not run from the store after a reload:
/// approving it resumes the run, which asks the model to make the call again (and asks approval
/// again, with the real arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "PendingApproval"))]
#[serde(rename_all = "camelCase")]
pub struct PendingApprovalView {
    /// The call and its run.
    #[serde(flatten)]
    pub request: ApprovalRequest,
    /// Whether a run of this worker waits on it now (else its run was cut off while it waited).
    pub live: bool,
}

/// A failure of the protocol (a malformed or unexpected message), as a structured failure.
pub fn protocol_failure(message: impl Into<String>) -> RawFailure {
    RawFailure { name: Some("DataError".into()), ..RawFailure::coded(KeelErrorCode::ProtocolError, message) }
}

impl PageMessage {
    /// Reads a message from its JSON text, made valid Unicode first ([`well_formed`]): the message
    /// and how many lone surrogates were replaced, or a clear failure and the message's
    /// [`Header`], so the request it belongs to can be failed.
    pub fn read(text: &str) -> Result<(PageMessage, usize), Box<(Header, RawFailure)>> {
        let (text, replaced) = well_formed(text);
        // Into a `Value`, then through the settings' reader: the message's types need no text reader
        // of their own beside it (bench/results/wasm-size.md); a reply's parts moved out of it.
        let read = serde_json::from_str::<Value>(&text).and_then(super::protocol_read::read_message);
        read.map(|message| (message, replaced)).map_err(|e| {
            let header = Header::read(&text);
            let failure = protocol_failure(format!("the worker could not read {}: {e}", header.describe()));
            Box::new((header, failure))
        })
    }

    /// Reads a message from its JSON text; a clear, structured failure if it is not one.
    pub fn from_json(text: &str) -> Result<PageMessage, RawFailure> {
        Self::read(text).map(|(message, _)| message).map_err(|unreadable| unreadable.1)
    }
}

impl WorkerMessage {
    /// The reply to a page→worker request the worker could not read, addressed to what the page is
    /// waiting for (an `init` → `initFailed`, a `run` → `runFailed` for its id, a `query` →
    /// `queryResult`, `unfinishedRuns` → its answer), so no promise is left hanging; `None` for a
    /// message the page waits on no answer for (replies to the worker's requests are failed in
    /// the worker's own table instead).
    pub fn unreadable(header: &Header, error: RawFailure) -> Option<WorkerMessage> {
        Some(match (header.kind.as_deref(), header.id, &header.run_id) {
            (Some("init"), _, _) => WorkerMessage::InitFailed { error },
            (Some("run"), _, Some(run_id)) => WorkerMessage::RunFailed { run_id: run_id.clone(), error },
            (Some("query"), Some(id), _) => WorkerMessage::QueryResult(Reply::failed(id, error)),
            (Some("unfinishedRuns"), Some(id), _) => {
                WorkerMessage::UnfinishedRuns { id, runs: Vec::new(), error: Some(error) }
            }
            (Some("pendingApprovals"), Some(id), _) => {
                WorkerMessage::PendingApprovals { id, approvals: Vec::new(), error: Some(error) }
            }
            (Some("decide"), Some(id), _) => WorkerMessage::Decided { id, error: Some(error) },
            _ => return None,
        })
    }

    /// The message as JSON text; serialising these types cannot fail (string keys, finite numbers).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            let error = protocol_failure(format!("the worker could not write a message: {e}"));
            serde_json::json!({ "type": "error", "error": error }).to_string()
        })
    }
}
