// An exported run rebuilt as the events the live trace draws (trace.js), so the viewer replays it
// through the same renderer. Two inputs: the JSON of `agent.exportRun(runId)` (or of
// `exportSession`: a run is picked) and the OTLP/JSON of `agent.exportRunOtlp(runId)`. Each event
// carries `atMs`, the stored time it is drawn at. What an export does not keep is left out, never
// made up: the store keeps no envelope objects (a failed step's observation is the envelope as the
// model read it) and no retry delays; OTLP also drops thoughts, arguments and the answer.

/** A file that is not an export, or an export that cannot be read: the message says what is wrong. */
export class ExportError extends Error {
  name = "ExportError";
}

const EXPECTED =
  "expected the JSON of agent.exportRun(runId) (an object with runs, turns and failures) " +
  "or the OTLP/JSON of agent.exportRunOtlp(runId) (an object with resourceSpans)";

/** Parses a file's text: `{ kind: "json" | "otlp", runs: [{ id, task, status }], replay(runId) }`. */
export function readExport(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ExportError(`This file is not JSON (${e.message}): ${EXPECTED}.`);
  }
  if (data && typeof data === "object" && !Array.isArray(data)) {
    if (Array.isArray(data.resourceSpans)) return otlpExport(data);
    if (Array.isArray(data.runs) && Array.isArray(data.turns) && Array.isArray(data.failures)) return jsonExport(data);
  }
  const what = Array.isArray(data) ? "an array" : data === null ? "null" : typeof data === "object"
    ? `an object with ${Object.keys(data).slice(0, 6).join(", ") || "no keys"}` : `a ${typeof data}`;
  throw new ExportError(`This file is not a keel run export: it holds ${what}; ${EXPECTED}.`);
}

// `value` must be a `type` ("array" or a typeof), else the export is rejected naming `where`.
function need(value, type, where) {
  const ok = type === "array" ? Array.isArray(value) : typeof value === type && value !== null;
  if (!ok) throw new ExportError(`Not a readable keel export: ${where} should be ${type === "array" ? "an array" : type === "object" ? "an object" : `a ${type}`}, found ${JSON.stringify(value) ?? "nothing"}.`);
  return value;
}

/** Faults, retried and recovered as the store counts them: one fault per run, step and tool. */
export function statsOf(failures) {
  const calls = new Map();
  for (const f of failures) {
    const key = JSON.stringify([f.runId, f.step, f.tool ?? null]);
    const call = calls.get(key) ?? { retried: false, recovered: false };
    call.retried ||= f.retried;
    call.recovered = f.recovered;
    calls.set(key, call);
  }
  const all = [...calls.values()];
  const faults = all.length;
  const recovered = all.filter((c) => c.recovered).length;
  return { faults, failedAttempts: failures.length, retried: all.filter((c) => c.retried).length, recovered, recoveryRate: faults ? recovered / faults : 1 };
}

function jsonExport(data) {
  data.runs.forEach((r, i) => {
    need(r, "object", `runs[${i}]`);
    need(r.id, "string", `runs[${i}].id`);
    need(r.startedMs, "number", `runs[${i}].startedMs`);
  });
  data.turns.forEach((t, i) => {
    need(t?.turn, "object", `turns[${i}].turn`);
    need(t.turn.step, "number", `turns[${i}].turn.step`);
    need(t.atMs, "number", `turns[${i}].atMs`);
  });
  data.failures.forEach((f, i) => {
    need(f, "object", `failures[${i}]`);
    need(f.step, "number", `failures[${i}].step`);
    need(f.code, "string", `failures[${i}].code`);
  });
  if (!data.runs.length) throw new ExportError("This keel export holds no run (was it exported from another session or store?).");
  return { kind: "json", runs: data.runs.map(({ id, task, status, startedMs }) => ({ id, task, status, startedMs })), replay: (id) => replayJson(data, id) };
}

