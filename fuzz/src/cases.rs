//! The body of each fuzz target, one function per target taking the fuzzer's bytes: the targets in
//! `fuzz_targets/` call them, and `examples/replay.rs` runs saved inputs through them with timings.

use arbitrary::Unstructured;
use keel::engine::output::parse_step;
use keel::engine::{build_messages, estimate, CharEstimate, ContextError, PastSteps, PromptInput};
use keel::errors::render::{self, Format, XML_MIN_BUDGET};
use keel::tools::Schema;
use keel::tools::ToolSpec;
use keel::web::protocol::PageMessage;
use keel::web::wire::Header;
use serde_json::json;
use serde_json::Value;

/// The step parser and its repairs over any text a model could write: never a panic, always a
/// step or a precise format error, within the time bound.
pub fn step_parser(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    crate::timed("step_parser", data, || match parse_step(&text) {
        // What was read is a step the loop can use: it serialises.
        Ok(parsed) => drop(serde_json::to_string(&parsed.step).expect("a step serialises")),
        Err(error) => assert!(!error.to_string().is_empty(), "a format error says something"),
    });
}

/// Schema compile and validate: a generated schema (or JSON text) and a value; never a panic,
/// every issue has a kind and a path, and each input takes less than the time bound.
pub fn schema(data: &[u8]) {
    crate::timed("schema", data, || {
        let Some((schema, value)) = schema_input(data) else { return };
        if let Ok(compiled) = Schema::compile(&schema) {
            for issue in compiled.validate(&value) {
                assert!(!issue.expected.is_empty(), "an issue says what was expected: {issue:?}");
            }
        }
    });
}

/// The schema and the value the `schema` target reads from `data`: generated from the keywords
/// keel reads, or JSON text split at the first 0xFF byte.
pub fn schema_input(data: &[u8]) -> Option<(Value, Value)> {
    let mut u = Unstructured::new(data);
    if u.arbitrary::<bool>().ok()? {
        Some((crate::schema(&mut u, 5).ok()?, crate::json(&mut u, 5).ok()?))
    } else {
        let rest = u.take_rest();
        let split = rest.iter().position(|b| *b == 0xFF).unwrap_or(rest.len());
        let schema = serde_json::from_slice::<Value>(&rest[..split]).ok()?;
        let value = rest.get(split + 1..).and_then(|v| serde_json::from_slice(v).ok()).unwrap_or(Value::Null);
        Some((schema, value))
    }
}

/// The envelope renderers: any envelope, any budget; never over the budget, never empty from 20
/// chars on, and the XML well-formed (escaped) from `XML_MIN_BUDGET` on.
pub fn render(data: &[u8]) {
    crate::timed("render", data, || {
        let mut u = Unstructured::new(data);
        let Ok(envelope) = crate::envelope(&mut u) else { return };
        let budget = match u.int_in_range(0..=3u8).unwrap_or(0) {
            0 => u.int_in_range(0..=60usize).unwrap_or(0),
            1 => u.int_in_range(0..=400usize).unwrap_or(0),
            2 => u.int_in_range(0..=6000usize).unwrap_or(0),
            _ => usize::MAX,
        };
        for format in [Format::Xml, Format::Text, Format::Plain] {
            let out = render::render(&envelope, format, budget);
            let chars = out.chars().count();
            assert!(chars <= budget, "{format:?}: {chars} > {budget} chars");
            assert!(budget < 20 || !out.is_empty(), "{format:?} said nothing in {budget} chars");
            if format == Format::Xml && budget >= XML_MIN_BUDGET {
                if let Err(problem) = crate::xml_check::check(&out) {
                    panic!("not well-formed ({problem}) at budget {budget}:\n{out}");
                }
            }
        }
    });
}

