//! The incremental final-answer scanner: whatever the cut points of the stream, the decoded pieces
//! add up to the `final_answer` string the parser reads from the whole step.
#![cfg(not(target_arch = "wasm32"))]

use keel::engine::AnswerScanner;
use proptest::prelude::*;
use serde_json::json;

/// Feeds `chunks` in order; returns the text the scanner handed back.
fn scan<S: AsRef<str>>(chunks: &[S]) -> String {
    let mut scanner = AnswerScanner::new();
    chunks.iter().map(|c| scanner.push(c.as_ref())).collect()
}

/// `text` cut at every pair of char boundaries (three chunks, some empty), each cut scanned.
fn every_split(text: &str) -> Vec<(usize, usize, String)> {
    let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    let mut out = Vec::new();
    for (n, &a) in cuts.iter().enumerate() {
        for &b in &cuts[n..] {
            out.push((a, b, scan(&[&text[..a], &text[a..b], &text[b..]])));
        }
    }
    out
}

/// Every non-ASCII character as `\u` escapes (UTF-16, so astral ones as surrogate pairs), as
/// `json.dumps` writes by default.
fn ascii_json(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

#[test]
fn the_answer_is_decoded_whatever_the_split_points() {
    let answer = "Line one\nTab\there, a \"quote\", a back\\slash, a / slash, café, 🧥 and \u{8}\u{c}\r.";
    let step = json!({"thought": "Done.", "final_answer": answer}).to_string();
    for (a, b, got) in every_split(&step) {
        assert_eq!(got, answer, "cut at {a} and {b}");
    }
}

#[test]
fn u_escapes_and_surrogate_pairs_split_anywhere_are_decoded() {
    let answer = "Zürich: 5 €, 🌧️ rain — “quoted” \u{1F9E5}";
    let step = format!(r#"{{"thought": "x", "final_answer": {}}}"#, ascii_json(answer));
    assert!(step.contains("\\ud83e\\udde5"), "the coat is a surrogate pair: {step}");
    for (a, b, got) in every_split(&step) {
        assert_eq!(got, answer, "cut at {a} and {b}");
    }
    // One character at a time, the hardest split.
    let chars: Vec<String> = step.chars().map(String::from).collect();
    assert_eq!(scan(&chars), answer);
}

#[test]
fn a_lone_or_broken_surrogate_becomes_a_replacement_character() {
    assert_eq!(scan(&[r#"{"final_answer": "a\ud83e b"}"#]), "a\u{FFFD} b");
    assert_eq!(scan(&[r#"{"final_answer": "a\udc00b"}"#]), "a\u{FFFD}b");
    assert_eq!(scan(&[r#"{"final_answer": "a\ud83e\ud83eb"}"#]), "a\u{FFFD}\u{FFFD}b");
    assert_eq!(scan(&[r#"{"final_answer": "a\u12"}"#]), "a\u{FFFD}");
}

#[test]
fn only_the_top_level_answer_counts() {
    // The key inside the thought's text, inside an action's arguments, or as a flag, is no answer.
    let decoys = [
        r#"{"thought": "I will write \"final_answer\": \"no\"", "action": {"tool": "t", "args": {"final_answer": "no"}}}"#,
        r#"{"thought": "x", "action": {"tool": "t", "args": {"q": ["final_answer", "no"]}}, "final": true}"#,
        r#"{"final": true, "thought": "no"}"#,
    ];
    for decoy in decoys {
        for (a, b, got) in every_split(decoy) {
            assert_eq!(got, "", "{decoy} cut at {a} and {b}");
        }
    }
    // After an action object, an answer key at the top level still counts.
    let late = r#"{"action": {"tool": "t", "args": {"final_answer": "no"}}, "final_answer": "yes"}"#;
    assert_eq!(scan(&[late]), "yes");
}

#[test]
fn the_parsers_other_spellings_and_a_code_fence_are_read() {
    assert_eq!(scan(&["```json\n{\"thought\": \"t\", \"finalAnswer\": \"A\"}\n```"]), "A");
    assert_eq!(scan(&["Here: {\"answer\"", " : \"B\"}"]), "B");
    assert_eq!(scan(&["{\"Final-Answer\": \"C\"}"]), "C");
}

#[test]
fn nothing_after_the_first_object_or_the_answer_string_is_read() {
    assert_eq!(scan(&[r#"{"thought": "t"} {"final_answer": "second object"}"#]), "");
    assert_eq!(scan(&[r#"{"final_answer": "one", "final_answer": "two"}"#]), "one");
}

#[test]
fn text_the_parser_would_repair_gives_no_answer_text() {
    assert_eq!(scan(&["{'thought': 't', 'final_answer': 'single quotes'}"]), "");
    assert_eq!(scan(&["{thought: \"t\", final_answer: \"bare keys\"}"]), "");
}

proptest! {
    #[test]
    fn any_answer_cut_anywhere_adds_up(answer in "\\PC{0,40}", thought in "\\PC{0,20}", cut in 0usize..200, ascii in any::<bool>()) {
        let value = if ascii { ascii_json(&answer) } else { serde_json::to_string(&answer).unwrap() };
        let thought = serde_json::to_string(&thought).unwrap();
        let step = format!(r#"{{"thought": {thought}, "final_answer": {value}}}"#);
        let cuts: Vec<usize> = step.char_indices().map(|(i, _)| i).collect();
        let at = cuts[cut % cuts.len()];
        prop_assert_eq!(scan(&[&step[..at], &step[at..]]), answer);
    }
}
