// The page side of keel: the Agent handle. It starts the engine's worker, runs the tools and the
// model (the custom function, or the Prompt API: on the web only the page has `LanguageModel`) when
// the worker asks, and streams each run's events back.
import { openPromptApi } from "./backends/prompt-api.js";
import { fromRawFailure, toRawFailure } from "./errors.js";
import { FailureLog, failureQuery } from "./failure-log.js";
import { pageBackend } from "./page-backends.js";
import { pageRedaction, redactReply } from "./redact.js";
import { END, FAIL, PUSH, RunHandle } from "./run-handle.js";

const CREATE = Symbol("keel.create");

function abortError(message) {
  return new DOMException(message, "AbortError");
}

/** The model option as the worker's `ModelChoice`; a custom function stays on the page. */
function modelChoice(model) {
  if (typeof model === "function") return { choice: { kind: "custom" }, custom: model };
  if (model === "prompt-api" || model === "promptApi") return { choice: { kind: "promptApi" } };
  if (Array.isArray(model)) {
    const links = model.map(modelChoice);
    const customs = new Set(links.map((l) => l.custom).filter(Boolean));
    if (customs.size > 1) throw new TypeError("Agent.create: a model fallback chain takes at most one custom function");
    return { choice: { kind: "fallback", chain: links.map((l) => l.choice) }, custom: [...customs][0] };
  }
  if (model && typeof model === "object") {
    if (typeof model.custom === "function") return { choice: { kind: "custom" }, custom: model.custom };
    if (model.openai) return { choice: { kind: "openai", ...model.openai } };
  }
  throw new TypeError(
    "Agent.create: `model` must be { custom: async (messages, { schema, signal }) => text } " +
      '(or "prompt-api", { openai }, { wllama }, or an array of these)',
  );
}

/** Whether a model choice, or any member of its chain, is the Prompt API. */
function usesPromptApi(choice) {
  return choice.kind === "promptApi" || (choice.kind === "fallback" && choice.chain.some(usesPromptApi));
}

/**
 * Backends that run on the page become custom functions before the worker hears of them:
 * `{ wllama: options }` once keel-agent/wllama is imported. The model is loaded here, so a failed
 * download fails `create`; the functions made are pushed to `owned`, for the agent to dispose.
 */
async function pageModel(model, owned) {
  if (Array.isArray(model)) return Promise.all(model.map((m) => pageModel(m, owned)));
  if (!model || typeof model !== "object" || !model.wllama) return model;
  const factory = pageBackend("wllama");
  if (!factory) {
    const error = new Error(
      'the wllama backend is not loaded: `import "keel-agent/wllama"` first (it needs the @wllama/wllama package)',
    );
    throw Object.assign(error, { name: "NotSupportedError", code: "MODEL_UNAVAILABLE" });
  }
  const fn = factory(model.wllama);
  owned.push(fn);
  await fn.load();
  return { custom: fn };
}

function toolSpec(tool) {
  if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function") {
    throw new TypeError("Agent.create: each tool needs a `name` and an `execute(args, { signal })` function");
  }
  const { name, description = "", inputSchema = { type: "object" }, timeoutMs, maxAttempts, refsFrom, readOnly, recoverWith } =
    tool;
  return { name, description, inputSchema, timeoutMs, maxAttempts, refsFrom, readOnly, recoverWith };
}

// What the worker can read: JSON. `undefined` becomes null.
function jsonValue(value) {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch (e) {
    throw new TypeError(`the tool returned a value that cannot be sent as JSON: ${e.message}`);
  }
}

/**
 * An agent whose engine runs in a dedicated worker. Create it with `Agent.create`, run tasks with
 * `run`, and `dispose()` it when done.
 */
export class Agent {
  #worker;
  #tools;
  #custom;
  #owned = [];
  #redact;
  #session;
  #onError;
  #promptApi;
  #runs = new Map();
  #calls = new Map();
  #nextRun = 1;
  #queries = new Map();
  #nextQuery = 1;
  #disposed = false;
  #init;
  #log = new FailureLog((message) => this.#post(message));

