// The demo page: pick a backend, switch faults on, run a task, watch the trace; the history panel
// (history.js) lists past runs and the failure log.
import { Agent } from "keel-agent";
import { agentKey, agentOptions, BACKENDS, fallbackNote, openaiStatus, pickDefault, promptApiStatus, smolStatus } from "./backends.js";
import { History } from "./history.js";
import { demoTools, FAULTS } from "./tools.js";
import { describe, h, plural, Trace } from "./trace.js";

const EXAMPLES = [
  ["Weather, newsletter, invoice", "What's the weather in Paris? Then subscribe me to the newsletter and tell me my latest invoice."],
  ["Newsletter", "Subscribe me to the newsletter on this page."],
  ["Latest invoice", "Find my latest invoice and its amount."],
  ["Lisbon, 3 days", "What's the weather in Lisbon for the next 3 days?"],
  ["Follow-up", "And in Tokyo?"],
];
// Exchanges of the conversation shown above the answer (the newest ones).
const CONVERSATION_SHOWN = 4;

const $ = (id) => document.getElementById(id);
const ui = {
  task: $("task"),
  run: $("run"),
  stop: $("stop"),
  status: $("run-status"),
  pill: $("backend-pill"),
  pillText: $("backend-pill-text"),
  progress: $("progress"),
  progressFill: $("progress-fill"),
  progressText: $("progress-text"),
  backendError: $("backend-error"),
  backendNote: $("backend-note"),
  answer: $("answer"),
  badge: $("result-badge"),
};
const SESSION = "demo";
const trace = new Trace($("trace"));
const history = new History($("history-card"), SESSION, Agent, { viewer: "./viewer.html", onRefresh: renderConversation });
const faultState = Object.fromEntries(Object.keys(FAULTS).map((k) => [k, false]));
const faults = () => ({ ...faultState });
const demo = demoTools(faults);
const status = {};
let backend = "scripted";
let note = null;
let agent;
let agentKeyNow;
let controller;
// The run whose answer the Answer card shows: the conversation above it leaves it out.
let shownRunId;

// ---- the panels ---------------------------------------------------------------------------------

function renderExamples() {
  $("examples").replaceChildren(
    h("span.chips-label", { text: "Try" }),
    ...EXAMPLES.map(([label, text]) =>
      h("button.chip", { type: "button", text: label, title: text, onclick: () => ((ui.task.value = text), ui.task.focus()) }),
    ),
  );
}

/** The session's earlier exchanges (what was asked, what was answered), above the answer. */
function renderConversation(exchanges) {
  const earlier = exchanges.filter((x) => x.runId !== shownRunId && x.status !== "running").slice(-CONVERSATION_SHOWN);
  $("conversation").hidden = earlier.length === 0;
  $("conversation-list").replaceChildren(
    ...earlier.map((x) =>
      h("li", { "data-run-id": x.runId, "data-status": x.status },
        h("p.asked", { text: x.task }),
        h(`p.answered.${x.status === "succeeded" ? "ok" : "failed"}`, { text: x.answer ?? `(no answer: ${x.status})` }))),
  );
}

function renderFaults() {
  $("faults").replaceChildren(
    ...Object.entries(FAULTS).map(([key, f]) => {
      const input = h("input", { type: "checkbox", "data-fault": key, id: `fault-${key}` });
      input.addEventListener("change", () => (faultState[key] = input.checked));
      return h("li.fault", {}, h("label.switch", { "aria-label": f.label }, input, h("span.slider")),
        h("label.fault-text", { htmlFor: `fault-${key}` }, h("strong", { text: f.label }), h("span", { text: f.detail })));
    }),
  );
}

