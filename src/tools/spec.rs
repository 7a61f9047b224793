//! What a tool is: its name, what it does, what it takes, and how the runtime treats its calls.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool the model may call. The schema is JSON Schema as Zod's `toJSONSchema` or the Prompt API's
/// tool declarations produce it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments object.
    #[serde(default = "empty_object_schema")]
    #[cfg_attr(test, ts(as = "Option<Value>", optional))]
    pub input_schema: Value,
    /// How long one attempt may run before it is aborted; absent, the agent's default applies.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub timeout_ms: Option<u64>,
    /// Attempts allowed for one call on transient failures; absent, the retry policy's apply.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    pub max_attempts: Option<u32>,
    /// Tools whose output supplies the ids or references this tool takes (a snapshot tool for a
    /// click tool, `list_invoices` for `get_invoice`): recovery plans tell the model to call them.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub refs_from: Vec<String>,
    /// Of the ids `refsFrom`'s tools list, the kinds of thing this tool acts on (`textbox`,
    /// `checkbox`): where decoding is constrained (`idProvenance`), its id argument is narrowed to
    /// the ids on the lines of the latest producer's output that name one of these words outside
    /// quoted text, and the tool sits out a step whose latest listing names none. Empty: every
    /// listed id. Needs `refsFrom`.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub ref_kinds: Vec<String>,
    /// The tool only reads: it has no side effect, so the runtime may call it on its own (see
    /// `recoverWith`).
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub read_only: bool,
    /// Recovery the runtime runs itself: when this tool fails with one of these codes (the keys,
    /// e.g. `STALE_REFERENCE`), the runtime calls the named read-only tool with `{}` and shows the
    /// model the failure's envelope together with that tool's fresh output.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, String>>", optional))]
    pub recover_with: BTreeMap<String, String>,
    /// Whether a call waits for the user's approval before it runs (`needsApproval`): `false`
    /// (the default), `true`, or `"perCall"` when the page decides for each call from its
    /// arguments (a JS function the tool host asks for each call).
    #[serde(default, skip_serializing_if = "NeedsApproval::is_never")]
    #[cfg_attr(test, ts(type = "boolean | \"perCall\"", optional))]
    pub needs_approval: NeedsApproval,
    /// Running a call twice does no more than running it once (a `PUT`, a lookup, a call the
    /// service dedupes by its idempotency key): a call cut off by a reload is simply made again.
    /// A tool that is neither this nor `readOnly` gets an intent stored before each call, and a
    /// call cut off before its outcome was stored is never made again silently (`onUnknownOutcome`).
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub idempotent: bool,
    /// What a resumed run does with a call of this tool whose outcome is unknown (its intent was
    /// stored, its result was not): ask the user, or report it to the model; absent, report. Only
    /// for tools that are neither `idempotent` nor `readOnly`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub on_unknown_outcome: Option<OnUnknownOutcome>,
}

/// What a resumed run does with a call cut off before its outcome was stored. On the wire:
/// `"ask"` or `"report"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum OnUnknownOutcome {
    /// The call waits for the user's approval to be made again (`approvalRequested` with
    /// `outcomeUnknown: true`); a rejection is reported to the model as `OUTCOME_UNKNOWN`.
    Ask,
    /// The call is not made again: the model is told (`OUTCOME_UNKNOWN`) that it may or may not
    /// have happened and how to find out.
    #[default]
    Report,
}

impl<'de> Deserialize<'de> for OnUnknownOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(s) if s == "ask" => Ok(OnUnknownOutcome::Ask),
            Value::String(s) if s == "report" => Ok(OnUnknownOutcome::Report),
            other => Err(D::Error::custom(format!(
                "onUnknownOutcome must be \"ask\" (wait for the user's approval to make the call again) or \"report\" (tell the model it may or may not have happened); got {other}"
            ))),
        }
    }
}

/// When a tool's calls wait for the user's approval. On the wire: `false`, `true` or `"perCall"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NeedsApproval {
    /// Calls run without asking.
    #[default]
    Never,
    /// Every call waits for approval.
    Always,
    /// The tool host decides for each call from its arguments (the page's function).
    PerCall,
}

impl NeedsApproval {
    fn is_never(&self) -> bool {
        *self == NeedsApproval::Never
    }
}

impl Serialize for NeedsApproval {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            NeedsApproval::Never => s.serialize_bool(false),
            NeedsApproval::Always => s.serialize_bool(true),
            NeedsApproval::PerCall => s.serialize_str("perCall"),
        }
    }
}

impl<'de> Deserialize<'de> for NeedsApproval {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::Bool(false) => Ok(NeedsApproval::Never),
            Value::Bool(true) => Ok(NeedsApproval::Always),
            Value::String(s) if s == "perCall" => Ok(NeedsApproval::PerCall),
            other => Err(D::Error::custom(format!(
                "needsApproval must be true, false or a function of the call's arguments; got {other}"
            ))),
        }
    }
}

fn empty_object_schema() -> Value {
    serde_json::json!({ "type": "object" })
}

impl ToolSpec {
    /// A tool with a name, a description and an input schema, and the defaults for the rest.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema,
            timeout_ms: None,
            max_attempts: None,
            refs_from: Vec::new(),
            ref_kinds: Vec::new(),
            read_only: false,
            recover_with: BTreeMap::new(),
            needs_approval: NeedsApproval::Never,
            idempotent: false,
            on_unknown_outcome: None,
        }
    }

    /// The names of the arguments its input schema requires, in the schema's order.
    pub fn required(&self) -> Vec<&str> {
        self.input_schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// Whether a call may simply be made again when its outcome is unknown: the tool is declared
    /// `idempotent` or `read_only`. Other tools get an intent stored before each call.
    pub fn is_idempotent(&self) -> bool {
        self.idempotent || self.read_only
    }

    /// What a resumed run does with a call of this tool whose outcome is unknown.
    pub fn unknown_outcome(&self) -> OnUnknownOutcome {
        self.on_unknown_outcome.unwrap_or_default()
    }

    /// Declares the tool idempotent: a call cut off by a reload is made again.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Sets what a resumed run does with a call whose outcome is unknown.
    pub fn on_unknown_outcome(mut self, then: OnUnknownOutcome) -> Self {
        self.on_unknown_outcome = Some(then);
        self
    }

    /// Sets the per-attempt timeout.
    pub fn with_timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Sets the attempts allowed for one call on transient failures.
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = Some(attempts);
        self
    }

    /// Names the tools whose output supplies this tool's ids or references.
    pub fn with_refs_from<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.refs_from = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Names the kinds of listed thing this tool acts on (see [`ToolSpec::ref_kinds`]).
    pub fn with_ref_kinds<I, S>(mut self, kinds: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.ref_kinds = kinds.into_iter().map(Into::into).collect();
        self
    }

    /// Declares the tool read-only (no side effect).
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// Sets when the tool's calls wait for the user's approval.
    pub fn with_approval(mut self, needs: NeedsApproval) -> Self {
        self.needs_approval = needs;
        self
    }

    /// On a failure with `code`, the runtime calls the read-only tool `tool` with `{}` itself.
    pub fn with_recovery(mut self, code: impl Into<String>, tool: impl Into<String>) -> Self {
        self.recover_with.insert(code.into(), tool.into());
        self
    }
}
