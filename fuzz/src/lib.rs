//! What keel's fuzz targets share: a time bound per input, builders of structured inputs (JSON
//! values, schemas, envelopes, turns) from the fuzzer's bytes, and a worker host to feed messages.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use arbitrary::{Result, Unstructured};
use futures_executor::LocalPool;
use futures_util::future::{self, LocalBoxFuture};
use futures_util::task::LocalSpawnExt;
use futures_util::FutureExt;
use keel::engine::{Action, Clock, Outcome, Random, Turn};
use keel::errors::{Envelope, ErrorCode, FailureClass, FieldIssue, IssueKind, Severity};
use keel::web::host::WorkerHost;
use keel::web::protocol::WorkerMessage;
use keel::web::rpc::Transport;
use serde_json::{json, Map, Value};

pub mod cases;

#[path = "../../tests/common/xml_check.rs"]
pub mod xml_check;

/// The slowest an input may take: `KEEL_FUZZ_SLOW_MS`, 100 ms unless set.
fn slow_ms() -> u128 {
    std::env::var("KEEL_FUZZ_SLOW_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(100)
}

/// Runs `f` on one input; an input slower than the bound is saved to
/// `fuzz/artifacts/<target>/slow-<hash>` and reported on stderr (`./build.sh fuzz` counts them).
pub fn timed(target: &str, data: &[u8], f: impl FnOnce()) {
    let started = Instant::now();
    f();
    let ms = started.elapsed().as_millis();
    if ms > slow_ms() {
        let hash = data
            .iter()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x1000_0000_01b3));
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("artifacts").join(target);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("slow-{hash:016x}")), data);
        eprintln!("SLOW {target}: {ms} ms for a {}-byte input (saved as slow-{hash:016x})", data.len());
    }
}

/// Pieces of text that break markup, JSON, escapes and budgets.
const TOKENS: &[&str] = &[
    "<",
    ">",
    "&",
    "\"",
    "'",
    "/",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\n",
    "\r",
    "\t",
    "\u{0}",
    "\u{1f}",
    "\u{7f}",
    "\u{FFFE}",
    "\u{FFFF}",
    "\u{FFFD}",
    "]]>",
    "<!--",
    "&amp;",
    "&#x0;",
    "\\ud83d",
    "\\u0000",
    "😀",
    "é",
    "❌",
    "tool",
    "args",
    "thought",
    "final_answer",
    "action",
    " ",
    "null",
    "true",
    "1e999",
    "-0",
];

/// Arbitrary text, or text made of [`TOKENS`].
pub fn text(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 2)? {
        return u.arbitrary();
    }
    let n = u.int_in_range(0..=24)?;
    let mut out = String::new();
    for _ in 0..n {
        out.push_str(u.choose(TOKENS)?);
    }
    Ok(out)
}

/// A JSON value at most `depth` levels deep.
pub fn json(u: &mut Unstructured, depth: usize) -> Result<Value> {
    let kind = if depth == 0 { u.int_in_range(0..=4)? } else { u.int_in_range(0..=6)? };
    Ok(match kind {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        4 => Value::String(text(u)?),
        5 => Value::Array((0..u.int_in_range(0..=5)?).map(|_| json(u, depth - 1)).collect::<Result<_>>()?),
        _ => Value::Object(
            (0..u.int_in_range(0..=5)?)
                .map(|_| Ok((text(u)?, json(u, depth - 1)?)))
                .collect::<Result<_>>()?,
        ),
    })
}

/// A JSON Schema built from the keywords keel reads, nested at most `depth` levels.
pub fn schema(u: &mut Unstructured, depth: usize) -> Result<Value> {
    if depth == 0 || u.ratio(1, 4)? {
        return Ok(match u.int_in_range(0..=3)? {
            0 => {
                json!({"type": *u.choose(&["string", "integer", "number", "boolean", "null", "array", "object"])?})
            }
            1 => Value::Bool(u.arbitrary()?),
            2 => {
                json!({"enum": (0..u.int_in_range(0..=40)?).map(|_| json(u, 1)).collect::<Result<Vec<_>>>()?})
            }
            _ => json!({"const": json(u, 2)?}),
        });
    }
    let mut out = Map::new();
    for _ in 0..u.int_in_range(1..=5)? {
        let keyword = *u.choose(&[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "prefixItems",
            "anyOf",
            "oneOf",
            "allOf",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "pattern",
            "minItems",
            "maxItems",
            "$ref",
            "$defs",
            "enum",
            "const",
            "format",
        ])?;
        let value = match keyword {
            "type" => {
                json!(*u.choose(&["string", "integer", "number", "boolean", "null", "array", "object"])?)
            }
            "properties" | "$defs" => Value::Object(
                (0..u.int_in_range(0..=4)?)
                    .map(|_| Ok((text(u)?, schema(u, depth - 1)?)))
                    .collect::<Result<_>>()?,
            ),
            "required" => json!((0..u.int_in_range(0..=3)?).map(|_| text(u)).collect::<Result<Vec<_>>>()?),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                json!((0..u.int_in_range(0..=4)?)
                    .map(|_| schema(u, depth - 1))
                    .collect::<Result<Vec<_>>>()?)
            }
            "additionalProperties" | "items" => schema(u, depth - 1)?,
            "pattern" => {
                json!(*u.choose(&["^a+$", "(a|b)*c", "[0-9]{2,}", "^(?=x)", "\\p{L}", "(", "a{99999}"])?)
            }
            "$ref" => json!(*u.choose(&[
                "#",
                "#/$defs/a",
                "#/properties/x",
                "#/definitions/b",
                "#/$defs/",
                "#/x/0"
            ])?),
            _ => json(u, 2)?,
        };
        out.insert(keyword.to_string(), value);
    }
    Ok(Value::Object(out))
}

