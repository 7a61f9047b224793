// The engine's host: the offscreen document. Each run gets an Agent (its worker runs keel's wasm
// engine) whose DOM tools act on the run's tab through the service worker. The host outlives the
// side panel, so a run goes on while the panel is closed; the panels that are open get its events
// over a port, and one opened mid-run gets what it missed first. A run cut off with its worker
// (the host closed, a crash) is resumed from IndexedDB when the host starts again.
import { Agent, toRawFailure } from "./keel/index.js";
import { domTools } from "./keel/dom/index.js";
import { agentModel } from "./models.js";

// The store session of every run the extension makes (the panel's history reads the same one).
const SESSION = "extension";
const META = "keel-ext:run:";

const ports = new Set();
/** runId → { runId, task, tabId, model, events, status, result?, error?, handle?, restored? } */
const runs = new Map();
let lastEnded;

const toBackground = (message) => chrome.runtime.sendMessage({ to: "background", ...message });

/** Rejects with the signal's reason when it aborts (a DOM op itself cannot be stopped midway). */
function untilAborted(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

// navigate and back resolve once the page has loaded and reject when it could not: the tools turn
// the rejection into NAVIGATION_FAILED with its message.
async function loadIn(tabId, message, signal) {
  const reply = await untilAborted(toBackground({ ...message, tabId }), signal);
  if (!reply?.ok) throw new Error(reply?.error?.message ?? "the service worker gave no answer");
}

/** The DOM tools, acting on `tabId` through the service worker. */
function tabTools(tabId) {
  return domTools({
    run: (op, args, { signal } = {}) => untilAborted(toBackground({ type: "dom", tabId, op, args }), signal),
    navigate: (url, { signal } = {}) => loadIn(tabId, { type: "navigate", url }, signal),
    back: ({ signal } = {}) => loadIn(tabId, { type: "back" }, signal),
  });
}

// GGUF models by URL, loaded once and kept for the next runs (a load reads the whole file).
const ggufModels = new Map();
async function gguf(modelUrl) {
  if (!ggufModels.has(modelUrl)) {
    // Only this backend needs wllama (~9 MB of wasm): its entry point is imported on demand.
    const { wllamaModel } = await import("./keel/wllama.js");
    const onProgress = ({ loaded, total }) => broadcast({ type: "progress", what: modelUrl, loaded, total });
    const wasmUrl = new URL("./vendor/wllama/wllama.wasm", import.meta.url).href;
    ggufModels.set(modelUrl, wllamaModel({ modelUrl, wasmUrl, onProgress, nCtx: 4096, maxTokens: 256 }));
  }
  return ggufModels.get(modelUrl);
}

async function createAgent(tabId, choice) {
  const { model, config } = await agentModel(choice, { gguf });
  return Agent.create({ model, config, tools: tabTools(tabId), session: SESSION });
}

function broadcast(message) {
  for (const port of ports) port.postMessage(message);
}

/** What a panel needs to draw a run. */
function view(run) {
  const { runId, task, tabId, model, events, status, result, error, restored } = run;
  return { runId, task, tabId, model: model.kind, events, status, result, error, restored };
}

// What a resume needs that the store does not keep: the tab and the model choice.
const saveMeta = (runId, meta) => localStorage.setItem(META + runId, JSON.stringify(meta));
const forgetMeta = (runId) => localStorage.removeItem(META + runId);
function readMeta(runId) {
  try {
    return JSON.parse(localStorage.getItem(META + runId) ?? "null");
  } catch {
    return null;
  }
}

/** Follows a run to its end: its events to the panels, then its result; the agent goes with it. */
async function follow(run, agent) {
  runs.set(run.runId, run);
  broadcast({ type: "started", run: view(run) });
  try {
    for await (const event of run.handle) {
      run.events.push(event);
      broadcast({ type: "event", runId: run.runId, event });
    }
    run.result = await run.handle.result;
    run.status = "ended";
  } catch (e) {
    run.error = toRawFailure(e);
    run.status = "failed";
  } finally {
    agent.dispose();
    // A run cut off by the host's own end never gets here: its meta stays for the resume.
    forgetMeta(run.runId);
    runs.delete(run.runId);
    lastEnded = run;
    broadcast({ type: "ended", run: view(run) });
  }
}

async function start(port, { requestId, task, tabId, model }) {
  let agent;
  try {
    if (typeof task !== "string" || !task.trim()) throw new TypeError("the task is empty");
    if (!Number.isInteger(tabId)) throw new TypeError(`no tab to act on (tabId ${tabId})`);
    agent = await createAgent(tabId, model);
  } catch (e) {
    port.postMessage({ type: "startFailed", requestId, error: toRawFailure(e) });
    return;
  }
  const handle = agent.run(task, { session: SESSION });
  saveMeta(handle.runId, { task, tabId, model });
  port.postMessage({ type: "accepted", requestId, runId: handle.runId });
  follow({ runId: handle.runId, task, tabId, model, events: [], status: "running", handle }, agent);
}

/** The steps a cut-off run committed, as the events that drew them, for the panel's trace. */
function replayed(turns) {
  return turns.flatMap(({ turn: t }) => [
    { type: "stepStarted", step: t.step },
    ...(t.thought ? [{ type: "thought", step: t.step, text: t.thought }] : []),
    ...(t.action ? [{ type: "action", step: t.step, tool: t.action.tool, args: t.action.args }] : []),
    t.outcome === "final"
      ? { type: "finalAnswer", step: t.step, answer: t.observation, success: true }
      : { type: "observation", step: t.step, outcome: t.outcome, text: t.observation },
  ]);
}

/**
 * Runs left `running` in the store with no worker behind them: resumed on their tab if it is still
 * open, abandoned (stored as interrupted) otherwise.
 */
async function resumeCutOff() {
  const reader = await Agent.create({
    model: { custom: () => Promise.reject(new Error("the host's reader agent only lists unfinished runs")) },
    session: SESSION,
  });
  try {
    for (const record of await reader.unfinishedRuns()) {
      const meta = readMeta(record.id);
      const tab = meta && (await toBackground({ type: "tab", tabId: meta.tabId }));
      if (!tab) {
        await reader.abandon(record.id);
        forgetMeta(record.id);
        continue;
      }
      const { turns } = await reader.exportRun(record.id);
      let agent;
      try {
        agent = await createAgent(meta.tabId, meta.model);
      } catch (e) {
        // Its model cannot start now (the server is down…): left unfinished, for the next host.
        console.error(`keel host: could not resume ${record.id}`, e);
        continue;
      }
      const handle = agent.resume(record.id);
      const events = [{ type: "runStarted", runId: record.id, task: meta.task }, ...replayed(turns)];
      const run = { runId: record.id, task: meta.task, tabId: meta.tabId, model: meta.model, events, status: "running", handle };
      run.restored = turns.length;
      follow(run, agent);
    }
  } finally {
    reader.dispose();
  }
}

function onPanelMessage(port, message) {
  switch (message?.type) {
    case "run":
      start(port, message);
      break;
    case "cancel":
      runs.get(message.runId)?.handle.cancel();
      break;
    default:
      port.postMessage({ type: "error", message: `unknown panel message ${JSON.stringify(message?.type)}` });
  }
}

// Registered before anything is awaited: the service worker's createDocument resolves once this
// document has loaded, and a panel connects right after.
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== "keel-panel") return;
  ports.add(port);
  port.onDisconnect.addListener(() => ports.delete(port));
  port.onMessage.addListener((message) => onPanelMessage(port, message));
  port.postMessage({ type: "hello", runs: [...runs.values()].map(view), lastEnded: lastEnded && view(lastEnded) });
});

resumeCutOff().catch((e) => console.error("keel host: could not resume the cut-off runs", e));
