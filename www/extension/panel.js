// The side panel: the task for the current tab, the model, the live trace and the history. It runs
// nothing itself: the runs live in the engine's host (the offscreen document, host.js), which the
// panel reaches over a port. Closing the panel leaves the run going; reopening it draws the run
// again from the host's events. When the host itself goes away (closed, crashed) the panel asks
// the service worker for a new one, which resumes the cut-off run from IndexedDB.
import { Agent, fromRawFailure } from "./keel/index.js";
import { History } from "./history.js";
import { ModelPicker } from "./model-picker.js";
import { MODELS } from "./models.js";
import { describe, h, Trace } from "./trace.js";

// The host's store session (host.js), whose runs the history lists.
const SESSION = "extension";
const $ = (id) => document.getElementById(id);
const ui = {
  task: $("task"),
  run: $("run"),
  stop: $("stop"),
  status: $("run-status"),
  target: $("target"),
  pill: $("host-pill"),
  pillText: $("host-pill-text"),
  answer: $("answer"),
  badge: $("result-badge"),
};
const trace = new Trace($("trace"));
const history = new History($("history-card"), SESSION, Agent);
const picker = new ModelPicker(document.getElementById("model-card"));

let port;
let shown; // the runId the trace shows
let pending; // the requestId of a run asked for and not yet accepted
let nextRequest = 1;

// ---- the tab the task is about -------------------------------------------------------------------

// `?tab=<id>` pins the panel to a tab (the page opened as a tab, as the tests do); the side panel
// follows the active tab of its window.
const pinned = Number(new URLSearchParams(location.search).get("tab")) || undefined;

