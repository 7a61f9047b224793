// Thrown values → the structured failure keel's engine classifies (Rust's `RawFailure`).
//
// The one conversion, used by the page for its tools' errors and by the worker's wasm (as a
// wasm-bindgen snippet) for errors thrown in the worker. Self-contained on purpose: a snippet is
// copied alone, so this file imports nothing, and it recognises a ToolError by shape, not by class.
// Every field is checked, so the result always passes the worker's strict reading.

const CLASSES = ["transient", "persistent", "fatal"];
const SEVERITIES = ["warning", "error", "critical"];

const isObject = (v) => v !== null && typeof v === "object";
const str = (v) => (typeof v === "string" && v.length > 0 ? v : undefined);
const strings = (v) => {
  if (typeof v === "string") return [v];
  if (!Array.isArray(v)) return undefined;
  const out = v.filter((s) => typeof s === "string");
  return out.length ? out : undefined;
};
// The worker reads whole numbers of at most 2^53 - 1 exactly: larger ones (a `retryAfterMs` of 1e300)
// are clamped here, and the worker clamps a Retry-After further, to a year.
const amount = (v) =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.min(Math.round(v), Number.MAX_SAFE_INTEGER) : undefined;
const ms = amount;
const status = (v) => {
  const n = typeof v === "string" ? Number(v) : v;
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
};

/** A Retry-After value (delta-seconds or an HTTP date, or a number of seconds) in milliseconds. */
export function parseRetryAfter(value, nowMs = Date.now()) {
  if (typeof value === "number") return amount(value * 1000);
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return amount(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

// A header from a Headers object or a plain record.
function header(headers, name) {
  if (!isObject(headers)) return undefined;
  if (typeof headers.get === "function") return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

// A fetch Response, or anything shaped like one ({status, headers}).
function isResponseLike(e) {
  if (typeof Response !== "undefined" && e instanceof Response) return true;
  return isObject(e) && !(e instanceof Error) && status(e.status) !== undefined && "headers" in e;
}

function fromResponse(r, nowMs) {
  const text = [r.status, r.statusText].filter(Boolean).join(" ");
  return {
    name: undefined,
    message: `HTTP ${text}${typeof r.url === "string" && r.url ? ` from ${r.url}` : ""}`,
    status: status(r.status),
    retryAfterMs: parseRetryAfter(header(r.headers, "retry-after"), nowMs),
  };
}

// A plain object only, and only if it survives JSON (the worker reads JSON).
function details(v) {
  if (!isObject(v) || Array.isArray(v)) return undefined;
  try {
    const copy = JSON.parse(JSON.stringify(v));
    return isObject(copy) ? copy : undefined;
  } catch {
    return undefined;
  }
}

// A QuotaExceededError's `requested` and `quota` (the Prompt API's context tokens), which the
// engine reads from the details to shrink its prompt budget.
function withQuota(fields, e) {
  const quota = { requested: amount(e.requested), quota: amount(e.quota) };
  if (quota.requested === undefined || quota.quota === undefined) return fields;
  return { ...fields, ...quota };
}

function hints(e) {
  let cls = CLASSES.includes(e.class) ? e.class : undefined;
  if (cls === undefined && typeof e.retryable === "boolean") cls = e.retryable ? "transient" : "persistent";
  const out = {
    class: cls,
    severity: SEVERITIES.includes(e.severity) ? e.severity : undefined,
    causes: strings(e.causes),
    recovery: strings(e.recovery),
    availableActions: strings(e.availableActions),
    expected: typeof e.expected === "boolean" ? e.expected : undefined,
    details: withQuota(details(e.details), e),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/**
 * Reads any thrown value as `{name, message, status, code, retryAfterMs, hints}`:
 * a ToolError keeps its recovery fields; a Response (or `{status, headers}`) gives its status and
 * Retry-After; an Error or DOMException its name and message, plus `status`, a string `code`,
 * `retryAfter` (seconds or a header value), `retryAfterMs` and a `response` it carries.
 * @param {unknown} e
 * @param {number} [nowMs]
 * @returns {import("./wire.js").RawFailure}
 */
export function toRawFailure(e, nowMs = Date.now()) {
  try {
    let raw;
    if (isResponseLike(e)) {
      raw = fromResponse(e, nowMs);
    } else if (isObject(e)) {
      const fromResp = isResponseLike(e.response) ? fromResponse(e.response, nowMs) : {};
      const message = str(e.message) ?? fromResp.message ?? String(e.name ?? "an error with no message");
      raw = {
        name: str(e.name),
        message,
        status: status(e.status) ?? fromResp.status,
        // DOMException's numeric legacy `code` is not a keel code.
        code: str(e.code),
        retryAfterMs: ms(e.retryAfterMs) ?? parseRetryAfter(e.retryAfter, nowMs) ?? fromResp.retryAfterMs,
        hints: hints(e),
      };
    } else {
      raw = { message: e === undefined ? "a tool threw undefined" : String(e) };
    }
    return Object.fromEntries(Object.entries({ hints: {}, ...raw }).filter(([, v]) => v !== undefined));
  } catch (inner) {
    return { name: "TypeError", message: `a thrown value could not be read: ${inner}`, hints: {} };
  }
}