function renderBackends() {
  $("backends").replaceChildren(
    ...Object.entries(BACKENDS).map(([key, b]) => {
      const s = status[key];
      const input = h("input", { type: "radio", name: "backend", value: key, checked: key === backend });
      input.addEventListener("change", () => selectBackend(key));
      // The scripted model is always ready; the others once checked (the server when picked).
      const state = s?.state ?? (key === "scripted" ? "ready" : key === "openai" ? "unchecked" : "checking");
      const text = s?.text ?? { ready: "ready", checking: "checking…", unchecked: "checked when picked" }[state];
      return h("label.option", { "data-backend": key }, input,
        h("span.option-text", {}, h("strong", { text: b.title }), h("span", { text: b.sub })),
        h(`span.state.${state}`, { text, title: s?.help }));
    }),
  );
  $("openai-fields").hidden = backend !== "openai";
  ui.backendNote.hidden = !(note && backend === "scripted");
  // The note's `commands` as code.
  ui.backendNote.replaceChildren(...(note ?? "").split("`").map((part, i) => (i % 2 ? h("code", { text: part }) : part)));
  updatePill();
}

function updatePill(extra) {
  const b = BACKENDS[backend];
  ui.pillText.textContent = extra ? `${b.title} · ${extra}` : b.title;
  ui.pill.dataset.backend = backend;
}

function selectBackend(key) {
  backend = key;
  ui.backendError.hidden = true;
  renderBackends();
  if (key === "openai") checkOpenai();
}

// Asks the OpenAI-compatible server for its models; it is "ready" only once it answered.
async function checkOpenai() {
  const url = $("openai-url").value.trim();
  status.openai = { state: "checking", text: "checking…" };
  renderBackends();
  const s = await openaiStatus(url);
  if ($("openai-url").value.trim() !== url) return status.openai; // a newer check is under way
  status.openai = s;
  renderBackends();
  return s;
}

// The model's download, beside the Run button: SmolLM2's bytes, or the Prompt API's fraction.
function showProgress(loaded, total, what = "Loading SmolLM2") {
  ui.progress.hidden = false;
  const pct = total ? Math.round((100 * loaded) / total) : 0;
  ui.progressFill.style.width = `${pct}%`;
  ui.progressText.textContent = total === 1 ? `${what} · ${pct}%` : `${what} · ${(loaded / 1e6).toFixed(0)} / ${(total / 1e6).toFixed(0)} MB`;
}

function showBackendError(e) {
  const hints = e.hints?.recovery ?? [];
  ui.backendError.replaceChildren(
    h("div.err-head", {}, h("span.badge.fatal", { text: e.name ?? "Error" }), e.code ? h("code.code", { text: e.code }) : ""),
    h("p", { text: e.message }),
    hints.length ? h("ol", {}, hints.map((r) => h("li", { text: r }))) : "",
  );
  ui.backendError.hidden = false;
}

// ---- running ------------------------------------------------------------------------------------

async function ensureAgent() {
  const openai = { baseUrl: $("openai-url").value.trim(), model: $("openai-model").value.trim() };
  const key = agentKey(backend, { faults, openai });
  if (agent && key === agentKeyNow) return agent;
  agent?.dispose();
  agent = undefined;
  const onProgress = ({ loaded, total }) => showProgress(loaded, total);
  const { model, config } = agentOptions(backend, { faults, openai, onProgress });
  setStatus(backend === "smollm2" ? "Loading the model…" : "Starting the engine…");
  // Only this backend needs wllama (~9 MB of wasm): load its entry point on demand.
  if (backend === "smollm2") await import("keel-agent/wllama");
  try {
    agent = await Agent.create({ model, config, tools: demo.tools, session: SESSION });
  } finally {
    ui.progress.hidden = true;
  }
  agentKeyNow = key;
  return agent;
}

function setStatus(text, kind = "") {
  ui.status.textContent = text;
  ui.status.className = `status-text ${kind}`;
}

function setRunning(running) {
  ui.run.disabled = running;
  ui.stop.disabled = !running;
  document.body.classList.toggle("running", running);
}

