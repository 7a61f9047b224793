// One run as the page sees it: its events as an async iterator, its result as a promise.

// The agent's hooks into a handle, not part of its public surface.
export const PUSH = Symbol("keel.push");
export const END = Symbol("keel.end");
export const FAIL = Symbol("keel.fail");

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
  #resolve;
  #reject;

  constructor(runId, onEvent, cancel) {
    this.runId = runId;
    this.#onEvent = onEvent;
    this.#cancel = cancel;
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

  [PUSH](event) {
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

  [END](result) {
    this.#done = true;
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
