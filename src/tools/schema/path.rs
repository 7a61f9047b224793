//! Where in the arguments an issue is, written the way a model would write it: `items[2].qty`.

/// One step into a value.
#[derive(Debug, Clone, Copy)]
pub(super) enum Segment<'a> {
    /// A property of an object.
    Key(&'a str),
    /// An item of an array.
    Index(usize),
}

/// The path as shown to the model: `city`, `items[2].qty`, `["a b"]`; empty for the root.
pub(super) fn render(path: &[Segment<'_>]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) if is_identifier(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            // JSON string syntax, so any key (quotes, newlines) reads back unambiguously.
            Segment::Key(key) => out.push_str(&format!("[{}]", serde_json::Value::from(*key))),
            Segment::Index(index) => out.push_str(&format!("[{index}]")),
        }
    }
    out
}

/// Whether a key can be written bare after a dot, as in JavaScript.
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|first| first.is_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::{render, Segment};

    #[test]
    fn renders_like_javascript() {
        assert_eq!(render(&[]), "");
        assert_eq!(render(&[Segment::Key("city")]), "city");
        assert_eq!(render(&[Segment::Key("items"), Segment::Index(2), Segment::Key("qty")]), "items[2].qty");
        assert_eq!(render(&[Segment::Index(0), Segment::Index(1)]), "[0][1]");
        assert_eq!(render(&[Segment::Key("a b"), Segment::Key("c")]), "[\"a b\"].c");
        assert_eq!(render(&[Segment::Key("x"), Segment::Key("say \"hi\"")]), "x[\"say \\\"hi\\\"\"]");
        assert_eq!(render(&[Segment::Key(""), Segment::Key("9lives")]), "[\"\"][\"9lives\"]");
    }
}