function replayJson(data, runId) {
  const run = data.runs.find((r) => r.id === runId) ?? data.runs.at(-1);
  const turns = data.turns.filter((t) => t.runId === run.id).sort((a, b) => a.turn.step - b.turn.step);
  const failures = data.failures.filter((f) => f.runId === run.id).sort((a, b) => a.atMs - b.atMs);
  const events = [];
  let at = run.startedMs;
  const steps = [...new Set([...turns.map((t) => t.turn.step), ...failures.map((f) => f.step)])].sort((a, b) => a - b);
  const lastStep = steps.at(-1);
  for (const step of steps) {
    const turn = turns.find((t) => t.turn.step === step);
    const mine = failures.filter((f) => f.step === step);
    events.push({ type: "stepStarted", step, atMs: at });
    if (turn?.turn.thought) events.push({ type: "thought", step, text: turn.turn.thought, atMs: at });
    if (turn?.turn.action) events.push({ type: "action", step, tool: turn.turn.action.tool, args: turn.turn.action.args, idempotencyKey: turn.idempotencyKey, atMs: at });
    for (const f of mine) {
      events.push({ type: "failure", step, tool: f.tool, class: f.class, code: f.code, message: f.message, envelope: null, attempt: f.attempt, atMs: f.atMs });
      if (f.retried) events.push({ type: "retryScheduled", step, tool: f.tool, attempt: f.attempt, delayMs: null, code: f.code, atMs: f.atMs });
      if (f.recoveryCall) events.push({ type: "recoveryCall", step, tool: f.tool, code: f.code, called: f.recoveryCall, ok: null, atMs: f.atMs });
    }
    const end = turn?.atMs ?? mine.at(-1)?.atMs ?? at;
    if (turn && turn.turn.outcome !== "final") {
      events.push({ type: "observation", step, text: turn.turn.observation, outcome: turn.turn.outcome, atMs: end });
    }
    if (turn?.turn.reply) events.push({ type: "warning", step, message: `The model wrote, not taken as a step: ${turn.turn.reply}`, atMs: end });
    at = Math.max(at, end);
  }
  const endAt = run.endedMs ?? at;
  if (run.answer != null && run.status !== "cancelled") {
    events.push({ type: "finalAnswer", step: lastStep ?? 1, answer: run.answer, success: run.status === "succeeded", atMs: endAt });
  }
  if (run.endedMs != null) {
    events.push({ type: "runEnded", reason: run.reason, success: run.status === "succeeded", stats: statsOf(failures), atMs: endAt });
  }
  return { run, events, missing: ["the envelope objects (a failed step's observation is the envelope as the model read it)", "retry delays"] };
}

// ---- OTLP -----------------------------------------------------------------------------------

const ms = (nanos) => Number(BigInt(nanos) / 1_000_000n);

function attrs(list, where) {
  const out = {};
  for (const [i, a] of need(list ?? [], "array", `${where}.attributes`).entries()) {
    need(a?.key, "string", `${where}.attributes[${i}].key`);
    const v = need(a.value, "object", `${where}.attributes[${i}].value`);
    out[a.key] = "intValue" in v ? Number(v.intValue) : "boolValue" in v ? v.boolValue : v.stringValue;
  }
  return out;
}

function otlpExport(data) {
  const spans = data.resourceSpans.flatMap((rs, i) =>
    need(rs?.scopeSpans ?? [], "array", `resourceSpans[${i}].scopeSpans`).flatMap((ss, j) =>
      need(ss?.spans ?? [], "array", `resourceSpans[${i}].scopeSpans[${j}].spans`).map((s, k) => [s, `resourceSpans[${i}].scopeSpans[${j}].spans[${k}]`])));
  if (!spans.length) throw new ExportError("This OTLP document holds no spans: exportRunOtlp answers that for a run the store does not have.");
  const parsed = spans.map(([s, where]) => {
    need(s, "object", where);
    need(s.name, "string", `${where}.name`);
    need(s.spanId, "string", `${where}.spanId`);
    for (const t of ["startTimeUnixNano", "endTimeUnixNano"]) {
      if (!/^\d+$/.test(String(s[t]))) throw new ExportError(`Not a readable OTLP export: ${where}.${t} should be nanoseconds as a decimal string, found ${JSON.stringify(s[t])}.`);
    }
    return { ...s, where, attrs: attrs(s.attributes, where), startMs: ms(s.startTimeUnixNano), endMs: ms(s.endTimeUnixNano) };
  });
  const runs = parsed.filter((s) => s.name === "run" && !s.parentSpanId && typeof s.attrs["keel.run.id"] === "string");
  if (!runs.length) throw new ExportError("This OTLP document has no keel run span (a span named \"run\" with keel.run.id): it was not made by agent.exportRunOtlp.");
  return {
    kind: "otlp",
    runs: runs.map((r) => ({ id: r.attrs["keel.run.id"], task: r.attrs["keel.run.task"], status: r.attrs["keel.run.status"], startedMs: r.startMs })),
    replay: (id) => replayOtlp(parsed, runs.find((r) => r.attrs["keel.run.id"] === id) ?? runs[0]),
  };
}

