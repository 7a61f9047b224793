//! Properties of the renderers over arbitrary envelopes and budgets: they never panic, never
//! exceed the budget, and XML is well-formed from `XML_MIN_BUDGET` chars on.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use keel::errors::render::{render, Format, XML_MIN_BUDGET};
use keel::errors::{Envelope, ErrorCode, FailureClass, FieldIssue, IssueKind, Severity};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Anything: arbitrary unicode, or text dense in what breaks markup (tags, entities, quotes,
/// control chars, XML non-characters, line breaks, wide chars).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[<>&\"' a-zé/;#\\n\\r\\t\\x00-\\x1f\\x7f\u{FFFE}\u{FFFF}❌🔧]{0,40}",
        "[a-z_]{1,12}",
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn code() -> impl Strategy<Value = ErrorCode> {
    prop_oneof![
        Just(ErrorCode::StaleReference),
        Just(ErrorCode::InvalidArgs),
        Just(ErrorCode::UnknownTool),
        text().prop_map(|s| ErrorCode::parse(&s)),
        text().prop_map(ErrorCode::Custom),
    ]
}

fn issue() -> impl Strategy<Value = FieldIssue> {
    let kind = prop_oneof![
        Just(IssueKind::Missing),
        Just(IssueKind::WrongType),
        Just(IssueKind::NotAllowed),
        Just(IssueKind::UnknownKey),
        Just(IssueKind::OutOfRange),
        Just(IssueKind::Length),
        Just(IssueKind::Pattern),
        Just(IssueKind::NoMatch),
    ];
    (
        text(),
        kind,
        text(),
        prop::option::of(json()),
        prop::collection::vec(text(), 0..8),
        prop::option::of(text()),
    )
        .prop_map(|(path, kind, expected, sent, options, suggestion)| FieldIssue {
            path,
            kind,
            expected,
            sent,
            options,
            suggestion,
        })
}

fn strings(max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 0..max)
}

fn envelope() -> impl Strategy<Value = Envelope> {
    let head = (
        code(),
        prop_oneof![Just(FailureClass::Transient), Just(FailureClass::Persistent), Just(FailureClass::Fatal)],
        prop_oneof![Just(Severity::Warning), Just(Severity::Error), Just(Severity::Critical)],
        prop::option::of(text()),
        prop_oneof![text(), text().prop_map(|s| s.repeat(40))],
    );
    let lists = (strings(6), strings(8), strings(30), prop::option::of(any::<u64>()));
    let rest = (
        prop::collection::vec((text(), json()), 0..6),
        any::<bool>(),
        prop::option::of(json()),
        prop_oneof![Just(Vec::new()), prop::collection::vec(issue(), 0..24)],
    );
    (head, lists, rest).prop_map(
        |(
            (code, class, severity, tool, message),
            (causes, recovery, available_actions, retry_after_ms),
            (details, expected, sent, issues),
        )| Envelope {
            code,
            class,
            severity,
            tool,
            message,
            causes,
            recovery,
            available_actions,
            retry_after_ms,
            details: details.into_iter().collect(),
            expected,
            sent,
            issues,
        },
    )
}

fn budget() -> impl Strategy<Value = usize> {
    prop_oneof![0..60usize, 0..400usize, 0..6000usize, Just(usize::MAX)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn renderings_fit_the_budget_and_xml_stays_well_formed(e in envelope(), budget in budget()) {
        for format in [Format::Xml, Format::Text, Format::Plain] {
            let out = render(&e, format, budget);
            prop_assert!(out.chars().count() <= budget, "{format:?}: {} > {budget} chars", out.chars().count());
            if budget >= 20 {
                prop_assert!(!out.is_empty(), "{format:?} said nothing in {budget} chars");
            }
        }
        if budget >= XML_MIN_BUDGET {
            let out = render(&e, Format::Xml, budget);
            if let Err(problem) = common::xml_check::check(&out) {
                prop_assert!(false, "not well-formed ({problem}) at budget {budget}:\n{out}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_larger_budget_never_shows_less(e in envelope(), budget in 0..3000usize) {
        // Holds by construction (stages are tried in order, and an earlier stage is only skipped
        // for being too long); this guards the construction.
        for format in [Format::Xml, Format::Text, Format::Plain] {
            let small = render(&e, format, budget).chars().count();
            let large = render(&e, format, budget + 500).chars().count();
            prop_assert!(large >= small.min(budget), "{format:?}: {large} chars at {} vs {small} at {budget}", budget + 500);
        }
    }
}

#[test]
fn tiny_budgets_return_a_prefix_not_nothing() {
    let e = Envelope {
        code: ErrorCode::StaleReference,
        class: FailureClass::Persistent,
        severity: Severity::Error,
        tool: Some("browser_click".into()),
        message: "Element e5 was removed.".into(),
        causes: vec![],
        recovery: vec!["Call `browser_snapshot`.".into()],
        available_actions: vec![],
        retry_after_ms: None,
        details: Map::new(),
        expected: true,
        sent: None,
        issues: vec![],
    };
    for budget in [0, 1, 10, 13, 50] {
        for format in [Format::Xml, Format::Text, Format::Plain] {
            let out = render(&e, format, budget);
            assert!(out.chars().count() <= budget, "{format:?} at {budget}: {out:?}");
            assert_eq!(out.is_empty(), budget == 0, "{format:?} at {budget}: {out:?}");
        }
    }
    assert_eq!(render(&e, Format::Xml, 13), "<tool_error/>");
    assert_eq!(render(&e, Format::Xml, 50), "<tool_error code=\"STALE_REFERENCE\"/>");
    assert_eq!(render(&e, Format::Text, 10), "❌ STALE_R…");
}
