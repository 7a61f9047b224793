//! Finding where the JSON object in a reply ends, aware of strings, so prose around it can be cut
//! off and a reply that was cut short can be told apart from one that is merely malformed.

/// Which characters delimit strings while scanning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quotes {
    /// Only `"`, as in JSON.
    Json,
    /// Also `'`, `“ ”` and `‘ ’`, which small models use.
    Lenient,
}

/// An object that never closed: its brackets still open (outermost first) and whether the text
/// ended inside a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unclosed {
    pub open: Vec<char>,
    pub in_string: bool,
}

impl Unclosed {
    /// The closers that would balance the text, innermost first.
    pub fn closers(&self) -> String {
        self.open.iter().rev().map(|c| if *c == '{' { '}' } else { ']' }).collect()
    }
}

/// Whether `c`, outside any string, starts one.
pub(super) fn opens_string(c: char, quotes: Quotes) -> bool {
    match quotes {
        Quotes::Json => c == '"',
        Quotes::Lenient => matches!(c, '"' | '\'' | '“' | '”' | '‘'),
    }
}

/// Whether `c` ends a string opened by `open`, `after` being the text that follows `c`.
/// A non-JSON quote only ends a string when what follows could follow a JSON string (`,` `:` `}`
/// `]` or the end), so an apostrophe inside it (`'don't'`, `“it’s”`) does not end it early.
pub(super) fn closes(open: char, c: char, after: &str) -> bool {
    let same_kind = match open {
        '"' => return c == '"',
        '\'' => c == '\'',
        '‘' => c == '’' || c == '\'',
        _ => c == '”' || c == '“',
    };
    same_kind && after.trim_start().chars().next().is_none_or(|n| matches!(n, ',' | ':' | '}' | ']'))
}

/// The byte offset just past the object or array that opens at `start`, or what was left open
/// when the text ran out.
pub(super) fn balanced_end(text: &str, start: usize, quotes: Quotes) -> Result<usize, Unclosed> {
    let mut open = Vec::new();
    let mut string: Option<char> = None;
    let mut escaped = false;
    let Some(rest) = text.get(start..) else { return Err(Unclosed { open, in_string: false }) };
    for (i, c) in rest.char_indices() {
        let at = start + i;
        if let Some(q) = string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if closes(q, c, &text[at + c.len_utf8()..]) {
                string = None;
            }
            continue;
        }
        match c {
            '{' | '[' => open.push(c),
            '}' | ']' => {
                open.pop();
                if open.is_empty() {
                    return Ok(at + 1);
                }
            }
            _ if opens_string(c, quotes) => string = Some(c),
            _ => {}
        }
    }
    Err(Unclosed { open, in_string: string.is_some() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_end_of_an_object_ignoring_brackets_in_strings() {
        let text = r#"x {"a": "}{", "b": [1, {"c": 2}]} tail"#;
        let end = balanced_end(text, 2, Quotes::Json).unwrap();
        assert_eq!(&text[2..end], r#"{"a": "}{", "b": [1, {"c": 2}]}"#);
    }

    #[test]
    fn reports_what_is_left_open() {
        let cut = balanced_end(r#"{"a": [{"b": "c"#, 0, Quotes::Json).unwrap_err();
        assert_eq!(cut, Unclosed { open: vec!['{', '[', '{'], in_string: true });
        assert_eq!(cut.closers(), "}]}");
    }

    #[test]
    fn lenient_quotes_keep_apostrophes_inside_strings() {
        let text = "{'a': 'don't }', “b”: “it’s”}";
        assert_eq!(balanced_end(text, 0, Quotes::Lenient), Ok(text.len()));
        assert!(balanced_end("{'a': 'x\"}'}", 0, Quotes::Json).is_err());
        assert_eq!(balanced_end("{'a': 'x\"}'}", 0, Quotes::Lenient), Ok(12));
    }
}
