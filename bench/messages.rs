//! What reading one page→worker message costs the worker, natively: `PageMessage::read` of a tool's
//! result, small and large (a 56 KB page snapshot as text, and a 56 KB object), and of a model's
//! answer, beside the floor for each (serde_json parsing the same text into a `Value`, which every
//! read starts with). Each round reads every message once, in turn, so the cases share the noise;
//! prints medians and p95 in microseconds; asserts nothing.
//!
//! Run with `./build.sh bench messages` (or `cargo run --release --example messages -- [--rounds N]`).

use std::hint::black_box;
use std::time::Instant;

use keel::web::protocol::PageMessage;
use serde_json::{json, Value};

/// The messages read: a name, and the JSON text the page posts.
fn messages() -> Vec<(&'static str, String)> {
    // An accessibility snapshot of a busy page, as `keel-agent/dom`'s `snapshot` returns it.
    let line = |i: usize| format!("- button \"Add item {i} to the cart\" [ref=e{i}] (in list \"Results\")\n");
    let snapshot: String = (0..800).map(line).collect();
    let snapshot = snapshot[..snapshot.len().min(56_000)].to_string();
    let rows: Vec<Value> = (0..930)
        .map(|i| json!({"id": i, "name": format!("item {i}"), "price": i as f64 * 1.25, "tags": ["a", "b"]}))
        .collect();
    let tool = |value: Value| json!({"type": "toolResult", "id": 7, "ok": true, "value": value}).to_string();
    vec![
        ("toolResult, small object", tool(json!({"ok": true, "count": 3, "name": "alpha"}))),
        ("toolResult, 56 KB text", tool(Value::String(snapshot))),
        ("toolResult, 56 KB object", tool(Value::Array(rows))),
        (
            "modelResult, 2 KB text",
            json!({"type": "modelResult", "id": 8, "ok": true, "text": "x".repeat(2_000),
                   "usage": {"promptTokens": 900, "completionTokens": 40}})
            .to_string(),
        ),
    ]
}

/// The median and the 95th percentile of `samples` (µs).
fn median_p95(samples: &mut [f64]) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = match args.iter().position(|a| a == "--rounds") {
        Some(i) => args.get(i + 1).and_then(|n| n.parse().ok()).expect("--rounds takes a whole number"),
        None => 2_000,
    };
    let messages = messages();
    for (name, text) in &messages {
        assert!(PageMessage::read(text).is_ok(), "{name} does not read");
    }
    let mut read = vec![Vec::with_capacity(rounds); messages.len()];
    let mut parse = vec![Vec::with_capacity(rounds); messages.len()];
    for round in 0..rounds + 50 {
        for (i, (_, text)) in messages.iter().enumerate() {
            let start = Instant::now();
            black_box(PageMessage::read(black_box(text)).ok());
            let middle = Instant::now();
            black_box(serde_json::from_str::<Value>(black_box(text)).ok());
            let end = Instant::now();
            if round >= 50 {
                read[i].push((middle - start).as_secs_f64() * 1e6);
                parse[i].push((end - middle).as_secs_f64() * 1e6);
            }
        }
    }
    println!("Reading one page message, natively in release ({rounds} rounds after 50 warm-up, µs)\n");
    println!("| message | bytes | read: median / p95 | floor (parse into a Value): median / p95 | read − floor (medians) |");
    println!("| --- | --- | --- | --- | --- |");
    for (i, (name, text)) in messages.iter().enumerate() {
        let (rm, rp) = median_p95(&mut read[i]);
        let (pm, pp) = median_p95(&mut parse[i]);
        println!("| {name} | {} | {rm:.1} / {rp:.1} | {pm:.1} / {pp:.1} | {:.1} |", text.len(), rm - pm);
    }
}