  constructor(token, worker, tools, custom, session, onError, promptApi) {
    if (token !== CREATE) throw new TypeError("use `await Agent.create(options)`");
    this.#promptApi = promptApi;
    this.#worker = worker;
    this.#tools = tools;
    this.#custom = custom;
    this.#session = session;
    this.#onError = onError;
    worker.addEventListener("message", (event) => this.#onMessage(event.data));
    worker.addEventListener("error", (event) => this.#onWorkerError(event));
  }

  /**
   * Starts the engine's worker and builds the agent.
   *
   * ```js
   * const agent = await Agent.create({
   *   model: { custom: async (messages, { schema, signal }) => myModel(messages, schema, signal) },
   *   tools: [{ name: "get_weather", description: "Weather for a city.",
   *             inputSchema: { type: "object", properties: { city: { type: "string" } } },
   *             execute: async ({ city }, { signal }) => (await fetch(url(city), { signal })).json() }],
   * });
   * ```
   */
  static async create(options = {}) {
    const { tools = [], session = "default", worker, onError } = options;
    const specs = tools.map(toolSpec);
    const { config, hook } = pageRedaction(options.config);
    const owned = [];
    let choice;
    let custom;
    try {
      ({ choice, custom } = modelChoice(await pageModel(options.model, owned)));
    } catch (e) {
      for (const fn of owned) fn.dispose();
      throw e;
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    // Checked here first, so an unavailable model fails fast with no worker started. A worker that
    // has `LanguageModel` itself (Chrome extensions) calls it directly and leaves this one idle.
    // In a fallback chain an unavailable Prompt API is not fatal: its calls fail with why, and the
    // chain moves on to its next backend.
    let promptApi;
    if (choice.kind === "promptApi") {
      try {
        promptApi = await openPromptApi();
      } catch (e) {
        throw fromRawFailure(toRawFailure(e));
      }
    } else if (choice.kind === "fallback" && usesPromptApi(choice)) {
      promptApi = await openPromptApi().catch((e) => ({
        complete: () => Promise.reject(e),
        dispose: () => {},
      }));
    }
    // `new Worker(new URL("./worker.js", import.meta.url), …)` spelt out literally: bundlers
    // (Vite, webpack, Parcel) recognise only this form, and then bundle the worker and its wasm.
    const spawned =
      worker instanceof Worker
        ? worker
        : worker
          ? new Worker(worker, { type: "module", name: "keel" })
          : new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "keel" });
    const agent = new Agent(CREATE, spawned, byName, custom, session, onError, promptApi);
    agent.#owned = owned;
    agent.#redact = hook;
    try {
      await agent.#start({ type: "init", tools: specs, model: choice, config });
    } catch (e) {
      agent.dispose();
      throw e;
    }
    return agent;
  }

  #start(message) {
    return new Promise((resolve, reject) => {
      this.#init = { resolve, reject };
      this.#post(message);
    });
  }

  /**
   * Runs a task. Returns at once with a RunHandle: iterate it for the events, await its
   * `result` for the RunResult.
   *
   * ```js
   * const run = agent.run("What's the weather in Paris?", { signal });
   * for await (const event of run) console.log(event.type, event);
   * const { answer, success } = await run.result;
   * ```
   */
  run(task, { signal, session, onEvent } = {}) {
    const runId = `run-${this.#nextRun++}-${Math.random().toString(36).slice(2, 8)}`;
    return this.#launch({ type: "run", runId, task: String(task), session: session ?? this.#session }, signal, onEvent);
  }

