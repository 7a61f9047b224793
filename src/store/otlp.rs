//! A run as OpenTelemetry spans, in OTLP/JSON: what `agent.exportRunOtlp(runId)` answers, ready to
//! POST to a collector's `/v1/traces` or to load into a trace viewer.
//!
//! The spans are built from the records a run leaves behind ([`Export`]): one span for the run, one
//! child per step, and under a step with an action one child for its tool call, with the idempotency
//! key the call ran with (`keel.tool.idempotency_key`) when the store kept it. Failures become span
//! events (on the tool call, else the step, else the run) with their class, code, attempt, the
//! call's idempotency key, and whether they were retried and recovered.
//!
//! Ids are derived, not random: the trace id from the run id, a span id from the run id and the
//! step, so exporting the same run twice gives the same trace. Times come from the records' ms:
//! a step ends when its turn was committed and starts when the step before it ended (the first
//! at the run's start). The store keeps no finer times, so a tool call spans its whole step.
//!
//! Status: `1` (OK) for a run that succeeded and for steps that did not fail; `2` (ERROR), with a
//! message, for failed steps and for runs that failed or were interrupted; `0` (unset) for a run
//! still running or cancelled (neither is an error).

use serde_json::{json, Value};

use super::session::Export;
use super::{FailureRecord, RunRecord, RunStatus, TurnRecord};
use crate::turn::{digest, Outcome};

/// `SPAN_KIND_INTERNAL`: the run and its steps happen inside the engine.
const KIND_INTERNAL: u8 = 1;
/// `SPAN_KIND_CLIENT`: a tool call goes out of the engine to a tool.
const KIND_CLIENT: u8 = 3;
/// `STATUS_CODE_UNSET`, `STATUS_CODE_OK`, `STATUS_CODE_ERROR`.
const UNSET: u8 = 0;
const OK: u8 = 1;
const ERROR: u8 = 2;
/// Longest status message or observation attribute kept, in characters.
const MAX_TEXT: usize = 500;

/// The run `run_id` of `export` as one OTLP/JSON `TracesData` document; `{"resourceSpans": []}` if
/// the export does not hold that run. Turns and failures of other runs in `export` are ignored.
pub fn run_to_otlp(export: &Export, run_id: &str) -> Value {
    let Some(run) = export.runs.iter().find(|r| r.id == run_id) else {
        return json!({ "resourceSpans": [] });
    };
    let mut turns: Vec<&TurnRecord> = export.turns.iter().filter(|t| t.run_id == run_id).collect();
    crate::order::sort_by_key(&mut turns, |t| t.turn.step);
    let failures: Vec<&FailureRecord> = export.failures.iter().filter(|f| f.run_id == run_id).collect();
    let trace_id = trace_id(run_id);
    let run_span_id = span_id(run_id, "run", 0);

    let mut spans = Vec::with_capacity(1 + 2 * turns.len());
    let mut placed = vec![false; failures.len()];
    let mut start = run.started_ms;
    for turn in &turns {
        let step = turn.turn.step;
        let end = turn.at_ms.max(start);
        let step_id = span_id(run_id, "step", step);
        let mine: Vec<usize> = (0..failures.len()).filter(|&i| failures[i].step == step).collect();
        mine.iter().for_each(|&i| placed[i] = true);
        let events: Vec<Value> = mine.iter().map(|&i| failure_event(failures[i])).collect();
        let status = step_status(turn, mine.last().map(|&i| failures[i]));
        let mut attributes = vec![
            int_attr("keel.step", u64::from(step)),
            str_attr("keel.outcome", outcome_name(turn.turn.outcome)),
        ];
        if let Some(action) = &turn.turn.action {
            let mut tool_attrs = vec![
                str_attr("keel.tool.name", &action.tool),
                str_attr("keel.tool.args_digest", &digest(&action.args)),
                str_attr("keel.outcome", outcome_name(turn.turn.outcome)),
                str_attr("keel.observation", &clip(&turn.turn.observation)),
            ];
            if let Some(key) = &turn.idempotency_key {
                tool_attrs.push(str_attr("keel.tool.idempotency_key", key));
            }
            let tool = Span { name: format!("tool {}", action.tool), kind: KIND_CLIENT, start, end };
            spans.push(tool.to_json(
                &trace_id,
                &span_id(run_id, "tool", step),
                &step_id,
                tool_attrs,
                events,
                status.clone(),
            ));
            attributes.push(str_attr("keel.tool.name", &action.tool));
            let span = Span { name: format!("step {step}"), kind: KIND_INTERNAL, start, end };
            spans.push(span.to_json(&trace_id, &step_id, &run_span_id, attributes, vec![], status));
        } else {
            let span = Span { name: format!("step {step}"), kind: KIND_INTERNAL, start, end };
            spans.push(span.to_json(&trace_id, &step_id, &run_span_id, attributes, events, status));
        }
        start = end;
    }

    let run_end = run.ended_ms.unwrap_or(start).max(start);
    let run_events: Vec<Value> =
        (0..failures.len()).filter(|&i| !placed[i]).map(|i| failure_event(failures[i])).collect();
    let span = Span { name: "run".to_string(), kind: KIND_INTERNAL, start: run.started_ms, end: run_end };
    spans.insert(
        0,
        span.to_json(&trace_id, &run_span_id, "", run_attributes(run), run_events, run_status(run)),
    );

    json!({ "resourceSpans": [{
        "resource": { "attributes": [str_attr("service.name", "keel")] },
        "scopeSpans": [{ "scope": { "name": "keel", "version": env!("CARGO_PKG_VERSION") }, "spans": spans }],
    }]})
}

