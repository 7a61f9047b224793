// @ts-check
// The spare worker `Agent.preload()` starts at page load, before the app knows its agent: it
// fetches and compiles the wasm (engine-module.js), starts the worker, hands it the module and
// asks it to `warm` (the worker runs an `init`'s work once on throwaway input, src/web/host/warm.rs,
// so Chrome has compiled that code by the real `init`). The next `Agent.create` for the same worker
// script adopts it and sends its `init` straight away, instead of starting a worker.
//
// One spare at most, adopted by one agent: the slot empties when an agent takes it, when it fails,
// or when it is terminated, and the next `preload()` fills it again. A spare that fails is
// terminated and its `ready` rejects with why (never swallowed); the agent that would have taken it
// starts its own worker, whose own failure, if any, is the create's.
import { checkKeys, checkObject, describe } from "./checks.js";
import { KeelErrorCode } from "./codes.js";
import { engineModule, handOver } from "./engine-module.js";
import { fromRawFailure, KeelError } from "./keel-error.js";
import { Liveness } from "./liveness.js";
import { workerMessages } from "./worker-messages.js";

/** @typedef {import("./wire.js").PageMessage} PageMessage */
/** @typedef {import("./wire.js").WorkerMessage} WorkerMessage */

/**
 * A new worker for an agent: at `worker` (a URL of worker.js, for bundlers that relocate it), or
 * the package's own worker.js.
 * @param {URL | string | undefined} worker
 * @returns {Worker}
 */
export function spawnWorker(worker) {
  // `new Worker(new URL("./worker.js", import.meta.url), …)` spelt out literally: bundlers
  // (Vite, webpack, Parcel) recognise only this form, and then bundle the worker and its wasm.
  return worker
    ? new Worker(worker, { type: "module", name: "keel" })
    : new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "keel" });
}

/** Where a worker option points, as a key: "" for the package's own worker.js. */
function keyOf(/** @type {URL | string | undefined} */ worker) {
  return worker ? new URL(String(worker), globalThis.location?.href).href : "";
}

/** The spare, while no agent has taken it and it has not failed or been terminated. */
/** @type {Spare | undefined} */
let spare;
let unloadHooked = false;

class Spare {
  /** @type {Worker} */
  worker;
  key;
  /**
   * The handle `preload()` returns.
   * @type {{ readonly ready: Promise<void>, terminate(): void }}
   */
  handle;
  /** Resolves to the worker once warm, or to undefined once it failed (`ready` says why). */
  settled;
  /** @type {Liveness | undefined} */
  #liveness;
  #warm = false;
  #adopted = false;
  #ended = false;
  /** @type {() => void} */
  #settle = () => {};
  /** @type {(error: unknown) => void} */
  #fail = () => {};
  /** @type {{ message: (event: MessageEvent) => void, error: (event: Event) => void } | undefined} */
  #listeners;

