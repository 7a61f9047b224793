// Chrome's built-in model (the Prompt API's `LanguageModel`, Gemini Nano) as a keel model backend.
//
// Written once, run in either place: the page imports it to answer the worker's `modelCall`s (on
// the web `LanguageModel` is exposed to windows only), and the worker's wasm imports it as a
// wasm-bindgen snippet to call `LanguageModel` itself where the worker has it (Chrome extensions).
// A snippet is copied alone, so this file imports nothing.
//
// Every call gets the whole compacted prompt. Its first message, the system prompt, is the same for
// every call of an agent: it becomes the first initial prompt of a base session created once; each
// call clones the base, prompts the other messages with the step schema as `responseConstraint`,
// and destroys the clone. `omitResponseConstraintInput` is set: the system prompt already shows the
// reply format and each tool's schema, and a schema the browser inserts into the input would take
// context the engine's budget cannot see.

/** How many base sessions, one per system prompt, the backend keeps (see `#baseSession`). */
const MAX_BASES = 3;

/** What keel asks of the model: English text in, English text out. */
const CORE_OPTIONS = {
  expectedInputs: [{ type: "text", languages: ["en"] }],
  expectedOutputs: [{ type: "text", languages: ["en"] }],
};

const OTHER_BACKENDS =
  "pass another backend: model: { openai: { baseUrl, model } } or { custom: async (messages, { schema, signal }) => text }";

/** An Error with a DOMException-style name and extra fields (`code`, `requested`…) for keel's classifier. */
function failure(name, message, fields = {}) {
  return Object.assign(new Error(message), { name, ...fields });
}

function unavailable(where, availability) {
  return failure(
    "NotSupportedError",
    `Chrome's built-in model is not available ${where}. Use Chrome 138+ with the Prompt API enabled ` +
      `(Chrome 148+ on web pages) on a device that can run Gemini Nano, or ${OTHER_BACKENDS}.`,
    { code: "MODEL_UNAVAILABLE", details: { availability } },
  );
}

/** The Prompt API's QuotaExceededError shape: `requested` and `quota`, in context tokens. */
function quotaExceeded(why, requested, quota) {
  const fields = { requested: Math.round(requested), quota: Math.round(quota) };
  return failure("QuotaExceededError", `${why}: it needs ${fields.requested} tokens, the window holds ${fields.quota}`, fields);
}

const finite = (v) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
// The current names first, then the ones extensions still have.
const windowOf = (s) => finite(s.contextWindow) ?? finite(s.inputQuota);
const usageOf = (s) => finite(s.contextUsage) ?? finite(s.inputUsage);