async function targetTab() {
  if (pinned) return chrome.tabs.get(pinned).catch(() => undefined);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

async function showTarget() {
  const tab = await targetTab();
  ui.target.textContent = tab ? tab.title || tab.url || `tab ${tab.id}` : "no tab";
  ui.target.title = tab?.url ?? "";
  ui.target.dataset.tabId = tab ? String(tab.id) : "";
}

chrome.tabs.onActivated.addListener(showTarget);
chrome.tabs.onUpdated.addListener((_id, change) => (change.title || change.url) && showTarget());

// ---- the run on screen ----------------------------------------------------------------------------

function setStatus(text, kind = "") {
  ui.status.textContent = text;
  ui.status.className = `status-text ${kind}`;
}

function setRunning(running) {
  ui.run.disabled = running;
  ui.stop.disabled = !running;
  document.body.classList.toggle("running", running);
}

function showEnd(run) {
  setRunning(false);
  if (run.error) {
    const e = fromRawFailure(run.error);
    trace.error(e);
    ui.answer.textContent = `The run failed: ${e.message}`;
    ui.answer.className = "answer failed";
    setStatus("Failed", "err");
    return;
  }
  const r = run.result;
  ui.answer.textContent = r.answer || "(no answer)";
  ui.answer.className = `answer ${r.success ? "ok" : "failed"}`;
  ui.badge.hidden = false;
  ui.badge.textContent = r.success ? "Success" : `Not complete · ${describe(r.reason)}`;
  ui.badge.className = `result-badge ${r.success ? "ok" : "failed"}`;
  $("answer-card").dataset.success = String(r.success);
  setStatus(r.success ? "Done" : describe(r.reason), r.success ? "ok" : "warn");
}

/** Draws a run from the start: what the host has of it, then its live events. */
function show(run) {
  shown = run.runId;
  trace.start(run.task, MODELS[run.model]?.title ?? run.model);
  $("trace").dataset.runId = run.runId;
  if (run.restored) {
    $("trace").append(h("li.restored", { "data-kind": "restored",
      text: `Resumed from the store after its worker stopped: ${run.restored} committed step(s) kept.` }));
  }
  for (const event of run.events) trace.event(event);
  ui.badge.hidden = true;
  delete $("answer-card").dataset.success;
  if (run.status === "running") {
    ui.answer.textContent = "Working…";
    ui.answer.className = "answer pending";
    setRunning(true);
    setStatus(run.restored ? "Resumed…" : "Running…");
  } else {
    trace.stop();
    showEnd(run);
  }
}

function onHostMessage(message) {
  switch (message.type) {
    case "hello": {
      // A run under way first; else the last one that ended, unless the panel shows another.
      const run = message.runs.at(-1) ?? message.lastEnded;
      if (run && (run.status === "running" || !shown || run.runId === shown)) show(run);
      break;
    }
    case "progress":
      picker.showProgress(message.what.split("/").at(-1), message.total ? message.loaded / message.total : 0);
      break;
    case "accepted":
      if (message.requestId === pending) pending = undefined;
      break;
    case "startFailed": {
      if (message.requestId !== pending) break;
      pending = undefined;
      const e = fromRawFailure(message.error);
      trace.error(e);
      ui.answer.textContent = `The run could not start: ${e.message}`;
      ui.answer.className = "answer failed";
      setStatus("Failed", "err");
      setRunning(false);
      break;
    }
    case "started":
      show(message.run);
      break;
    case "event":
      if (message.runId === shown) trace.event(message.event);
      break;
    case "ended":
      if (message.run.runId === shown) {
        trace.stop();
        showEnd(message.run);
      }
      history.refresh();
      break;
    default:
      console.error("keel panel: unknown message from the host", message);
  }
}

// ---- the host -------------------------------------------------------------------------------------

function hostState(state, text) {
  ui.pill.dataset.state = state;
  ui.pillText.textContent = text;
}

async function connect() {
  hostState("connecting", "Connecting…");
  try {
    const reply = await chrome.runtime.sendMessage({ to: "background", type: "host" });
    if (!reply?.ok) throw new Error(reply?.error?.message ?? "the service worker did not open the host");
  } catch (e) {
    hostState("lost", "No engine host");
    setStatus(`Could not open the engine host: ${e.message}`, "err");
    setTimeout(connect, 1000);
    return;
  }
  port = chrome.runtime.connect({ name: "keel-panel" });
  port.onMessage.addListener(onHostMessage);
  port.onDisconnect.addListener(() => {
    port = undefined;
    if (pending) {
      // Asked for, never accepted: the host that got it is gone, and so is the request.
      pending = undefined;
      setRunning(false);
      setStatus("The engine host stopped before the run started: run the task again", "err");
    }
    // The host went away (closed or crashed): a new one resumes what it had under way.
    hostState("lost", "Host stopped · reconnecting");
    setTimeout(connect, 300);
  });
  hostState("ready", "Engine ready");
}

async function run() {
  const task = ui.task.value.trim();
  const tab = await targetTab();
  if (!port || pending) return;
  if (!task) {
    setStatus("Type a task first", "warn");
    return;
  }
  if (!tab) {
    setStatus("No tab to act on", "err");
    return;
  }
  setRunning(true);
  setStatus("Starting…");
  // The last run stays on screen until a new one is asked for.
  shown = undefined;
  delete $("trace").dataset.runId;
  trace.start(task, MODELS[picker.kind].title);
  ui.answer.textContent = "Working…";
  ui.answer.className = "answer pending";
  ui.badge.hidden = true;
  delete $("answer-card").dataset.success;
  try {
    await picker.downloadIfNeeded();
  } catch (e) {
    trace.error(e);
    setStatus("The built-in model could not download", "err");
    setRunning(false);
    return;
  }
  pending = nextRequest++;
  port.postMessage({ type: "run", requestId: pending, task, tabId: tab.id, model: picker.choice() });
}

ui.run.addEventListener("click", run);
ui.stop.addEventListener("click", () => shown && port?.postMessage({ type: "cancel", runId: shown }));
ui.task.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) run();
});

await showTarget();
await picker.showPromptApiState();
await connect();
await history.refresh();
document.body.dataset.ready = "true";
