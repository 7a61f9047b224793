// @ts-check
// The page side of the failure log: `query` messages to the worker, each answered by one
// `queryResult` with the same id. The Agent's failures(), failureStats(), exportRun(),
// exportRunOtlp(), exportSession(), history(), clearSession() and applyRetention() are one-liners over
// `FailureLog.ask`.
import { checkObject, checkSendable } from "./checks.js";
import { KeelErrorCode } from "./codes.js";
import { fromRawFailure, KeelError } from "./keel-error.js";

// A time as ms since the epoch: a Date or a number.
function millis(name, value) {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
    throw new KeelError(KeelErrorCode.INVALID_CONFIG, `failure query: \`${name}\` must be a Date or ms since the epoch`);
  }
  return Math.floor(ms);
}

/**
 * A failure query as the worker reads it: times in ms, no `undefined`s. Every other field goes as
 * given: the worker reads it against its query type, so an unknown or misspelt field (or a value of
 * the wrong kind) is refused there, naming it.
 */
export function failureQuery(query = {}) {
  checkObject(query, "failure query");
  if (Object.hasOwn(query, "kind")) throw new KeelError(KeelErrorCode.INVALID_CONFIG, "failure query: unknown option `kind`");
  checkSendable({ ...query, since: undefined, until: undefined }, "failure query");
  const out = { ...query, since: millis("since", query.since), until: millis("until", query.until) };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** The queries under way, by id. */
export class FailureLog {
  #post;
  #pending = new Map();
  #next = 1;

  /**
   * `post(message)` sends to the worker (and does nothing once the agent is disposed).
   * @param {(message: Extract<import("./wire.js").PageMessage, { type: "query" }>) => void} post
   */
  constructor(post) {
    this.#post = post;
  }

  /**
   * Sends `query` (`{kind, ...args}`) and resolves with the worker's `value`.
   * @param {import("./wire.js").StoreQuery} query
   */
  ask(query) {
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      this.#post({ type: "query", id, query });
    });
  }

  /**
   * Settles the query a `queryResult` answers.
   * @param {Extract<import("./wire.js").WorkerMessage, { type: "queryResult" }>} message
   */
  settle(message) {
    const waiting = this.#pending.get(message.id);
    if (!waiting) return;
    this.#pending.delete(message.id);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(fromRawFailure(message.error ?? { message: "the query failed", hints: {} }));
  }

  /** How many queries wait for their answer. */
  get size() {
    return this.#pending.size;
  }

  /** Rejects every query under way (the agent was disposed, the worker died). */
  failAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}
