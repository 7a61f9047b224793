// The trace: keel's events as a timeline grouped by step. Retries count their delay down,
// failures show their class, code and recovery envelope; while the model writes a step, its text
// (the `token` events) and its answer so far (`answerDelta`) show in the step, until the parsed step
// replaces them. Live (the demo, the extension) it draws
// events as they come; as a replay (viewer.js) it draws events rebuilt from an exported run, each
// with its stored time (`atMs`), with no spinners or countdowns.

/** `h("div.a.b", {attr}, ...children)`: a small element builder. */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = v;
    else if (k.startsWith("data-") || k === "role" || k === "title" || k.startsWith("aria-")) el.setAttribute(k, v);
    else el[k] = v;
  }
  for (const c of children.flat(Infinity)) if (c !== undefined && c !== null && c !== false) el.append(c);
  return el;
}

// Line icons (stroke paths on a 24×24 grid), so the trace needs no emoji font.
const ICONS = {
  start: '<circle cx="12" cy="12" r="10"/><path d="M10 8l6 4-6 4z"/>',
  thought: '<path d="M21 11.5a8.4 8.4 0 0 1-12.8 7.5L3 21l1.9-5.2A8.5 8.5 0 1 1 21 11.5z"/>',
  action: '<path d="M6 4l14 8-14 8z"/>',
  observation: '<path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12z"/><circle cx="12" cy="12" r="3"/>',
  recovery: '<path d="M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.5 2.5-2.4-.6-.6-2.4z"/>',
  retry: '<path d="M21 12a9 9 0 1 1-2.6-6.4L21 8"/><path d="M21 3v5h-5"/>',
  warning: '<path d="M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z"/><path d="M12 9v4M12 17h.01"/>',
  failure: '<circle cx="12" cy="12" r="10"/><path d="M15 9l-6 6M9 9l6 6"/>',
  final: '<circle cx="12" cy="12" r="10"/><path d="M8 12l3 3 5-6"/>',
  end: '<rect x="5" y="5" width="14" height="14" rx="2"/>',
  discarded: '<path d="M3 6h18M8 6V4h8v2M6 6l1 14h10l1-14"/>',
  approval: '<path d="M12 2l8 4v6c0 5-3.5 9-8 10-4.5-1-8-5-8-10V6z"/>',
  decision: '<path d="M12 2l8 4v6c0 5-3.5 9-8 10-4.5-1-8-5-8-10V6z"/><path d="M9 12l2 2 4-4"/>',
};

function icon(name) {
  const span = h("span.icon");
  span.innerHTML = `<svg viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">${ICONS[name]}</svg>`;
  return span;
}

const json = (v) => JSON.stringify(v, null, 2);
const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

const CLASS_HELP = {
  transient: "retried by the runtime",
  persistent: "the model gets a recovery plan",
  fatal: "the run stops",
};