/// Prompt compaction: any history, any budget; the prompt fits the budget, or the fixed part alone
/// is too large and the need reported is enough.
pub fn compaction(data: &[u8]) {
    crate::timed("compaction", data, || {
        let mut u = Unstructured::new(data);
        let mut run = || -> arbitrary::Result<()> {
            let tools = [
                ToolSpec::new(
                    "get_weather",
                    crate::text(&mut u)?,
                    json!({"type": "object",
                    "properties": {"city": {"type": "string"}}, "required": ["city"]}),
                ),
                ToolSpec::new("search", "Search.", crate::json(&mut u, 3)?),
            ];
            let tool_count = u.int_in_range(0..=2usize)?;
            let task = crate::text(&mut u)?;
            let memory = (0..u.int_in_range(0..=6)?)
                .map(|_| crate::turn(&mut u))
                .collect::<arbitrary::Result<Vec<_>>>()?;
            let turns = (0..u.int_in_range(0..=16)?)
                .map(|_| crate::turn(&mut u))
                .collect::<arbitrary::Result<Vec<_>>>()?;
            let final_only = if u.arbitrary()? { Some(crate::text(&mut u)?) } else { None };
            let instructions = if u.arbitrary()? { Some(crate::text(&mut u)?) } else { None };
            let budget = if u.arbitrary()? {
                u.int_in_range(0..=1_000usize)?
            } else {
                u.int_in_range(0..=12_000usize)?
            };
            let counter = CharEstimate { chars_per_token: *u.choose(&[4.0, 1.0, 0.5, 0.0, -1.0, f32::NAN])? };
            let log: bool = u.arbitrary()?;
            let input = PromptInput {
                tools: &tools[..tool_count],
                task: &task,
                memory: &memory,
                turns: &turns,
                final_only: final_only.as_deref(),
                instructions: instructions.as_deref(),
                past_steps: if log { PastSteps::Log } else { PastSteps::Messages },
                withheld_thoughts: &[],
            };
            match build_messages(&input, &counter, budget) {
                Ok(messages) => assert!(estimate(&messages, &counter) <= budget, "over the budget"),
                Err(ContextError::FixedPartTooLarge { needed, budget: said }) => {
                    assert_eq!(said, budget);
                    assert!(needed > budget);
                    assert!(build_messages(&input, &counter, needed).is_ok(), "the need reported is enough");
                }
                Err(other) => panic!("unexpected error {other}"),
            }
            Ok(())
        };
        let _ = run();
    });
}

/// The worker's message decoding, end to end: lines of text handed to a built worker as page
/// messages. Never a panic; and no request is lost: every `ping`, `query`, `unfinishedRuns`,
/// `pendingApprovals` and `decide` with an id gets its answer, and an unreadable `init` or `run` its failure.
pub fn worker_messages(data: &[u8]) {
    crate::timed("worker_messages", data, || {
        let mut worker = crate::Worker::ready();
        let text = String::from_utf8_lossy(data);
        for line in text.split('\n').take(16) {
            let before = worker.posted.0.borrow().len();
            let read = PageMessage::read(line);
            let header = Header::read(&keel::web::wire::well_formed(line).0);
            worker.send(line);
            let posted = worker.posted.0.borrow();
            let new = &posted[before..];
            let answered = |kind: &str, id: u64| new.iter().any(|m| m["type"] == kind && m["id"] == id);
            match (header.kind.as_deref(), header.id, &header.run_id) {
                (Some("ping"), Some(id), _) if read.is_ok() => {
                    assert!(answered("pong", id), "ping {id} lost: {line}")
                }
                (Some("query"), Some(id), _) => {
                    assert!(answered("queryResult", id), "query {id} lost: {line}")
                }
                (Some("unfinishedRuns"), Some(id), _) => {
                    assert!(answered("unfinishedRuns", id), "unfinishedRuns {id} lost: {line}")
                }
                (Some("pendingApprovals"), Some(id), _) => {
                    assert!(answered("pendingApprovals", id), "pendingApprovals {id} lost: {line}")
                }
                (Some("decide"), Some(id), _) => {
                    assert!(answered("decided", id), "decide {id} lost: {line}")
                }
                (Some("init"), _, _) => assert!(
                    new.iter().any(|m| m["type"] == "initFailed"),
                    "a second or unreadable init unanswered: {line}"
                ),
                (Some("run"), _, Some(run_id)) if read.is_err() => assert!(
                    new.iter().any(|m| m["type"] == "runFailed" && m["runId"] == run_id.as_str()),
                    "unreadable run {run_id} unanswered: {line}"
                ),
                _ => {}
            }
            if matches!(read, Ok((PageMessage::Dispose, _))) {
                break;
            }
        }
    });
}
