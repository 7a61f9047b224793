// keel-agent/dom: tools an agent uses on a page's DOM. The page side is `domOp` (page-op.js), one
// self-contained function run wherever `run` sends it: this page (`pageRunner()`) or a tab, through
// chrome.scripting.executeScript in an extension. These tools only turn its JSON into a tool's
// answer, its warnings into context.warn, and its failures into ToolErrors with their plans.
// From the package's entry, not tool-error.js: the entry is one file with its own copy of
// ToolError (scripts/flat-modules.mjs), and a page's \`instanceof ToolError\` must hold for these.
import { ToolError } from "../index.js";
import { domOp } from "./page-op.js";

export { domOp };

// No example ref here: small models copy an example (a first Qwen run sent "@e5" before any snapshot).
// The pattern makes a ref an id for the engine: its values are narrowed to the refs in the latest
// snapshot where decoding is constrained (SmolLM2 sent the page's URL, a token of the snapshot, as a ref).
const REF = { type: "string", pattern: "^@?e[0-9]+$", description: "an element's ref, copied from the latest snapshot's output" };
const obj = (properties, required = []) => ({ type: "object", properties, required, additionalProperties: false });
// The runtime refreshes refs itself when one fails this way (contract: recoverWith, read-only snapshot).
const RECOVER = { STALE_REFERENCE: "snapshot", UNKNOWN_REF: "snapshot", FRAME_DETACHED: "snapshot" };
// Where refs come from: `snapshot`, and `navigate` and `back`, which list the page they open. The engine
// reads whichever of them answered last (`domTools` keeps those it makes), or an action that opened a
// page and listed it (`listOpened`, `context.listed()`), if that came later.
const LISTERS = ["snapshot", "navigate", "back"];
const REFS = { refsFrom: LISTERS, recoverWith: RECOVER };
// The kinds of element a tool acts on, as the snapshot names them: where decoding is constrained, the
// engine offers `type`, `select` and `check` only those refs, and leaves the tool out while the page
// lists none (both models of the web bench typed into rows, links and headings, again and again).
const TEXT_FIELDS = ["textbox", "searchbox", "spinbutton", "combobox"];
const DROP_DOWNS = ["combobox", "listbox"];
const CHECKABLE = ["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"];
// What a click acts on: the snapshot's interactive roles (an element with an onclick handler is listed
// as a button) and what it marks [clickable] (a pointer cursor), not other headings, texts and table
// rows (Qwen clicked the heading "Checkout" to place an order, and price rows, on the web bench).
// The roles are page-op.js's INTERACTIVE (domOp is self-contained: it cannot import them).
const CLICKABLE = [
  "button", "link", "checkbox", "radio", "textbox", "searchbox", "combobox", "listbox", "option", "menuitem",
  "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem", "clickable",
];

/** A snapshot's bound when `domTools` is given no `maxChars` (page-op.js's SNAPSHOT_CHARS). */
const SNAPSHOT_CHARS = 1300;

/** Every tool `domTools` can make, in the order it lists them. */
export const DOM_TOOL_NAMES = ["snapshot", "click", "type", "select", "check", "press", "scroll", "read", "navigate", "back"];

