//! Lone UTF-16 surrogates in JSON text: `JSON.stringify` writes one (a string cut in the middle of
//! an emoji) as a `\ud83d` escape, and small models sometimes write one; `serde_json` refuses it,
//! and with it the whole text. [`well_formed_json`] replaces each with `\ufffd` (U+FFFD) and counts
//! them, so the reader can say so.

use std::borrow::Cow;

/// `text` with every lone surrogate escape (`\ud800`–`\udfff` not part of a high-low pair)
/// replaced by `\ufffd`, and how many were replaced. Escapes outside strings, and text that is not
/// JSON at all, are left for the JSON reader to refuse.
pub fn well_formed_json(text: &str) -> (Cow<'_, str>, usize) {
    // Fast path: no `\u` escape of a surrogate can be present without the byte sequence `\ud`/`\uD`.
    // The backslashes found by std's `memchr` (a word at a time, on wasm too), then the two bytes
    // after each: faster than a byte-window scan (bench/results/messages.md).
    let bytes = text.as_bytes();
    let escape =
        |at: usize| bytes.get(at + 1) == Some(&b'u') && bytes.get(at + 2).is_some_and(|b| b | 0x20 == b'd');
    if !text.match_indices('\\').any(|(at, _)| escape(at)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &str) -> (String, usize) {
        let (out, n) = well_formed_json(text);
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
}
