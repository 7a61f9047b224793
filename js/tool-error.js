// The error a tool throws to hand the model a full recovery envelope.

/**
 * A tool failure with its recovery plan. Every field is optional; the ones set override the
 * defaults keel derives from `code`.
 *
 * An `INVALID_ARGS` error with `details: { field, options }` narrows that argument to the options
 * for the rest of the run where decoding is constrained:
 *
 * ```js
 * throw new ToolError("cabin 'coach' is not a cabin.", {
 *   code: "INVALID_ARGS",
 *   details: { field: "cabin", options: ["economy", "premium_economy", "business", "first"] },
 * });
 * ```
 *
 * A stale reference, with the tool that gives fresh ones:
 *
 * ```js
 * throw new ToolError("Element e5 is no longer on the page.", {
 *   code: "STALE_REFERENCE",
 *   recovery: ["Call `snapshot` for fresh refs.", "Click the new ref of the same button."],
 *   availableActions: ["snapshot"],
 *   details: { ref: "e5" },
 * });
 * ```
 */
export class ToolError extends Error {
  constructor(message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolError";
    const fields = [
      "code", "status", "causes", "recovery", "availableActions", "severity", "details", "expected", "retryable",
    ];
    for (const key of fields) {
      if (options[key] !== undefined) this[key] = options[key];
    }
    if (options.class !== undefined) this.class = options.class;
    // Seconds, as Vurb spells it; retryAfterMs wins when both are given.
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
    const ms = options.retryAfterMs ?? (typeof options.retryAfter === "number" ? options.retryAfter * 1000 : undefined);
    if (ms !== undefined) this.retryAfterMs = ms;
  }
}
