//! `parse_step` on what small models actually write: every repair, every error kind.

use keel::engine::output::{parse_step, FormatErrorKind, Parsed, Repair, Step};
use serde_json::{json, Value};

fn action(thought: &str, tool: &str, args: Value) -> Step {
    Step::Action { thought: thought.into(), tool: tool.into(), args }
}

fn done(thought: &str, answer: &str) -> Step {
    Step::Final { thought: thought.into(), answer: answer.into() }
}

fn ok(text: &str) -> Parsed {
    parse_step(text).unwrap_or_else(|e| panic!("{text:?} did not parse: {e}"))
}

fn kind(text: &str) -> FormatErrorKind {
    match parse_step(text) {
        Ok(parsed) => panic!("{text:?} parsed as {parsed:?}"),
        Err(err) => err.kind,
    }
}

fn renamed(from: &str, to: &str) -> Repair {
    Repair::RenamedKey { from: from.into(), to: to.into() }
}

fn dropped(field: &str) -> Repair {
    Repair::DroppedField { field: field.into() }
}

#[test]
fn canonical_steps_need_no_repair() {
    let parsed = ok(r#"{"thought": "look it up", "action": {"tool": "search", "args": {"q": "rust"}}}"#);
    assert_eq!(
        parsed,
        Parsed { step: action("look it up", "search", json!({"q": "rust"})), repairs: vec![] }
    );
    let parsed = ok("\n {\"thought\": \"\", \"final_answer\": \"Paris\"} \n");
    assert_eq!(parsed, Parsed { step: done("", "Paris"), repairs: vec![] });
}

#[test]
fn code_fences_and_surrounding_prose_are_stripped() {
    let step = done("t", "a");
    let fenced = ok("```json\n{\"thought\": \"t\", \"final_answer\": \"a\"}\n```");
    assert_eq!(fenced, Parsed { step: step.clone(), repairs: vec![Repair::StrippedCodeFence] });
    let unclosed_fence = ok("```\n{\"thought\": \"t\", \"final_answer\": \"a\"}");
    assert_eq!(unclosed_fence.repairs, vec![Repair::StrippedCodeFence]);
    let prose = ok("Sure! Here is my step: {\"thought\": \"t\", \"final_answer\": \"a\"} Hope it helps {:}");
    assert_eq!(prose, Parsed { step: step.clone(), repairs: vec![Repair::StrippedSurroundingText] });
    let both = ok("Here you go:\n```json\n{\"thought\": \"t\", \"final_answer\": \"a\"}\n```\nDone.");
    assert_eq!(both.repairs, vec![Repair::StrippedCodeFence, Repair::StrippedSurroundingText]);
    // A `{` in the prose that is not JSON is skipped; braces inside strings do not confuse the scan.
    let braces = ok(r#"Use {tool} then: {"thought": "a } b {", "final_answer": "}"}"#);
    assert_eq!(braces.step, done("a } b {", "}"));
    // Several steps at once: the first one counts, the hallucinated rest is ignored.
    let many =
        ok(r#"{"thought": "", "action": {"tool": "a", "args": {}}} {"thought": "", "final_answer": "x"}"#);
    assert_eq!(many.step, action("", "a", json!({})));
    assert_eq!(many.repairs, vec![Repair::StrippedSurroundingText]);
}

#[test]
fn near_json_syntax_is_repaired() {
    let parsed = ok("{'thought': 'don't know', 'final_answer': 'it\\'s \"42\"',}");
    assert_eq!(parsed.step, done("don't know", "it's \"42\""));
    assert_eq!(parsed.repairs, vec![Repair::NormalisedQuotes, Repair::RemovedTrailingCommas]);
    let bracket = ok("{'thought': 'a } b', 'final_answer': 'c'}");
    assert_eq!(bracket, Parsed { step: done("a } b", "c"), repairs: vec![Repair::NormalisedQuotes] });
    let smart = ok("{“thought”: “ok”, “final_answer”: “it’s done”}");
    assert_eq!(smart, Parsed { step: done("ok", "it’s done"), repairs: vec![Repair::NormalisedQuotes] });
    let bare = ok("{thought: \"t\", action: {tool: \"set\", args: {on: True, level: None}}}");
    assert_eq!(bare.step, action("t", "set", json!({"on": true, "level": null})));
    assert_eq!(bare.repairs, vec![Repair::QuotedBareKeys, Repair::PythonLiterals]);
    let raw = ok("{\"thought\": \"t\", \"final_answer\": \"line 1\nline 2 in C:\\dir\"}");
    assert_eq!(
        raw,
        Parsed { step: done("t", "line 1\nline 2 in C:\\dir"), repairs: vec![Repair::EscapedStrings] }
    );
    // Smart quotes inside a valid string are content, not delimiters.
    assert_eq!(ok(r#"{"thought": "“x”", "final_answer": "a"}"#).repairs, vec![]);
}

#[test]
fn key_spellings_and_action_shapes_are_read() {
    let parsed = ok(r#"{"Thought": "t", "finalAnswer": "a"}"#);
    assert_eq!(parsed.step, done("t", "a"));
    assert_eq!(parsed.repairs, vec![renamed("Thought", "thought"), renamed("finalAnswer", "final_answer")]);
    assert_eq!(ok(r#"{"thought": "t", "answer": "a"}"#).repairs, vec![renamed("answer", "final_answer")]);
    let nested = ok(r#"{"thought": "t", "action": {"name": "search", "arguments": {"q": 1}}}"#);
    assert_eq!(nested.step, action("t", "search", json!({"q": 1})));
    assert_eq!(
        nested.repairs,
        vec![renamed("action.name", "action.tool"), renamed("action.arguments", "action.args")]
    );
    let tool_call = ok(r#"{"thought": "t", "tool_call": {"tool_name": "s", "parameters": {}}}"#);
    assert_eq!(tool_call.step, action("t", "s", json!({})));
    assert_eq!(tool_call.repairs.len(), 3);
}

#[test]
fn flat_action_forms_are_read() {
    let expected =
        Parsed { step: action("t", "search", json!({"q": "x"})), repairs: vec![Repair::FlatAction] };
    assert_eq!(ok(r#"{"thought": "t", "tool": "search", "args": {"q": "x"}}"#), expected);
    assert_eq!(ok(r#"{"thought": "t", "toolName": "search", "toolInput": {"q": "x"}}"#), expected);
    assert_eq!(ok(r#"{"thought": "t", "action": "search", "action_input": {"q": "x"}}"#), expected);
    assert_eq!(ok(r#"{"thought": "t", "name": "search", "arguments": {"q": "x"}}"#), expected);
    // Without arguments beside it, a top-level `name` is just a field.
    assert_eq!(
        kind(r#"{"thought": "t", "name": "Bob"}"#),
        FormatErrorKind::MissingAction { keys: vec!["thought".into(), "name".into()] }
    );
}

#[test]
fn arguments_are_repaired_only_into_objects() {
    let from_string = ok(r#"{"thought": "t", "action": {"tool": "s", "args": "{\"q\": \"x\"}"}}"#);
    assert_eq!(
        from_string,
        Parsed { step: action("t", "s", json!({"q": "x"})), repairs: vec![Repair::ArgsFromString] }
    );
    let inline = ok(r#"{"thought": "t", "action": {"tool": "s", "q": "x", "n": 2}}"#);
    assert_eq!(
        inline,
        Parsed {
            step: action("t", "s", json!({"q": "x", "n": 2})),
            repairs: vec![Repair::ArgsFromSiblingKeys]
        }
    );
    let missing = ok(r#"{"thought": "t", "action": {"tool": "list"}}"#);
    assert_eq!(
        missing,
        Parsed { step: action("t", "list", json!({})), repairs: vec![Repair::DefaultedArgs] }
    );
    assert_eq!(
        ok(r#"{"thought": "t", "action": {"tool": "list", "args": null}}"#).repairs,
        vec![Repair::DefaultedArgs]
    );
}

#[test]
fn thought_and_answer_are_filled_in_or_written_out() {
    assert_eq!(
        ok(r#"{"final_answer": "a"}"#),
        Parsed { step: done("", "a"), repairs: vec![Repair::MissingThought] }
    );
    let numbers = ok(r#"{"thought": ["a", 1], "final_answer": 42}"#);
    assert_eq!(numbers.step, done(r#"["a",1]"#, "42"));
    assert_eq!(
        numbers.repairs,
        vec![
            Repair::StringifiedField { field: "thought".into() },
            Repair::StringifiedField { field: "final_answer".into() }
        ]
    );
}

#[test]
fn non_actions_next_to_an_answer_give_the_final_answer() {
    let none = ok(r#"{"thought": "t", "action": {"tool": "none", "args": {}}, "final_answer": "a"}"#);
    assert_eq!(none, Parsed { step: done("t", "a"), repairs: vec![Repair::IgnoredNoneAction] });
    assert_eq!(ok(r#"{"thought": "t", "action": null, "final_answer": "a"}"#).repairs, vec![]);
    let as_tool = ok(r#"{"thought": "t", "action": {"tool": "final_answer", "args": {"answer": "a"}}}"#);
    assert_eq!(as_tool, Parsed { step: done("t", "a"), repairs: vec![Repair::FinalAnswerAsTool] });
    let only_string = ok(r#"{"thought": "t", "name": "final_answer", "arguments": {"text": "a"}}"#);
    assert_eq!(only_string.step, done("t", "a"));
}

#[test]
fn unused_fields_are_dropped_and_reported() {
    let parsed = ok(
        r#"{"thought": "t", "action": {"tool": "s", "args": {}, "why": 1}, "final_answer": "", "observation": "x"}"#,
    );
    assert_eq!(parsed.step, action("t", "s", json!({})));
    assert_eq!(parsed.repairs, vec![dropped("action.why"), dropped("final_answer"), dropped("observation")]);
    assert_eq!(
        ok(r#"{"thought": "t", "final": true, "tool": "s"}"#).repairs,
        vec![
            renamed("final", "final_answer"),
            dropped("final_answer"),
            Repair::FlatAction,
            Repair::DefaultedArgs
        ]
    );
}

#[test]
fn a_final_answer_cut_off_after_its_closing_quote_is_closed() {
    let parsed = ok("```json\n{\"thought\": \"t\", \"final_answer\": \"Paris\",\n```");
    assert_eq!(parsed.step, done("t", "Paris"));
    assert_eq!(
        parsed.repairs,
        vec![Repair::StrippedCodeFence, Repair::RemovedTrailingCommas, Repair::ClosedTruncatedJson]
    );
}

#[test]
fn cut_off_objects_are_never_guessed() {
    let truncated = |open, in_string| FormatErrorKind::Truncated { open, in_string };
    assert_eq!(kind(r#"{"thought": "t", "final_answer": "Par"#), truncated(1, true));
    assert_eq!(kind(r#"{"thought": "t", "final_answer": 12"#), truncated(1, false));
    // The arguments object is complete here, but the action is not: it might have had more.
    assert_eq!(kind(r#"{"thought": "t", "action": {"tool": "rm", "args": {"id": 1}}"#), truncated(1, false));
    assert_eq!(
        kind(r#"Sure: {"thought": "t", "action": {"tool": "rm", "args": {"id": 1"#),
        truncated(3, false)
    );
    assert_eq!(kind(r#"{"final_answer": "a", "thought": "t", "action": {"tool": "rm""#), truncated(2, false));
}

#[test]
fn invalid_json_is_located_in_the_reply() {
    let err = parse_step("Step:\n{\"thought\": \"t\",\n \"final_answer\" \"a\"}").unwrap_err();
    assert_eq!(
        err.kind,
        FormatErrorKind::NotJson {
            detail: "expected `:`".into(),
            line: 3,
            column: 17,
            near: "\"a\"}".into()
        }
    );
    assert_eq!(err.received, "Step:\n{\"thought\": \"t\",\n \"final_answer\" \"a\"}");
    let after_repair = kind("{'thought': 'é', 'final_answer': NaN}");
    assert!(
        matches!(after_repair, FormatErrorKind::NotJson { line: 1, column: 34, ref near, .. } if near == "NaN}")
    );
}

#[test]
fn each_error_kind_is_reported() {
    assert_eq!(kind(" \n "), FormatErrorKind::Empty);
    assert_eq!(kind("I will search for cats."), FormatErrorKind::NoObject);
    assert_eq!(
        kind(r#"[{"thought": "t", "final_answer": "a"}]"#),
        FormatErrorKind::NotAnObject { found: "an array" }
    );
    assert_eq!(kind("```json\n\"hello\"\n```"), FormatErrorKind::NotAnObject { found: "a string" });
    assert_eq!(kind(r#"{"thought": "t"}"#), FormatErrorKind::MissingAction { keys: vec!["thought".into()] });
    assert_eq!(
        kind(r#"{"thought": "t", "action": {"tool": "none"}}"#),
        FormatErrorKind::MissingAction { keys: vec!["thought".into(), "action".into()] }
    );
    let bad = |detail: &str| FormatErrorKind::BadActionShape { detail: detail.into() };
    assert_eq!(
        kind(r#"{"thought": "t", "action": {"args": {}}}"#),
        bad("\"action\" has no \"tool\" naming the tool to call")
    );
    assert_eq!(
        kind(r#"{"action": {"tool": 3}}"#),
        bad("\"tool\" must be a string naming the tool, not a number")
    );
    assert_eq!(
        kind(r#"{"action": ["s"]}"#),
        bad("\"action\" must be an object like {\"tool\": \"name\", \"args\": {...}}, not an array")
    );
    assert_eq!(
        kind(r#"{"action": "search", "action_input": "cats"}"#),
        bad("\"args\" must be an object of named arguments like {\"name\": value}, not the string \"cats\"")
    );
    assert_eq!(
        kind(r#"{"action": {"tool": "s", "args": [1]}}"#),
        bad("\"args\" must be an object of named arguments like {\"name\": value}, not an array")
    );
    assert_eq!(
        kind(r#"{"thought": "t", "action": {"tool": "send", "args": {}}, "final_answer": "Sent."}"#),
        FormatErrorKind::Ambiguous { tool: "send".into() }
    );
    assert_eq!(kind(r#"{"thought": "t", "final_answer": "  "}"#), FormatErrorKind::EmptyAnswer);
    assert_eq!(
        kind(r#"{"thought": "t", "action": {"tool": "final_answer", "args": {}}}"#),
        FormatErrorKind::EmptyAnswer
    );
}

#[test]
fn errors_quote_a_shortened_reply_and_explain_the_shape() {
    let long = format!("{{\"thought\": \"{}", "x".repeat(500));
    let err = parse_step(&long).unwrap_err();
    assert_eq!(err.received.chars().count(), 200);
    assert!(err.received.ends_with(&format!("…{}", "x".repeat(99))));
    assert!(err.summary().contains("the reply ended inside a string"), "{}", err.summary());
    let steps = err.recovery_steps().join("\n");
    assert!(steps.contains(r#""action": {"tool": "<tool name>""#), "{steps}");
}

#[test]
fn a_lone_surrogate_escape_is_replaced_not_a_reason_to_refuse_the_reply() {
    let parsed =
        parse_step(r#"{"thought": "done", "final_answer": "cut \ud83d here, kept \ud83d\ude00"}"#).unwrap();
    assert_eq!(parsed.step, done("done", "cut \u{FFFD} here, kept \u{1F600}"));
    assert_eq!(parsed.repairs, [Repair::ReplacedLoneSurrogates]);
}
