// Page side of the web benchmark: one task through keel's OpenAI-compatible backend (the worker
// fetches the bench proxy, which forwards to llama.cpp) with keel-agent/dom's tools, whose domOp runs
// in the other tab through the functions run.mjs exposes (as chrome.scripting does in an extension).
import { Agent } from "/pkg/index.js";
import { domTools } from "/pkg/dom/index.js";
import { TASKS } from "./tasks.js";

const BY_ID = new Map(TASKS.map((t) => [t.id, t]));

/** What a page with a small local model would use (as the recovery benchmark's keel mode). */
const CONFIG = {
  maxSteps: 10,
  // The bench's machines are slow: a step's generation can take tens of seconds.
  modelTimeoutMs: 180_000,
  // n_ctx 8192 on the server, less room for the reply.
  contextTokens: 6_000,
  store: "memory",
  // A DOM agent looks before it acts: the first step is a snapshot (Qwen's first runs sent made-up
  // refs before any, and never took one).
  toolChoice: { tool: "snapshot" },
};

/** Runs task `id`; resolves to plain data: the result's figures, the failures, the trace. */
async function runTask({ id, proxy, model }) {
  const task = BY_ID.get(id);
  if (!task) throw new Error(`no task '${id}'`);
  const agent = await Agent.create({
    // The proxy answers whole (it records and may break each reply): no server-sent events.
    model: { openai: { baseUrl: `${proxy}/web/${id}/v1`, model, responseFormat: "jsonObject", stream: false } },
    tools: domTools({
      run: (op, args) => window.__keelTabRun(op, args),
      navigate: (url) => window.__keelTabNavigate(url),
      back: () => window.__keelTabBack(),
    }),
    session: `web-${id}-${Date.now()}`,
    config: CONFIG,
  });
  const started = performance.now();
  const events = [];
  try {
    const run = agent.run(task.task);
    for await (const event of run) events.push(event);
    const result = await run.result;
    return {
      task: id,
      answerCorrect: task.check(result.answer ?? ""),
      success: result.success,
      reason: result.reason.kind,
      answer: result.answer,
      wallMs: Math.round(performance.now() - started),
      counts: result.counts,
      stats: result.stats,
      failures: result.failures.map((f) => ({ step: f.step, tool: f.tool, code: f.code, class: f.class, attempt: f.attempt, recovered: f.recovered })),
      warnings: events.filter((e) => e.type === "warning").map((e) => e.message),
      trace: result.turns.map((t) => ({ step: t.step, thought: t.thought, action: t.action, outcome: t.outcome, observation: t.observation, reply: t.reply ?? null })),
    };
  } finally {
    agent.dispose();
  }
}

window.runTask = runTask;
window.benchLoaded = true;
