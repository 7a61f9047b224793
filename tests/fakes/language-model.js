// A fake `LanguageModel` that follows the Prompt API spec (webmachinelearning/prompt-api, index.bs
// and the explainer), for tests in browsers whose real one is unavailable (Debian's Chromium).
// `installFakeLanguageModel(options, global)` puts it on a window's or a worker's global.
//
// Modelled:
// - `availability()` → the configured state; `create()` rejects with NotSupportedError when
//   `unavailable`, and with NotAllowedError when `downloadable` without user activation.
// - `create({ monitor })`: `downloadprogress` ProgressEvents, `loaded` 0 → 1 and `total` 1 (at least
//   those two, even with nothing to download, as the explainer says); then the state is `available`.
// - `initialPrompts`: a system message only first (TypeError), counted into the usage; too large →
//   QuotaExceededError.
// - Context accounting: a message costs ceil(chars / 4) + 2 tokens, a reply ceil(chars / 4), an
//   inserted response constraint (unless `omitResponseConstraintInput`) its JSON's ceil(chars / 4).
//   `contextUsage`, `contextWindow`, `measureContextUsage()`, `oncontextoverflow`; with
//   `names: "extension"` also the old `inputUsage`, `inputQuota`, `measureInputUsage()`,
//   `onquotaoverflow` (`names: "old"`: only those, as extensions had before the rename).
// - `prompt()` over the window: the oldest prompt/reply pairs are evicted (never the initial
//   prompts) and `contextoverflow` (and `quotaoverflow`) fires; if eviction cannot make room, a
//   QuotaExceededError with `requested` (usage + input) and `quota` (the window), nothing evicted.
// - Prompt validation: a system message after any input → TypeError, `prefix` not on a last
//   assistant message → SyntaxError, `omitResponseConstraintInput` without a constraint → TypeError.
// - Replies from a script: a string, `{ error: name, message?, requested?, quota? }` (thrown as that
//   DOMException; TypeError/RangeError as JS errors), `{ hang: true }` (answers only by aborting),
//   `{ text, overflow: true }` (fires the overflow event, as after an eviction, then answers `text`),
//   or `{ text, error: name, after: n }` (streamed: the first n code points, then the stream errors
//   with that DOMException; `prompt()` rejects with it).
// - `promptStreaming()`: the spec's ReadableStream of strings, each the text that follows the earlier
//   chunks (`chunkChars` code points each, default 4, `chunkDelayMs` apart, default 0); the same
//   validation, accounting and eviction as `prompt()`; errors and aborts error the stream.
// - `signal` aborts → its reason (an AbortError); `destroy()` aborts calls under way (AbortError) and
//   later calls fail with InvalidStateError (Chrome's behaviour); `clone()` copies usage and history.
// Not modelled: append, multimodal content, tools, sampling options, real text.

const tokens = (text) => Math.ceil(String(text).length / 4);

function domError(name, message = `fake ${name}`, fields = {}) {
  if (name === "TypeError") return new TypeError(message);
  if (name === "RangeError") return new RangeError(message);
  if (name === "QuotaExceededError" && typeof globalThis.QuotaExceededError === "function") {
    return new globalThis.QuotaExceededError(message, fields);
  }
  const error = new DOMException(message, name);
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(error, key, { value, enumerable: true });
  return error;
}

const quotaError = (requested, quota) =>
  domError("QuotaExceededError", "The input is too large.", { requested, quota });

/** Messages in longhand, validated as the spec's "validate and canonicalize a prompt". */
function canonical(input, hasAppendedInput) {
  const list = typeof input === "string" ? [{ role: "user", content: input }] : [...input];
  if (list.length === 0) list.push({ role: "user", content: "" });
  let appended = hasAppendedInput;
  return list.map((m, i) => {
    if (!["system", "user", "assistant"].includes(m.role)) throw new TypeError(`bad role ${m.role}`);
    if (m.prefix && (m.role !== "assistant" || i !== list.length - 1)) throw domError("SyntaxError");
    if (m.role === "system" && appended) throw new TypeError("a system message must come first");
    if (typeof m.content !== "string") throw domError("NotSupportedError", "the fake takes text only");
    appended = true;
    return { role: m.role, content: m.content };
  });
}

