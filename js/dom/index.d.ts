// Types of keel-agent/dom (hand-written: the module is plain JS).

import type { Json, Tool } from "../index.js";

/** An operation `domOp` performs; `navigate` and `back` are the host's (see {@link DomToolsOptions}). */
export type DomOp = "snapshot" | "click" | "type" | "select" | "check" | "press" | "scroll" | "read";

/** The name of a tool `domTools` makes. */
export type DomToolName = DomOp | "navigate" | "back";

/**
 * The codes a DOM tool fails with, each with a recovery plan naming `snapshot`:
 * - `STALE_REFERENCE`: the ref's element was removed (a re-render); the message says what it was.
 * - `UNKNOWN_REF`: not a ref of the latest snapshot (a typo, a made-up ref, a page navigated since),
 *   with the ref format and a did-you-mean.
 * - `NOT_INTERACTABLE`: hidden, disabled, read-only or covered (`details.coveredBy`, found with
 *   `elementFromPoint`, and the cover's buttons in `details.closeWith`; from `click`, also as
 *   `details.field: "ref"` and `details.options`, which hold the next click to them until one works).
 * - `FRAME_DETACHED`: the ref was inside a frame that was removed or navigated.
 * - `NAVIGATION_FAILED`: `navigate` / `back` could not load the page.
 * - `INVALID_ARGS`: a bad key name, option label, direction… (`details.field`; `details.options`: the
 *   values it takes, which hold that argument to them until a call works).
 */
export type DomErrorCode = "STALE_REFERENCE" | "UNKNOWN_REF" | "NOT_INTERACTABLE" | "FRAME_DETACHED" | "NAVIGATION_FAILED" | "INVALID_ARGS" | "INTERNAL_ERROR";

/** What `domOp` returns: always plain JSON, never a thrown error. */
export type DomResult =
  | {
      ok: true;
      text: string;
      warnings?: string[];
      /** An action started loading this URL (a link, a form sent): the runner waits for it to load. */
      navigating?: string;
      /** With `navigating`: what the action did, without the advice `text` adds nor refs. */
      did?: string;
      /** A snapshot that is its document's first: of a page loaded since the last op. */
      first?: boolean;
    }
  | {
      ok: false;
      error: { code: DomErrorCode; message: string; causes?: string[]; recovery?: string[]; details?: { [key: string]: Json } };
    };

/**
 * Runs one DOM operation on the page it is called in. Self-contained (no imports, no closure over
 * module scope), so it can be passed to `chrome.scripting.executeScript`. The latest snapshot's
 * refs live on `globalThis.__keelDom`, per document.
 *
 * ```js
 * const [{ result }] = await chrome.scripting.executeScript({ target: { tabId }, func: domOp, args: ["click", { ref: "@e5" }] });
 * ```
 */
export function domOp(op: DomOp, args?: { [key: string]: Json }): Promise<DomResult>;

/**
 * Runs `domOp` somewhere (this page, a tab) and resolves to its result. A runner for a tab should
 * resolve a result with `navigating` only once that page has loaded (as the extension's does): the
 * action's tool then lists the page it opened, and the next step's refs are that page's.
 */
export type DomRunner = (op: DomOp, args: { [key: string]: Json }, options: { signal: AbortSignal }) => Promise<DomResult>;

export interface DomToolsOptions {
  /** Where `domOp` runs: `pageRunner()` for this page, or a tab through chrome.scripting. */
  run: DomRunner;
  /** Loads `url` in the tab, resolving once loaded, rejecting if it could not (adds the `navigate` tool). */
  navigate?: (url: string, options: { signal: AbortSignal }) => Promise<unknown>;
  /** Goes back in the tab's history, resolving once loaded (adds the `back` tool). */
  back?: (options: { signal: AbortSignal }) => Promise<unknown>;
  /** Only these tools (each must be available: `navigate`/`back` only with their functions). */
  include?: DomToolName[];
  /**
   * The most characters a snapshot or a read returns (default 1300; at least 500), cut with a note
   * saying how to get the rest. Keep it under the agent's `observationChars` (default 1500), which
   * cuts the middle out of any longer observation: raise both together.
   */
  maxChars?: number;
}

/**
 * A DOM tool: a keel `Tool` whose ref-taking tools set `refsFrom` (`snapshot`, and `navigate` and
 * `back` when made: they list the page they open) and `recoverWith`
 * (STALE_REFERENCE, UNKNOWN_REF, FRAME_DETACHED → `snapshot`), and whose `snapshot` and `read` are
 * `readOnly`.
 */
export type DomTool = Tool;

/**
 * The DOM tools: `snapshot`, `click`, `type`, `select`, `check`, `press`, `scroll`, `read`, and
 * `navigate` / `back` when their functions are given. Failures are `ToolError`s with the codes of
 * {@link DomErrorCode}; a snapshot's warnings (a cross-origin frame) reach the model as a partial success.
 *
 * Make the first step a snapshot (`toolChoice: { tool: "snapshot" }`): small models otherwise send
 * refs before they have seen any.
 *
 * ```js
 * import { Agent } from "keel-agent";
 * import { domTools, pageRunner } from "keel-agent/dom";
 * const agent = await Agent.create({
 *   model: "prompt-api",
 *   tools: domTools({ run: pageRunner() }),
 *   config: { toolChoice: { tool: "snapshot" } },
 * });
 * ```
 */
export function domTools(options: DomToolsOptions): DomTool[];

/** A runner that calls `domOp` in this page. */
export function pageRunner(): DomRunner;

/** Every tool name `domTools` can make, in its order. */
export const DOM_TOOL_NAMES: DomToolName[];
