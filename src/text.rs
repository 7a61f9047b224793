//! Shortening text to a budget measured in characters (never bytes: no cut inside a UTF-8
//! sequence), and naming JSON types, for the messages the model reads.
//!
//! A budget bounds the whole result, marks included: `max` = 10 never yields 11 chars. A cut is
//! always marked (`…`), so the model never takes part of a text for all of it. A char is a Unicode
//! scalar value, so a combining accent or one code point of a multi-code-point emoji may be
//! parted from the rest of its grapheme; a prompt survives that, and grapheme segmentation would
//! cost a dependency.

use serde_json::Value;

/// Fewest chars of the text [`cut_middle`] keeps around its marker: below that, the marker would
/// take the room of the text it describes, and a plain [`head_tail`] shows more of it.
const MIN_KEPT: usize = 8;

/// `text` if it has at most `max` chars, else its first `max - 1` chars and `…` (nothing when `max`
/// is 0). For prose and names, whose start says the most.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    match max.checked_sub(1) {
        Some(keep) => format!("{}…", &text[..byte_at(text, keep)]),
        None => String::new(),
    }
}

/// `text` if it has at most `max` chars, else its head and tail around a `…`, `max` chars in all
/// (nothing when `max` is 0); an odd char goes to the head. For JSON, where the closing part (the
/// last keys, the brackets) tells as much as the opening one, and for a reply cut off at the end.
pub(crate) fn head_tail(text: &str, max: usize) -> String {
    let len = text.chars().count();
    if len <= max {
        return text.to_owned();
    }
    let Some(keep) = max.checked_sub(1) else { return String::new() };
    let head = keep.div_ceil(2);
    let tail = keep - head;
    format!("{}…{}", &text[..byte_at(text, head)], &text[last_chars_at(text, tail)..])
}

/// `text` if it has at most `max` chars, else [`cut_middle_keeping`] as much of it as fits in
/// `max` chars with the marker, which then says exactly how many were cut. When that would keep
/// fewer than [`MIN_KEPT`] chars, [`head_tail`] instead. For results and error texts, whose end
/// (the totals, the last items, a recovery plan's last step) matters as well as their start.
pub(crate) fn cut_middle(text: &str, max: usize) -> String {
    let len = text.chars().count();
    if len <= max {
        return text.to_owned();
    }
    let marker_without_count = marker(0).chars().count() - 1;
    // The marker's width depends on the count it shows, which depends on the marker's width: try
    // each width in turn. The first that holds the count fills `max` exactly.
    for digits in 1..=decimal_digits(len) {
        let Some(keep) = max.checked_sub(marker_without_count + digits) else { break };
        if decimal_digits(len - keep) <= digits {
            if keep < MIN_KEPT {
                break;
            }
            return cut_middle_keeping(text, keep);
        }
    }
    head_tail(text, max)
}

/// `text` with its middle replaced by `…[cut N chars]…` so that `keep` of its chars remain (all of
/// it if it has no more than `keep`): two thirds from the head (what failed, the start of a
/// result), a third from the tail. The marker comes on top of `keep`: this is for callers that
/// measure the rendered result themselves (the prompt compactor, in tokens); a char budget wants
/// [`cut_middle`].
pub(crate) fn cut_middle_keeping(text: &str, keep: usize) -> String {
    let len = text.chars().count();
    if keep >= len {
        return text.to_owned();
    }
    let tail = keep / 3;
    let head = keep - tail;
    format!("{}{}{}", &text[..byte_at(text, head)], marker(len - keep), &text[last_chars_at(text, tail)..])
}

/// The type of a JSON value with its article (`an array`, `null`), as messages name it.
pub(crate) fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What stands for `cut` chars left out of the middle of a text.
fn marker(cut: usize) -> String {
    format!("…[cut {cut} chars]…")
}

/// How many decimal digits `n` is written with.
fn decimal_digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// The byte offset just after the first `n` chars of `s` (or its end).
fn byte_at(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// The byte offset where the last `n` chars of `s` start (its start if it has fewer), found from
/// the end: a tail of a long result costs its own length, not the result's.
fn last_chars_at(s: &str, n: usize) -> usize {
    match n.checked_sub(1) {
        None => s.len(),
        Some(back) => s.char_indices().nth_back(back).map_or(0, |(i, _)| i),
    }
}

/// How many bytes `a` and `b` share at their start: eight at a time, then one at a time (a step's
/// prompt is compared with the last one's, tens of KB, each model call: `web/js_model.rs`).
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let words = a.chunks_exact(8).zip(b.chunks_exact(8)).take_while(|(x, y)| word(x) == word(y)).count();
    let at = words * 8;
    at + a[at..].iter().zip(&b[at..]).take_while(|(x, y)| x == y).count()
}

/// How many bytes `a` and `b` share at their end, as [`common_prefix`] counts from the start.
pub(crate) fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let words = a.rchunks_exact(8).zip(b.rchunks_exact(8)).take_while(|(x, y)| word(x) == word(y)).count();
    let at = words * 8;
    let (a, b) = (&a[..a.len() - at], &b[..b.len() - at]);
    at + a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
}

/// Eight bytes as one word, to compare them at once.
fn word(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(bytes);
    u64::from_ne_bytes(word)
}

/// `text`'s length in UTF-16 code units, as JavaScript counts a string: one a char, two for a char
/// past the Basic Multilingual Plane. In UTF-8 terms: its bytes, less its continuation bytes
/// (`10xxxxxx`), plus its four-byte chars' first bytes (`11110xxx`), counted eight bytes at a time.
pub(crate) fn utf16_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let chunks = bytes.chunks_exact(8);
    let rest = chunks.remainder();
    let mut units = bytes.len();
    for chunk in chunks {
        let w = word(chunk);
        // Bit 7 of each byte: set where the byte's top bits are 10, and where they are 1111.
        let continuation = w & !(w << 1) & HIGH_BITS;
        let four_byte_start = w & (w << 1) & (w << 2) & (w << 3) & HIGH_BITS;
        units = units + four_byte_start.count_ones() as usize - continuation.count_ones() as usize;
    }
    for &b in rest {
        units = units + usize::from(b >= 0xF0) - usize::from(b & 0xC0 == 0x80);
    }
    units
}

/// The top bit of each of a word's eight bytes.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

mod decimal;
mod surrogates;
pub(crate) use decimal::parse_decimal;
pub use surrogates::well_formed_json;

#[cfg(test)]
mod decimal_tests;
#[cfg(test)]
mod tests;
