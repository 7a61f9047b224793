//! A schema as Zod v4's `toJSONSchema` writes it, for an invoicing tool, and a small model's
//! typical mistakes against it.

use serde_json::{json, Value};

use super::{issue, issues, with_options};
use crate::errors::IssueKind::{Missing, NoMatch, NotAllowed, OutOfRange, UnknownKey};

/// `z.object({...})` for `create_invoice`, hand-written the way Zod v4 emits it.
fn create_invoice() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "customerId": {"type": "string", "minLength": 1, "description": "The customer's id, from list_customers"},
            "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
            "dueDate": {"type": "string", "format": "date", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
            "email": {
                "type": "string",
                "format": "email",
                "pattern": "^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"
            },
            "items": {
                "minItems": 1,
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "description": {"type": "string", "maxLength": 200},
                        "qty": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740991_i64},
                        "unitPrice": {"type": "number", "minimum": 0}
                    },
                    "required": ["sku", "qty", "unitPrice"],
                    "additionalProperties": false
                }
            },
            "notes": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "discount": {
                "oneOf": [
                    {"type": "object", "properties": {
                        "kind": {"type": "string", "const": "percent"},
                        "value": {"type": "number", "minimum": 0, "maximum": 100}
                    }, "required": ["kind", "value"], "additionalProperties": false},
                    {"type": "object", "properties": {
                        "kind": {"type": "string", "const": "fixed"},
                        "amount": {"type": "number", "minimum": 0}
                    }, "required": ["kind", "amount"], "additionalProperties": false}
                ]
            }
        },
        "required": ["customerId", "currency", "items"],
        "additionalProperties": false
    })
}

#[test]
fn a_good_call_has_no_issues() {
    let call = json!({
        "customerId": "c_1", "currency": "EUR", "dueDate": "2025-01-31", "email": "a@b.io",
        "items": [{"sku": "A", "qty": 2, "unitPrice": 9.5}, {"sku": "B", "qty": 1.0, "unitPrice": 0}],
        "notes": null, "discount": {"kind": "fixed", "amount": 5}
    });
    assert_eq!(issues(create_invoice(), call), []);
}

#[test]
fn a_bad_call_gets_every_issue_in_one_go() {
    let call = json!({
        "customerID": "c_1",
        "currency": "usd",
        "items": [{"sku": "A", "qty": 2, "unitPrice": 9.5}, {"sku": "B", "qty": 0, "unitPrice": -1, "colour": "red"}],
        "notes": 5,
        "discount": {"kind": "percent", "value": 150}
    });
    let properties = ["customerId", "currency", "dueDate", "email", "items", "notes", "discount"];
    assert_eq!(
        issues(create_invoice(), call),
        [
            with_options(
                issue("customerID", UnknownKey, "one of the known properties", Some(json!("c_1"))),
                &properties,
                Some("customerId")
            ),
            with_options(
                issue("currency", NotAllowed, "one of \"USD\", \"EUR\", \"GBP\"", Some(json!("usd"))),
                &["USD", "EUR", "GBP"],
                Some("USD")
            ),
            issue(
                "items[1].qty",
                OutOfRange,
                "an integer greater than 0 and at most 9007199254740991",
                Some(json!(0))
            ),
            issue("items[1].unitPrice", OutOfRange, "a number at least 0", Some(json!(-1))),
            with_options(
                issue("items[1].colour", UnknownKey, "one of the known properties", Some(json!("red"))),
                &["sku", "description", "qty", "unitPrice"],
                None
            ),
            issue("notes", NoMatch, "one of: a string; null", Some(json!(5))),
            issue("discount.value", OutOfRange, "a number at least 0 and at most 100", Some(json!(150))),
            issue(
                "customerId",
                Missing,
                "a string of at least 1 character (The customer's id, from list_customers)",
                None
            ),
        ]
    );
}

#[test]
fn issues_serialize_the_way_the_model_reads_them() {
    let got = issues(create_invoice(), json!({"customerId": "c", "currency": "usd", "items": [{}]}));
    let json = serde_json::to_value(&got).expect("serializes");
    assert_eq!(
        json,
        json!([
            {"path": "currency", "kind": "notAllowed", "expected": "one of \"USD\", \"EUR\", \"GBP\"",
             "sent": "usd", "options": ["USD", "EUR", "GBP"], "suggestion": "USD"},
            {"path": "items[0].sku", "kind": "missing", "expected": "a string"},
            {"path": "items[0].qty", "kind": "missing", "expected": "an integer greater than 0"},
            {"path": "items[0].unitPrice", "kind": "missing", "expected": "a number at least 0"}
        ])
    );
}
