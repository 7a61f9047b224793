//! `format` asserted on request: the formats Zod emits, each with values it accepts and refuses,
//! the issue a refused one gets, and `format` left an annotation by default.

use serde_json::{json, Value};

use super::super::{Formats, Schema};
use super::issue;
use crate::errors::IssueKind::Pattern;

fn asserted(format: &str) -> Schema {
    Schema::compile_with(&json!({"type": "string", "format": format}), Formats::Assertion).expect("compiles")
}

#[test]
fn each_format_accepts_its_form_and_refuses_near_misses() {
    let cases: [(&str, &[&str], &[&str]); 8] = [
        (
            "email",
            &["a@b.io", "first.last+tag@example.co.uk", "\"joe bloggs\"@example.com", "x@[127.0.0.1]"],
            &["a@", "@b.io", ".a@b.io", "a..b@c.io", "a@-b.io", "a b@c.io"],
        ),
        (
            "uri",
            &[
                "https://example.com/a?b=c#d",
                "urn:isbn:0451450523",
                "mailto:a@b.io",
                "http://[2001:db8::1]:80/",
            ],
            &["//example.com", "example.com", "http:// x.com", "https://ex.com/a\\b", "1http://x"],
        ),
        (
            "uuid",
            &["123e4567-e89b-12d3-a456-426614174000", "AAAAAAAA-1111-1111-1111-111111111111"],
            &["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"],
        ),
        ("date", &["2026-11-26", "2024-02-29"], &["2026-02-29", "2026-13-01", "2026-1-01", "26-11-2026"]),
        (
            "date-time",
            &["2026-11-26T07:30:00Z", "2026-11-26t07:30:00.123+01:00"],
            &["2026-11-26 07:30:00Z", "2026-11-26T07:30:00", "2026-11-26T25:00:00Z"],
        ),
        (
            "time",
            &["07:30:00Z", "23:59:60Z", "01:29:60+01:30"],
            &["07:30", "07:30:00", "22:59:60Z", "07:30:00+24:00"],
        ),
        ("ipv4", &["192.168.0.1", "0.0.0.0"], &["256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5"]),
        (
            "ipv6",
            &["::1", "2001:db8::1", "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8"],
            &["1:2:3:4:5:6:7:8:9", "1::2::3", "fe80::1%eth0", "12345::"],
        ),
    ];
    for (format, good, bad) in cases {
        let schema = asserted(format);
        for value in good {
            assert!(schema.is_valid(&json!(value)), "{format}: {value:?} is valid");
        }
        for value in bad {
            assert!(!schema.is_valid(&json!(value)), "{format}: {value:?} is not");
        }
    }
}

#[test]
fn a_refused_value_says_what_the_format_looks_like() {
    let got = asserted("date").validate(&json!("2026-02-30"));
    assert_eq!(got, vec![issue("", Pattern, "a date as YYYY-MM-DD (2026-11-26)", Some(json!("2026-02-30")))]);
    // Only strings are checked; other names stay annotations.
    let untyped = Schema::compile_with(&json!({"format": "date"}), Formats::Assertion).expect("compiles");
    assert!(untyped.is_valid(&json!(5)));
    assert!(asserted("cuid").is_valid(&json!("not checked")));
}

#[test]
fn format_is_an_annotation_unless_asked_for() {
    let schema = Schema::compile(&json!({"format": "email"})).expect("compiles");
    assert!(schema.validate(&Value::String("no at sign".into())).is_empty());
}