fn strings(u: &mut Unstructured, max: usize) -> Result<Vec<String>> {
    (0..u.int_in_range(0..=max)?).map(|_| text(u)).collect()
}

/// A recovery envelope with arbitrary text in every field.
pub fn envelope(u: &mut Unstructured) -> Result<Envelope> {
    let code = match u.int_in_range(0..=3)? {
        0 => ErrorCode::StaleReference,
        1 => ErrorCode::InvalidArgs,
        2 => ErrorCode::parse(&text(u)?),
        _ => ErrorCode::Custom(text(u)?),
    };
    let kinds = [
        IssueKind::Missing,
        IssueKind::WrongType,
        IssueKind::NotAllowed,
        IssueKind::UnknownKey,
        IssueKind::OutOfRange,
        IssueKind::Length,
        IssueKind::Pattern,
        IssueKind::NoMatch,
        IssueKind::TooComplex,
    ];
    let mut issues = Vec::new();
    for _ in 0..u.int_in_range(0..=24)? {
        issues.push(FieldIssue {
            path: text(u)?,
            kind: *u.choose(&kinds)?,
            expected: text(u)?,
            sent: if u.arbitrary()? { Some(json(u, 3)?) } else { None },
            options: strings(u, 8)?,
            suggestion: if u.arbitrary()? { Some(text(u)?) } else { None },
        });
    }
    let message = text(u)?;
    let repeat = u.int_in_range(1..=40)?;
    Ok(Envelope {
        code,
        class: *u.choose(&[FailureClass::Transient, FailureClass::Persistent, FailureClass::Fatal])?,
        severity: *u.choose(&[Severity::Warning, Severity::Error, Severity::Critical])?,
        tool: if u.arbitrary()? { Some(text(u)?) } else { None },
        message: message.repeat(repeat),
        causes: strings(u, 6)?,
        recovery: strings(u, 8)?,
        available_actions: strings(u, 30)?,
        retry_after_ms: u.arbitrary()?,
        details: (0..u.int_in_range(0..=6)?).map(|_| Ok((text(u)?, json(u, 3)?))).collect::<Result<_>>()?,
        expected: u.arbitrary()?,
        sent: if u.arbitrary()? { Some(json(u, 4)?) } else { None },
        issues,
    })
}

/// A history turn with arbitrary text, some of it long.
pub fn turn(u: &mut Unstructured) -> Result<Turn> {
    let long = |u: &mut Unstructured| -> Result<String> {
        let t = text(u)?;
        Ok(if u.ratio(1, 4)? { t.repeat(u.int_in_range(1..=200)?) } else { t })
    };
    Ok(Turn {
        step: u.int_in_range(1..=40)?,
        thought: long(u)?,
        action: if u.arbitrary()? { Some(Action { tool: text(u)?, args: json(u, 3)? }) } else { None },
        observation: long(u)?,
        outcome: *u.choose(&[Outcome::Ok, Outcome::Warning, Outcome::Failed, Outcome::Final])?,
        reply: if u.arbitrary()? { Some(long(u)?) } else { None },
    })
}

/// What a worker posted, as JSON.
#[derive(Default)]
pub struct Posted(pub RefCell<Vec<Value>>);

impl Transport for Posted {
    fn post(&self, message: &WorkerMessage) {
        let value = serde_json::from_str(&message.to_json()).expect("the worker's own JSON reads back");
        self.0.borrow_mut().push(value);
    }
}

/// A clock whose time stands still and whose sleeps never end: timeouts never fire, so what a
/// message gets is its direct answer.
struct Frozen;

impl Clock for Frozen {
    fn now_ms(&self) -> u64 {
        1_000
    }
    fn sleep(&self, _: u64) -> LocalBoxFuture<'static, ()> {
        future::pending().boxed_local()
    }
}

struct Half;

impl Random for Half {
    fn unit(&self) -> f64 {
        0.5
    }
}

/// A worker host with its posted messages and the pool its futures run on.
pub struct Worker {
    pub host: Rc<WorkerHost>,
    pub posted: Rc<Posted>,
    pub pool: LocalPool,
}

impl Worker {
    /// A host built with one tool and the memory store, `ready` already posted.
    pub fn ready() -> Worker {
        let pool = LocalPool::new();
        let spawner = pool.spawner();
        let posted = Rc::new(Posted::default());
        let spawn =
            Rc::new(move |f: LocalBoxFuture<'static, ()>| spawner.spawn_local(f).expect("pool alive"));
        let host = WorkerHost::new(posted.clone(), Rc::new(Frozen), Rc::new(Half), spawn);
        let mut worker = Worker { host, posted, pool };
        let init = json!({"type": "init", "model": {"kind": "custom"}, "config": {"store": "memory"},
            "tools": [{"name": "get_weather", "description": "Weather.",
                       "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo"]}}}}]});
        worker.send(&init.to_string());
        assert_eq!(worker.posted.0.borrow().last().map(|m| m["type"].clone()), Some(json!("ready")));
        worker
    }

    /// Handles `text` and runs what it started until nothing more can run.
    pub fn send(&mut self, text: &str) {
        self.host.handle(text);
        self.pool.run_until_stalled();
    }
}