const cost = (messages) => messages.reduce((sum, m) => sum + tokens(m.content) + 2, 0);

/**
 * Installs a fake `LanguageModel` on `global` and returns `{ LanguageModel, log, set(options),
 * live(), uninstall() }`. `options`: `availability`, `userActivation` (default true),
 * `contextWindow` (default 4096), `replies` (the script), `names` ("current" | "extension" | "old"),
 * `createError` (a name: the next create() fails with it).
 */
export function installFakeLanguageModel(options = {}, global = globalThis) {
  const state = { availability: "available", userActivation: true, contextWindow: 4096, replies: [], names: "current", chunkChars: 4, chunkDelayMs: 0, ...options };
  const log = { availability: [], created: [], prompts: [], streamed: [], sessions: [] };
  const wait = (ms = 0) => new Promise((r) => setTimeout(r, ms));

  class LanguageModel extends EventTarget {
    #usage;
    #pairs; // [{ tokens }] of prompts and replies since creation, oldest first
    #destroyed = false;
    #running = new Set();

    constructor(key, usage, pairs) {
      if (key !== log) throw new TypeError("Illegal constructor");
      super();
      this.#usage = usage;
      this.#pairs = pairs;
      this.destroyedAt = undefined;
      log.sessions.push(this);
    }

    static async availability(opts = {}) {
      log.availability.push(opts);
      await wait();
      return state.availability;
    }

    static async create(opts = {}) {
      log.created.push(opts);
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (state.createError) {
        const name = state.createError;
        state.createError = undefined;
        throw domError(name);
      }
      if (state.availability === "unavailable") throw domError("NotSupportedError", "The model is not available.");
      if (state.availability === "downloadable" && !state.userActivation) {
        throw domError("NotAllowedError", "Requires a user gesture when availability is \"downloadable\".");
      }
      const initial = canonical(opts.initialPrompts ?? [], false);
      const usage = opts.initialPrompts?.length ? cost(initial) : 0;
      const monitor = new EventTarget();
      opts.monitor?.(monitor);
      const steps = state.availability === "available" ? [0, 1] : [0, 0.5, 1];
      if (state.availability === "downloadable") state.availability = "downloading";
      for (const loaded of steps) {
        await wait();
        if (opts.signal?.aborted) throw opts.signal.reason;
        monitor.dispatchEvent(new ProgressEvent("downloadprogress", { loaded, total: 1 }));
      }
      state.availability = "available";
      if (usage > state.contextWindow) throw quotaError(usage, state.contextWindow);
      return new LanguageModel(log, usage, []);
    }

    #live() {
      if (this.#destroyed) throw domError("InvalidStateError", "The model execution session has been destroyed.");
    }

    #measure(input, opts) {
      if (opts.omitResponseConstraintInput && !opts.responseConstraint) throw new TypeError("nothing to omit");
      const messages = canonical(input, this.#usage > 0);
      const schema = opts.responseConstraint && !opts.omitResponseConstraintInput;
      return cost(messages) + (schema ? tokens(JSON.stringify(opts.responseConstraint)) : 0);
    }

    // Runs `work` unless the signal or destroy() aborts it first.
    #call(signal, work) {
      this.#live();
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        const call = { reject };
        this.#running.add(call);
        const abort = () => reject(signal.reason);
        signal?.addEventListener("abort", abort, { once: true });
        work().then(resolve, reject).finally(() => {
          this.#running.delete(call);
          signal?.removeEventListener("abort", abort);
        });
      });
    }

    async _measureContextUsage(input, opts = {}) {
      this.#live();
      const measured = this.#measure(input, opts);
      await wait();
      return measured;
    }

    async prompt(input, opts = {}) {
      this.#live();
      const requested = this.#measure(input, opts);
      log.prompts.push({ input, options: opts, session: this });
      return this.#call(opts.signal, async () => {
        const reply = await this.#reply(requested);
        if (reply.error) throw domError(reply.error, reply.message);
        return this.#account(requested, reply.text);
      });
    }

    promptStreaming(input, opts = {}) {
      this.#live();
      const requested = this.#measure(input, opts);
      log.prompts.push({ input, options: opts, session: this, streaming: true });
      let controller;
      const stream = new ReadableStream({ start: (c) => (controller = c) });
      this.#call(opts.signal, async () => {
        const reply = await this.#reply(requested);
        // By code points: a chunk never ends inside a surrogate pair.
        const chars = Array.from(reply.text).slice(0, reply.error ? reply.after ?? 0 : undefined);
        const text = chars.join("");
        for (let at = 0; at < chars.length; at += state.chunkChars) {
          if (at > 0 || state.chunkDelayMs) await wait(state.chunkDelayMs);
          this.#live();
          if (opts.signal?.aborted) throw opts.signal.reason;
          const chunk = chars.slice(at, at + state.chunkChars).join("");
          log.streamed.push(chunk);
          controller.enqueue(chunk);
        }
        if (reply.error) throw domError(reply.error, reply.message);
        this.#account(requested, text);
      }).then(
        () => controller.close(),
        (e) => controller.error(e),
      );
      return stream;
    }

    // The next scripted reply once the input fits (evicting old pairs), as { text, error?, … }.
    async #reply(requested) {
      await wait();
      let free = state.contextWindow - this.#usage;
      let evict = 0;
      while (requested > free && evict < this.#pairs.length) free += this.#pairs[evict++];
      if (requested > free) throw quotaError(this.#usage + requested, state.contextWindow);
      if (evict > 0) {
        this.#usage -= this.#pairs.splice(0, evict).reduce((a, b) => a + b, 0);
        this.#overflowed();
      }
      const reply = state.replies.length ? state.replies.shift() : JSON.stringify({ thought: "done", final_answer: "out of script" });
      if (reply?.hang) await new Promise(() => {});
      if (reply?.overflow) this.#overflowed();
      if (typeof reply === "object" && reply.text === undefined) throw domError(reply.error, reply.message, { requested: reply.requested, quota: reply.quota });
      return typeof reply === "object" ? reply : { text: reply };
    }

    #account(requested, text) {
      const used = requested + tokens(text);
      this.#usage += used;
      this.#pairs.push(used);
      return text;
    }

    #overflowed() {
      for (const type of state.names === "current" ? ["contextoverflow"] : state.names === "old" ? ["quotaoverflow"] : ["contextoverflow", "quotaoverflow"]) {
        const event = new Event(type);
        this.dispatchEvent(event);
        this[`on${type}`]?.(event);
      }
    }

    async clone(opts = {}) {
      return this.#call(opts.signal, async () => {
        await wait();
        this.#live();
        return new LanguageModel(log, this.#usage, [...this.#pairs]);
      });
    }

    destroy() {
      if (this.#destroyed) return;
      this.#destroyed = true;
      this.destroyedAt = Date.now();
      for (const call of this.#running) call.reject(domError("AbortError", "The session was destroyed."));
      this.#running.clear();
    }

    get _usage() {
      return this.#usage;
    }
  }

  const alias = (name, get) => Object.defineProperty(LanguageModel.prototype, name, { get, configurable: true });
  const names = state.names === "extension" ? ["current", "old"] : [state.names];
  for (const set of names) {
    const [usage, window, measure, handler] =
      set === "current"
        ? ["contextUsage", "contextWindow", "measureContextUsage", "oncontextoverflow"]
        : ["inputUsage", "inputQuota", "measureInputUsage", "onquotaoverflow"];
    alias(usage, function () { return this._usage; });
    alias(window, () => state.contextWindow);
    LanguageModel.prototype[measure] = LanguageModel.prototype._measureContextUsage;
    LanguageModel.prototype[handler] = null;
  }

  const previous = Object.getOwnPropertyDescriptor(global, "LanguageModel");
  Object.defineProperty(global, "LanguageModel", { value: LanguageModel, configurable: true, writable: true });
  return {
    LanguageModel,
    log,
    /** Changes the options (availability, replies, userActivation…) from now on. */
    set: (changes) => Object.assign(state, changes),
    /** Sessions not destroyed. */
    live: () => log.sessions.filter((s) => s.destroyedAt === undefined).length,
    uninstall() {
      if (previous) Object.defineProperty(global, "LanguageModel", previous);
      else delete global.LanguageModel;
    },
  };
}
