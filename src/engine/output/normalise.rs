//! Rewriting the near-JSON small models write into JSON: other quote styles, trailing commas, bare
//! keys, Python literals, raw newlines in strings. Valid JSON passes through unchanged.

use super::scan::{closes, opens_string, Quotes};
use super::Repair;

/// The rewritten text, where each of its bytes came from in the input (to report error positions
/// in the text the model wrote), and the repairs made.
pub(super) struct Normalised {
    pub text: String,
    pub origin: Vec<usize>,
    pub repairs: Vec<Repair>,
}

impl Normalised {
    fn push(&mut self, s: &str, from: usize) {
        self.text.push_str(s);
        self.origin.extend(std::iter::repeat_n(from, s.len()));
    }

    fn note(&mut self, repair: Repair) {
        if !self.repairs.contains(&repair) {
            self.repairs.push(repair);
        }
    }
}

/// Rewrites `src` (one object, brackets balanced or not) into JSON where it safely can.
pub(super) fn normalise(src: &str) -> Normalised {
    let mut out =
        Normalised { text: String::with_capacity(src.len()), origin: Vec::new(), repairs: Vec::new() };
    let mut chars = src.char_indices().peekable();
    let mut string: Option<char> = None;
    let mut buf = [0u8; 4];
    while let Some((i, c)) = chars.next() {
        let after = &src[i + c.len_utf8()..];
        let this: &str = c.encode_utf8(&mut buf);
        if let Some(open) = string {
            if c == '\\' {
                match chars.next() {
                    // `\'` is how single-quoted strings escape; JSON has no such escape.
                    Some((_, '\'')) => {
                        out.push("'", i);
                        if open == '"' {
                            out.note(Repair::EscapedStrings);
                        }
                    }
                    Some((j, n)) if matches!(n, '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') => {
                        out.push("\\", i);
                        out.push(n.encode_utf8(&mut buf), j);
                    }
                    // An unknown escape (`C:\dir`) most likely meant a literal backslash.
                    Some((j, n)) => {
                        out.push("\\\\", i);
                        out.push(n.encode_utf8(&mut buf), j);
                        out.note(Repair::EscapedStrings);
                    }
                    None => {
                        out.push("\\\\", i);
                        out.note(Repair::EscapedStrings);
                    }
                }
            } else if closes(open, c, after) {
                out.push("\"", i);
                string = None;
            } else if c == '"' {
                out.push("\\\"", i);
            } else if (c as u32) < 0x20 {
                out.push(&control_escape(c), i);
                out.note(Repair::EscapedStrings);
            } else {
                out.push(this, i);
            }
        } else if opens_string(c, Quotes::Lenient) {
            if c != '"' {
                out.note(Repair::NormalisedQuotes);
            }
            out.push("\"", i);
            string = Some(c);
        } else if c == ',' && after.trim_start().starts_with(['}', ']']) {
            out.note(Repair::RemovedTrailingCommas);
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let len = src[i..]
                .find(|w: char| !(w.is_alphanumeric() || w == '_' || w == '$'))
                .unwrap_or(src.len() - i);
            while chars.next_if(|(j, _)| *j < i + len).is_some() {}
            let word = &src[i..i + len];
            if src[i + len..].trim_start().starts_with(':') {
                out.push("\"", i);
                out.push(word, i);
                out.push("\"", i);
                out.note(Repair::QuotedBareKeys);
            } else if let Some(json) = python_literal(word) {
                out.push(json, i);
                out.note(Repair::PythonLiterals);
            } else {
                out.push(word, i);
            }
        } else {
            out.push(this, i);
        }
    }
    out
}

fn python_literal(word: &str) -> Option<&'static str> {
    match word {
        "True" => Some("true"),
        "False" => Some("false"),
        "None" => Some("null"),
        _ => None,
    }
}

fn control_escape(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        _ => format!("\\u{:04x}", c as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> (String, Vec<Repair>) {
        let n = normalise(src);
        assert_eq!(n.origin.len(), n.text.len());
        (n.text, n.repairs)
    }

    #[test]
    fn valid_json_passes_through_unchanged() {
        let src = r#"{"a": [1, -2.5e+3, true, null], "b": "it's \"q\" \u00e9 \\ “x”", "c": {}}"#;
        assert_eq!(run(src), (src.to_string(), vec![]));
    }

    #[test]
    fn rewrites_quotes_commas_keys_and_literals() {
        assert_eq!(
            run("{'a': 'say \"hi\"', “b”: “it’s”, c: [True, None,],}"),
            (
                r#"{"a": "say \"hi\"", "b": "it’s", "c": [true, null]}"#.to_string(),
                vec![
                    Repair::NormalisedQuotes,
                    Repair::QuotedBareKeys,
                    Repair::PythonLiterals,
                    Repair::RemovedTrailingCommas
                ]
            )
        );
    }

    #[test]
    fn escapes_raw_control_characters_and_bad_escapes() {
        assert_eq!(
            run("{\"a\": \"line1\nline2\tC:\\dir don\\'t\"}"),
            (r#"{"a": "line1\nline2\tC:\\dir don't"}"#.to_string(), vec![Repair::EscapedStrings])
        );
    }
}