  /**
   * @param {string} key
   * @param {URL | string | undefined} worker
   */
  constructor(key, worker) {
    this.key = key;
    /** @type {(worker: Worker | undefined) => void} */
    let settle = () => {};
    this.settled = new Promise((resolve) => (settle = resolve));
    /** @type {(value: void) => void} */
    let resolve = () => {};
    /** @type {(error: unknown) => void} */
    let reject = () => {};
    /** @type {Promise<void>} */
    const ready = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.#settle = () => {
      resolve();
      settle(this.worker);
    };
    this.#fail = (error) => {
      reject(error);
      settle(undefined);
    };
    const terminate = () => this.#end(new DOMException("the spare worker was terminated", "AbortError"));
    this.handle = Object.freeze({ ready, terminate });
    this.worker = spawnWorker(worker);
    /** @param {MessageEvent} event */
    const message = (event) => {
      this.#liveness?.heard();
      const read = workerMessages(event.data);
      if ("error" in read) return this.#end(new KeelError(KeelErrorCode.PROTOCOL_ERROR, `keel: the spare worker: ${read.error}`));
      for (const data of read.messages) {
        if (data.type === "warmed") this.#warmed();
        else if (data.type === "initFailed") this.#end(fromRawFailure(data.error));
      }
    };
    /** @param {Event} event */
    const error = (event) => {
      const detail = /** @type {ErrorEvent} */ (event).message || "the worker script failed to load (check that worker.js and keel_bg.wasm are served)";
      this.#end(new KeelError(KeelErrorCode.WORKER_FAILED, `keel: the spare worker failed: ${detail}`));
    };
    this.#listeners = { message, error };
    this.worker.addEventListener("message", message);
    this.worker.addEventListener("error", error);
    engineModule().then((module) => {
      if (this.#ended) return;
      handOver(this.worker, module);
      /** @type {PageMessage} */
      const warm = { type: "warm" };
      this.worker.postMessage(warm);
    });
  }

  /**
   * Hands the spare to an agent: resolves to its worker once warm (at once if it is), or to
   * undefined if it fails first or stays silent past `timeoutMs` (answering no ping).
   * @param {number} timeoutMs
   * @returns {Promise<Worker | undefined>}
   */
  adopt(timeoutMs) {
    if (spare === this) spare = undefined;
    this.#adopted = true;
    if (this.#warm) {
      this.#detach();
    } else if (!this.#ended) {
      this.#liveness = new Liveness(timeoutMs, {
        waiting: () => !this.#warm && !this.#ended,
        ping: (message) => this.worker.postMessage(message),
        dead: (quiet) =>
          this.#end(new KeelError(KeelErrorCode.WORKER_UNRESPONSIVE, `keel: the spare worker has not answered for ${quiet} ms`)),
      });
      this.#liveness.watch();
    }
    return this.settled;
  }

  #warmed() {
    this.#warm = true;
    // Until an agent takes it, the spare still listens for its worker's failure.
    if (this.#adopted) this.#detach();
    this.#settle();
  }

  /**
   * The spare failed or was terminated: nothing of it keeps running, and `ready` rejects with
   * `error` (said on the console if it had already resolved). A warm spare an agent took is the
   * agent's: terminating the handle then leaves it alone.
   * @param {unknown} error
   */
  #end(error) {
    if (this.#ended || (this.#adopted && this.#warm)) return;
    this.#ended = true;
    if (spare === this) spare = undefined;
    this.#detach();
    this.worker.terminate();
    if (error instanceof DOMException) {
      // The app's own terminate(): rejected for whoever awaits `ready`, not reported as a failure.
      this.handle.ready.catch(() => {});
    } else if (this.#warm) {
      console.warn(`keel: ${/** @type {Error} */ (error).message}; the next Agent.create starts its own worker`);
    }
    this.#fail(error);
  }

  #detach() {
    if (!this.#listeners) return;
    this.worker.removeEventListener("message", this.#listeners.message);
    this.worker.removeEventListener("error", this.#listeners.error);
    this.#listeners = undefined;
    this.#liveness?.stop();
  }
}

/**
 * `Agent.preload()`: the spare for `options.worker`, started now if there is none (a spare for
 * another worker script is terminated first).
 * @param {unknown} options
 */
export function preload(options = {}) {
  checkObject(options, "Agent.preload: the options", false);
  const { worker } = /** @type {{ worker?: unknown }} */ (options);
  checkKeys(options, ["worker"], "Agent.preload");
  if (worker !== undefined && typeof worker !== "string" && !(worker instanceof URL)) {
    throw new KeelError(
      KeelErrorCode.INVALID_CONFIG,
      `Agent.preload: \`worker\` must be the URL of worker.js (a URL or a string); got ${describe(worker)}`,
    );
  }
  const key = keyOf(worker);
  if (spare?.key === key) return spare.handle;
  spare?.handle.terminate();
  if (!unloadHooked && typeof addEventListener === "function") {
    unloadHooked = true;
    // Nothing of an unused spare outlives the page, the back/forward cache included.
    addEventListener("pagehide", () => spare?.handle.terminate());
  }
  let started;
  try {
    started = new Spare(key, worker);
  } catch (e) {
    const thrown = /** @type {{ message?: string, name?: string } | undefined} */ (e);
    const error = new KeelError(KeelErrorCode.WORKER_FAILED, `keel: the spare worker could not start: ${thrown?.message ?? e}`, {
      sourceName: thrown?.name,
      cause: e,
    });
    return Object.freeze({ ready: Promise.reject(error), terminate: () => {} });
  }
  spare = started;
  return started.handle;
}

/**
 * The spare for an agent whose `worker` option is `worker`, taken from the slot: a promise of its
 * worker once warm (undefined if it failed), or undefined when there is no spare for that script.
 * @param {URL | string | undefined} worker
 * @param {number} timeoutMs the agent's `workerTimeoutMs`
 */
export function takeSpare(worker, timeoutMs) {
  if (spare === undefined || spare.key !== keyOf(worker)) return undefined;
  return spare.adopt(timeoutMs);
}
