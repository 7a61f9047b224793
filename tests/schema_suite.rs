//! keel's validator against the official JSON-Schema-Test-Suite, draft 2020-12.
//!
//! The suite comes from PyPI: the `jsonschema` 4.26.0 sdist vendors it under `json/` (MIT licence).
//! `./build.sh schema-suite` fetches it (checksum-pinned) and runs this test with
//! `KEEL_SCHEMA_SUITE` pointing at `json/tests/draft2020-12`; `./build.sh test` does the same. It is
//! `#[ignore]`d so that a plain `cargo test` on a fresh checkout does not need the network.
//!
//! Every case must pass, except the skipped ones below, each with its reason. Counts are printed per
//! file. A schema keel refuses to compile counts as a failure unless its file is skipped.

use std::path::{Path, PathBuf};

use keel::tools::{Formats, Schema};
use serde_json::Value;

/// Whole files keel does not run, and why.
const SKIPPED_FILES: [(&str, &str); 6] = [
    ("refRemote.json", "remote refs: keel resolves only refs inside the tool's own schema"),
    ("dynamicRef.json", "$dynamicRef needs dynamic scopes across resources; keel refuses it at compile time"),
    ("unevaluatedItems.json", "unevaluatedItems: refused at compile time (not implemented)"),
    ("unevaluatedProperties.json", "unevaluatedProperties: refused at compile time (not implemented)"),
    ("vocabulary.json", "custom metaschemas with $vocabulary need remote metaschemas"),
    ("defs.json", "validates the schema against the remote 2020-12 metaschema"),
];

/// Groups keel refuses to compile (a clear error, never a wrong answer), and why. The test checks
/// that each one is still refused: a listed group that compiles fails the test.
const REFUSED_GROUPS: [(&str, &str, &str); 24] = [
    ("optional/ecmascript-regex.json", "patterns always use unicode semantics with pattern", PROPERTY),
    ("optional/ecmascript-regex.json", "pattern with non-ASCII digits", PROPERTY),
    (
        "optional/ecmascript-regex.json",
        "patterns always use unicode semantics with patternProperties",
        PROPERTY,
    ),
    ("optional/ecmascript-regex.json", "patternProperties with non-ASCII digits", PROPERTY),
    ("anchor.json", "Location-independent identifier with absolute URI", ID),
    ("anchor.json", "Location-independent identifier with base URI change in subschema", ID),
    ("anchor.json", "same $anchor with different base uri", ID),
    ("not.json", "collect annotations inside a 'not', even if collection is disabled", UNEVALUATED),
    ("ref.json", "remote ref, containing refs itself", REMOTE),
    ("ref.json", "Recursive references between schemas", ID),
    ("ref.json", "ref creates new scope when adjacent to keywords", UNEVALUATED),
    ("ref.json", "refs with relative uris and defs", ID),
    ("ref.json", "relative refs with absolute uris and defs", ID),
    ("ref.json", "$id must be resolved against nearest parent, not just immediate parent", ID),
    ("ref.json", "order of evaluation: $id and $ref", ID),
    ("ref.json", "order of evaluation: $id and $anchor and $ref", ID),
    ("ref.json", "simple URN base URI with $ref via the URN", ID),
    ("ref.json", "URN base URI with URN and JSON pointer ref", ID),
    ("ref.json", "URN base URI with URN and anchor ref", ID),
    ("ref.json", "URN ref with nested pointer ref", ID),
    ("ref.json", "ref to if", ID),
    ("ref.json", "ref to then", ID),
    ("ref.json", "ref to else", ID),
    ("ref.json", "ref with absolute-path-reference", ID),
];

/// Why refs through `$id` are refused.
const ID: &str = "a $ref by an embedded resource's $id (or relative to one): keel resolves only #fragments";
/// Why `unevaluated*` is refused.
const UNEVALUATED: &str = "unevaluatedProperties/unevaluatedItems: not implemented, refused at compile time";
/// Why `\p{…}` is refused.
const PROPERTY: &str = "Unicode property classes (\\p{Letter}): regex-lite has no Unicode tables";
/// Why a remote ref is refused.
const REMOTE: &str = "remote ref (the 2020-12 metaschema)";

