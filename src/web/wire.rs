//! The page's JSON text as it reaches the worker, read before serde sees the whole message:
//!
//! - [`well_formed`]: text crossing the boundary is made valid Unicode. `JSON.stringify` writes a
//!   lone UTF-16 surrogate (a string cut in the middle of an emoji) as a `\ud83d` escape, which
//!   `serde_json` refuses, and the whole message with it; each one becomes `\ufffd` (U+FFFD) and
//!   is counted, so the worker can say so in a warning.
//! - [`Header`]: a message's `type`, `id` and `runId`, read even when the rest of it cannot be
//!   (nested past the reader's 128 levels, a field of the wrong type), so the request it belongs
//!   to is failed at once rather than left to time out.
//!
//! Pure: tested natively, and the fuzz harness feeds it arbitrary text.

use std::borrow::Cow;

pub use crate::text::well_formed_json as well_formed;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

/// A request id of the worker's pending-request table.
pub type RequestId = u64;

/// The sentence a warning gives for `count` replaced surrogates in `what`.
pub fn surrogate_warning(what: &str, count: usize) -> String {
    let noun = if count == 1 { "a lone UTF-16 surrogate" } else { "lone UTF-16 surrogates" };
    format!(
        "{what} held {noun} ({count}; half of a character pair, e.g. an emoji cut in two), \
         replaced with U+FFFD"
    )
}

/// What a message says it is, read without reading the rest of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Its `type`.
    pub kind: Option<String>,
    /// Its `id` (requests and replies).
    pub id: Option<RequestId>,
    /// Its `runId` (runs, cancels).
    pub run_id: Option<String>,
}

impl Header {
    /// Reads the top-level `type`, `id` and `runId` of a JSON object; the other fields are skipped
    /// without being read (however deep they nest), and a field of another type reads as absent.
    /// Text that is not a JSON object gives an empty header.
    pub fn read(text: &str) -> Header {
        let mut reader = serde_json::Deserializer::from_str(text);
        reader.deserialize_map(HeaderVisitor).unwrap_or_default()
    }

    /// How a message is called in an error: "the `toolResult` message".
    pub fn describe(&self) -> String {
        match &self.kind {
            Some(kind) => format!("the `{kind}` message"),
            None => "a message".to_string(),
        }
    }
}

struct HeaderVisitor;

impl<'de> Visitor<'de> for HeaderVisitor {
    type Value = Header;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Header, A::Error> {
        let mut header = Header::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => header.kind = map.next_value::<Scalar>()?.text(),
                "runId" => header.run_id = map.next_value::<Scalar>()?.text(),
                "id" => header.id = map.next_value::<Scalar>()?.id(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
}

/// A header field: a string, a whole number, or something else (skipped unread).
enum Scalar {
    Text(String),
    Number(u64),
    Other,
}

impl Scalar {
    fn text(self) -> Option<String> {
        match self {
            Scalar::Text(text) => Some(text),
            _ => None,
        }
    }

    fn id(self) -> Option<RequestId> {
        match self {
            Scalar::Number(id) => Some(id),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct ScalarVisitor;
        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar::Number(v))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(ScalarVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_read_past_fields_too_deep_or_of_the_wrong_type() {
        let deep = format!("{}1{}", "[".repeat(500), "]".repeat(500));
        let text = format!(r#"{{"value":{deep},"type":"toolResult","id":7,"ok":true}}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_err(), "too deep for a Value");
        let header = Header::read(&text);
        assert_eq!((header.kind.as_deref(), header.id), (Some("toolResult"), Some(7)));
        let header = Header::read(r#"{"type":"run","runId":"r1","task":42,"id":{"x":[1]}}"#);
        assert_eq!(header, Header { kind: Some("run".into()), id: None, run_id: Some("r1".into()) });
        assert_eq!(Header::read("null"), Header::default());
        assert_eq!(Header::read(r#"{"type":"query","id":-1"#), Header::default());
        assert_eq!(Header::read(r#"{"type":7,"id":1.5}"#), Header::default());
    }
}
