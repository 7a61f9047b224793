// Page-side scenarios for the OpenAI-compatible backend: the agent's worker calls the scripted
// server (openai-server.mjs) with fetch; each scenario returns plain data for the test.
import { Agent } from "/pkg/index.js";

const weather = (calls) => ({
  name: "get_weather",
  description: "Weather for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: async ({ city }) => {
    calls.push(city);
    return { city, sky: "sunny", temp: 21 };
  },
});

const fast = { retry: { baseDelayMs: 20, jitter: 0, maxRetryAfterMs: 5000 } };

async function runAll(agent, task, options) {
  const run = agent.run(task, options);
  const events = [];
  for await (const event of run) events.push(event);
  return { events, result: await run.result };
}

/** One backend that answers 429 (Retry-After: 1), then 503, then a tool call, then the answer. */
export async function retries({ server }) {
  const calls = [];
  const agent = await Agent.create({
    model: { openai: { baseUrl: `${server}/flaky/v1`, model: "scripted-model" } },
    tools: [weather(calls)],
    config: fast,
  });
  const out = await runAll(agent, "What's the weather in Paris?");
  agent.dispose();
  return { ...out, calls, origin: location.origin };
}

/** A chain: a server refusing the key (401), then a working one. */
export async function fallback({ server }) {
  const calls = [];
  const agent = await Agent.create({
    model: [
      { openai: { baseUrl: `${server}/locked/v1`, model: "first-choice", apiKey: "sk-wrong" } },
      { openai: { baseUrl: `${server}/open/v1/`, model: "second-choice", responseFormat: "jsonObject" } },
    ],
    tools: [weather(calls)],
    config: fast,
  });
  const out = await runAll(agent, "What's the weather in Oslo?");
  agent.dispose();
  return { ...out, calls };
}

/** A run cancelled while the server is still generating: the fetch is aborted. The test exposes
 * `waitForHungRequest` (resolves once the server holds the request). */
export async function cancelDuringRequest({ server }) {
  const agent = await Agent.create({
    model: { openai: { baseUrl: `${server}/hang/v1`, model: "slow" } },
    tools: [],
  });
  const controller = new AbortController();
  const run = agent.run("Think for a long time.", { signal: controller.signal });
  await window.waitForHungRequest();
  controller.abort();
  const result = await run.result;
  agent.dispose();
  return { reason: result.reason.kind, success: result.success };
}

/**
 * One scripted session twice, `runs` runs of `steps` steps under a small context budget (the
 * session's memory is cut to fit, differently each step): through a custom model on the page,
 * whose prompts the page rebuilds from what each `modelCall` carries, and through the OpenAI
 * backend, whose prompts the worker sends whole. Returns the page's prompts and schemas and what
 * the `modelCall` messages carried (`keep`, `edit`, `skip`, `sameSchema`).
 */
export async function samePrompts({ server, route = "prompts", runs, steps }) {
  const script = (i) => {
    const k = i % steps;
    if (k === steps - 1) return JSON.stringify({ thought: "done", final_answer: "It is sunny in every city." });
    return JSON.stringify({ thought: `city ${k}`, action: { tool: "get_weather", args: { city: `City ${Math.floor(i / steps)}-${k}` } } });
  };
  const seen = [];
  const schemas = [];
  const wire = [];
  const worker = new Worker("/pkg/worker.js", { type: "module" });
  // The worker posts JSON text of an array of messages (src/web/worker.rs).
  worker.addEventListener("message", (e) => {
    for (const m of JSON.parse(e.data)) {
      if (m.type === "modelCall") wire.push({ keep: m.keep ?? 0, edit: m.edit ?? null, skip: m.skip ?? 0, sameSchema: m.sameSchema ?? false });
    }
  });
  // Whole steps throughout (no answer asked for alone after a result): the prompts compared are
  // the step prompt's as the run and its window grow.
  const config = { store: "memory", contextTokens: 1200, stream: false, maxSteps: Math.max(steps + 1, 12), focusedAnswer: false };
  const page = await Agent.create({
    // The schema as given, then spoilt: what a model does with its schema must not reach the next
    // call's (the page keeps the run's schema, which a call carries only when it changes).
    model: {
      custom: async (messages, { schema }) => {
        schemas.push(JSON.parse(JSON.stringify(schema ?? null)));
        if (schema) schema.anyOf = "spoilt";
        return script(seen.push(messages) - 1);
      },
    },
    tools: [weather([])],
    config,
    session: "page",
    worker,
  });
  const inWorker = await Agent.create({
    model: { openai: { baseUrl: `${server}/${route}/v1`, model: "scripted-model" } },
    tools: [weather([])],
    config,
    session: "worker",
  });
  for (let r = 0; r < runs; r++) {
    await page.run(`What is the weather in ${steps - 1} cities?`).result;
    await inWorker.run(`What is the weather in ${steps - 1} cities?`).result;
  }
  page.dispose();
  inWorker.dispose();
  return { seen, schemas, wire };
}
