// The trace viewer: opens an exported run (a file picked or dropped, or `?run=<id>` read from this
// origin's store, as the demo's history panel links it) and replays it through the live trace's
// renderer (trace.js) with the run's summary. A file that is not an export shows why, in the page.
import { ExportError, readExport } from "./replay.js";
import { describe, h, Trace } from "./trace.js";

const $ = (id) => document.getElementById(id);
const trace = new Trace($("trace"), { live: false });
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
let opened;

function showError(e, file) {
  const what = e instanceof ExportError ? e.message : `Could not open the run: ${e.message}`;
  $("error").replaceChildren(h("div.err-head", {}, h("span.badge.fatal", { text: "Not opened" }), file ? h("code.code", { text: file }) : ""),
    h("p", { text: what }));
  $("error").hidden = false;
}

function summary(run, stats) {
  const rows = [
    ["Status", run.status ?? "unknown"],
    ["Steps", run.counts?.steps ?? "–"],
    ["Time", run.endedMs != null ? seconds(run.endedMs - run.startedMs) : "unfinished"],
    ["Faults", stats?.faults ?? "–"],
    ["Retried", stats?.retried ?? "–"],
    ["Recovered", stats?.recovered ?? "–"],
  ];
  $("run-stats").replaceChildren(...rows.map(([k, v]) => h("div", {}, h("dt", { text: k }), h("dd", { "data-summary": k.toLowerCase(), text: String(v) }))));
}

function showRun(id) {
  const { run, events, missing } = opened.replay(id);
  const end = events.find((e) => e.type === "runEnded");
  $("run-card").hidden = false;
  $("run-card").dataset.runId = run.id;
  $("run-task").textContent = run.task ?? "(no task)";
  $("source").textContent = `${opened.kind === "otlp" ? "OTLP" : "JSON"} export · ${new Date(run.startedMs).toLocaleString()}${run.reason ? ` · ${describe(run.reason)}` : ""}`;
  summary(run, end?.stats);
  $("run-missing").textContent = `Not in this export: ${missing.join(", ")}.`;
  trace.start(run.task ?? "", `${opened.kind === "otlp" ? "OTLP" : "JSON"} export, session ${run.session ?? "unknown"}`, run.startedMs);
  for (const e of events) trace.event(e);
  document.body.dataset.loaded = opened.kind;
}

/** Opens an export's text: `runId` picks a run of a session export (else its last). */
function open(text, name, runId) {
  $("error").hidden = true;
  try {
    opened = readExport(text);
  } catch (e) {
    showError(e, name);
    document.body.dataset.loaded = "error";
    return;
  }
  const select = $("run-select");
  select.replaceChildren(...opened.runs.map((r) => h("option", { value: r.id, text: `${r.task ?? r.id} · ${r.status}` })));
  select.value = runId ?? opened.runs.at(-1).id;
  $("run-pick").hidden = opened.runs.length < 2;
  try {
    showRun(select.value);
  } catch (e) {
    showError(e, name);
    document.body.dataset.loaded = "error";
  }
}

async function openFile(file) {
  if (!file) return;
  open(await file.text(), file.name);
}

// A run of this origin's store, as the history panel links it: read by an agent that runs nothing.
async function openStored(runId, session, format) {
  try {
    const { Agent } = await import("keel-agent");
    const agent = await Agent.create({
      model: { custom: async () => Promise.reject(new Error("the viewer's agent only reads the store")) },
      ...(session ? { session } : {}),
    });
    try {
      const data = format === "otlp" ? await agent.exportRunOtlp(runId) : await agent.exportRun(runId);
      open(JSON.stringify(data), `run ${runId}`, runId);
    } finally {
      agent.dispose();
    }
  } catch (e) {
    showError(e, `run ${runId}`);
    document.body.dataset.loaded = "error";
  }
}

$("file").addEventListener("change", (e) => openFile(e.target.files[0]));
$("run-select").addEventListener("change", (e) => showRun(e.target.value));
const drop = $("drop");
drop.addEventListener("dragover", (e) => (e.preventDefault(), drop.classList.add("over")));
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  openFile(e.dataTransfer.files[0]);
});

const params = new URLSearchParams(location.search);
if (params.get("run")) await openStored(params.get("run"), params.get("session") ?? undefined, params.get("format"));
document.body.dataset.ready = "true";