const SPECS = {
  snapshot: {
    description:
      "Lists the page's interactive elements, headings and short texts, each with its ref (@e and a number) for the other tools. Call it first, and again whenever the page has changed.",
    inputSchema: obj({ from: { type: "string", description: "optional: list from this ref on, as a cut note says" } }),
    readOnly: true,
  },
  click: { description: "Clicks the element with this ref (a button, link, tab…).", inputSchema: obj({ ref: REF }, ["ref"]), ...REFS, refKinds: CLICKABLE },
  type: {
    description: "Replaces the text of a text field with `text`; with submit: true, then sends its form (like pressing Enter).",
    inputSchema: obj({ ref: REF, text: { type: "string" }, submit: { type: "boolean" } }, ["ref", "text"]),
    ...REFS,
    refKinds: TEXT_FIELDS,
  },
  select: {
    description: "Chooses the option with this label in a drop-down (select).",
    inputSchema: obj({ ref: REF, value: { type: "string", description: "the option's label as the snapshot lists it" } }, ["ref", "value"]),
    ...REFS,
    refKinds: DROP_DOWNS,
  },
  check: {
    description: "Checks (or with checked: false, unchecks) a checkbox or radio button.",
    inputSchema: obj({ ref: REF, checked: { type: "boolean" } }, ["ref"]),
    ...REFS,
    refKinds: CHECKABLE,
  },
  press: {
    description: "Presses a key (Enter, Escape, Tab, ArrowDown, Control+a…) on the element with this ref, or on the focused one.",
    inputSchema: obj({ key: { type: "string" }, ref: REF }, ["key"]),
    ...REFS,
  },
  scroll: {
    description: "Scrolls the element with this ref into view, or the page up, down, to the top or to the bottom.",
    inputSchema: obj({ ref: REF, direction: { type: "string", enum: ["down", "up", "top", "bottom"] } }),
    ...REFS,
  },
  read: {
    description: "Returns the text of the element with this ref, or of the whole page (frames included) without one; with find, only the lines containing that text.",
    inputSchema: obj({
      ref: REF,
      find: { type: "string", description: "optional: only the lines containing this text" },
      offset: { type: "integer", minimum: 0, description: "optional: start here, as a cut note says" },
    }),
    readOnly: true,
    ...REFS,
  },
  navigate: { description: "Opens this URL in the tab and lists its elements.", inputSchema: obj({ url: { type: "string" } }, ["url"]) },
  back: { description: "Goes back to the previous page in the tab's history and lists its elements.", inputSchema: obj({}) },
};

const PLAN_NAV = ["Check the URL (a full http(s):// address) and call `navigate` again, or go on from the current page.", "Call `snapshot` to see which page the tab shows now."];

/** A domOp result as the tool's answer, or the ToolError it stands for. */
function answer(op, result, context) {
  if (!result || typeof result !== "object" || typeof result.ok !== "boolean") {
    // chrome.scripting gives `undefined` when the frame went away while the op ran.
    throw new ToolError(`The page gave no answer to \`${op}\`: its document went away during the call (a navigation or reload).`, {
      code: "FRAME_DETACHED",
      causes: ["The page navigated or reloaded while the operation ran."],
      recovery: ["Call `snapshot` to list the page the tab shows now.", "Repeat the step on the new page if it is still needed."],
      details: { op },
    });
  }
  for (const warning of result.warnings ?? []) context.warn(warning);
  if (result.ok) return result.text;
  const { code = "INTERNAL_ERROR", message = `${op} failed`, causes, recovery, details } = result.error ?? {};
  throw new ToolError(message, { code, causes, recovery, details });
}

/**
 * Runs `domOp` in this page: the runner for an agent operating the page it lives on.
 *
 * ```js
 * const agent = await Agent.create({ model, tools: domTools({ run: pageRunner() }) });
 * ```
 */
export function pageRunner() {
  return async (op, args) => domOp(op, args);
}

/**
 * The DOM tools, running `domOp` through `run(op, args, { signal })`; `navigate(url)` and `back()`
 * (both resolve once the new page has loaded, reject if it could not) add the tools of those names.
 * `include` keeps only the named tools; `maxChars` bounds a snapshot's and a read's text.
 */
