// @ts-check
// The page side of keel: the Agent handle. It starts the engine's worker, runs the tools and the
// model (the custom function, or the Prompt API: on the web only the page has `LanguageModel`) when
// the worker asks, and streams each run's events back. The messages it posts and reads are typed
// with wire.d.ts, generated from the Rust protocol (src/web/protocol.rs), and checked by tsc
// (tests/e2e/tsconfig.js.json), so a field renamed on one side fails the build on the other.
import { openPromptApi } from "./backends/prompt-api.js";
import { checkSendable, describe, isPlainObject } from "./checks.js";
import { KeelErrorCode } from "./codes.js";
import { engineModule, handOver } from "./engine-module.js";
import { toRawFailure } from "./errors.js";
import { FailureLog, failureQuery } from "./failure-log.js";
import { fromRawFailure, KeelError } from "./keel-error.js";
import { Liveness } from "./liveness.js";
import { createOptions, modelChoice, pageModel, runOptions, toolSpec, usesPromptApi } from "./options.js";
import { pageRedaction, redactReply } from "./redact.js";
import { END, FAIL, PUSH, RunHandle, WAITS_ON } from "./run-handle.js";
import { preload, spawnWorker, takeSpare } from "./spare.js";
import { parseArgs } from "./tool-schema.js";
import { workerMessages } from "./worker-messages.js";

/** @typedef {import("./wire.js").PageMessage} PageMessage */
/** @typedef {import("./wire.js").WorkerMessage} WorkerMessage */
/** @typedef {import("./wire.js").ToolValue} ToolValue */
/** @typedef {import("./wire.js").ModelText} ModelText */
/** @typedef {import("./wire.js").ChatMessage} ChatMessage */
/** @typedef {import("./wire.js").NeedsApprovalValue} NeedsApprovalValue */
/**
 * The member of the message union `M` whose `type` is `T`.
 * @template {{ type: string }} M
 * @template {M["type"]} T
 * @typedef {Extract<M, { type: T }>} Message
 */
/** @typedef {"toolResult" | "modelResult" | "redactResult" | "needsApprovalResult"} ReplyType */
/**
 * What `#answer`'s work gives for a reply of type `T`: the reply's payload, a tool's value as the
 * JSON text it was written as.
 * @template {ReplyType} T
 * @typedef {T extends "toolResult" ? Omit<ToolValue, "value"> & { value: JsonText } : Omit<Extract<Message<PageMessage, T>, { ok: true }>, "type" | "id" | "ok">} Answer
 */
/**
 * A reply as `#postText` is given it: a page message, or a tool's result with its value as text.
 * @typedef {PageMessage | ({ type: "toolResult", id: number, ok: true } & Answer<"toolResult">)} Reply
 */
/**
 * A message without its `id`, member by member of a union: what `#request` is given.
 * @template M
 * @typedef {M extends unknown ? Omit<M, "id"> : never} WithoutId
 */

const CREATE = Symbol("keel.create");

function abortError(message) {
  return new DOMException(message, "AbortError");
}

/**
 * A tool's value as the JSON text the worker reads: written once, when the tool returns, and put
 * into the `toolResult` reply's text as it is (`#postText`); parsing it back and writing the reply
 * again cost as much once more (bench/results/steps.md).
 */
class JsonText {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
}

/**
 * A tool's value as the worker will read it: `undefined` becomes null; one JSON has no form for (a
 * cycle, a BigInt; a function or a symbol returned as the value) is refused here, naming it. Inside
 * the value, functions, symbols and `undefined` are left out as `JSON.stringify` leaves them.
 * @param {unknown} value
 * @returns {JsonText}
 */
function jsonText(value) {
  if (value === undefined) return new JsonText("null");
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new TypeError(`the tool returned a value that cannot be sent as JSON: ${/** @type {Error} */ (e).message}`);
  }
  if (text === undefined) throw new TypeError(`the tool returned ${describe(value)}, which cannot be sent as JSON`);
  return new JsonText(text);
}

