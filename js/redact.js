// @ts-check
// The page side of `config.store.redact` as a function: functions cannot be posted to the worker,
// so the page keeps it, sends `redact: "page"` in its place, and answers the worker's `redact`
// requests (one before each step with a tool call is stored) with what the function kept.
// A declarative policy ({ keys, tools, mask }) is plain data and goes to the worker as it is.

/**
 * The config to post and the page's redaction function, if `config.store.redact` is one. The
 * caller's objects are left as they were.
 */
export function pageRedaction(config) {
  const redact = config?.store?.redact;
  if (typeof redact !== "function") return { config: config ?? {}, hook: undefined };
  return { config: { ...config, store: { ...config.store, redact: "page" } }, hook: redact };
}

/**
 * The answer to a `redact` request: `{ args }` with what `hook` kept of the call, `args: null` when
 * it returned null or undefined (the arguments are then stored dropped). A hook that throws, or
 * returns what JSON cannot carry, rejects: the worker then stores the arguments dropped and warns.
 */
/**
 * @param {unknown} hook
 * @param {Extract<import("./wire.js").WorkerMessage, { type: "redact" }>} request
 * @returns {Promise<import("./wire.js").RedactValue>}
 */
export async function redactReply(hook, { tool, args }) {
  if (typeof hook !== "function") {
    throw new TypeError('config.store.redact is "page" but the page has no redaction function: pass the function itself');
  }
  const kept = await hook({ tool, args });
  if (kept === null || kept === undefined) return { args: null };
  const json = JSON.stringify(kept);
  if (json === undefined) throw new TypeError("the redaction function returned a value JSON cannot carry");
  return { args: JSON.parse(json) };
}