export function domTools({ run, navigate, back, include, maxChars } = {}) {
  if (typeof run !== "function") {
    throw new TypeError("domTools: `run` must be a function (op, args, { signal }) => Promise<domOp result>; pageRunner() runs it in this page");
  }
  for (const [name, fn] of [["navigate", navigate], ["back", back]]) {
    if (fn !== undefined && typeof fn !== "function") throw new TypeError(`domTools: \`${name}\` must be a function or absent`);
  }
  if (maxChars !== undefined && !(Number.isInteger(maxChars) && maxChars >= 500)) {
    throw new TypeError(`domTools: \`maxChars\` must be a whole number of at least 500 (got ${JSON.stringify(maxChars)})`);
  }
  const available = DOM_TOOL_NAMES.filter((n) => (n === "navigate" ? navigate : n === "back" ? back : true));
  if (include !== undefined) {
    if (!Array.isArray(include)) throw new TypeError("domTools: `include` must be an array of tool names");
    const unknown = include.filter((n) => !available.includes(n));
    if (unknown.length) {
      throw new TypeError(`domTools: no tool ${unknown.map((n) => JSON.stringify(n)).join(", ")} to include; available: ${available.join(", ")}`);
    }
  }
  const limit = maxChars === undefined ? {} : { maxChars };
  const page = (op) => async (args, context) => {
    const result = await run(op, op === "snapshot" || op === "read" ? { ...args, ...limit } : args, { signal: context.signal });
    const text = answer(op, result, context);
    return result.navigating ? listOpened(result, text, context) : text;
  };
  // An action that opened a page (a link, a form sent): the runner resolves once it has loaded (the
  // extension's and the tests' do), so the result lists it, as `navigate`'s does, and says so
  // (`context.listed`): the next step's refs are that page's. Both web-bench models, told to call
  // snapshot, sent the page they had left's refs instead. A runner that did not wait still has the
  // old document (its snapshot is not the document's first): the advice to call snapshot stays.
  const listOpened = async (result, text, context) => {
    const head = `${result.did ?? text} It opened this page:\n`;
    // The whole answer within a snapshot's bound (a `type` that sent its form says all it typed).
    const room = Math.max(500, (maxChars ?? SNAPSHOT_CHARS) - head.length);
    let listing;
    try {
      listing = await run("snapshot", { maxChars: room }, { signal: context.signal });
    } catch {
      return text;
    }
    if (!listing?.ok || !listing.first) return text;
    for (const warning of listing.warnings ?? []) context.warn(warning);
    context.listed?.();
    return `${head}${listing.text}`;
  };
  const snapshotAfter = async (what, context) => `${what}\n${answer("snapshot", await run("snapshot", { ...limit }, { signal: context.signal }), context)}`;
  const execute = {
    navigate: async ({ url }, context) => {
      let target;
      try {
        target = new URL(url);
      } catch {
        throw new ToolError(`${JSON.stringify(url)} is not a full URL.`, { code: "NAVIGATION_FAILED", causes: ["A relative or misspelt address."], recovery: PLAN_NAV, details: { url } });
      }
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        throw new ToolError(`Only http(s) pages can be opened, not ${target.protocol} ones.`, { code: "NAVIGATION_FAILED", recovery: PLAN_NAV, details: { url } });
      }
      try {
        await navigate(target.href, { signal: context.signal });
      } catch (e) {
        throw new ToolError(`Could not open ${target.href}: ${e?.message ?? e}`, {
          code: "NAVIGATION_FAILED",
          causes: ["The address does not exist or the site did not answer.", "The page returned an error status."],
          recovery: PLAN_NAV,
          details: { url: target.href },
        });
      }
      return snapshotAfter(`Opened ${target.href}.`, context);
    },
    back: async (_args, context) => {
      try {
        await back({ signal: context.signal });
      } catch (e) {
        throw new ToolError(`Could not go back: ${e?.message ?? e}`, {
          code: "NAVIGATION_FAILED",
          causes: ["There is no earlier page in this tab's history."],
          recovery: ["Call `snapshot` to see the current page.", "Use `navigate` with the address of the page you want."],
        });
      }
      return snapshotAfter("Went back.", context);
    },
  };
  const names = available.filter((name) => include === undefined || include.includes(name));
  // A ref tool without `snapshot` keeps naming it, and `Agent.create` says it is missing.
  const listers = LISTERS.filter((n) => names.includes(n));
  const refsFrom = listers.includes("snapshot") ? listers : ["snapshot"];
  return names.map((name) => {
    const spec = SPECS[name].refsFrom ? { ...SPECS[name], refsFrom } : SPECS[name];
    return { name, ...spec, execute: execute[name] ?? page(name) };
  });
}
