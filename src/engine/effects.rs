//! The effects the loop needs, as small traits: the model, the tool host, the clock and a random
//! source. The browser implements them in `web/`; tests implement them with fakes.
//!
//! Futures are boxed and not `Send`: everything runs on one thread (a Web Worker), and boxing lets
//! backends be chosen at run time (`Rc<dyn Model>`, fallback chains). A boxed future per model or
//! tool call costs nothing next to the call.

use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::errors::{ErrorCode, RawFailure};

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions; only ever the first message (a Prompt API rule).
    System,
    /// The task and the observations.
    User,
    /// The model's own steps.
    Assistant,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ChatMessage"))]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: String,
}

impl Message {
    /// A message from `role`.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message { role, content: content.into() }
    }
}

/// One request to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelRequest {
    /// The prompt, system message first.
    pub messages: Vec<Message>,
    /// The JSON Schema the reply must match, for backends that constrain decoding.
    pub schema: Option<Value>,
    /// The most tokens the reply may take, for backends that accept a limit.
    pub max_tokens: u32,
}

/// Token counts a backend reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u32,
    /// Tokens generated.
    pub completion_tokens: u32,
}

/// The model's answer to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelReply {
    /// The raw text, to be parsed as a step.
    pub text: String,
    /// Token counts, when the backend reports them.
    pub usage: Option<Usage>,
}

/// Where a backend that streams hands the reply's text as it is generated.
pub trait ReplySink {
    /// The next piece of the reply, as the backend got it (one call per chunk, not per character).
    fn text(&self, chunk: &str);
    /// The text handed so far is not the reply (a fallback chain gave up on a backend mid-stream
    /// with `code` and asks the next one): the next text starts the reply again.
    fn discard(&self, code: &ErrorCode);
}

/// A language model backend (Prompt API, OpenAI-compatible server, wllama, a script in tests).
pub trait Model {
    /// Asks the model for one step. Dropping the future must cancel the request.
    ///
    /// With a `sink`, the caller wants the reply's text as it is generated: a backend that can
    /// stream hands `sink` each piece as it comes, one that cannot answers whole and `sink` hears
    /// nothing. Without one, the backend does not stream. Either way the reply is the whole text.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>>;

    /// The model's context window in tokens, once the backend knows it (the Prompt API's
    /// `contextWindow`): the loop then keeps its prompt budget within it, less room for the reply.
    fn context_window(&self) -> Option<usize> {
        None
    }

    /// Whether the backend decodes greedily (temperature 0, a fixed seed), so that the same
    /// request gets the same reply: the loop then answers a request it already sent in the run
    /// with the reply it got, without asking again (`greedy_replies.rs`). False unless the backend
    /// knows its decoding: the Prompt API samples.
    fn greedy(&self) -> bool {
        false
    }
}

/// One attempt at one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// Its (validated) arguments.
    pub args: Value,
    /// 1 for the first attempt, 2 for the first retry…
    pub attempt: u32,
    /// The same for every attempt of the call, and when the call is made again after a reload
    /// cut it off (`<run>:<step>`): a tool may pass it to a service as its `Idempotency-Key`, so
    /// that the service does the call once however often it arrives.
    #[serde(default)]
    pub idempotency_key: String,
}

/// What a tool returned.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The result, shown to the model.
    pub value: Value,
    /// Caveats of a partial success, shown to the model with the result.
    pub warnings: Vec<String>,
    /// Whether the result lists ids anew, as a producer's does (keel-agent/dom's click that opened
    /// a page, with the page listed): it is then the latest listing of every tool whose producers
    /// (`refsFrom`) are this tool's, until a newer one (`outputs.rs`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lists: bool,
}

/// Runs tools. The browser host calls the page's JS functions.
pub trait ToolHost {
    /// Runs one attempt. Dropping the future must abort the tool (the browser host aborts the
    /// tool's `AbortSignal`): that is how timeouts and cancellation reach it.
    fn call<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<ToolOutput, RawFailure>>;

    /// Whether this call of a tool declared `needsApproval: "perCall"` waits for the user's
    /// approval: the browser host asks the page's function. A host that cannot tell says yes
    /// (the default): asking when unsure is the safe side.
    fn needs_approval<'a>(&'a self, call: &'a ToolCall) -> LocalBoxFuture<'a, Result<bool, RawFailure>> {
        let _ = call;
        Box::pin(futures_util::future::ready(Ok(true)))
    }
}

/// Time: now, and waiting.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
    /// Resolves after `ms` milliseconds. Dropping it cancels the wait.
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()>;
}

/// A source of randomness for retry jitter.
pub trait Random {
    /// A number in `[0, 1)`.
    fn unit(&self) -> f64;
}