  /**
   * The runs left `running` in the store and live nowhere: cut off by `worker.terminate()`, a
   * reload or a crash, and not resumed. A run under way in any tab or worker of this origin
   * (this agent's included) holds its Web Lock `keel:run:<id>` and is left out. Each is a RunRecord
   * (`id`, `session`, `task`, `counts.steps` committed…).
   */
  unfinishedRuns() {
    if (this.#disposed) return Promise.reject(new DOMException("the agent was disposed", "InvalidStateError"));
    const id = this.#nextQuery++;
    return new Promise((resolve, reject) => {
      this.#queries.set(id, { resolve, reject });
      this.#post({ type: "unfinishedRuns", id });
    });
  }

  /**
   * Continues a cut-off run (an id from `unfinishedRuns()`) from its last committed step, under the
   * same id: a RunHandle like `run()`'s. A run still live (its run lock is held, in another tab,
   * another worker or this agent) is refused at once: `result` rejects with an InvalidStateError,
   * code `RUN_LIVE`. Otherwise it waits for the session's lock, and a run that another tab ended
   * meanwhile fails with code `RUN_FINISHED`.
   */
  resume(runId, { signal, onEvent } = {}) {
    return this.#launch({ type: "run", runId: String(runId), task: "", resume: "continue" }, signal, onEvent);
  }

  /**
   * Gives up a cut-off run: it is stored as `interrupted` with its committed steps. Resolves with
   * its RunResult; a live run is refused like `resume` (code `RUN_LIVE`).
   */
  abandon(runId) {
    return this.#launch({ type: "run", runId: String(runId), task: "", resume: "abandon" }).result;
  }

  #launch(message, signal, onEvent) {
    if (this.#disposed) throw new DOMException("the agent was disposed", "InvalidStateError");
    const { runId } = message;
    const cancel = () => this.#post({ type: "cancel", runId });
    const handle = new RunHandle(runId, onEvent, cancel);
    this.#runs.set(runId, handle);
    this.#post(message);
    if (signal) {
      if (signal.aborted) cancel();
      else {
        signal.addEventListener("abort", cancel, { once: true });
        const detach = () => signal.removeEventListener("abort", cancel);
        handle.result.then(detach, detach);
      }
    }
    return handle;
  }

  /**
   * The failure log: failures the store kept, newest first (`order: "oldest"` for the reverse),
   * filtered by every field given. `since` is inclusive, `until` exclusive (Dates or ms).
   *
   * ```js
   * const timeouts = await agent.failures({ session: "support", code: "TIMEOUT", limit: 50 });
   * ```
   */
  failures(query = {}) {
    return this.#ask(() => ({ kind: "failures", ...failureQuery(query) }));
  }

  /**
   * Stats over the failures a query selects (its `limit` ignored): faults, retried, recovered and
   * the recovery rate, in total, by tool and by code.
   *
   * ```js
   * const { totals, byTool } = await agent.failureStats({ since: Date.now() - 86_400_000 });
   * console.log(totals.recoveryRate, byTool.get_weather?.faults);
   * ```
   */
  failureStats(query = {}) {
    return this.#ask(() => ({ kind: "stats", ...failureQuery(query) }));
  }

  /** One run as JSON: its record, its turns in order and its failures. `await agent.exportRun(run.runId)` */
  exportRun(runId) {
    return this.#ask(() => ({ kind: "exportRun", runId: String(runId) }));
  }

  /**
   * One run as OpenTelemetry spans (OTLP/JSON: run → step → tool call, failures as span events),
   * ready to POST to a collector's `/v1/traces`. `{resourceSpans: []}` for an unknown run.
   *
   * ```js
   * await fetch("http://localhost:4318/v1/traces", {
   *   method: "POST", headers: { "content-type": "application/json" },
   *   body: JSON.stringify(await agent.exportRunOtlp(run.runId)),
   * });
   * ```
   */
  exportRunOtlp(runId) {
    return this.#ask(() => ({ kind: "exportRunOtlp", runId: String(runId) }));
  }

  /** A whole session as JSON: its record, runs, turns and failures. `await agent.exportSession("support")` */
  exportSession(session = this.#session) {
    return this.#ask(() => ({ kind: "exportSession", session: String(session) }));
  }

  /** Deletes a session's runs, turns and failures; resolves with what went. `await agent.clearSession("support")` */
  clearSession(session = this.#session) {
    return this.#ask(() => ({ kind: "clearSession", session: String(session) }));
  }

  /** Applies the store's retention policy now; resolves with what went. `await agent.applyRetention()` */
  applyRetention() {
    return this.#ask(() => ({ kind: "applyRetention" }));
  }

  // Builds the query (a bad one rejects) and asks the worker.
  async #ask(build) {
    if (this.#disposed) throw new DOMException("the agent was disposed", "InvalidStateError");
    return this.#log.ask(build());
  }

  /** Cancels every run, aborts every call under way and terminates the worker. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      this.#worker.postMessage({ type: "dispose" });
    } catch {
      // A worker that failed to start cannot be told; terminating it is enough.
    }
    this.#worker.terminate();
    this.#promptApi?.dispose();
    for (const fn of this.#owned) fn.dispose();
    for (const controller of this.#calls.values()) controller.abort(abortError("the agent was disposed"));
    this.#calls.clear();
    this.#failAll(abortError("the agent was disposed"));
  }

  #post(message) {
    if (!this.#disposed) this.#worker.postMessage(message);
  }

  #failAll(error) {
    this.#init?.reject(error);
    this.#init = undefined;
    for (const run of this.#runs.values()) run[FAIL](error);
    this.#runs.clear();
    this.#log.failAll(error);
    for (const query of this.#queries.values()) query.reject(error);
    this.#queries.clear();
  }

  #onWorkerError(event) {
    const detail = event.message || "the worker script failed to load (check that worker.js and keel_bg.wasm are served)";
    const error = new Error(`keel worker error: ${detail}`);
    error.name = "KeelWorkerError";
    this.#failAll(error);
  }

  #onMessage(message) {
    switch (message?.type) {
      case "ready":
        this.#init?.resolve();
        this.#init = undefined;
        break;
      case "initFailed":
        this.#init?.reject(fromRawFailure(message.error));
        this.#init = undefined;
        break;
      case "event":
        this.#runs.get(message.runId)?.[PUSH](message.event);
        break;
      case "runEnded":
        this.#runs.get(message.runId)?.[END](message.result);
        this.#runs.delete(message.runId);
        break;
      case "runFailed":
        this.#runs.get(message.runId)?.[FAIL](fromRawFailure(message.error));
        this.#runs.delete(message.runId);
        break;
      case "queryResult":
        this.#log.settle(message);
        break;
      case "unfinishedRuns": {
        const query = this.#queries.get(message.id);
        this.#queries.delete(message.id);
        if (message.error) query?.reject(fromRawFailure(message.error));
        else query?.resolve(message.runs);
        break;
      }
      case "toolCall":
        this.#answer(message.id, "toolResult", (ctx) => this.#callTool(message, ctx));
        break;
      case "modelCall":
        this.#answer(message.id, "modelResult", (ctx) => this.#callModel(message, ctx));
        break;
      case "redact":
        this.#answer(message.id, "redactResult", () => redactReply(this.#redact, message));
        break;
      case "toolAbort":
      case "modelAbort":
        this.#calls.get(message.id)?.abort(abortError("keel aborted the call: its timeout fired or its run was cancelled"));
        this.#calls.delete(message.id);
        break;
      case "error":
        if (this.#onError) this.#onError(fromRawFailure(message.error));
        else console.error("keel worker:", fromRawFailure(message.error));
        break;
      default:
        console.error("keel: unknown message from the worker", message);
    }
  }

  // Runs `work` with an AbortController the worker can abort, and posts its reply unless aborted.
  async #answer(id, type, work) {
    const controller = new AbortController();
    this.#calls.set(id, controller);
    let reply;
    try {
      reply = { type, id, ok: true, ...(await work({ signal: controller.signal })) };
    } catch (e) {
      reply = { type, id, ok: false, error: toRawFailure(e) };
    }
    // An aborted call's worker no longer waits for it.
    if (this.#calls.get(id) !== controller) return;
    this.#calls.delete(id);
    this.#post(reply);
  }

  async #callTool({ tool: name, args, attempt, timeoutMs, runId }, { signal }) {
    const tool = this.#tools.get(name);
    if (!tool) throw new ToolMissing(name);
    const warnings = [];
    const warn = (message) => warnings.push(String(message));
    const value = await tool.execute(args, { signal, attempt, timeoutMs, runId, warn });
    return { value: jsonValue(value), warnings };
  }

  async #callModel({ request, runId, backend }, { signal }) {
    if (backend === "promptApi") {
      if (!this.#promptApi) throw new ToolMissing("the Prompt API backend");
      // Download progress is the run's event, shaped as the engine's `modelDownload`.
      const onDownload = ({ loaded, total }) =>
        this.#runs.get(runId)?.[PUSH]({ type: "modelDownload", loaded, total: total ?? null });
      return this.#promptApi.complete(request.messages, { schema: request.schema ?? undefined, signal, onDownload });
    }
    if (!this.#custom) throw new ToolMissing("the custom model");
    const options = { schema: request.schema ?? undefined, signal, runId, maxTokens: request.maxTokens };
    const out = await this.#custom(request.messages, options);
    const text = typeof out === "string" ? out : out?.text;
    if (typeof text !== "string") {
      throw new TypeError("the custom model must return the text it wrote (a string, or { text, usage })");
    }
    const usage = out?.usage;
    return usage && Number.isInteger(usage.promptTokens) && Number.isInteger(usage.completionTokens)
      ? { text, usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens } }
      : { text };
  }
}

class ToolMissing extends Error {
  constructor(what) {
    super(`${what} is not registered on the page`);
    this.name = "NotFoundError";
  }
}