// Validation issues as rows: where, what is wrong, what was expected, what was sent.
function issuesView(issues) {
  const cell = (v) => (v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
  return h("table.issues", {},
    h("thead", {}, h("tr", {}, ["Field", "Problem", "Expected", "Sent"].map((t) => h("th", { text: t })))),
    h("tbody", {}, issues.map((i) => h("tr", {},
      h("td", {}, h("code", { text: cell(i.path) || "(args)" })),
      h("td", { text: cell(i.kind).replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`) }),
      h("td", { text: cell(i.expected) + (i.suggestion ? ` (did you mean ${i.suggestion}?)` : "") }),
      h("td", {}, i.sent === undefined ? "" : h("code", { text: cell(i.sent) }))))));
}

function envelopeView(env) {
  const list = (items, ordered) =>
    items?.length ? h(ordered ? "ol" : "ul", {}, items.map((i) => h("li", { text: i }))) : undefined;
  const rows = [
    ["Causes", list(env.causes)],
    ["Recovery", list(env.recovery, true)],
    ["Available", env.availableActions?.length ? h("div.tags", {}, env.availableActions.map((a) => h("code", { text: a }))) : undefined],
    ["Sent", env.sent == null ? undefined : h("code.inline", { text: JSON.stringify(env.sent) })],
    ["Issues", env.issues?.length ? issuesView(env.issues) : undefined],
    ["Retry after", env.retryAfterMs == null ? undefined : document.createTextNode(seconds(env.retryAfterMs))],
  ].filter(([, v]) => v);
  return h(
    "details.envelope",
    { open: true },
    h("summary", {}, "Recovery envelope"),
    h("dl", {}, rows.map(([k, v]) => [h("dt", { text: k }), h("dd", {}, v)])),
    h("details.raw", {}, h("summary", {}, "Envelope JSON"), h("pre.code", { text: json(env) })),
  );
}

/** The trace panel bound to its `<ol>`. */
export class Trace {
  #list;
  #live;
  #steps = new Map();
  #countdowns = new Set();
  #pending;
  // The row showing the step's text as it streams: { step, text, answer, el }.
  #stream;
  #started = 0;
  #at = 0;
  // The highest step shown, the run's final-answer item (a fatal stop's line goes before it), and
  // the last failure drawn (the stop's line does not repeat its message).
  #lastStep = 0;
  #final;
  #lastFailure;

  /** `live: false` replays stored events: times come from their `atMs`, nothing waits or counts down. */
  constructor(list, { live = true } = {}) {
    this.#list = list;
    this.#live = live;
  }

  // Now, or in a replay the time of the event being drawn.
  #now() {
    return this.#live ? performance.now() : this.#at;
  }

  /** Clears the panel for a new run (`atMs`: its start, in a replay). */
  start(task, backend, atMs = 0) {
    this.#stopCountdowns();
    this.#steps.clear();
    this.#lastStep = 0;
    this.#final = undefined;
    this.#lastFailure = undefined;
    this.#list.replaceChildren();
    this.#at = atMs;
    this.#started = this.#now();
    this.#append(null, h("li.item.start", { "data-kind": "start" }, icon("start"),
      h("div.body", {}, h("div.label", { text: `Run started · ${backend}` }), h("div.task", { text: task }))));
  }

  #group(step) {
    if (step === null || step === undefined) return this.#list;
    let group = this.#steps.get(step);
    if (!group) {
      const items = h("ol.items");
      group = h("li.step", { "data-step": step }, h("div.step-head", {}, h("span.step-n", { text: `Step ${step}` }),
        h("span.step-t", { text: `+${seconds(this.#now() - this.#started)}` })), items);
      this.#list.append(group);
      this.#steps.set(step, items);
      this.#lastStep = Math.max(this.#lastStep, step);
      return items;
    }
    return group;
  }

  #append(step, el) {
    this.#stopCountdowns();
    this.#clearPending();
    (step === null || step === undefined ? this.#list : this.#group(step)).append(el);
    if (this.#live) el.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
    return el;
  }

  // A "waiting for…" row with its elapsed time, until the next event replaces it.
  #wait(step, text) {
    if (!this.#live) return;
    const elapsed = h("span.elapsed");
    const el = this.#append(step, h("li.item.pending", { "data-kind": "pending" }, h("span.spinner"),
      h("div.body", {}, h("span", { text }), elapsed)));
    const t0 = performance.now();
    const timer = setInterval(() => (elapsed.textContent = seconds(performance.now() - t0)), 500);
    this.#pending = () => {
      clearInterval(timer);
      el.remove();
    };
  }

  #clearPending() {
    this.#pending?.();
    this.#pending = undefined;
  }

  // The row where step `step`'s streamed text goes: it takes the place of the "writing" row and,
  // like it, gives way to the next event (the parsed step), so the text shows only while it comes.
  #streaming(step) {
    if (this.#stream?.step === step && this.#stream.el.isConnected) return this.#stream;
    const text = h("pre.stream-text");
    const answer = h("p.stream-answer", { hidden: true }, h("span.muted", { text: "Answer so far: " }), h("span"));
    const el = this.#append(step, h("li.item.pending.streaming", { "data-kind": "streaming" }, h("span.spinner"),
      h("div.body", {}, h("span", { text: "The model is writing…" }), text, answer)));
    this.#pending = () => el.remove();
    this.#stream = { step, text, answer, el };
    return this.#stream;
  }

  /** Stops the timers (the run ended or failed). */
  stop() {
    this.#stopCountdowns();
    this.#clearPending();
  }

  #stopCountdowns() {
    for (const stop of this.#countdowns) stop();
    this.#countdowns.clear();
  }

  #item(kind, label, ...body) {
    const base = kind.split(".")[0];
    // An incomplete final answer is not a success: no check mark; a stop wears the failure mark.
    const mark = kind === "final.failed" || base === "stop" ? "failure" : base;
    return h(`li.item.${kind}`, { "data-kind": base }, icon(mark), h("div.body", {}, h("div.label", {}, label), ...body));
  }

  /** One keel event (with its `atMs`, in a replay). */
  event(e) {
    if (!this.#live) this.#at = e.atMs ?? this.#at;
    switch (e.type) {
      case "stepStarted":
        this.#group(e.step);
        this.#wait(e.step, "The model is writing its next step…");
        break;
      case "token":
        this.#streaming(e.step).text.append(e.text);
        break;
      case "answerDelta": {
        const answer = this.#streaming(e.step).answer;
        answer.hidden = false;
        answer.lastChild.append(e.text);
        break;
      }
      case "tokensDiscarded":
        this.#append(e.step, this.#item("discarded", h("span", {}, "The model's partial reply was discarded · ",
          h("code.code", { text: e.code })), h("p.muted", { text: "Its call failed mid-way; a retry starts the step's text over." })));
        break;
      case "thought":
        if (e.text) this.#append(e.step, this.#item("thought", "Thought", h("p", { text: e.text })));
        break;
      case "action":
        // An OTLP export keeps only a digest of the arguments.
      {
        const el = this.#item("action", h("span", {}, "Action ", h("code.tool", { text: e.tool })),
          "args" in e ? h("code.args", { text: JSON.stringify(e.args) })
            : h("span.muted", { text: `arguments not exported (digest ${e.argsDigest ?? "unknown"})` }),
          // What the tool receives to dedupe the call (the same when it is made again after a reload).
          e.idempotencyKey ? h("span.muted.key", { text: ` idempotency key ${e.idempotencyKey}` }) : undefined);
        if (e.idempotencyKey) el.dataset.idempotencyKey = e.idempotencyKey;
        this.#append(e.step, el);
        this.#wait(e.step, `Running ${e.tool}…`);
        break;
      }
      case "observation": {
        const label = { ok: "Observation", warning: "Observation · with a warning", failed: "Observation · what the model is told", final: "Observation" }[e.outcome] ?? "Observation";
        const el = this.#item(`observation.${e.outcome}`, label, h("pre.obs", { text: e.text }));
        el.dataset.outcome = e.outcome;
        this.#append(e.step, el);
        break;
      }
      case "retryScheduled":
        this.#retry(e);
        break;
      case "recoveryCall": {
        const how = e.ok === true ? "it answered" : e.ok === false ? "it failed too" : "";
        const el = this.#item("recovery", h("span", {}, "The runtime called ", h("code.tool", { text: e.called }),
          " after ", h("code.tool", { text: e.tool }), " failed with ", h("code.code", { text: e.code })),
          how ? h("p.muted", { text: how }) : undefined);
        el.dataset.called = e.called;
        el.dataset.code = e.code;
        this.#append(e.step, el);
        break;
      }
      case "warning":
        this.#append(e.step, this.#item("warning", "Warning", h("p", { text: e.message })));
        break;
      case "approvalRequested":
        this.#approval(e);
        break;
      case "approvalDecided": {
        const label = e.approved ? "Approved" : "Rejected";
        const el = this.#item(e.approved ? "decision.approved" : "decision.rejected", label,
          e.reason ? h("p", { text: e.reason }) : undefined);
        el.dataset.approved = String(e.approved);
        this.#append(e.step, el);
        for (const b of this.#list.querySelectorAll(`[data-call-id="${CSS.escape(e.callId)}"] button`)) b.disabled = true;
        break;
      }
      case "failure": {
        const el = this.#item("failure", h("span", {},
          h(`span.badge.${e.class}`, { text: e.class, title: CLASS_HELP[e.class] }), " ",
          h("code.code", { text: e.code }), e.tool ? h("span.muted", { text: ` in ${e.tool}` }) : "",
          e.attempt ? h("span.muted", { text: ` (attempt ${e.attempt})` }) : ""),
          h("p", { text: e.message }), e.envelope ? envelopeView(e.envelope) : undefined);
        el.dataset.class = e.class;
        el.dataset.code = e.code;
        if (e.attempt) el.dataset.attempt = String(e.attempt);
        this.#lastFailure = e;
        this.#append(e.step, el);
        break;
      }
      case "finalAnswer":
        // In the step the run ended in (committed or not: a failed model call stops a run inside
        // the step it was writing); 0 only for a run that ended before its first step.
        this.#final = this.#append(e.step || null, e.success
          ? this.#item("final.ok", "Final answer", h("p", { text: e.answer }))
          : this.#item("final.failed", "Final answer · incomplete", h("p", { text: e.answer })));
        break;
      case "runEnded":
        if (e.reason?.kind === "fatal") this.#fatal(e.reason);
        this.#append(null, h("li.item.end", { "data-kind": "end" }, icon("end"),
          h("div.body", {}, h("div.label", { text: `Run ended · ${describe(e.reason)} · ${seconds(this.#now() - this.#started)}` }),
            h("div.muted", { text: statsLine(e.stats) }))));
        break;
      default:
        break;
    }
  }

  /**
   * Where the trace's Approve / Reject buttons send the user's decision (`{ approve(callId),
   * reject(callId) }`, the run's handle); without it a pause is drawn without buttons (a replay).
   */
  approvals;

  // A call waiting for the user's approval: what it would do, and the buttons while it waits.
  #approval(e) {
    const buttons = this.approvals && this.#live
      ? h("div.decide", {},
        h("button.approve", { type: "button", text: "Approve", onclick: () => this.approvals.approve(e.callId) }),
        h("button.reject", { type: "button", text: "Reject", onclick: () => this.approvals.reject(e.callId) }))
      : undefined;
    // A call cut off by a reload before its result was stored: approving makes it again.
    const why = e.outcomeUnknown
      ? h("p", { text: "This call was cut off by a reload: it may or may not have happened. Make it again?" })
      : undefined;
    const el = this.#item("approval", h("span", {}, "Waiting for your approval: ", h("code.tool", { text: e.tool })),
      h("code.args", { text: JSON.stringify(e.args) }), why, buttons);
    el.dataset.callId = e.callId;
    if (e.outcomeUnknown) el.dataset.outcomeUnknown = "true";
    this.#clearPending();
    this.#append(e.step, el);
  }

  // A retry row whose delay counts down until the retry starts (the next event). A replay draws
  // it done; an export does not keep the delay (`delayMs` null), so it then says only "retried".
  #retry(e) {
    const known = e.delayMs !== null && e.delayMs !== undefined;
    const left = h("strong.countdown", { text: known ? seconds(e.delayMs) : "" });
    const bar = h("span.fill");
    const el = this.#item("retry", h("span", {}, h("code.tool", { text: e.tool ?? "model" }), ` failed with `,
      h("code.code", { text: e.code }), ` (attempt ${e.attempt})`),
      h("div.retry-line", {}, h("span", { text: "retrying in " }), left, h("span.track", {}, bar)));
    el.dataset.code = e.code;
    el.dataset.attempt = String(e.attempt);
    if (known) el.dataset.delayMs = String(e.delayMs);
    this.#append(e.step, el);
    if (!this.#live) {
      el.classList.add("done");
      bar.style.width = "100%";
      el.querySelector(".retry-line span").textContent = known ? "retried after " : "retried by the runtime";
      return;
    }
    const until = performance.now() + e.delayMs;
    let frame = 0;
    const tick = () => {
      const ms = Math.max(0, until - performance.now());
      left.textContent = seconds(ms);
      bar.style.width = `${100 - (100 * ms) / Math.max(1, e.delayMs)}%`;
      if (ms > 0) frame = requestAnimationFrame(tick);
    };
    tick();
    this.#countdowns.add(() => {
      cancelAnimationFrame(frame);
      el.classList.add("done");
      left.textContent = seconds(e.delayMs);
      bar.style.width = "100%";
      el.querySelector(".retry-line span").textContent = "retried after ";
    });
  }

  // A fatal stop: why the run stopped, before the runtime's answer, which is relabelled so that it
  // does not read as the agent's. Not a failure row of its own: the failure that stopped the run
  // is drawn already (the trace's failures are the failure log's), so its message is not repeated.
  #fatal(reason) {
    const last = this.#lastFailure;
    const repeated = last?.code === reason.code && last?.message === reason.message;
    const el = this.#item("stop", h("span", {}, h("span.badge.fatal", { text: "fatal", title: CLASS_HELP.fatal }), " ",
      h("code.code", { text: reason.code }), h("span.muted", { text: " · the run stopped" })),
      repeated ? undefined : h("p", { text: reason.message ?? "" }));
    el.dataset.code = reason.code;
    if (this.#final) {
      this.#final.before(el);
      this.#final.querySelector(".label").textContent = "No answer from the agent · the runtime's account";
    } else {
      this.#append(this.#lastStep || null, el);
    }
  }

  /** A failure outside any run event (the agent could not start, the run was rejected). */
  error(err) {
    this.stop();
    this.#append(null, this.#item("failure", h("span", {}, h("span.badge.fatal", { text: err.name ?? "Error" }), " ",
      err.code ? h("code.code", { text: err.code }) : ""), h("p", { text: err.message }),
      err.hints && Object.keys(err.hints).length ? h("pre.code", { text: json(err.hints) }) : undefined));
  }
}

/** `n word` or `n words`. */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A run's FailureStats in words: faults, retried, recovered, and the failed attempts when more. */
export function statsLine(s) {
  const line = `${plural(s.faults, "fault")} · ${s.retried} retried · ${s.recovered} recovered`;
  return s.failedAttempts > s.faults ? `${line} · ${plural(s.failedAttempts, "failed attempt")}` : line;
}

/** An EndReason in words. */
export function describe(reason) {
  switch (reason?.kind) {
    case "finalAnswer": return "final answer";
    case "maxSteps": return `step limit (${reason.steps})`;
    case "consecutiveFailures": return `${reason.failures} failures in a row`;
    // Exports written before the wire was camelCase throughout.
    case "final_answer": return "final answer";
    case "max_steps": return `step limit (${reason.steps})`;
    case "consecutive_failures": return `${reason.failures} failures in a row`;
    case "fatal": return `stopped: ${reason.code}`;
    case "cancelled": return "cancelled";
    // A replayed OTLP export keeps the reason only in words.
    default: return reason?.text ?? "ended";
  }
}
