// keel-agent/wllama: a GGUF model run in the page by wllama (llama.cpp in WebAssembly), as a keel
// model function. A separate entry point so that `@wllama/wllama` (an optional peer dependency,
// ~9 MB of wasm) is loaded only by pages that use it. Importing it also lets `Agent.create` take
// `model: { wllama: options }`.
//
// It runs on the page, not in keel's worker: wllama starts its own worker for llama.cpp, and the
// engine reaches the model through the same RPC as a custom model function.
import { Wllama, WllamaAbortError, WllamaError, WllamaRuntimeError } from "@wllama/wllama";
import { checkKeys, checkObject } from "./checks.js";
import { ErrorCode } from "./codes.js";
import { registerPageBackend } from "./page-backends.js";

const DEFAULTS = { nCtx: 4096, maxTokens: 320, temperature: 0 };

// wllama's error types → DOMException names keel classifies (see src/errors/classify.rs), plus
// a keel code where the name alone would be vague.
const BY_TYPE = {
  download_error: { name: "NetworkError", code: ErrorCode.NETWORK_ERROR }, // transient: retried
  load_error: { name: "NotSupportedError", code: ErrorCode.MODEL_UNAVAILABLE }, // fatal
  model_not_loaded: { name: "InvalidStateError", code: ErrorCode.UNAVAILABLE },
  kv_cache_full: { name: "QuotaExceededError", code: ErrorCode.CONTEXT_OVERFLOW }, // compact, retry
  inference_error: { name: "OperationError", code: ErrorCode.UNAVAILABLE }, // transient
  unknown_error: { name: "OperationError", code: ErrorCode.UNAVAILABLE },
};

const UNLOADABLE = { name: "NotSupportedError", code: ErrorCode.MODEL_UNAVAILABLE };

/**
 * A wllama failure as an Error keel reads by name and code (never by message). Loading fails for
 * good unless wllama says the download broke (an HTTP 404 arrives as a plain Error); a completion's
 * unknown failure is retried.
 */
function failure(e, signal, doing, loading = false) {
  if (signal?.aborted) return signal.reason ?? new DOMException("aborted", "AbortError");
  if (e instanceof WllamaAbortError || e?.name === "AbortError") return new DOMException("aborted", "AbortError");
  const message = `wllama ${doing}: ${e?.message ?? String(e)}`;
  let kind = loading ? UNLOADABLE : { name: "OperationError", code: ErrorCode.UNAVAILABLE };
  if (e instanceof WllamaError) kind = BY_TYPE[e.type] ?? kind;
  // A crash of the wasm runtime (out of memory, a trap) leaves the instance unusable.
  else if (e instanceof WllamaRuntimeError) kind = UNLOADABLE;
  else if (e instanceof TypeError) kind = { name: "NetworkError", code: ErrorCode.NETWORK_ERROR }; // fetch failed
  const error = new Error(message, { cause: e });
  error.name = kind.name;
  error.code = kind.code;
  return error;
}

// The step schema's contract: keel asks for one JSON object; wllama's `json_schema` compiles the
// schema to a grammar, so the model cannot write anything else.
function responseFormat(schema) {
  if (!schema) return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: "keel_step", schema, strict: true } };
}

/** The wasm's URL: the option, else where the import map (or the bundler) puts the package. */
function wasmUrl(option) {
  if (option) return String(option);
  if (typeof import.meta.resolve === "function") {
    return import.meta.resolve("@wllama/wllama/esm/wasm/wllama.wasm");
  }
  throw new TypeError("wllamaModel: pass `wasmUrl` (the URL of @wllama/wllama/esm/wasm/wllama.wasm)");
}

// The options `wllamaModel` reads (see wllama.d.ts); any other is refused, not ignored.
const WLLAMA_OPTIONS = ["modelUrl", "wasmUrl", "onProgress", "nCtx", "maxTokens", "temperature", "nThreads", "logger"];

