// @ts-check
// The options the JS wrapper reads itself, checked before anything starts: `Agent.create`'s, the
// model choice, the tool declarations, `run`'s. What goes on to the worker (the config, the tools'
// fields, failure queries) is checked there, against the Rust types.
import { checkKeys, checkObject, checkSendable, describe, isPlainObject } from "./checks.js";
import { ErrorCode, KeelErrorCode } from "./codes.js";
import { KeelError } from "./keel-error.js";
import { toJsonSchema } from "./tool-schema.js";
import { pageBackend } from "./page-backends.js";

// The options the JS wrapper reads itself; what goes to the worker (config, tools) is checked there.
export const CREATE_OPTIONS = ["model", "tools", "session", "config", "worker", "onError", "workerTimeoutMs"];
export const RUN_OPTIONS = ["signal", "session", "onEvent"];

/** How long the worker may leave a ping unanswered while the page waits on it (ms), by default. */
export const WORKER_TIMEOUT_MS = 30_000;
export const MAX_WORKER_TIMEOUT_MS = 3_600_000;

/** `Agent.create`'s own options, checked, with their defaults. */
export function createOptions(options) {
    checkObject(options, "Agent.create: the options", false);
    checkKeys(options, CREATE_OPTIONS, "Agent.create");
    const { tools = [], session = "default", worker, onError, workerTimeoutMs = WORKER_TIMEOUT_MS } = options;
    if (!Array.isArray(tools)) {
      throw new KeelError(KeelErrorCode.INVALID_CONFIG, `Agent.create: \`tools\` must be an array of tools; got ${describe(tools)}`);
    }
    if (typeof session !== "string") {
      throw new KeelError(KeelErrorCode.INVALID_CONFIG, `Agent.create: \`session\` must be a string; got ${describe(session)}`);
    }
    if (onError !== undefined && typeof onError !== "function") {
      throw new KeelError(KeelErrorCode.INVALID_CONFIG, `Agent.create: \`onError\` must be a function; got ${describe(onError)}`);
    }
    if (!Number.isInteger(workerTimeoutMs) || workerTimeoutMs < 100 || workerTimeoutMs > MAX_WORKER_TIMEOUT_MS) {
      throw new KeelError(
        KeelErrorCode.INVALID_CONFIG,
        `Agent.create: \`workerTimeoutMs\` is ${describe(workerTimeoutMs)}: expected a whole number of ms from 100 to ${MAX_WORKER_TIMEOUT_MS}`,
      );
    }
    if (options.config !== undefined && options.config !== null) checkObject(options.config, "Agent.create: `config`");
  return { tools, session, worker, onError, workerTimeoutMs };
}

/**
 * The model option as the worker's `ModelChoice`; a custom function stays on the page.
 * @param {any} model the `model` option, as the page gave it
 * @returns {{ choice: import("./wire.js").ModelChoice, custom?: Function }}
 */
export function modelChoice(model) {
  if (typeof model === "function") return { choice: customChoice(model.greedy === true), custom: model };
  if (model === "prompt-api" || model === "promptApi") return { choice: { kind: "promptApi" } };
  if (Array.isArray(model)) {
    if (model.length === 0) {
      throw new KeelError(KeelErrorCode.INVALID_CONFIG, "Agent.create: `model` is an empty array: a fallback chain needs at least one backend");
    }
    const links = model.map(modelChoice);
    const customs = new Set(links.map((l) => l.custom).filter(Boolean));
    if (customs.size > 1) throw new KeelError(KeelErrorCode.INVALID_CONFIG, "Agent.create: a model fallback chain takes at most one custom function");
    return { choice: { kind: "fallback", chain: links.map((l) => l.choice) }, custom: [...customs][0] };
  }
  if (isPlainObject(model)) {
    // One backend per object: a second key would be silently ignored.
    if (typeof model.custom === "function") {
      checkKeys(model, ["custom", "greedy"], "Agent.create: `model`");
      if (model.greedy !== undefined && typeof model.greedy !== "boolean") {
        throw new KeelError(KeelErrorCode.INVALID_CONFIG, `Agent.create: \`model.greedy\` must be true or false; got ${describe(model.greedy)}`, { path: "model.greedy" });
      }
      return { choice: customChoice(model.greedy ?? model.custom.greedy === true), custom: model.custom };
    }
    if (model.openai) {
      checkKeys(model, ["openai"], "Agent.create: `model`");
      checkObject(model.openai, "Agent.create: `model.openai`", false);
      return { choice: { kind: "openai", ...model.openai } };
    }
  }
  throw new KeelError(
    KeelErrorCode.INVALID_CONFIG,
    `Agent.create: \`model\` is ${describe(model)}; expected { custom: async (messages, { schema, signal }) => text }, ` +
      'a function, "prompt-api", { openai }, { wllama }, or an array of these',
  );
}

