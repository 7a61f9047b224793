// Page side of the recovery benchmark: runs one scenario in one mode through keel's
// OpenAI-compatible backend (the worker fetches the bench proxy, which forwards to llama.cpp).
import { Agent, ToolError } from "/pkg/index.js";
import { MODES } from "./modes.js";
import { correct, scenarios } from "./scenarios.js";
import { withDistractors } from "./distractors.js";

const SCENARIOS = new Map(scenarios(ToolError).map((s) => [s.id, s]));

/** Settings every mode shares: what a page with a small local model would use. */
const COMMON = {
  maxSteps: 10,
  // The bench's machines are slow: a step's generation can take tens of seconds, and minutes when
  // other work shares the 2 cores (issue 9's runs: ~1 token/s under constrained decoding).
  modelTimeoutMs: 600_000,
  // n_ctx 8192 on the server, less room for the reply.
  contextTokens: 6_000,
  store: "memory",
};

/**
 * Runs scenario `id` in `mode`; resolves to plain data: the result's figures, the failures, the
 * trace of thoughts/actions/observations, and whether the answer is correct.
 */
async function runScenario({ id, mode, proxy, model }) {
  const scenario = SCENARIOS.get(id);
  const settings = MODES[mode];
  if (!scenario) throw new Error(`no scenario '${id}'`);
  if (!settings) throw new Error(`no mode '${mode}'`);
  const tools = settings.distractors ? withDistractors(id, scenario.tools()) : scenario.tools();
  const agent = await Agent.create({
    // The proxy answers whole (it records and may break each reply): no server-sent events.
    model: { openai: { baseUrl: `${proxy}/${mode}/${id}/v1`, model, responseFormat: settings.responseFormat, stream: false } },
    tools,
    session: `${mode}-${id}-${Date.now()}`,
    config: { ...COMMON, ...settings.config },
  });
  const events = [];
  let started;
  try {
    // A follow-up's earlier tasks, in the same session: only their answers are kept.
    const earlier = [];
    for (const task of scenario.before ?? []) {
      const done = await agent.run(task).result;
      earlier.push({ task, answer: done.answer, success: done.success, steps: done.counts.steps });
    }
    started = performance.now();
    const run = agent.run(scenario.task);
    for await (const event of run) events.push(event);
    const result = await run.result;
    const wallMs = Math.round(performance.now() - started);
    return {
      scenario: id,
      mode,
      correct: correct(scenario, result),
      ...groundingAlarms(scenario, result),
      success: result.success,
      reason: result.reason.kind,
      answer: result.answer,
      wallMs,
      tools: tools.length,
      counts: result.counts,
      stats: result.stats,
      failures: result.failures.map((f) => ({ step: f.step, tool: f.tool, code: f.code, class: f.class, attempt: f.attempt, recovered: f.recovered })),
      retries: events.filter((e) => e.type === "retryScheduled").length,
      warnings: events.filter((e) => e.type === "warning").map((e) => e.message),
      ...(earlier.length ? { earlier } : {}),
      trace: result.turns.map((t) => ({ step: t.step, thought: t.thought, action: t.action, outcome: t.outcome, observation: t.observation, reply: t.reply ?? null })),
    };
  } finally {
    agent.dispose();
  }
}

/**
 * The answers the grounding check flagged (an UNGROUNDED_ANSWER envelope, or the answer withheld
 * at the end), and how many of them were right all the same: its false alarms.
 */
function groundingAlarms(scenario, result) {
  const steps = new Set(result.failures.filter((f) => f.code === "UNGROUNDED_ANSWER").map((f) => f.step));
  const last = result.turns.at(-1);
  const flagged = result.turns.filter((t) => steps.has(t.step) || (t === last && result.ungrounded?.length && t.reply));
  const answerOf = (reply) => {
    try {
      return String(JSON.parse(reply).final_answer ?? reply);
    } catch {
      return reply;
    }
  };
  const rightAnyway = flagged.filter((t) => !scenario.honest && scenario.expect(answerOf(t.reply ?? ""))).length;
  return { groundingFlags: flagged.length, groundingFalseAlarms: rightAnyway, ungrounded: result.ungrounded ?? [] };
}

window.runScenario = runScenario;
window.benchLoaded = true;