function showResult(result, ms) {
  const ok = result.success;
  // A fatal stop's answer is the runtime's account of the failure, not the agent's: say so.
  const stopped = result.reason.kind === "fatal";
  ui.answer.textContent = stopped
    ? `No answer: the run stopped on ${result.reason.code} before the agent answered. ${result.reason.message}`
    : result.answer || "(no answer)";
  ui.answer.dataset.stopped = String(stopped);
  ui.answer.className = `answer ${ok ? "ok" : "failed"}`;
  ui.badge.hidden = false;
  ui.badge.textContent = ok ? "Success" : `Not complete · ${describe(result.reason)}`;
  ui.badge.className = `result-badge ${ok ? "ok" : "failed"}`;
  $("answer-card").dataset.success = String(ok);
  const s = result.stats;
  const set = (k, v) => (document.querySelector(`[data-stat="${k}"]`).textContent = v);
  set("faults", s.faults);
  $("stats").querySelector("[data-stat=faults]").title = plural(s.failedAttempts, "failed attempt");
  set("retried", s.retried);
  set("recovered", s.recovered);
  set("rate", s.faults ? `${Math.round(100 * s.recoveryRate)}%` : "–");
  set("steps", result.counts.steps);
  set("time", `${(ms / 1000).toFixed(1)} s`);
}

function resetResult() {
  ui.answer.textContent = "Working…";
  ui.answer.className = "answer pending";
  delete ui.answer.dataset.stopped;
  ui.badge.hidden = true;
  delete $("answer-card").dataset.success;
  for (const dd of document.querySelectorAll("[data-stat]")) dd.textContent = "–";
}

async function run() {
  const task = ui.task.value.trim();
  if (!task || controller) return;
  controller = new AbortController();
  setRunning(true);
  resetResult();
  ui.backendError.hidden = true;
  if (backend === "openai" && status.openai?.state !== "ready" && (await checkOpenai()).state !== "ready") {
    const s = status.openai;
    showBackendError({ name: "Not reachable", code: "MODEL_UNAVAILABLE", message: s.help ?? s.text });
    ui.answer.textContent = "The run did not start: the server is not reachable (see Model).";
    ui.answer.className = "answer failed";
    setStatus("Server not reachable", "err");
    controller = undefined;
    setRunning(false);
    return;
  }
  trace.start(task, BACKENDS[backend].title);
  const t0 = performance.now();
  try {
    const a = await ensureAgent();
    setStatus("Running…");
    demo.reset();
    const handle = a.run(task, { signal: controller.signal });
    trace.approvals = {
      approve: (callId) => handle.approve(callId),
      reject: (callId) => handle.reject(callId, "The user rejected it in the demo."),
    };
    for await (const event of handle) {
      if (event.type === "modelDownload") showProgress(event.loaded, event.total, "Downloading Gemini Nano");
      trace.event(event);
    }
    const result = await handle.result;
    shownRunId = result.runId;
    ui.progress.hidden = true;
    showResult(result, performance.now() - t0);
    setStatus(result.success ? "Done" : describe(result.reason), result.success ? "ok" : "warn");
  } catch (e) {
    agent = undefined;
    agentKeyNow = undefined;
    trace.error(e);
    showBackendError(e);
    ui.answer.textContent = "The run could not start: see the error under Model.";
    ui.answer.className = "answer failed";
    setStatus("Failed", "err");
  } finally {
    trace.approvals = undefined;
    trace.stop();
    controller = undefined;
    setRunning(false);
    await history.refresh();
  }
}

ui.run.addEventListener("click", run);
ui.stop.addEventListener("click", () => controller?.abort());
ui.task.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) run();
});

renderExamples();
renderFaults();
renderBackends();
const [prompt, smol] = await Promise.all([promptApiStatus(), smolStatus()]);
status["prompt-api"] = prompt;
status.smollm2 = smol;
const asked = new URLSearchParams(location.search).get("backend");
backend = asked ?? pickDefault(status);
note = asked ? null : fallbackNote(status);
renderBackends();
if (backend === "openai") checkOpenai();
$("openai-url").addEventListener("change", () => backend === "openai" && checkOpenai());
if (self.crossOriginIsolated) ui.pill.title = "Cross-origin isolated: wllama may use several threads";
await history.refresh();
document.body.dataset.ready = "true";