/**
 * A copy of a JSON value (a schema the page keeps for a run's next calls): for the small trees a
 * step schema is, a walk costs a fraction of `structuredClone`.
 * @param {unknown} value
 * @returns {unknown}
 */
function copyJson(value) {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value === null || typeof value !== "object") return value;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const key of Object.keys(value)) {
    const item = copyJson(/** @type {Record<string, unknown>} */ (value)[key]);
    // An own `__proto__` (JSON.parse makes one) must stay a property, not become the prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
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
  /** Per run, per backend: the messages and schema of its last `modelCall`, which the next one builds on. */
  #prompts = new Map();
  #calls = new Map();
  #nextRun = 1;
  #queries = new Map();
  #nextQuery = 1;
  #disposed = false;
  #dead;
  #init;
  #liveness;
  #log = new FailureLog((message) => this.#post(message));

  constructor(token, worker, tools, custom, session, onError, promptApi, workerTimeoutMs) {
    if (token !== CREATE) throw new KeelError(KeelErrorCode.INVALID_CONFIG, "use `await Agent.create(options)`");
    this.#liveness = new Liveness(workerTimeoutMs, {
      waiting: () => this.#waiting(),
      ping: (message) => this.#post(message),
      dead: (quiet) =>
        this.#die(KeelErrorCode.WORKER_UNRESPONSIVE, `the worker has not answered for ${quiet} ms (workerTimeoutMs is ${workerTimeoutMs})`),
    });
    this.#promptApi = promptApi;
    this.#worker = worker;
    this.#tools = tools;
    this.#custom = custom;
    this.#session = session;
    this.#onError = onError;
    worker.addEventListener("message", (event) => {
      this.#liveness.heard();
      const read = workerMessages(event.data);
      if ("error" in read) return this.#die(KeelErrorCode.PROTOCOL_ERROR, read.error);
      for (const message of read.messages) {
        // One message's failure does not keep the rest of its batch from their handlers.
        try {
          this.#onMessage(message);
        } catch (e) {
          console.error("keel: handling a message from the worker failed", e);
        }
      }
    });
    worker.addEventListener("error", (event) => this.#onWorkerError(event));
    // A message from the worker that cannot be deserialized belongs to some request: which one
    // cannot be told, so everything waiting fails rather than wait forever.
    worker.addEventListener("messageerror", () =>
      this.#die(KeelErrorCode.PROTOCOL_ERROR, "a message from the worker could not be deserialized"),
    );
    // Whoever terminates the worker (this agent's owner included), what waits on it fails at once.
    const terminate = worker.terminate.bind(worker);
    worker.terminate = () => {
      terminate();
      this.#die(KeelErrorCode.WORKER_TERMINATED, "the worker was terminated");
    };
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
    // The engine's fetch and compile start first (engine-module.js; once per page, so a create
    // that fails on its options leaves the module to the next), and run while the options are
    // read, the model is loaded or checked, and the worker starts.
    const module = engineModule();
    const { tools, session, worker, onError, workerTimeoutMs } = createOptions(options);
    const specs = tools.map(toolSpec);
    const { config, hook } = pageRedaction(options.config);
    checkSendable(config, "config");
    const owned = [];
    let choice;
    let custom;
    try {
      ({ choice, custom } = modelChoice(await pageModel(options.model, owned)));
    } catch (e) {
      for (const fn of owned) fn.dispose();
      throw KeelError.isInstance(e) ? e : fromRawFailure(toRawFailure(e));
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
    // The spare `Agent.preload()` started for this worker script, once warm; none if it failed
    // (its `ready` said why) or there is none: then this agent starts its own.
    const taken = worker instanceof Worker ? undefined : takeSpare(worker, workerTimeoutMs);
    const adopted = taken && (await taken);
    const spawned = adopted ?? (worker instanceof Worker ? worker : spawnWorker(worker));
    const agent = new Agent(CREATE, spawned, byName, custom, session, onError, promptApi, workerTimeoutMs);
    agent.#owned = owned;
    agent.#redact = hook;
    try {
      // A spare has the module already.
      await agent.#start({ type: "init", tools: specs, model: choice, config }, adopted ? undefined : module);
    } catch (e) {
      agent.dispose();
      throw e;
    }
    return agent;
  }

  /**
   * Starts keel's engine ahead of `Agent.create`, for a page that will create an agent soon: fetches
   * and compiles the wasm and starts one spare worker that loads the engine and runs its `init`
   * work once, with no store, tools or config. The next `Agent.create` for the same worker script
   * adopts the spare instead of starting a worker. Returns `{ ready, terminate }`: `ready` resolves
   * once the spare is warm and rejects with a KeelError if it failed (the agent then starts its
   * own worker); `terminate()` ends an unused spare. Calling it again returns the same spare.
   *
   * ```js
   * Agent.preload(); // at page load
   * // … later, the user opens the assistant:
   * const agent = await Agent.create({ model, tools });
   * ```
   */
  static preload(options = {}) {
    return preload(options);
  }

  /**
   * Hands the worker the page's compiled wasm (or null: the worker then loads its own) once
   * `module` settles, then `init`; resolves on `ready`. The worker answers pings meanwhile. An
   * adopted spare (no `module`) has its wasm: it gets `init` at once.
   * @param {Message<PageMessage, "init">} message
   * @param {Promise<WebAssembly.Module | null> | undefined} module
   */
  #start(message, module) {
    return new Promise((resolve, reject) => {
      this.#init = { resolve, reject };
      this.#watch();
      if (module === undefined) return this.#send(message, reject);
      module.then((compiled) => {
        if (!this.#disposed && !this.#dead) handOver(this.#worker, compiled);
        this.#send(message, reject);
      });
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
  run(task, options = {}) {
    if (typeof task !== "string") throw new KeelError(KeelErrorCode.INVALID_CONFIG, `agent.run: \`task\` must be a string; got ${describe(task)}`);
    const { signal, session, onEvent } = runOptions(options, "agent.run");
    if (session !== undefined && typeof session !== "string") {
      throw new KeelError(KeelErrorCode.INVALID_CONFIG, `agent.run: \`session\` must be a string; got ${describe(session)}`);
    }
    const runId = `run-${this.#nextRun++}-${Math.random().toString(36).slice(2, 8)}`;
    return this.#launch({ type: "run", runId, task, session: session ?? this.#session }, signal, onEvent);
  }

  /**
   * The runs left `running` in the store and live nowhere: cut off by `worker.terminate()`, a
   * reload or a crash, and not resumed. A run under way is left out: this agent's own, and with
   * IndexedDB one in any tab or worker of this origin, which holds its Web Lock `keel:run:<id>`
   * (a memory store is this worker's alone). Each is a RunRecord
   * (`id`, `session`, `task`, `counts.steps` committed…).
   */
  unfinishedRuns() {
    return this.#request({ type: "unfinishedRuns" });
  }

  /**
   * Continues a cut-off run (an id from `unfinishedRuns()`) from its last committed step, under the
   * same id: a RunHandle like `run()`'s. A run still live (its run lock is held, in another tab,
   * another worker or this agent) is refused at once: `result` rejects with a KeelError,
   * code `RUN_LIVE`. Otherwise it waits for the session's lock, and a run that another tab ended
   * meanwhile fails with code `RUN_FINISHED`.
   */
  resume(runId, options = {}) {
    const { signal, onEvent } = runOptions(options, "agent.resume", ["signal", "onEvent"]);
    return this.#launch({ type: "run", runId: String(runId), task: "", resume: "continue" }, signal, onEvent);
  }

  /**
   * The calls waiting for the user's approval (tools declared `needsApproval`), oldest run first:
   * those a run of this agent waits on now (`live: true`) and those stored on runs cut off while
   * they waited (a reload, a closed tab; `live: false`). Each has `callId`, `runId`, `session`,
   * `task`, `step`, `tool`, `args` (as stored: redacted when the store redacts, then
   * `argsRedacted` is true), `thought` and `requestedMs`.
   *
   * ```js
   * for (const { callId, tool, args } of await agent.pendingApprovals()) render(callId, tool, args);
   * ```
   */
  pendingApprovals() {
    return this.#request({ type: "pendingApprovals" });
  }

  /**
   * Approves a waiting call (a `callId` from `pendingApprovals()` or an `approvalRequested`
   * event) and returns the RunHandle of its run: the live one if a run of this agent waits on it,
   * else the stored run resumed with the decision (after a reload), which runs the call without
   * asking the model again. A call no run waits on fails the handle's `result` with a KeelError:
   * `APPROVAL_NOT_PENDING` (or `RUN_NOT_FOUND`, `RUN_FINISHED`).
   *
   * ```js
   * const [waiting] = await agent.pendingApprovals();
   * const { answer } = await agent.approve(waiting.callId).result;
   * ```
   */
  approve(callId, options = {}) {
    return this.#decideOrResume("agent.approve", callId, { approved: true }, options);
  }

  /** Rejects a waiting call, like `approve`: the model is told `reason` and goes on without it. */
  reject(callId, reason, options = {}) {
    return this.#decideOrResume("agent.reject", callId, { approved: false, reason }, options);
  }

  #decideOrResume(where, callId, decision, options) {
    checkDecision(where, callId, decision.reason);
    const { signal, onEvent } = runOptions(options, where, ["signal", "onEvent"]);
    for (const handle of this.#runs.values()) {
      if (handle[WAITS_ON](callId)) {
        // It waits on the call, so the worker takes the decision; lost only to a race with the
        // run's end, which the handle's result then tells.
        this.#decide(callId, decision.approved, decision.reason).catch((error) => console.warn(`keel: ${error.message}`));
        return handle;
      }
    }
    // `<run>:<step>`: the run is everything before the last colon.
    const runId = callId.includes(":") ? callId.slice(0, callId.lastIndexOf(":")) : callId;
    /** @type {Message<PageMessage, "run">} */
    const message = { type: "run", runId, task: "", resume: "continue", decision: { callId, ...decision } };
    return this.#launch(message, signal, onEvent);
  }

  /**
   * Tells the worker the user's decision on a call a live run waits on.
   * @param {string} callId
   * @param {boolean} approved
   * @param {string} [reason]
   */
  #decide(callId, approved, reason) {
    try {
      checkDecision(approved ? "run.approve" : "run.reject", callId, reason);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#request({ type: "decide", callId, approved, ...(reason === undefined ? {} : { reason }) });
  }

  /**
   * A request the worker answers with a message carrying the same id (`error` when it failed).
   * @param {WithoutId<Message<PageMessage, "decide" | "pendingApprovals" | "unfinishedRuns">>} message
   */
  #request(message) {
    if (this.#disposed) return Promise.reject(new KeelError(KeelErrorCode.AGENT_DISPOSED, "the agent was disposed"));
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextQuery++;
    return new Promise((resolve, reject) => {
      this.#queries.set(id, { resolve, reject });
      this.#send({ ...message, id }, (error) => {
        this.#queries.delete(id);
        reject(error);
      });
      this.#watch();
    });
  }

  /**
   * Gives up a cut-off run: it is stored as `interrupted` with its committed steps. Resolves with
   * its RunResult; a live run is refused like `resume` (code `RUN_LIVE`).
   */
  abandon(runId) {
    return this.#launch({ type: "run", runId: String(runId), task: "", resume: "abandon" }).result;
  }

  /**
   * @param {Message<PageMessage, "run">} message
   * @param {AbortSignal} [signal]
   * @param {(event: import("./wire.js").AgentEvent) => void} [onEvent]
   */
  #launch(message, signal, onEvent) {
    if (this.#disposed) throw new KeelError(KeelErrorCode.AGENT_DISPOSED, "the agent was disposed");
    const { runId } = message;
    const cancel = () => this.#post({ type: "cancel", runId });
    const handle = new RunHandle(runId, onEvent, cancel, (callId, approved, reason) => this.#decide(callId, approved, reason));
    if (this.#dead) {
      handle[FAIL](this.#dead);
      return handle;
    }
    this.#runs.set(runId, handle);
    this.#send(message, (error) => {
      this.#runs.delete(runId);
      handle[FAIL](error);
    });
    this.#watch();
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

  /**
   * A session's conversation, oldest first: one entry per run with what was asked (`task`), what
   * came back (`answer`), its `status`, times and steps. The next run in the session remembers
   * the same exchanges; `clearSession` forgets them.
   *
   * ```js
   * for (const { task, answer, status } of await agent.history("support")) render(task, answer, status);
   * ```
   */
  history(session = this.#session) {
    return this.#ask(() => ({ kind: "history", session: String(session) }));
  }

  /** Deletes a session's runs, turns and failures; resolves with what went. `await agent.clearSession("support")` */
  clearSession(session = this.#session) {
    return this.#ask(() => ({ kind: "clearSession", session: String(session) }));
  }

  /** Applies the store's retention policy now; resolves with what went. `await agent.applyRetention()` */
  applyRetention() {
    return this.#ask(() => ({ kind: "applyRetention" }));
  }

  /**
   * Builds the query (a bad one rejects) and asks the worker.
   * @param {() => import("./wire.js").StoreQuery} build
   */
  async #ask(build) {
    if (this.#disposed) throw new KeelError(KeelErrorCode.AGENT_DISPOSED, "the agent was disposed");
    if (this.#dead) throw this.#dead;
    const asked = this.#log.ask(build());
    this.#watch();
    return asked;
  }

  /** Cancels every run, aborts every call under way and terminates the worker. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      /** @type {PageMessage} */
      const dispose = { type: "dispose" };
      this.#worker.postMessage(dispose);
    } catch {
      // A worker that failed to start cannot be told; terminating it is enough.
    }
    this.#liveness.stop();
    this.#dead ??= new KeelError(KeelErrorCode.AGENT_DISPOSED, "the agent was disposed");
    this.#worker.terminate();
    this.#promptApi?.dispose();
    for (const fn of this.#owned) fn.dispose();
    for (const controller of this.#calls.values()) controller.abort(abortError("the agent was disposed"));
    this.#calls.clear();
    this.#failAll(abortError("the agent was disposed"));
  }

  /** @param {PageMessage} message */
  #post(message) {
    if (!this.#disposed && !this.#dead) this.#worker.postMessage(message);
  }

  /**
   * Posts a request; if it cannot be posted (a value structured clone refuses), `fail` gets why.
   * @param {PageMessage} message
   * @param {(error: KeelError) => void} fail
   */
  #send(message, fail) {
    try {
      this.#post(message);
    } catch (e) {
      const thrown = /** @type {{ message?: string, name?: string } | undefined} */ (e);
      const why = `keel could not send the \`${message.type}\` message to its worker: ${thrown?.message ?? e}`;
      const runId = "runId" in message ? message.runId : undefined;
      fail(new KeelError(KeelErrorCode.INVALID_CONFIG, why, { sourceName: thrown?.name, cause: e, runId }));
    }
  }

  #watch() {
    if (!this.#disposed && !this.#dead) this.#liveness.watch();
  }

  // Whether anything waits on the worker.
  #waiting() {
    return this.#init !== undefined || this.#runs.size > 0 || this.#queries.size > 0 || this.#log.size > 0;
  }

  // The worker is gone or useless: everything waiting fails with `code`, later calls too.
  #die(code, message) {
    if (this.#dead || this.#disposed) return;
    const error = new KeelError(code, `keel: ${message}; what was waiting on it has failed`);
    this.#dead = error;
    this.#liveness.stop();
    for (const controller of this.#calls.values()) controller.abort(error);
    this.#calls.clear();
    this.#failAll(error);
    try {
      this.#worker.terminate();
    } catch {
      // Already gone.
    }
  }

  #failAll(error) {
    this.#init?.reject(error);
    this.#init = undefined;
    for (const run of this.#runs.values()) run[FAIL](error);
    this.#runs.clear();
    this.#prompts.clear();
    this.#log.failAll(error);
    for (const query of this.#queries.values()) query.reject(error);
    this.#queries.clear();
  }

  #onWorkerError(event) {
    const detail = event.message || "the worker script failed to load (check that worker.js and keel_bg.wasm are served)";
    this.#die(KeelErrorCode.WORKER_FAILED, `worker error: ${detail}`);
  }

  /** @param {WorkerMessage} message */
  #onMessage(message) {
    switch (message?.type) {
      case "ready":
        for (const warning of message.warnings ?? []) console.warn(`keel: ${warning}`);
        this.#init?.resolve();
        this.#init = undefined;
        break;
      case "pong":
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
        this.#prompts.delete(message.runId);
        break;
      case "runFailed":
        this.#runs.get(message.runId)?.[FAIL](fromRawFailure(message.error, { runId: message.runId }));
        this.#runs.delete(message.runId);
        this.#prompts.delete(message.runId);
        break;
      case "queryResult":
        this.#log.settle(message);
        break;
      // The answers to `#request`, by the id it sent.
      case "unfinishedRuns":
      case "pendingApprovals":
      case "decided": {
        const query = this.#queries.get(message.id);
        this.#queries.delete(message.id);
        if (message.error) query?.reject(fromRawFailure(message.error));
        else if (message.type === "unfinishedRuns") query?.resolve(message.runs);
        else if (message.type === "pendingApprovals") query?.resolve(message.approvals);
        else query?.resolve(undefined);
        break;
      }
      case "needsApproval":
        this.#answer(message.id, "needsApprovalResult", () => this.#needsApproval(message));
        break;
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

  /**
   * Runs `work` with an AbortController the worker can abort, and posts its reply unless aborted.
   * @template {ReplyType} T
   * @param {number} id
   * @param {T} type
   * @param {(ctx: { signal: AbortSignal }) => Promise<Answer<T>>} work
   */
  async #answer(id, type, work) {
    const controller = new AbortController();
    this.#calls.set(id, controller);
    /** @type {Reply} */
    let reply;
    try {
      const answer = await work({ signal: controller.signal });
      // `Answer<T>` is the payload of `T`'s reply; tsc cannot follow that through the generic.
      reply = /** @type {Reply} */ (/** @type {unknown} */ ({ type, id, ok: true, ...answer }));
    } catch (e) {
      reply = /** @type {Message<PageMessage, T>} */ ({ type, id, ok: false, error: toRawFailure(e) });
    }
    // An aborted call's worker no longer waits for it.
    if (this.#calls.get(id) !== controller) return;
    this.#calls.delete(id);
    try {
      this.#postText(reply);
    } catch (e) {
      this.#postText(/** @type {Message<PageMessage, T>} */ ({ type, id, ok: false, error: toRawFailure(e) }));
    }
  }

  /**
   * Posts a reply as JSON text, which the worker reads as it is: an object would be cloned here,
   * rebuilt in the worker and written there as JSON again for the engine (src/web/worker.rs). A
   * tool's value, already text, goes in as it is, after the reply's other keys.
   * @param {Reply} message
   */
  #postText(message) {
    if (this.#disposed || this.#dead) return;
    const value = "value" in message ? message.value : undefined;
    const text =
      value instanceof JsonText
        ? `${JSON.stringify({ ...message, value: undefined }).slice(0, -1)},"value":${value.text}}`
        : JSON.stringify(message);
    this.#worker.postMessage(text);
  }

  /**
   * @param {Message<WorkerMessage, "toolCall">} call
   * @param {{ signal: AbortSignal }} ctx
   * @returns {Promise<Answer<"toolResult">>}
   */
  async #callTool({ tool: name, args, attempt, timeoutMs, runId, idempotencyKey }, { signal }) {
    const tool = this.#tools.get(name);
    if (!tool) throw new ToolMissing(name);
    /** @type {string[]} */
    const warnings = [];
    const warn = (message) => warnings.push(String(message));
    let lists = false;
    const listed = () => {
      lists = true;
    };
    const value = await tool.execute(await parseArgs(tool, args), { signal, attempt, timeoutMs, runId, idempotencyKey, warn, listed });
    return { value: jsonText(value), warnings, lists };
  }

  /**
   * A `needsApproval` function's answer for one call: it gets the arguments as `execute` would.
   * @param {Message<WorkerMessage, "needsApproval">} call
   * @returns {Promise<NeedsApprovalValue>}
   */
  async #needsApproval({ tool: name, args, runId }) {
    const tool = this.#tools.get(name);
    if (!tool) throw new ToolMissing(name);
    const needed = await tool.needsApproval(await parseArgs(tool, args), { runId });
    if (typeof needed !== "boolean") {
      throw new TypeError(`\`${name}\`'s needsApproval returned ${describe(needed)}: expected true or false`);
    }
    return { needsApproval: needed };
  }

  /**
   * A call's whole prompt from what its `modelCall` carries (`tail`) and the run's previous call
   * to `backend`: that call's first `keep` messages; the first carried message (with `edit`, the
   * middle of the previous call's message at `keep`); `again` messages of the previous call from
   * `keep + 1 + skip` on; the rest carried. Its schema is the one carried, or with `sameSchema`
   * the previous call's. Kept for the next call; the backend gets its own copy.
   * @param {string} runId
   * @param {string} backend
   * @param {{ keep: number, edit: import("./wire.js").Edit | undefined, again: number, skip: number, sameSchema: boolean }} delta
   * @param {ChatMessage[]} tail
   * @param {unknown} carried the schema carried, null for none
   * @returns {{ messages: ChatMessage[], schema: unknown }}
   */
  #prompt(runId, backend, { keep, edit, again, skip, sameSchema }, tail, carried) {
    let byBackend = this.#prompts.get(runId);
    if (!byBackend) this.#prompts.set(runId, (byBackend = new Map()));
    const last = byBackend.get(backend);
    const before = last?.messages ?? [];
    if (sameSchema && (last?.schema ?? null) === null) {
      throw new KeelError(KeelErrorCode.PROTOCOL_ERROR, "a modelCall reuses the schema of a call that had none");
    }
    const schema = sameSchema ? last?.schema : carried;
    const reused = keep + (edit || again ? 1 + skip + again : 0);
    if (reused > before.length || ((edit || again) && tail.length === 0)) {
      throw new KeelError(KeelErrorCode.PROTOCOL_ERROR, `a modelCall reuses ${reused} messages of a prompt of ${before.length}`);
    }
    let first = tail[0];
    if (edit) {
      const old = before[keep].content;
      const span = edit.span;
      if (span && !(span.from <= span.to && span.to <= old.length && span.at <= first.content.length)) {
        throw new KeelError(KeelErrorCode.PROTOCOL_ERROR, `a modelCall's edit keeps units ${span.from}..${span.to} of a message of ${old.length}`);
      }
      const middle = span ? first.content.slice(0, span.at) + old.slice(span.from, span.to) + first.content.slice(span.at) : first.content;
      first = { role: first.role, content: old.slice(0, edit.head) + middle + old.slice(old.length - edit.tail) };
    }
    const reusedAgain = before.slice(keep + 1 + skip, keep + 1 + skip + again);
    const messages = tail.length === 0 ? before.slice(0, keep) : before.slice(0, keep).concat([first], reusedAgain, tail.slice(1));
    // The backend's schema is its own, as its messages are: what it does with it cannot change
    // the next call's.
    byBackend.set(backend, { messages, schema: sameSchema ? schema : copyJson(carried) });
    return { messages: messages.map((m) => ({ role: m.role, content: m.content })), schema: sameSchema ? copyJson(schema) : carried };
  }

  /**
   * @param {Message<WorkerMessage, "modelCall">} call
   * @param {{ signal: AbortSignal }} ctx
   * @returns {Promise<ModelText>}
   */
  async #callModel({ id, request, runId, backend, stream, keep, edit, again, skip, sameSchema }, { signal }) {
    // Before any await: the next call of the run builds on these messages and this schema.
    const delta = { keep: keep ?? 0, edit, again: again ?? 0, skip: skip ?? 0, sameSchema: sameSchema ?? false };
    const { messages, schema } = this.#prompt(runId, backend, delta, request.messages, request.schema);
    // A streaming call's text goes to the worker as it comes, one message per chunk the backend
    // gives; the worker turns it into the run's `token` and `answerDelta` events.
    const onText = stream
      ? (text) => {
          if (typeof text !== "string") {
            throw new TypeError(`onText takes the next piece of the reply as a string; got ${describe(text)}`);
          }
          if (!signal.aborted && text !== "") this.#post({ type: "modelChunk", id, text });
        }
      : undefined;
    if (backend === "promptApi") {
      if (!this.#promptApi) throw new ToolMissing("the Prompt API backend");
      // Download progress is the run's event, shaped as the engine's `modelDownload`.
      const onDownload = ({ loaded, total }) =>
        this.#runs.get(runId)?.[PUSH]({ type: "modelDownload", loaded, total: total ?? null });
      return this.#promptApi.complete(messages, { schema: schema ?? undefined, signal, onDownload, onText });
    }
    if (!this.#custom) throw new ToolMissing("the custom model");
    const options = { schema: schema ?? undefined, signal, runId, maxTokens: request.maxTokens };
    if (onText) options.onText = onText;
    const out = await this.#custom(messages, options);
    if (typeof out === "string") return { text: out };
    if (!isPlainObject(out) || typeof out.text !== "string") {
      const what = isPlainObject(out) ? `an object whose \`text\` is ${describe(out.text)}` : describe(out);
      throw new TypeError(`the custom model returned ${what}: expected the text it wrote (a string, or { text, usage })`);
    }
    if (out.usage === undefined || out.usage === null) return { text: out.text };
    const { promptTokens, completionTokens } = out.usage;
    for (const [key, n] of [["promptTokens", promptTokens], ["completionTokens", completionTokens]]) {
      if (!Number.isSafeInteger(n) || n < 0) {
        throw new TypeError(`the custom model's usage.${key} is ${describe(n)}: expected a whole number of tokens, 0 or more (or leave usage out)`);
      }
    }
    return { text: out.text, usage: { promptTokens, completionTokens } };
  }
}

function checkDecision(where, callId, reason) {
  if (typeof callId !== "string" || callId === "") {
    throw new KeelError(KeelErrorCode.INVALID_CONFIG, `${where}: \`callId\` must be the call's id (an \`approvalRequested\` event's \`callId\`); got ${describe(callId)}`);
  }
  if (reason !== undefined && typeof reason !== "string") {
    throw new KeelError(KeelErrorCode.INVALID_CONFIG, `${where}: \`reason\` must be a string; got ${describe(reason)}`);
  }
}

class ToolMissing extends Error {
  constructor(what) {
    super(`${what} is not registered on the page`);
    this.name = "NotFoundError";
  }
}