/// A span's name, kind and times (ms since the epoch).
struct Span {
    name: String,
    kind: u8,
    start: u64,
    end: u64,
}

impl Span {
    /// The OTLP/JSON span; no `parentSpanId` when `parent` is empty.
    fn to_json(
        &self,
        trace_id: &str,
        span_id: &str,
        parent: &str,
        attributes: Vec<Value>,
        events: Vec<Value>,
        status: Value,
    ) -> Value {
        let mut span = json!({
            "traceId": trace_id,
            "spanId": span_id,
            "name": self.name,
            "kind": self.kind,
            "startTimeUnixNano": nanos(self.start),
            "endTimeUnixNano": nanos(self.end),
            "attributes": attributes,
            "events": events,
            "status": status,
        });
        if !parent.is_empty() {
            span["parentSpanId"] = json!(parent);
        }
        span
    }
}

/// 32 hex characters from the run id.
fn trace_id(run_id: &str) -> String {
    format!("{}{}", digest(&json!(["keel.trace", run_id])), digest(&json!(["keel.trace.2", run_id])))
}

/// 16 hex characters from the run id, the span's kind of thing and its step.
fn span_id(run_id: &str, what: &str, step: u32) -> String {
    digest(&json!(["keel.span", run_id, what, step]))
}

/// Ms since the epoch as OTLP/JSON writes nanoseconds: a decimal string (a 64-bit integer).
fn nanos(ms: u64) -> String {
    (u128::from(ms) * 1_000_000).to_string()
}

fn str_attr(key: &str, value: &str) -> Value {
    json!({ "key": key, "value": { "stringValue": value } })
}

/// OTLP/JSON writes 64-bit integers as strings.
fn int_attr(key: &str, value: u64) -> Value {
    json!({ "key": key, "value": { "intValue": value.to_string() } })
}

fn bool_attr(key: &str, value: bool) -> Value {
    json!({ "key": key, "value": { "boolValue": value } })
}

fn status(code: u8, message: Option<&str>) -> Value {
    match message {
        Some(m) => json!({ "code": code, "message": clip(m) }),
        None => json!({ "code": code }),
    }
}

/// At most [`MAX_TEXT`] characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "ok",
        Outcome::Warning => "warning",
        Outcome::Failed => "failed",
        Outcome::Final => "final",
    }
}

/// ERROR for a failed step, with the step's last failure message (else its observation).
fn step_status(turn: &TurnRecord, last_failure: Option<&FailureRecord>) -> Value {
    if turn.turn.outcome != Outcome::Failed {
        return status(OK, None);
    }
    status(ERROR, Some(last_failure.map_or(turn.turn.observation.as_str(), |f| f.message.as_str())))
}

fn run_status(run: &RunRecord) -> Value {
    let reason = run.reason.as_ref().map(|r| r.describe());
    match run.status {
        RunStatus::Succeeded => status(OK, None),
        RunStatus::Failed | RunStatus::Interrupted => {
            status(ERROR, Some(reason.as_deref().unwrap_or("the run failed")))
        }
        RunStatus::Running | RunStatus::Cancelled => status(UNSET, None),
    }
}

fn run_attributes(run: &RunRecord) -> Vec<Value> {
    let status_name = serde_json::to_value(run.status).ok().and_then(|v| v.as_str().map(str::to_string));
    let mut attrs = vec![
        str_attr("keel.run.id", &run.id),
        str_attr("keel.session", &run.session),
        str_attr("keel.run.task", &clip(&run.task)),
        str_attr("keel.run.status", status_name.as_deref().unwrap_or("unknown")),
        int_attr("keel.run.steps", u64::from(run.counts.steps)),
        int_attr("keel.run.model_calls", u64::from(run.counts.model_calls)),
        int_attr("keel.run.tool_calls", u64::from(run.counts.tool_calls)),
        int_attr("gen_ai.usage.input_tokens", run.counts.prompt_tokens),
        int_attr("gen_ai.usage.output_tokens", run.counts.completion_tokens),
    ];
    if let Some(reason) = &run.reason {
        attrs.push(str_attr("keel.run.reason", &reason.describe()));
    }
    attrs
}

/// A failure as a span event named `failure`.
fn failure_event(f: &FailureRecord) -> Value {
    let mut attributes = vec![
        str_attr("keel.failure.class", f.class.as_str()),
        str_attr("keel.failure.code", f.code.as_str()),
        int_attr("keel.failure.attempt", u64::from(f.attempt)),
        bool_attr("keel.failure.retried", f.retried),
        bool_attr("keel.failure.recovered", f.recovered),
        str_attr("keel.failure.message", &clip(&f.message)),
    ];
    if let Some(tool) = &f.tool {
        attributes.push(str_attr("keel.tool.name", tool));
    }
    if let Some(args) = &f.args_digest {
        attributes.push(str_attr("keel.tool.args_digest", args));
    }
    if let Some(key) = &f.idempotency_key {
        attributes.push(str_attr("keel.tool.idempotency_key", key));
    }
    json!({ "timeUnixNano": nanos(f.at_ms), "name": "failure", "attributes": attributes })
}