/**
 * The choice of a custom function, `greedy` when it decodes greedily: given as `{ custom, greedy }`,
 * else the function's own `greedy` (a `keel-agent/wllama` model at temperature 0 has it).
 * @param {boolean} greedy
 * @returns {import("./wire.js").ModelChoice}
 */
function customChoice(greedy) {
  return greedy ? { kind: "custom", greedy: true } : { kind: "custom" };
}

/**
 * Whether a model choice, or any member of its chain, is the Prompt API.
 * @param {import("./wire.js").ModelChoice} choice
 * @returns {boolean}
 */
export function usesPromptApi(choice) {
  return choice.kind === "promptApi" || (choice.kind === "fallback" && choice.chain.some(usesPromptApi));
}

/**
 * Backends that run on the page become custom functions before the worker hears of them:
 * `{ wllama: options }` once keel-agent/wllama is imported. The model is loaded here, so a failed
 * download fails `create`; the functions made are pushed to `owned`, for the agent to dispose.
 */
export async function pageModel(model, owned) {
  if (Array.isArray(model)) return Promise.all(model.map((m) => pageModel(m, owned)));
  if (!model || typeof model !== "object" || !model.wllama) return model;
  checkKeys(model, ["wllama"], "Agent.create: `model`");
  const factory = pageBackend("wllama");
  if (!factory) {
    throw new KeelError(
      ErrorCode.MODEL_UNAVAILABLE,
      'the wllama backend is not loaded: `import "keel-agent/wllama"` first (it needs the @wllama/wllama package)',
      { sourceName: "NotSupportedError" },
    );
  }
  const fn = factory(model.wllama);
  owned.push(fn);
  await fn.load();
  return { custom: fn };
}

/**
 * A tool as the worker reads it: every field but `execute`, which stays on the page. The worker
 * checks the fields against its tool declaration type, so an unknown or misspelt one is refused
 * there, with the closest known field.
 */
export function toolSpec(tool, i) {
  const where = `Agent.create: tools[${i}]`;
  if (!isPlainObject(tool) || typeof tool.name !== "string" || typeof tool.execute !== "function") {
    throw new KeelError(
      KeelErrorCode.INVALID_TOOLS,
      `${where} is ${describe(tool)}${isPlainObject(tool) ? ` without a string \`name\` and an \`execute\` function` : ""}; ` +
        "each tool needs a `name` and an `execute(args, { signal })` function",
    );
  }
  const { execute, ...fields } = tool;
  const spec = { description: "", ...fields };
  if ("inputSchema" in fields) spec.inputSchema = toJsonSchema(fields.inputSchema, `${where} (\`${tool.name}\`)`);
  // A function of the arguments stays on the page, which the worker asks for each call.
  if (typeof fields.needsApproval === "function") spec.needsApproval = "perCall";
  checkSendable(spec, `${where} (\`${tool.name}\`)`, KeelErrorCode.INVALID_TOOLS);
  return spec;
}

/** The run options the wrapper reads, checked: known keys only, a real AbortSignal, a function. */
export function runOptions(options, where, known = RUN_OPTIONS) {
  checkObject(options ?? {}, `${where}: the options`);
  const opts = options ?? {};
  checkKeys(opts, known, where);
  const { signal, onEvent } = opts;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new KeelError(KeelErrorCode.INVALID_CONFIG, `${where}: \`signal\` must be an AbortSignal; got ${describe(signal)}`);
  }
  if (onEvent !== undefined && typeof onEvent !== "function") {
    throw new KeelError(KeelErrorCode.INVALID_CONFIG, `${where}: \`onEvent\` must be a function; got ${describe(onEvent)}`);
  }
  return opts;
}
