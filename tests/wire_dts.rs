//! What the generated `js/wire.d.ts` (kept fresh by `is_generated_from_the_rust`, src/typescript.rs)
//! must hold for a JS reader: every wire type an app can meet has a public name in `js/index.d.ts`,
//! and the doc comments ts-rs copied from the Rust read right in JS (no `None`, no `read_only`).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The page↔worker messages and the payloads inside them: the package's own JS builds and reads
/// them (`@ts-check`ed against wire.d.ts), an app never does, so index.d.ts does not export them.
const WORKER_ONLY: &[&str] = &[
    "PageMessage",
    "WorkerMessage",
    "Init",
    "Run",
    "Resume",
    "Edit",
    "Span",
    "CallDecision",
    "Decision",
    "ToolValue",
    "ModelText",
    "NeedsApprovalValue",
    "QueryValue",
    "RedactValue",
    "ModelRequest",
];

/// Snake_case words a doc comment may hold although a camelCase wire name has that spelling in
/// snake_case: another API's own names (OpenAI's `response_format: {type: "json_schema"}`), and
/// the old spelling an end reason's doc names as such (`final_answer`).
const NOT_OURS: &[&str] = &["response_format", "json_schema", "json_object", "final_answer"];

/// Spellings that are Rust's and mean something else (or nothing) to a JS reader.
const RUST_ONLY: &[&str] = &[
    "None", "Some(", "Vec<", "Option<", "HashMap", "BTreeMap", "Box<", "&str", "::", "usize", "u64", "u32",
    "f64",
];

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).expect(file)
}

/// Each `export type Name` of a generated file and the text of its declaration.
fn declarations(dts: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for part in dts.split("\nexport type ").skip(1) {
        let name: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let end = part.find("\n/**").or_else(|| part.find("\nexport ")).unwrap_or(part.len());
        out.insert(name, part[..end].to_string());
    }
    out
}

/// The text with its `/** … */` comments removed, or only those comments.
fn split_comments(text: &str) -> (String, Vec<String>) {
    let (mut code, mut docs) = (String::new(), Vec::new());
    let mut rest = text;
    while let Some(start) = rest.find("/**") {
        code.push_str(&rest[..start]);
        let end = rest[start..].find("*/").map_or(rest.len(), |e| start + e + 2);
        docs.push(rest[start..end].to_string());
        rest = &rest[end..];
    }
    code.push_str(rest);
    (code, docs)
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

/// The names in the `{ … }` of every `<keyword> { … } from "./wire.js"` of index.d.ts, as
/// (wire name, public name).
fn named_from_wire(index: &str, keyword: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = index;
    while let Some(start) = rest.find(keyword) {
        let after = &rest[start + keyword.len()..];
        let close = after.find('}').expect("a closing brace");
        if after[close..].trim_start_matches('}').trim_start().starts_with("from \"./wire.js\"") {
            for item in after[..close].split(',').map(str::trim).filter(|i| !i.is_empty()) {
                let mut parts = item.split(" as ");
                let wire = parts.next().unwrap().trim().to_string();
                let public = parts.next().map_or(wire.clone(), |p| p.trim().to_string());
                out.push((wire, public));
            }
        }
        rest = &after[close..];
    }
    out
}

#[test]
fn every_wire_type_an_app_meets_has_a_public_name() {
    let wire = declarations(&read("js/wire.d.ts"));
    let index = read("js/index.d.ts");
    let exported: BTreeMap<String, String> = named_from_wire(&index, "export type {").into_iter().collect();
    let imported: BTreeSet<String> =
        named_from_wire(&index, "import type {").into_iter().map(|(wire, _)| wire).collect();
    let mut missing = BTreeSet::new();
    for name in wire.keys() {
        if !exported.contains_key(name) && !WORKER_ONLY.contains(&name.as_str()) {
            missing.insert(format!("{name} (not exported, not a worker message)"));
        }
    }
    // What the public declarations use, and what those types use in turn, is exported too.
    let mut todo: Vec<String> = exported.keys().chain(&imported).cloned().collect();
    let mut seen = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if !exported.contains_key(&name) {
            missing.insert(format!("{name} (used by the public types)"));
        }
        let (code, _) = split_comments(wire.get(&name).map_or("", String::as_str));
        todo.extend(words(&code).filter(|w| *w != name && wire.contains_key(*w)).map(str::to_string));
    }
    assert!(missing.is_empty(), "wire types without a public name in js/index.d.ts: {missing:?}");
    // What an app names when it talks to the worker itself or keeps tool specs apart from their code.
    for needed in ["Reply", "ToolSpec", "StoreQuery"] {
        assert!(exported.contains_key(needed), "index.d.ts does not export {needed}");
    }
}

#[test]
fn generated_doc_comments_use_the_js_names() {
    let dts = read("js/wire.d.ts");
    let (code, docs) = split_comments(&dts);
    // A camelCase field on the wire, spelt in snake_case as the Rust has it.
    let snake: BTreeSet<String> = words(&code)
        .filter(|w| w.chars().any(char::is_uppercase) && w.starts_with(|c: char| c.is_lowercase()))
        .map(|w| {
            w.chars().fold(String::new(), |mut s, c| {
                if c.is_uppercase() {
                    s.push('_');
                }
                s.push(c.to_ascii_lowercase());
                s
            })
        })
        .collect();
    let mut wrong = Vec::new();
    for doc in &docs {
        let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
        for spelling in RUST_ONLY {
            let found = if spelling.chars().all(char::is_alphanumeric) {
                words(doc).any(|w| w == *spelling)
            } else {
                doc.contains(spelling)
            };
            if found {
                wrong.push(format!("`{spelling}` in {flat}"));
            }
        }
        for word in words(doc).filter(|w| snake.contains(*w) && !NOT_OURS.contains(w)) {
            wrong.push(format!("`{word}` (camelCase on the wire) in {flat}"));
        }
    }
    assert!(wrong.is_empty(), "Rust spellings in js/wire.d.ts's doc comments:\n{}", wrong.join("\n"));
}
