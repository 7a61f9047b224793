//! ECMA-262 pattern semantics where regex-lite reads the same text differently: each difference
//! matched as ECMA-262 does, and what cannot be translated refused with the construct named.

use serde_json::{json, Value};

use super::super::{Schema, SchemaError};

/// Whether `text` matches `pattern` as a JSON Schema `pattern`.
fn matches(pattern: &str, text: &str) -> bool {
    let schema = Schema::compile(&json!({"pattern": pattern})).expect("the pattern compiles");
    schema.validate(&Value::String(text.to_owned())).is_empty()
}

/// Why `pattern` was refused.
fn refused(pattern: &str) -> String {
    match Schema::compile(&json!({"pattern": pattern})) {
        Err(SchemaError::InvalidPattern { reason, .. }) => reason,
        other => panic!("{pattern:?} should be refused, got {other:?}"),
    }
}

#[test]
fn s_is_ecma_whitespace_in_and_out_of_classes() {
    for space in
        ["\u{a0}", "\u{feff}", "\u{2028}", "\u{2029}", "\u{3000}", "\u{1680}", "\u{2007}", "\u{b}", "\t"]
    {
        assert!(matches(r"^\s$", space), "{:?} is whitespace", space);
        assert!(matches(r"^[\s]$", space), "{:?} in a class", space);
        assert!(!matches(r"^\S$", space), "{:?} is not \\S", space);
        assert!(!matches(r"^[\S]$", space), "{:?} is not [\\S]", space);
        assert!(!matches(r"^[^\s]$", space), "{:?} is not [^\\s]", space);
    }
    for other in ["a", "\u{85}", "\u{200b}", "\u{180e}", "😀"] {
        assert!(!matches(r"^\s$", other), "{:?} is not whitespace", other);
        assert!(matches(r"^\S$", other), "{:?} is \\S", other);
        assert!(matches(r"^[x\S]$", other), "{:?} is [x\\S]", other);
    }
}

#[test]
fn control_escapes_name_code_points() {
    assert!(matches(r"^\cC$", "\u{3}"));
    assert!(matches(r"^\cc$", "\u{3}"), "a lower-case letter too");
    assert!(!matches(r"^\cC$", "C"));
    assert!(matches(r"^[\cJ]$", "\n"));
    assert!(matches(r"^\0$", "\0"));
    assert!(matches(r"^\x41\u0042\u{43}$", "ABC"));
    assert!(matches(r"^\uD83D\uDE00$", "😀"), "a surrogate pair is one code point");
    assert!(matches(r"^[\b]$", "\u{8}"), "[\\b] is backspace");
    assert!(matches(r"\bword\b", "a word here"), "\\b outside a class is a word boundary");
}

#[test]
fn digits_and_word_characters_are_ascii_only() {
    assert!(matches(r"^\d+$", "0123456789"));
    assert!(!matches(r"^\d$", "\u{660}"), "an Arabic-Indic digit is not \\d");
    assert!(matches(r"^\D$", "\u{660}"));
    assert!(!matches(r"^\w$", "é"));
    assert!(matches(r"^\W$", "é"));
    assert!(matches(r"^\w+$", "a_Z9"));
}

#[test]
fn dot_stops_at_every_line_terminator() {
    for terminator in ["\n", "\r", "\u{2028}", "\u{2029}"] {
        assert!(!matches(r"^.$", terminator), "{:?}", terminator);
    }
    assert!(matches(r"^.$", "😀"), "a code point, not a UTF-16 unit");
    assert!(matches(r"^[.]$", "."), "a dot in a class is a dot");
    assert!(!matches(r"^[.]$", "x"));
}

#[test]
fn dollar_does_not_match_before_a_trailing_newline() {
    assert!(!matches(r"^abc$", "abc\n"));
    assert!(matches(r"^abc$", "abc"));
}

#[test]
fn class_syntax_regex_lite_reads_otherwise_is_literal() {
    assert!(matches(r"^[[a]+$", "[a["), "[ in a class is literal, not a nested class");
    assert!(matches(r"^[a&&b]$", "&"), "&& is two ampersands, not an intersection");
    assert!(matches(r"^[a~~b]$", "~"));
    assert!(matches(r"^[+--]$", ","), "+-- is the range + to -");
    assert!(!matches(r"^[]$", ""), "[] matches nothing");
    assert!(!matches(r"a[]", "a"));
    assert!(matches(r"^[^]$", "\n"), "[^] matches anything");
    assert!(matches(r"^a\/b$", "a/b"));
}

#[test]
fn what_ecma_262_does_not_define_is_refused_with_the_construct_named() {
    assert!(refused(r"\A").contains(r"`\A`"), "{}", refused(r"\A"));
    assert!(refused(r"abc\z").contains(r"`\z`"));
    assert!(refused(r"\e").contains("no such escape"));
    assert!(refused(r"(?i)abc").contains("`(?i)`"), "{}", refused(r"(?i)abc"));
    assert!(refused(r"\c1").contains(r"`\c`"));
    assert!(refused(r"\xZ1").contains(r"`\x`"));
    assert!(refused(r"\uD800").contains("lone surrogate"));
    assert!(refused(r"[abc").contains("never closed"));
    assert!(refused("abc\\").contains("at the end"));
}