/** Rejects with the signal's reason as soon as it aborts. */
function untilAborted(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** Whether `global` (the page's or the worker's) has the Prompt API. */
export function hasLanguageModel(global = globalThis) {
  const lm = global.LanguageModel;
  return typeof lm?.create === "function" && typeof lm.availability === "function";
}

/**
 * Checks that Chrome's built-in model can be used here and returns the backend. Rejects with a
 * NotSupportedError (code MODEL_UNAVAILABLE) saying what is missing and what to do instead.
 */
export async function openPromptApi(global = globalThis) {
  if (!hasLanguageModel(global)) throw unavailable("in this browser (no `LanguageModel` here)", "absent");
  const availability = await global.LanguageModel.availability(CORE_OPTIONS);
  if (!["available", "downloadable", "downloading"].includes(availability)) {
    throw unavailable(`on this device (availability: ${availability})`, String(availability));
  }
  return new PromptApiBackend(global.LanguageModel, availability);
}

/** One agent's use of the Prompt API: a base session per system prompt, a clone per call. */
export class PromptApiBackend {
  #lm;
  #bases = new Map(); // system prompt → { system, ready: Promise<session>, session?, listeners: Set }, oldest first
  #disposed = false;

  constructor(languageModel, availability) {
    this.#lm = languageModel;
    /** What `availability()` said, then "available" once a session exists. */
    this.availability = availability;
    /** The session's context window in tokens, once a session exists. */
    this.contextWindow = undefined;
  }

  /**
   * One step: `messages` (system first) in, `{ text, usage?, contextWindow? }` out. `signal` aborts
   * it; `onDownload({ loaded, total })` hears the model's download progress while a session is made;
   * with `onText(chunk)`, the step is asked with `promptStreaming` and each chunk is handed over as
   * it comes (a session without `promptStreaming` answers whole).
   */
  async complete(messages, { schema, signal, onDownload, onText } = {}) {
    if (this.#disposed) throw failure("InvalidStateError", "the Prompt API backend was disposed");
    const system = messages[0]?.role === "system" ? messages[0].content : undefined;
    const input = messages.slice(system === undefined ? 0 : 1).map(({ role, content }) => ({ role, content }));
    const base = await this.#baseSession(system, signal, onDownload);
    let session;
    try {
      session = await base.clone({ signal });
    } catch (e) {
      // A destroyed base (memory pressure, a hidden page) is made again on the runtime's retry.
      const entry = this.#bases.get(system);
      if (e?.name === "InvalidStateError" && entry?.session === base) this.#drop(entry);
      throw e;
    }
    try {
      return await this.#prompt(session, input, schema, signal, onText);
    } finally {
      session.destroy();
    }
  }

  /** Destroys every session; later calls fail with InvalidStateError. */
  dispose() {
    this.#disposed = true;
    for (const base of [...this.#bases.values()]) this.#drop(base);
  }

  async #prompt(session, input, schema, signal, onText) {
    const window = windowOf(session);
    this.contextWindow = window;
    const options = schema ? { responseConstraint: schema, omitResponseConstraintInput: true, signal } : { signal };
    const measure = session.measureContextUsage ?? session.measureInputUsage;
    let requested;
    if (typeof measure === "function") {
      requested = (usageOf(session) ?? 0) + (await measure.call(session, input, options));
      if (window !== undefined && requested > window) throw quotaExceeded("the prompt does not fit the model's context window", requested, window);
    }
    // An overflow lets the browser drop earlier input to answer: an answer to part of the prompt.
    let overflowed = false;
    const overflow = () => (overflowed = true);
    session.addEventListener("contextoverflow", overflow);
    session.addEventListener("quotaoverflow", overflow);
    const text =
      onText && typeof session.promptStreaming === "function"
        ? await readStream(session.promptStreaming(input, options), onText)
        : await session.prompt(input, options);
    if (overflowed) {
      throw quotaExceeded("the prompt overflowed the model's context window", requested ?? window ?? 0, window ?? 0);
    }
    const after = usageOf(session);
    const usage =
      requested !== undefined && after !== undefined
        ? { promptTokens: Math.round(requested), completionTokens: Math.max(0, Math.round(after - requested)) }
        : undefined;
    return { text, usage, contextWindow: window === undefined ? undefined : Math.floor(window) };
  }

  /**
   * The base session for `system`, made once (with the download, if the model needs one) and kept
   * beside the others' up to MAX_BASES, the least recently used ready one dropped first (one still
   * being made is kept for the calls waiting on it, beyond MAX_BASES if need be): keel asks with a few
   * system prompts (the whole step's, the answer alone's, a call's arguments alone), and making a
   * session again processes its system prompt again. Download progress is passed on only while the
   * model was not available yet.
   */
  #baseSession(system, signal, onDownload) {
    let base = this.#bases.get(system);
    if (base) {
      this.#bases.delete(system);
      this.#bases.set(system, base);
    } else {
      // Only a base whose session exists is dropped: one still being made has a call waiting for it.
      for (const oldest of this.#bases.values()) {
        if (this.#bases.size < MAX_BASES) break;
        if (oldest.session) this.#drop(oldest);
      }
      const made = { system, listeners: new Set() };
      const downloads = this.availability !== "available";
      const options = {
        ...CORE_OPTIONS,
        monitor: (m) =>
          m.addEventListener("downloadprogress", (e) => {
            if (downloads) made.listeners.forEach((l) => l(e));
          }),
      };
      if (system !== undefined) options.initialPrompts = [{ role: "system", content: system }];
      made.ready = this.#lm.create(options).then(
        (session) => {
          if (this.#disposed) {
            session.destroy();
            throw failure("InvalidStateError", "the Prompt API backend was disposed while the session was made");
          }
          made.session = session;
          this.availability = "available";
          this.contextWindow = windowOf(session);
          return session;
        },
        (e) => {
          if (this.#bases.get(system) === made) this.#bases.delete(system);
          throw this.#explain(e);
        },
      );
      // Callers that gave up (aborted) no longer await it; its failure is theirs to see, not the page's.
      made.ready.catch(() => {});
      this.#bases.set(system, made);
      base = made;
    }
    const listener = (e) => {
      if (!signal?.aborted) onDownload?.({ loaded: e.loaded, total: finite(e.total) });
    };
    base.listeners.add(listener);
    return untilAborted(base.ready, signal).finally(() => base.listeners.delete(listener));
  }

  #drop(base) {
    if (this.#bases.get(base.system) === base) this.#bases.delete(base.system);
    base.session?.destroy();
  }

  // create() refuses to start a download without a user gesture: say so, keeping the name.
  #explain(e) {
    if (e?.name !== "NotAllowedError" || this.availability !== "downloadable") return e;
    return failure(
      "NotAllowedError",
      "Chrome must download its built-in model first and starts the download only after a user gesture: " +
        `call agent.run() from a click or key handler, or ${OTHER_BACKENDS} (create() said: ${e.message})`,
    );
  }
}

/**
 * Reads `promptStreaming`'s ReadableStream to its end, handing each chunk (the text that follows
 * the earlier ones) to `onText`; the whole text is the reply. A stream that errors rejects with
 * its error, classified like `prompt()`'s.
 */
async function readStream(stream, onText) {
  const reader = stream.getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    const piece = String(value);
    if (piece === "") continue;
    text += piece;
    onText(piece);
  }
}
