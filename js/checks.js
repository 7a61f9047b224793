// Checks of what the page hands keel before anything reaches the worker: values JSON cannot carry
// (cycles, BigInts, functions, NaN), options objects of the JS surface, and the errors that say so.
//
// The keys of what goes to the worker (config, tool declarations, failure queries) are checked
// there, against the Rust types themselves; only the options the JS wrapper reads itself
// (`Agent.create`'s, `run`'s) are listed here.
import { KeelErrorCode } from "./codes.js";
import { KeelError } from "./keel-error.js";

/** How deep a value sent to the worker may nest: the worker's JSON reader stops at 128 levels, and
 * a message wraps what it carries in a few of its own. */
export const MAX_SENT_DEPTH = 100;

/** A short description of what came: `an array`, `the number NaN`, `a function`, `null`. */
export function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length ? `an array of ${value.length}` : "an empty array";
  switch (typeof value) {
    case "undefined":
      return "undefined";
    case "string":
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case "number":
    case "boolean":
      return `the ${typeof value} ${String(value)}`;
    case "bigint":
      return `the BigInt ${String(value)}n`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default: {
      const name = Object.getPrototypeOf(value)?.constructor?.name;
      return name && name !== "Object" ? `a ${name}` : "an object";
    }
  }
}

/** Whether `value` is a plain object (not an array, not null, not a class instance like Date). */
export function isPlainObject(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Edits between two strings, a swap of neighbours counting as one (`modle` → `model`).
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known key `key` is most likely a slip for (case and separators aside), if any is close. */
export function closestKey(key, known) {
  const norm = (s) => s.toLowerCase().replace(/[-_ ]/g, "");
  const k = norm(key);
  let best;
  let bestScore = Infinity;
  for (const candidate of known) {
    const score = distance(k, norm(candidate));
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return best !== undefined && bestScore <= Math.max(1, Math.floor(Math.max(k.length, 3) / 3)) ? best : undefined;
}

/** Refuses a key of `object` not in `known`, naming it and the closest known key. */
export function checkKeys(object, known, where) {
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const near = closestKey(key, known);
    const hint = near ? `did you mean \`${near}\`?` : `known: ${known.map((k) => `\`${k}\``).join(", ")}`;
    const at = /`([^`]+)`$/.exec(where)?.[1];
    const fields = { path: at ? `${at}.${key}` : key, suggestion: near };
    throw new KeelError(KeelErrorCode.INVALID_CONFIG, `${where}: unknown option \`${key}\` (${hint})`, fields);
  }
}

/** Refuses anything but a plain object (or `undefined` when `optional`). */
export function checkObject(value, where, optional = true) {
  if (value === undefined && optional) return;
  if (!isPlainObject(value)) throw new KeelError(KeelErrorCode.INVALID_CONFIG, `${where} must be an object; got ${describe(value)}`);
}

/**
 * Checks that `value` can travel to the worker as JSON and reads there as given: no cycles,
 * BigInts, symbols, functions (JSON would drop them silently), NaN or Infinity (JSON would send
 * null), class instances other than plain objects and arrays, nor nesting past
 * {@link MAX_SENT_DEPTH}. `code` is the error's code; `path` names the value in the message.
 * @param {unknown} value
 * @param {string} path
 * @param {string} [code] the KeelErrorCode to fail with
 */
export function checkSendable(value, path, code = KeelErrorCode.INVALID_CONFIG) {
  const seen = new Set();
  const walk = (v, at, depth) => {
    if (depth > MAX_SENT_DEPTH) {
      throw new KeelError(code, `${at} nests deeper than ${MAX_SENT_DEPTH} levels, more than keel can send to its worker`);
    }
    if (v === null || typeof v === "string" || typeof v === "boolean" || v === undefined) return;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new KeelError(code, `${at} is ${v}: expected a finite number`);
      return;
    }
    if (typeof v !== "object") throw new KeelError(code, `${at} is ${describe(v)}, which keel cannot send to its worker as JSON`);
    if (seen.has(v)) throw new KeelError(code, `${at} refers back to itself (a cycle): keel sends plain JSON`);
    if (!Array.isArray(v) && !isPlainObject(v)) {
      throw new KeelError(code, `${at} is ${describe(v)}: expected plain JSON (objects, arrays, strings, numbers)`);
    }
    seen.add(v);
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${at}[${i}]`, depth + 1));
    else for (const [k, item] of Object.entries(v)) walk(item, `${at}.${k}`, depth + 1);
    seen.delete(v);
  };
  walk(value, path, 1);
}
