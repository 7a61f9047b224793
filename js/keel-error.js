// KeelError: every error keel hands the page, with a code from the one list (codes.js, generated
// from the Rust enums).
import { ErrorCode } from "./codes.js";

const isObject = (v) => v !== null && typeof v === "object";
const str = (v) => (typeof v === "string" && v.length > 0 ? v : undefined);

// Marks a KeelError across copies of this module (two bundles, a snippet): `isInstance` reads it.
const KEEL_ERROR = Symbol.for("keel-agent.KeelError");
// The fields a KeelError carries besides its code and message, in the order they are read.
const FIELDS = ["sourceName", "status", "retryAfterMs", "hints", "path", "suggestion", "runId"];

/**
 * Every error keel hands the page: `name` "KeelError", a `code` (a `KeelErrorCode` for keel's own
 * errors, an `ErrorCode` for a model's or the store's failure) and the fields a recovery needs:
 * `path` and `suggestion` for a setting (`config.maxStep`, `maxSteps`), `runId` for a run,
 * `sourceName` for the name of the error it passes on (`NotSupportedError`), and a failure's
 * `status`, `retryAfterMs` and `hints`.
 */
export class KeelError extends Error {
  constructor(code, message, fields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = "KeelError";
    this.code = code;
    for (const key of FIELDS) {
      if (fields[key] !== undefined && fields[key] !== null) this[key] = fields[key];
    }
  }

  /** Whether `error` is a KeelError, also one made by another copy of keel. */
  static isInstance(error) {
    return isObject(error) && error[KEEL_ERROR] === true;
  }

  /**
   * `error instanceof KeelError` holds for a KeelError made by another copy of this module too (the
   * package's index.js is one file with its own copy; keel-agent/wllama imports this one): for
   * KeelError itself it is `isInstance`; a subclass keeps the usual prototype check.
   */
  static [Symbol.hasInstance](error) {
    return this === KeelError ? KeelError.isInstance(error) : Function.prototype[Symbol.hasInstance].call(this, error);
  }

  get [KEEL_ERROR]() {
    return true;
  }
}

/**
 * A structured failure from the worker as a KeelError: its code (INTERNAL_ERROR when it has none),
 * message, name (as `sourceName`), status, Retry-After and hints, and the `path` and `suggestion`
 * the worker put in its details; `fields` adds to them (a `runId`).
 */
export function fromRawFailure(raw, fields = {}) {
  const details = isObject(raw?.hints?.details) ? raw.hints.details : {};
  return new KeelError(str(raw?.code) ?? ErrorCode.INTERNAL_ERROR, raw?.message ?? "unknown failure", {
    sourceName: str(raw?.name),
    status: raw?.status,
    retryAfterMs: raw?.retryAfterMs,
    hints: raw?.hints,
    path: str(details.path),
    suggestion: str(details.suggestion),
    ...fields,
  });
}