/// `optional/` files run: the ones keel supports (ECMA-262 regex semantics: `ecma.rs`).
const OPTIONAL_FILES: [&str; 3] =
    ["optional/bignum.json", "optional/non-bmp-regex.json", "optional/ecmascript-regex.json"];

/// `optional/format/` files run with format assertions on (`formats: "assertion"`): the formats Zod
/// emits, which keel asserts on request.
const FORMAT_FILES: [&str; 8] = ["email", "uri", "uuid", "date", "date-time", "time", "ipv4", "ipv6"];

/// One test group's schema and cases.
#[derive(serde::Deserialize)]
struct Group {
    description: String,
    schema: Value,
    tests: Vec<Case>,
}

/// One instance and its expected validity.
#[derive(serde::Deserialize)]
struct Case {
    description: String,
    data: Value,
    valid: bool,
}

#[test]
#[ignore = "needs the suite on disk: run ./build.sh schema-suite"]
fn draft2020_12() {
    let root = PathBuf::from(std::env::var("KEEL_SCHEMA_SUITE").expect(
        "KEEL_SCHEMA_SUITE must name the suite's tests/draft2020-12 folder (./build.sh schema-suite sets it)",
    ));
    let mut files: Vec<String> = std::fs::read_dir(&root)
        .expect("the suite folder is readable")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".json"))
        .collect();
    files.sort();
    files.extend(OPTIONAL_FILES.iter().map(|name| name.to_string()));
    let (mut passed, mut failed, mut skipped) = (0, Vec::new(), 0);
    for name in &files {
        if let Some((_, why)) = SKIPPED_FILES.iter().find(|(skip, _)| skip == name) {
            println!("{name}: skipped ({why})");
            skipped += 1;
            continue;
        }
        let (ok, bad) = run_file(&root.join(name), name, Formats::Annotation);
        println!("{name}: {ok} passed, {} failed", bad.len());
        passed += ok;
        failed.extend(bad.into_iter().map(|what| format!("{name}: {what}")));
    }
    println!("draft 2020-12: {passed} passed, {} failed, {skipped} files skipped", failed.len());
    let (mut format_passed, mut format_failed) = (0, Vec::new());
    for format in FORMAT_FILES {
        let name = format!("optional/format/{format}.json");
        let (ok, bad) = run_file(&root.join(&name), &name, Formats::Assertion);
        println!("{name} (formats: assertion): {ok} passed, {} failed", bad.len());
        format_passed += ok;
        format_failed.extend(bad.into_iter().map(|what| format!("{name}: {what}")));
    }
    println!("formats asserted: {format_passed} passed, {} failed", format_failed.len());
    failed.extend(format_failed);
    assert!(failed.is_empty(), "unexpected failures:\n{}", failed.join("\n"));
}

/// The passed count and a description of each failure in one suite file.
fn run_file(path: &Path, name: &str, formats: Formats) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let groups: Vec<Group> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut passed, mut failed) = (0, Vec::new());
    for group in groups {
        let refused = REFUSED_GROUPS
            .iter()
            .find(|(file, group_name, _)| *file == name && *group_name == group.description);
        let schema = match (Schema::compile_with(&group.schema, formats), refused) {
            (Err(error), Some((_, _, why))) => {
                println!("  refused as expected: {}: {error} ({why})", group.description);
                continue;
            }
            (Ok(_), Some(_)) => {
                failed.push(format!(
                    "{}: listed as refused but compiles; take it off REFUSED_GROUPS",
                    group.description
                ));
                continue;
            }
            (Ok(schema), None) => schema,
            (Err(error), None) => {
                failed.push(format!("{}: does not compile: {error}", group.description));
                continue;
            }
        };
        for case in group.tests {
            let issues = schema.validate(&case.data);
            // The yes/no walk `validate` runs first must agree on its own too.
            let verdict = schema.is_valid(&case.data);
            if issues.is_empty() == case.valid && verdict == case.valid {
                passed += 1;
            } else {
                failed.push(format!(
                    "{} / {}: expected valid={}, is_valid {verdict}, issues {issues:?}",
                    group.description, case.description, case.valid
                ));
            }
        }
    }
    (passed, failed)
}
