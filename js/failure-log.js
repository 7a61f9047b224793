// The page side of the failure log: `query` messages to the worker, each answered by one
// `queryResult` with the same id. The Agent's failures(), failureStats(), exportRun(),
// exportRunOtlp(), exportSession(), clearSession() and applyRetention() are one-liners over `FailureLog.ask`.
import { fromRawFailure } from "./errors.js";

// A time as ms since the epoch: a Date or a number.
function millis(name, value) {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
    throw new TypeError(`failure query: \`${name}\` must be a Date or ms since the epoch`);
  }
  return Math.floor(ms);
}

/** A failure query as the worker reads it: known fields only, times in ms, no `undefined`s. */
export function failureQuery(query = {}) {
  if (query === null || typeof query !== "object") throw new TypeError("failure query: expected an object");
  const { session, runId, tool, code, limit, order } = query;
  const out = { session, runId, tool, code, since: millis("since", query.since), until: millis("until", query.until) };
  if (limit !== undefined) {
    if (!Number.isInteger(limit) || limit < 0) throw new TypeError("failure query: `limit` must be a whole number");
    out.limit = limit;
  }
  if (order !== undefined) out.order = order;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** The queries under way, by id. */
export class FailureLog {
  #post;
  #pending = new Map();
  #next = 1;

  /** `post(message)` sends to the worker (and does nothing once the agent is disposed). */
  constructor(post) {
    this.#post = post;
  }

  /** Sends `query` (`{kind, ...args}`) and resolves with the worker's `value`. */
  ask(query) {
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      this.#post({ type: "query", id, query });
    });
  }

  /** Settles the query a `queryResult` answers. */
  settle(message) {
    const waiting = this.#pending.get(message.id);
    if (!waiting) return;
    this.#pending.delete(message.id);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(fromRawFailure(message.error ?? { message: "the query failed", hints: {} }));
  }

  /** Rejects every query under way (the agent was disposed, the worker died). */
  failAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}
