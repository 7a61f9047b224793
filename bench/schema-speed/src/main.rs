//! Validating valid tool calls: keel's validator against the `jsonschema` crate, side by side.
//!
//! usage: cargo run --release (in bench/schema-speed)
//!
//! For each schema, both validators are compiled once, then timed in alternating batches of
//! [`CALLS`] validations of the same valid call ([`ROUNDS`] batches each, after a warm-up), so
//! that machine noise hits both alike. Reported per call: median and p95 over the batches. keel
//! has one entry point, `Schema::validate` (every issue, empty when valid); `jsonschema` is timed
//! with `is_valid` (a yes/no) and `validate` (the first error), both of which it offers.
//! Prints a markdown table.

use std::hint::black_box;
use std::time::Instant;

use keel::tools::Schema;
use serde_json::{json, Value};

/// Validations per timed batch.
const CALLS: usize = 2_000;
/// Timed batches per validator and schema.
const ROUNDS: usize = 101;

/// The schemas, each with a valid call: what tool schemas look like (Zod's `toJSONSchema` output,
/// browser-agent tools, a search tool with filters).
fn cases() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "weather (2 properties, enum)",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1, "description": "City name"},
                    "unit": {"type": "string", "enum": ["c", "f"]}
                },
                "required": ["city", "unit"],
                "additionalProperties": false
            }),
            json!({"city": "Oslo", "unit": "c"}),
        ),
        (
            "click (pattern, integer bounds, oneOf)",
            json!({
                "type": "object",
                "properties": {
                    "ref": {"type": "string", "pattern": "^e[0-9]+$"},
                    "button": {"type": "string", "enum": ["left", "middle", "right"]},
                    "clickCount": {"type": "integer", "minimum": 1, "maximum": 3},
                    "modifiers": {"type": "array", "items": {"enum": ["Alt", "Control", "Meta", "Shift"]}, "uniqueItems": true},
                    "target": {"oneOf": [
                        {"type": "object", "properties": {"kind": {"const": "element"}, "ref": {"type": "string"}}, "required": ["kind", "ref"]},
                        {"type": "object", "properties": {"kind": {"const": "point"}, "x": {"type": "number"}, "y": {"type": "number"}}, "required": ["kind", "x", "y"]}
                    ]}
                },
                "required": ["ref"],
                "additionalProperties": false
            }),
            json!({"ref": "e42", "button": "left", "clickCount": 2, "modifiers": ["Shift"], "target": {"kind": "point", "x": 10.5, "y": 3}}),
        ),
        (
            "order (nested objects, $defs, 5 items)",
            json!({
                "type": "object",
                "properties": {
                    "customer": {"$ref": "#/$defs/customer"},
                    "items": {"type": "array", "minItems": 1, "maxItems": 50, "items": {"$ref": "#/$defs/item"}},
                    "note": {"type": ["string", "null"], "maxLength": 500},
                    "express": {"type": "boolean"}
                },
                "required": ["customer", "items"],
                "additionalProperties": false,
                "$defs": {
                    "customer": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "email": {"type": "string", "format": "email"},
                            "tier": {"enum": ["free", "pro", "team"]}
                        },
                        "required": ["name", "email"],
                        "additionalProperties": false
                    },
                    "item": {
                        "type": "object",
                        "properties": {
                            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                            "qty": {"type": "integer", "minimum": 1, "maximum": 99},
                            "price": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.01}
                        },
                        "required": ["sku", "qty"],
                        "additionalProperties": false
                    }
                }
            }),
            json!({
                "customer": {"name": "Ada", "email": "ada@example.com", "tier": "pro"},
                "items": [
                    {"sku": "ABC-0001", "qty": 1, "price": 9.99},
                    {"sku": "ABC-0002", "qty": 2, "price": 19.5},
                    {"sku": "XYZ-1234", "qty": 10},
                    {"sku": "QRS-9876", "qty": 3, "price": 0.25},
                    {"sku": "LMN-5555", "qty": 99, "price": 100}
                ],
                "note": null,
                "express": true
            }),
        ),
        (
            "search (patternProperties, if/then, dependentRequired)",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 200},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                    "sort": {"enum": ["relevance", "date"]},
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "filters": {
                        "type": "object",
                        "patternProperties": {"^[a-z_]+$": {"type": ["string", "number", "boolean"]}},
                        "additionalProperties": false,
                        "maxProperties": 10
                    }
                },
                "required": ["query"],
                "dependentRequired": {"to": ["from"]},
                "if": {"properties": {"sort": {"const": "date"}}, "required": ["sort"]},
                "then": {"required": ["from"]},
                "additionalProperties": false
            }),
            json!({"query": "rust json schema", "limit": 20, "sort": "date", "from": "2026-01-01", "to": "2026-11-24",
                   "filters": {"lang": "en", "min_stars": 100, "archived": false}}),
        ),
    ]
}

/// Median and 95th percentile of per-call nanoseconds.
fn summary(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

/// Nanoseconds per call of one batch of `run`.
fn batch(mut run: impl FnMut() -> bool) -> f64 {
    let start = Instant::now();
    for _ in 0..CALLS {
        assert!(black_box(run()), "the benchmark call must be valid");
    }
    start.elapsed().as_nanos() as f64 / CALLS as f64
}

fn main() {
    println!("| schema | keel `validate` median / p95 (ns) | jsonschema `is_valid` median / p95 (ns) | jsonschema `validate` median / p95 (ns) |");
    println!("|---|---|---|---|");
    for (name, schema, call) in cases() {
        let keel = Schema::compile(&schema).expect("keel compiles the schema");
        let other = jsonschema::validator_for(&schema).expect("jsonschema compiles the schema");
        let call = black_box(call);
        let mut runs: [Box<dyn FnMut() -> bool>; 3] = [
            Box::new(|| keel.validate(black_box(&call)).is_empty()),
            Box::new(|| other.is_valid(black_box(&call))),
            Box::new(|| other.validate(black_box(&call)).is_ok()),
        ];
        for run in runs.iter_mut() {
            batch(run); // warm-up
        }
        let mut samples = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..ROUNDS {
            for (run, out) in runs.iter_mut().zip(samples.iter_mut()) {
                out.push(batch(run));
            }
        }
        let cells: Vec<String> = samples
            .into_iter()
            .map(|s| {
                let (median, p95) = summary(s);
                format!("{median:.0} / {p95:.0}")
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}