/**
 * A keel model function backed by a GGUF model that wllama runs in the page. Call `load()` to
 * download and load it up front (with progress); the first call loads it otherwise.
 *
 * ```js
 * import { Agent } from "keel-agent";
 * import { wllamaModel } from "keel-agent/wllama";
 * const model = wllamaModel({ modelUrl: "/models/SmolLM2-135M-Instruct.Q4_1.gguf",
 *                             onProgress: ({ loaded, total }) => bar.value = loaded / total });
 * await model.load();
 * const agent = await Agent.create({ model: { custom: model }, tools });
 * ```
 */
export function wllamaModel(options) {
  checkObject(options, "wllama options", false);
  checkKeys(options, WLLAMA_OPTIONS, "wllama options");
  const { modelUrl, onProgress, nThreads, logger } = options ?? {};
  if (typeof modelUrl !== "string" || !modelUrl) throw new TypeError("wllamaModel: `modelUrl` is required");
  const nCtx = options.nCtx ?? DEFAULTS.nCtx;
  const maxTokens = options.maxTokens ?? DEFAULTS.maxTokens;
  const temperature = options.temperature ?? DEFAULTS.temperature;
  let instance;
  let loading;

  const load = (signal) => {
    loading ??= (async () => {
      const quiet = { debug() {}, log() {}, warn: console.warn, error: console.error };
      instance = new Wllama({ default: wasmUrl(options.wasmUrl) }, { logger: logger ?? quiet, suppressNativeLog: true });
      try {
        await instance.loadModelFromUrl(modelUrl, {
          n_ctx: nCtx,
          // CPU only: WebGPU is not everywhere, and a 135M model gains little from it.
          n_gpu_layers: 0,
          ...(nThreads ? { n_threads: nThreads } : {}),
          progressCallback: onProgress ? ({ loaded, total }) => onProgress({ loaded, total }) : undefined,
          signal,
        });
      } catch (e) {
        loading = undefined;
        throw failure(e, signal, `could not load ${modelUrl}`, true);
      }
      return instance;
    })();
    return loading;
  };

  const complete = async (messages, { schema, signal, onText } = {}) => {
    const llm = await load();
    const params = {
      messages: messages.map(({ role, content }) => ({ role, content })),
      response_format: responseFormat(schema),
      max_tokens: maxTokens,
      temperature,
      cache_prompt: true,
      abortSignal: signal,
    };
    let text;
    let usage;
    try {
      if (onText) {
        // Streamed: each chunk's text goes to keel as it is decoded (the step's `token` events).
        text = "";
        const chunks = await llm.createChatCompletion({ ...params, stream: true, onData: undefined });
        for await (const chunk of chunks) {
          const piece = chunk?.choices?.[0]?.delta?.content;
          if (typeof piece === "string" && piece !== "") {
            text += piece;
            onText(piece);
          }
          usage = chunk?.usage ?? usage;
        }
      } else {
        const response = await llm.createChatCompletion(params);
        text = response?.choices?.[0]?.message?.content;
        usage = response?.usage;
      }
    } catch (e) {
      throw failure(e, signal, "completion failed");
    }
    if (typeof text !== "string") {
      throw Object.assign(new Error("wllama returned no message content"), { name: "OperationError" });
    }
    return usage
      ? { text, usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } }
      : { text };
  };

  return Object.assign(complete, {
    // Temperature 0 (the default) decodes greedily: keel never asks a request it already asked.
    greedy: temperature === 0,
    load: (signal) => load(signal).then(() => undefined),
    info: () =>
      instance?.isModelLoaded()
        ? { threads: instance.getNumThreads(), multithread: instance.isMultithread(), nCtx }
        : undefined,
    dispose: async () => {
      const llm = instance;
      instance = undefined;
      loading = undefined;
      await llm?.exit();
    },
  });
}

registerPageBackend("wllama", wllamaModel);
