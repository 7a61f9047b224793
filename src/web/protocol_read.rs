//! How the page's messages are read: [`PageMessage`], [`CallDecision`] and [`Reply`] by hand,
//! without serde's `Content` buffering (an internally tagged enum, `flatten`), which costs a second
//! deserializer for every type inside them (see [`crate::settings::tagged`]). The message is read
//! into a `Value`, then by the settings' reader ([`from_value`]), each part from the `Value` with
//! its tag; a reply to the worker's request is taken apart by moving its parts out of the `Value`
//! ([`read_message`]). What is accepted and every error's text are what serde's derives gave, less
//! an array read as a struct by position.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::protocol::{
    CallDecision, Flag, Init, ModelText, NeedsApprovalValue, PageMessage, QueryValue, RedactValue, Reply,
    RequestId, Run, ToolValue,
};
use crate::engine::Decision;
use crate::errors::RawFailure;
use crate::settings::tagged::Tagged;
use crate::settings::{from_parts, from_value, read_part};

/// [`PageMessage`] externally tagged, less `decide` (its fields are flattened: read by hand): the
/// same variants, fields and serde attributes.
#[derive(Deserialize)]
#[serde(remote = "PageMessage", rename_all = "camelCase")]
enum PageMessageTwin {
    Init(Init),
    Run(Run),
    #[serde(rename_all = "camelCase")]
    Cancel {
        run_id: String,
    },
    ToolResult(Reply<ToolValue>),
    ModelResult(Reply<ModelText>),
    ModelChunk {
        id: RequestId,
        text: String,
    },
    RedactResult(Reply<RedactValue>),
    NeedsApprovalResult(Reply<NeedsApprovalValue>),
    PendingApprovals {
        id: RequestId,
    },
    Query {
        id: RequestId,
        query: Value,
    },
    UnfinishedRuns {
        id: RequestId,
    },
    Ping {
        id: RequestId,
    },
    Warm,
    Dispose,
}

/// The message's `type` tags, in [`PageMessage`]'s order.
const PAGE_MESSAGE: Tagged = Tagged {
    tag: "type",
    expecting: "internally tagged enum PageMessage",
    variants: &[
        "init",
        "run",
        "cancel",
        "toolResult",
        "modelResult",
        "modelChunk",
        "redactResult",
        "needsApprovalResult",
        "decide",
        "pendingApprovals",
        "query",
        "unfinishedRuns",
        "ping",
        "warm",
        "dispose",
    ],
};

impl<'de> Deserialize<'de> for PageMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PAGE_MESSAGE.read(d, |variant| match variant.name() {
            "decide" => decide(variant.content()),
            _ => PageMessageTwin::deserialize(variant),
        })
    }
}

/// `decide`: its `id`, then the [`CallDecision`] flattened beside it, as serde reads a struct
/// variant with a flattened field (the field named first, the flattened one from the rest).
fn decide(content: &Value) -> Result<PageMessage, serde_json::Error> {
    // Always an object ([`Tagged`] refuses the rest); anything else reads as no fields.
    let mut fields = content.as_object().cloned().unwrap_or_default();
    let id = match fields.shift_remove("id") {
        Some(id) => read_part::<RequestId>(&id, Some("id"))?,
        None => return Err(de::Error::missing_field("id")),
    };
    Ok(PageMessage::Decide { id, decision: CallDecision::from_fields(fields)? })
}

impl CallDecision {
    /// Its `callId`, then the [`Decision`] flattened beside it from the rest.
    fn from_fields(mut fields: Map<String, Value>) -> Result<CallDecision, serde_json::Error> {
        let call_id = match fields.shift_remove("callId") {
            Some(call_id) => read_part::<String>(&call_id, Some("callId"))?,
            None => return Err(de::Error::missing_field("callId")),
        };
        Ok(CallDecision { call_id, decision: read_part::<Decision>(&Value::Object(fields), None)? })
    }
}

/// An object's entries, then the type read by hand from them (`read`), while the object is being
/// read: a reader that says where errors happen places them at the object, and inside it.
/// `expecting` is what serde's derive says the type expects.
struct Fields<F>(&'static str, F);

impl<'de, T, F> Visitor<'de> for Fields<F>
where
    F: FnOnce(Map<String, Value>) -> Result<T, serde_json::Error>,
{
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.0)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<T, M::Error> {
        let mut fields = Map::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            fields.insert(key, value);
        }
        (self.1)(fields).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for CallDecision {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Fields("struct CallDecision", CallDecision::from_fields))
    }
}

