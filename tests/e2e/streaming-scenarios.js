// Page-side scenarios for streaming: the Prompt API fake's `promptStreaming`, custom models with and
// without `onText`, and the OpenAI-compatible backend's server-sent events from the scripted server
// (openai-server.mjs). Each returns plain data for the test.
import { Agent } from "/pkg/index.js";
import { installFakeLanguageModel } from "/tests/fakes/language-model.js";

import { act, answer, tool } from "./steps.js";

const fast = { retry: { baseDelayMs: 20, jitter: 0, maxRetryAfterMs: 5000 }, toolChoice: "auto", grounding: false };
const lookup = tool("lookup", async ({ id }) => ({ id, found: true }));

async function runAll(agent, task, options, onEvent = () => {}) {
  const run = agent.run(task, options);
  const events = [];
  for await (const event of run) {
    events.push(event);
    onEvent(event, run);
  }
  return { events, result: await run.result };
}

/** The Prompt API streams a tool call, then an answer; `stream: false` asks it whole. */
export async function promptApiStreams({ stream = true } = {}) {
  const replies = [act("lookup", { id: "a" }), answer("Record a: found, “all good” 🎉.")];
  const fake = installFakeLanguageModel({ replies: [...replies], chunkChars: 5 });
  try {
    const agent = await Agent.create({ model: "prompt-api", tools: [lookup], config: { ...fast, stream } });
    const out = await runAll(agent, "Find record a.");
    agent.dispose();
    const streaming = fake.log.prompts.map((p) => p.streaming === true);
    return { ...out, replies, streamed: fake.log.streamed, streaming };
  } finally {
    fake.uninstall();
  }
}

/** The Prompt API's stream errors mid-way (UnknownError, transient), then the retry streams whole. */
export async function promptApiBreaksMidStream() {
  const good = answer("Done.");
  const fake = installFakeLanguageModel({
    replies: [{ text: good, error: "UnknownError", message: "The model crashed.", after: 12 }, good],
    chunkChars: 4,
  });
  try {
    const agent = await Agent.create({ model: "prompt-api", tools: [], config: fast });
    const out = await runAll(agent, "Say done.");
    agent.dispose();
    return { ...out, good };
  } finally {
    fake.uninstall();
  }
}

/** A custom model that streams through `onText`, and one that ignores it. */
export async function customModels() {
  const step = answer("Streamed by hand.");
  const asked = [];
  const streaming = async (_messages, { onText }) => {
    asked.push(typeof onText);
    for (let at = 0; at < step.length; at += 10) onText?.(step.slice(at, at + 10));
    return step;
  };
  const plain = async () => answer("Answered whole.");
  const a = await Agent.create({ model: { custom: streaming }, tools: [], config: fast });
  const streamed = await runAll(a, "Stream.");
  a.dispose();
  const b = await Agent.create({ model: { custom: plain }, tools: [], config: fast });
  const whole = await runAll(b, "Whole.");
  b.dispose();
  const c = await Agent.create({ model: { custom: streaming }, tools: [], config: { ...fast, stream: false } });
  const off = await runAll(c, "Off.");
  c.dispose();
  return { streamed, whole, off, asked, step };
}

/** The OpenAI-compatible backend on route `route` (server-sent events). */
export async function openaiStreams({ server, route, cancelAtFirstToken = false }) {
  const agent = await Agent.create({
    model: { openai: { baseUrl: `${server}/${route}/v1`, model: "streamer" } },
    tools: [lookup],
    config: fast,
  });
  const controller = new AbortController();
  const out = await runAll(agent, "Find record a.", { signal: controller.signal }, (event) => {
    if (cancelAtFirstToken && event.type === "token") controller.abort();
  });
  agent.dispose();
  return out;
}