function failureOf(event, step, runId) {
  const a = attrs(event.attributes, `failure event of step ${step}`);
  return {
    runId, step, tool: a["keel.tool.name"] ?? null, class: a["keel.failure.class"], code: a["keel.failure.code"],
    attempt: a["keel.failure.attempt"], message: a["keel.failure.message"], retried: a["keel.failure.retried"] === true,
    recovered: a["keel.failure.recovered"] === true, argsDigest: a["keel.tool.args_digest"], atMs: ms(event.timeUnixNano),
  };
}

function replayOtlp(spans, runSpan) {
  const r = runSpan.attrs;
  const run = {
    id: r["keel.run.id"], session: r["keel.session"], task: r["keel.run.task"], status: r["keel.run.status"],
    startedMs: runSpan.startMs, endedMs: r["keel.run.status"] === "running" ? null : runSpan.endMs, answer: null,
    reason: r["keel.run.reason"] ? { text: r["keel.run.reason"] } : null,
    counts: { steps: r["keel.run.steps"], modelCalls: r["keel.run.model_calls"], toolCalls: r["keel.run.tool_calls"], promptTokens: r["gen_ai.usage.input_tokens"], completionTokens: r["gen_ai.usage.output_tokens"] },
  };
  const stepSpans = spans.filter((s) => s.parentSpanId === runSpan.spanId).sort((a, b) => a.attrs["keel.step"] - b.attrs["keel.step"]);
  const events = [];
  const failures = [];
  const failuresOf = (span, step) => (span?.events ?? []).filter((e) => e.name === "failure").map((e) => failureOf(e, step, run.id));
  for (const s of stepSpans) {
    const step = s.attrs["keel.step"];
    const tool = spans.find((t) => t.parentSpanId === s.spanId);
    const mine = [...failuresOf(s, step), ...failuresOf(tool, step)].sort((a, b) => a.atMs - b.atMs);
    failures.push(...mine);
    events.push({ type: "stepStarted", step, atMs: s.startMs });
    if (tool) events.push({ type: "action", step, tool: tool.attrs["keel.tool.name"], argsDigest: tool.attrs["keel.tool.args_digest"], idempotencyKey: tool.attrs["keel.tool.idempotency_key"], atMs: s.startMs });
    for (const f of mine) {
      events.push({ type: "failure", ...f, envelope: null });
      if (f.retried) events.push({ type: "retryScheduled", step, tool: f.tool, attempt: f.attempt, delayMs: null, code: f.code, atMs: f.atMs });
    }
    const outcome = s.attrs["keel.outcome"];
    if (tool && outcome !== "final") events.push({ type: "observation", step, text: tool.attrs["keel.observation"] ?? "", outcome, atMs: s.endMs });
    else if (outcome === "final") events.push({ type: "finalAnswer", step, answer: "(the OTLP export does not keep the answer)", success: run.status === "succeeded", atMs: s.endMs });
  }
  // Failures with no step span (the run's own events).
  for (const f of failuresOf(runSpan, 0)) {
    failures.push(f);
    events.push({ type: "failure", ...f, step: null, envelope: null });
  }
  if (run.endedMs != null) {
    events.push({ type: "runEnded", reason: run.reason, success: run.status === "succeeded", stats: statsOf(failures), atMs: run.endedMs });
  }
  return { run, events, missing: ["thoughts", "tool arguments (only their digest)", "the answer", "observations of steps without a tool call", "the envelope objects", "retry delays", "recovery calls"] };
}