/// A reply's `id`, `ok` and `error` in the order they came (a wrong one fails when it is met),
/// then the missing ones, then the payload from the other keys: what a struct with a flattened
/// payload did.
impl<'de, T: Payload> Deserialize<'de> for Reply<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Fields("struct Wire", Reply::from_fields))
    }
}

impl<T: Payload> Reply<T> {
    fn from_fields(fields: Map<String, Value>) -> Result<Reply<T>, serde_json::Error> {
        match reply_fields(fields)? {
            (id, Ok(payload)) => Ok(Reply::Ok { id, ok: Flag, payload: T::from_payload(payload)? }),
            (id, Err(error)) => Ok(Reply::failed(id, error)),
        }
    }
}

/// What a successful reply carries beside its `id` and `ok`, read from those other keys.
pub trait Payload: serde::de::DeserializeOwned {
    /// The payload from the reply's other keys: by default through the settings' reader, which
    /// copies what it reads; a payload that holds the page's value as it came moves it out
    /// instead (a tool's result can be tens of KB: bench/results/messages.md).
    fn from_payload(fields: Map<String, Value>) -> Result<Self, serde_json::Error> {
        read_part(&Value::Object(fields), None)
    }
}

impl Payload for ModelText {}
impl Payload for NeedsApprovalValue {}
impl Payload for QueryValue {}

impl Payload for ToolValue {
    fn from_payload(mut fields: Map<String, Value>) -> Result<Self, serde_json::Error> {
        // Any value reads as `value`: it is moved out, and the rest read.
        let value = fields.shift_remove("value").unwrap_or_default();
        Ok(ToolValue { value, ..read_part(&Value::Object(fields), None)? })
    }
}

impl Payload for RedactValue {
    fn from_payload(mut fields: Map<String, Value>) -> Result<Self, serde_json::Error> {
        let args = fields.shift_remove("args").unwrap_or_default();
        Ok(RedactValue { args })
    }
}

/// Reads a page message from its parsed text. A reply to one of the worker's requests is taken
/// apart where it is: the tag, `id`, `ok`, `error` and the payload's parts moved out of the
/// object, not copied (the settings' reader copied a 56 KB tool result three times, at 4× the
/// cost of parsing it: bench/results/messages.md). Any other message, or one whose tag is not a
/// reply's, is read by the settings' reader, which gives every error about the tag.
pub fn read_message(value: Value) -> Result<PageMessage, serde_json::Error> {
    let mut fields = match value {
        Value::Object(fields) => fields,
        other => return from_value(&other),
    };
    type Read = fn(Map<String, Value>) -> Result<PageMessage, serde_json::Error>;
    let read: Read = match fields.get(PAGE_MESSAGE.tag).and_then(Value::as_str) {
        Some("toolResult") => |fields| Reply::from_fields(fields).map(PageMessage::ToolResult),
        Some("modelResult") => |fields| Reply::from_fields(fields).map(PageMessage::ModelResult),
        Some("redactResult") => |fields| Reply::from_fields(fields).map(PageMessage::RedactResult),
        Some("needsApprovalResult") => {
            |fields| Reply::from_fields(fields).map(PageMessage::NeedsApprovalResult)
        }
        _ => return from_value(&Value::Object(fields)),
    };
    fields.shift_remove(PAGE_MESSAGE.tag);
    from_parts(|| read(fields))
}

/// A reply's payload's fields (`ok: true`) or its error (`ok: false`).
type Answer = Result<Map<String, Value>, RawFailure>;

/// A reply's `id`, and its payload's fields or its error: the part of [`Reply::from_fields`] that
/// is the same for every payload type.
fn reply_fields(fields: Map<String, Value>) -> Result<(RequestId, Answer), serde_json::Error> {
    let (mut id, mut ok, mut error) = (None, None, None);
    let mut payload = Map::new();
    for (key, value) in fields {
        match key.as_str() {
            "id" => id = Some(read_part::<RequestId>(&value, Some("id"))?),
            "ok" => ok = Some(read_part::<bool>(&value, Some("ok"))?),
            "error" => error = read_part::<Option<RawFailure>>(&value, Some("error"))?,
            _ => {
                payload.insert(key, value);
            }
        }
    }
    let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
    match (ok.ok_or_else(|| de::Error::missing_field("ok"))?, error) {
        (true, _) => Ok((id, Ok(payload))),
        (false, Some(error)) => Ok((id, Err(error))),
        (false, None) => Err(de::Error::custom("a reply said ok: false but carried no error")),
    }
}
