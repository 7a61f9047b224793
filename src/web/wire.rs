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

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use super::protocol::RequestId;

/// `text` with every lone surrogate escape (`\ud800`–`\udfff` not part of a high-low pair)
/// replaced by `\ufffd`, and how many were replaced. Escapes outside strings, and text that is not
/// JSON at all, are left for the JSON reader to refuse.
pub fn well_formed(text: &str) -> (Cow<'_, str>, usize) {
    // Fast path: no `\u` escape of a surrogate can be present without the byte sequence `\ud`/`\uD`.
    let bytes = text.as_bytes();
    if !bytes.windows(3).any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] | 0x20) == b'd') {
        return (Cow::Borrowed(text), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut replaced = 0;
    let mut in_string = false;
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => {
                let Some(unit) = escape_unit(bytes, i) else {
                    // `\n`, `\\`, `\"`…: two bytes, the second never ends the string.
                    i += 2;
                    continue;
                };
                let paired = match unit {
                    0xD800..=0xDBFF => {
                        escape_unit(bytes, i + 6).is_some_and(|u| (0xDC00..=0xDFFF).contains(&u))
                    }
                    0xDC00..=0xDFFF => false,
                    _ => {
                        i += 6;
                        continue;
                    }
                };
                if paired {
                    i += 12;
                } else {
                    out.push_str(&text[copied..i]);
                    out.push_str("\\ufffd");
                    replaced += 1;
                    i += 6;
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    if replaced == 0 {
        return (Cow::Borrowed(text), 0);
    }
    out.push_str(&text[copied.min(text.len())..]);
    (Cow::Owned(out), replaced)
}

/// The UTF-16 unit of the `\uXXXX` escape starting at `at`, if there is one.
fn escape_unit(bytes: &[u8], at: usize) -> Option<u16> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

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

    fn fixed(text: &str) -> (String, usize) {
        let (out, n) = well_formed(text);
        (out.into_owned(), n)
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character_and_pairs_stay() {
        let pair = r#"{"task":"hi \ud83d\ude00"}"#;
        assert_eq!(fixed(pair), (pair.to_string(), 0));
        assert_eq!(fixed(r#"{"task":"cut \ud83d"}"#), (r#"{"task":"cut \ufffd"}"#.to_string(), 1));
        assert_eq!(
            fixed(r#"["\uDE00\uD83D", "\\ud83d"]"#),
            (r#"["\ufffd\ufffd", "\\ud83d"]"#.to_string(), 2)
        );
        let (out, n) = fixed(r#"{"a":"\ud800\ud800\udc00x"}"#);
        assert_eq!((out.as_str(), n), (r#"{"a":"\ufffd\ud800\udc00x"}"#, 1));
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(value["a"], "\u{FFFD}\u{10000}x");
        // Truncated text is left for the reader to refuse.
        assert_eq!(fixed(r#""\ud83"#).1, 0);
        assert_eq!(fixed(r#""\ud83d"#).1, 1);
    }

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
