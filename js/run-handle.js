// @ts-check
// One run as the page sees it: its events as an async iterator, its result as a promise.

// The agent's hooks into a handle, not part of its public surface.
export const PUSH = Symbol("keel.push");
export const END = Symbol("keel.end");
export const FAIL = Symbol("keel.fail");
export const WAITS_ON = Symbol("keel.waitsOn");

/**
 * One run: an async iterable of its events, and `result`, a promise of its RunResult. Iterate it
 * once; events are buffered from the start, so iterating late misses none. `result` resolves for
 * every run that started (cancelled ones included, with `reason.kind === "cancelled"`) and rejects
 * only if the run could not start or the agent was disposed. Breaking out of the loop does not
 * cancel the run: use the `signal` option or `cancel()`.
 */
export class RunHandle {
  #events = [];
  #waiters = [];
  #done = false;
  #error = undefined;
  #onEvent;
  #cancel;
  #decide;
  #waiting = new Set();
  #resolve;
  #reject;

  constructor(runId, onEvent, cancel, decide) {
    this.runId = runId;
    this.#onEvent = onEvent;
    this.#cancel = cancel;
    this.#decide = decide;
    this.result = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Callers that only iterate must not see an unhandled rejection; awaiting `result` still throws.
    this.result.catch(() => {});
  }

  /** Cancels the run; the model or tool call under way is aborted. */
  cancel() {
    if (!this.#done) this.#cancel();
  }

  /**
   * Approves a call the run waits on (an `approvalRequested` event's `callId`): it runs, and the
   * run goes on. Resolves once the run has the decision; rejects with a KeelError, code
   * `APPROVAL_NOT_PENDING`, when the run does not wait on that call.
   */
  approve(callId) {
    return this.#decide(callId, true, undefined);
  }

  /**
   * Rejects a call the run waits on: it does not run, and the model is told, with `reason`, and
   * goes on with its other tools. Rejects like `approve` when the run does not wait on it.
   */
  reject(callId, reason) {
    return this.#decide(callId, false, reason);
  }

  [WAITS_ON](callId) {
    return this.#waiting.has(callId);
  }

  /** @param {import("./wire.js").AgentEvent} event */
  [PUSH](event) {
    if (event?.type === "approvalRequested") this.#waiting.add(event.callId);
    if (event?.type === "approvalDecided") this.#waiting.delete(event.callId);
    if (this.#onEvent) {
      try {
        this.#onEvent(event);
      } catch (e) {
        console.error("keel: onEvent threw", e);
      }
    }
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve({ value: event, done: false });
    else this.#events.push(event);
  }

  /** @param {import("./wire.js").RunResult} result */
  [END](result) {
    this.#done = true;
    this.#waiting.clear();
    this.#resolve(result);
    for (const waiter of this.#waiters.splice(0)) waiter.resolve({ value: undefined, done: true });
  }

  [FAIL](error) {
    if (this.#done) return;
    this.#done = true;
    this.#error = error;
    this.#reject(error);
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }

  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.#events.length) return Promise.resolve({ value: this.#events.shift(), done: false });
        if (this.#error) return Promise.reject(this.#error);
        if (this.#done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
      },
      return: () => Promise.resolve({ value: undefined, done: true }),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}
