// The model choices the panel offers and what each hands Agent.create in the host. A choice is
// plain JSON (the panel sends it, the host stores it with the run for a resume):
//   { kind: "auto", openai?: { baseUrl, model } }  the Prompt API, then the OpenAI-compatible server
//   { kind: "prompt-api" }                          Chrome's built-in model only
//   { kind: "openai", openai: { baseUrl, model } }  a local OpenAI-compatible server (llama.cpp, Ollama…)
//   { kind: "scripted", delayMs? }                   replays the shop scenario (scripted.js), for tests
import { shopScript } from "./scripted.js";

export const MODELS = {
  auto: { title: "Built-in AI, then the server", sub: "Prompt API; the OpenAI-compatible server if it is unavailable" },
  "prompt-api": { title: "Chrome built-in AI", sub: "Prompt API · Gemini Nano, on device" },
  openai: { title: "OpenAI-compatible server", sub: "llama.cpp, Ollama, LM Studio… over fetch" },
  scripted: { title: "Scripted model", sub: "Replays the shop scenario · deterministic, for tests" },
};

function openaiOf(choice) {
  const { baseUrl, model } = choice.openai ?? {};
  if (typeof baseUrl !== "string" || !/^https?:\/\//.test(baseUrl)) {
    throw new TypeError(`the OpenAI-compatible server needs an http(s) base URL, got ${JSON.stringify(baseUrl)}`);
  }
  return { openai: { baseUrl, model: model || "local" } };
}

/** `{ model, config }` for Agent.create from a panel choice; a bad choice throws a TypeError saying why. */
export function agentModel(choice) {
  switch (choice?.kind) {
    case "prompt-api":
      return { model: "prompt-api", config: {} };
    case "openai":
      return { model: openaiOf(choice), config: {} };
    case "auto":
      return { model: choice.openai?.baseUrl ? ["prompt-api", openaiOf(choice)] : "prompt-api", config: {} };
    case "scripted": {
      const delayMs = Number(choice.delayMs ?? 300);
      if (!Number.isFinite(delayMs) || delayMs < 0) throw new TypeError(`scripted delayMs must be ≥ 0, got ${choice.delayMs}`);
      return { model: { custom: shopScript({ delayMs }) }, config: { format: "text" } };
    }
    default:
      throw new TypeError(`unknown model choice ${JSON.stringify(choice?.kind)}: use ${Object.keys(MODELS).join(", ")}`);
  }
}
