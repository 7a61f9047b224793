// The model choices the panel offers and what each hands Agent.create in the host. A choice is
// plain JSON (the panel sends it, the host stores it with the run for a resume):
//   { kind: "auto", openai?, gguf? }            the Prompt API, then the server, then the GGUF model
//   { kind: "prompt-api" }                       Chrome's built-in model only
//   { kind: "openai", openai: { baseUrl, model } } a local OpenAI-compatible server (llama.cpp, Ollama…)
//   { kind: "gguf", gguf: { modelUrl } }         a GGUF model run in the host by wllama
//   { kind: "scripted", delayMs? }               plays the fixture shop's deals scenario (scripted.js), for tests
import { shopScript } from "./scripted.js";

export const MODELS = {
  auto: { title: "Built-in AI, then the fallbacks", sub: "Prompt API; else the server, else the GGUF model (those given)" },
  "prompt-api": { title: "Chrome built-in AI", sub: "Prompt API · Gemini Nano, on device" },
  openai: { title: "OpenAI-compatible server", sub: "llama.cpp, Ollama, LM Studio… over fetch" },
  gguf: { title: "GGUF model in the extension", sub: "wllama (llama.cpp in WebAssembly) · from a URL" },
  scripted: { title: "Scripted model", sub: "Plays the test shop's deals scenario · deterministic" },
};

function openaiOf(choice) {
  const { baseUrl, model } = choice.openai ?? {};
  if (typeof baseUrl !== "string" || !/^https?:\/\//.test(baseUrl)) {
    throw new TypeError(`the OpenAI-compatible server needs an http(s) base URL, got ${JSON.stringify(baseUrl)}`);
  }
  return { openai: { baseUrl, model: model || "local" } };
}

function ggufUrlOf(choice) {
  const url = choice.gguf?.modelUrl;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    throw new TypeError(`the GGUF model needs an http(s) URL of a .gguf file, got ${JSON.stringify(url)}`);
  }
  return url;
}

// A 135M–1B model on a laptop CPU: a step can take a minute, and its context is small.
const GGUF_CONFIG = { format: "plain", contextTokens: 3600, modelTimeoutMs: 300_000, maxSteps: 10 };

/**
 * `{ model, config }` for Agent.create from a panel choice; a bad choice throws a TypeError saying
 * why. `gguf(url)` returns the host's model function for a GGUF URL (loaded once, kept between runs).
 */
export async function agentModel(choice, { gguf }) {
  switch (choice?.kind) {
    case "prompt-api":
      return { model: "prompt-api", config: {} };
    case "openai":
      return { model: openaiOf(choice), config: {} };
    case "gguf":
      return { model: { custom: await gguf(ggufUrlOf(choice)) }, config: GGUF_CONFIG };
    case "auto": {
      const chain = ["prompt-api"];
      if (choice.openai?.baseUrl) chain.push(openaiOf(choice));
      if (choice.gguf?.modelUrl) chain.push({ custom: await gguf(ggufUrlOf(choice)) });
      return { model: chain.length === 1 ? chain[0] : chain, config: {} };
    }
    case "scripted": {
      const delayMs = Number(choice.delayMs ?? 300);
      if (!Number.isFinite(delayMs) || delayMs < 0) throw new TypeError(`scripted delayMs must be ≥ 0, got ${choice.delayMs}`);
      // The script knows where it is from its own earlier thoughts in the prompt, which keel
      // replays empty by default (replayThoughts "none", for small models that copy them).
      return { model: { custom: shopScript({ delayMs }) }, config: { format: "text", replayThoughts: "all" } };
    }
    default:
      throw new TypeError(`unknown model choice ${JSON.stringify(choice?.kind)}: use ${Object.keys(MODELS).join(", ")}`);
  }
}
