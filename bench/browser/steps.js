// Engine overhead per step, measured on the page: agents with an instant scripted model and an
// instant tool run many short runs, round-robin, and every event's arrival is timestamped with
// performance.now() in the `onEvent` callback (called as each message arrives, before any await).
import { Agent, ToolError } from "/pkg/index.js";

/** Each configuration runs twice: with the package's own worker, and with the probe around it. */
export const CONFIGS = [
  { name: "tools ok, xml", failEvery: 0, format: "xml" },
  { name: "every other tool fails, xml", failEvery: 2, format: "xml" },
  { name: "every other tool fails, text", failEvery: 2, format: "text" },
];

const LOOKUP_SCHEMA = {
  type: "object",
  properties: { id: { type: "integer", minimum: 1 }, fields: { type: "array", items: { type: "string" } } },
  required: ["id"],
  additionalProperties: false,
};

/**
 * The checks an agent driven by a scripted model (`scriptedModel` here, instant.js's
 * `instantModel`) must have off, for every bench page. The model invents its ids (1, 2,
 * 3…), which id provenance refuses (UNSEEN_ID) and the task's values too (CONTRADICTS_TASK: the
 * task says 9, the calls 1, 2, 3…; `./build.sh bench browser` failed on that from the check's
 * arrival until 2026-11-28). It calls the tool again when asked for the answer alone: the focused
 * answer off, so that every step is the whole step (since d0b18de the step after a result asked
 * for the answer alone).
 */
export const SCRIPTED = { idProvenance: false, taskValues: false, focusedAnswer: false };

/** Steps 1..n-1 call `lookup` with a new id each time (no repeats); step n answers. */
export function scriptedModel(stepsPerRun, prompts) {
  const counts = new Map();
  return async (messages, { runId }) => {
    const n = (counts.get(runId) ?? 0) + 1;
    counts.set(runId, n);
    if (n === 1 || n === stepsPerRun) {
      const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
      prompts[n === 1 ? "first" : "last"].push(chars);
    }
    if (n >= stepsPerRun) {
      counts.delete(runId);
      return JSON.stringify({ thought: "I have what I need.", final_answer: `Looked up ${n - 1} items.` });
    }
    return JSON.stringify({
      thought: `Look up item ${n}.`,
      action: { tool: "lookup", args: { id: n, fields: ["name", "price"] } },
    });
  };
}

/** Instant; with `failEvery` = 2, ids 2, 4, 6… fail persistently with a full envelope. */
export function lookupTool(failEvery) {
  return {
    name: "lookup",
    description: "Looks up an item of the catalogue by id.",
    inputSchema: LOOKUP_SCHEMA,
    execute: async ({ id }) => {
      if (failEvery && id % failEvery === 0) {
        throw new ToolError(`Item ${id} is not in the catalogue.`, {
          code: "NOT_FOUND",
          retryable: false,
          causes: ["The id was taken from an older listing.", "The item was withdrawn."],
          recovery: ["Call `lookup` with an id from the current listing.", "Answer without this item."],
          availableActions: ["lookup"],
          details: { id, listing: "2024-06" },
        });
      }
      return { id, name: `Item ${id}`, price: 9.5 + id, tags: ["stock", "eu"] };
    },
  };
}

function probeMarks(worker) {
  const channel = new MessageChannel();
  const marks = new Promise((resolve) => (channel.port1.onmessage = (e) => resolve(e.data)));
  worker.postMessage({ type: "benchProbe" }, [channel.port2]);
  return marks;
}

/** One run; returns its page-side timestamps and the engine's RunResult. */
export async function timedRun(agent, task, session) {
  const marks = [];
  const t0 = performance.now();
  const handle = agent.run(task, { session, onEvent: (e) => marks.push([e.type, performance.now()]) });
  const result = await handle.result;
  return { t0, tEnd: performance.now(), marks, result };
}

// Step k: from its stepStarted to the next stepStarted, or to runEnded for the last step.
export function pageSteps({ t0, tEnd, marks }) {
  const starts = marks.filter(([type]) => type === "stepStarted").map(([, t]) => t);
  const ended = marks.find(([type]) => type === "runEnded")[1];
  const steps = starts.map((t, i) => (i + 1 < starts.length ? starts[i + 1] : ended) - t);
  return { steps, overhead: starts[0] - t0 + (tEnd - ended) };
}

// The same steps on the worker's clock, split into the model's round trip, the tool's, and the rest.
function workerSplit(marks, stepsPerRun) {
  const out = { step: [], modelRtt: [], toolRtt: [], engine: [] };
  const byId = new Map(marks.filter(([type]) => type.endsWith("Result")).map(([, id, t]) => [id, t]));
  const calls = marks.filter(([type]) => type.endsWith("Call"));
  const models = calls.filter(([type]) => type === "modelCall");
  if (models.length !== stepsPerRun) throw new Error(`probe saw ${models.length} model calls`);
  for (let k = 0; k + 1 < models.length; k++) {
    const [, mid, mt] = models[k];
    const tool = calls.find(([type, , t]) => type === "toolCall" && t > mt && t < models[k + 1][2]);
    const modelRtt = byId.get(mid) - mt;
    const toolRtt = byId.get(tool[1]) - tool[2];
    const step = models[k + 1][2] - mt;
    out.step.push(step);
    out.modelRtt.push(modelRtt);
    out.toolRtt.push(toolRtt);
    out.engine.push(step - modelRtt - toolRtt);
  }
  return out;
}

export function check(result, stepsPerRun, failEvery) {
  const calls = stepsPerRun - 1;
  const failures = failEvery ? Math.floor(calls / failEvery) : 0;
  const ok =
    result.success &&
    result.reason.kind === "finalAnswer" &&
    result.counts.steps === stepsPerRun &&
    result.counts.toolCalls === calls &&
    result.failures.length === failures;
  if (!ok) throw new Error(`the scripted run did not go as designed: ${JSON.stringify({ ...result, turns: undefined })}`);
}

/**
 * Runs every configuration side by side: `warmup` runs per agent first (discarded), then `runs`
 * measured runs per agent, one agent after another in a rotating order.
 */
export async function benchSteps({ runs = 120, warmup = 10, stepsPerRun = 10 } = {}) {
  const agents = [];
  for (const config of CONFIGS) {
    for (const probed of [false, true]) {
      const worker = probed ? new Worker("./probe-worker.js", { type: "module", name: "keel-probe" }) : undefined;
      const prompts = { first: [], last: [] };
      const agent = await Agent.create({
        model: { custom: scriptedModel(stepsPerRun, prompts) },
        tools: [lookupTool(config.failEvery)],
        config: { ...SCRIPTED, format: config.format, maxSteps: stepsPerRun + 2 },
        worker,
      });
      // Each agent's runs in sessions of their own: the agents share the default database, and a
      // session's earlier turns go into the prompt (issue 12 found 3.9k chars at step 1 for 1.2k).
      const key = agents.length;
      agents.push({ key, config, probed, agent, worker, prompts, page: { all: [], ok: [], failed: [], final: [], overhead: [] }, split: null });
    }
  }
  const started = performance.now();
  for (let round = 0; round < warmup + runs; round++) {
    const measured = round >= warmup;
    for (let i = 0; i < agents.length; i++) {
      const a = agents[(i + round) % agents.length];
      if (a.probed) await probeMarks(a.worker);
      const run = await timedRun(a.agent, `Look up ${stepsPerRun - 1} items.`, `bench-${a.key}-${round}`);
      check(run.result, stepsPerRun, a.config.failEvery);
      if (!measured) continue;
      const { steps, overhead } = pageSteps(run);
      a.page.all.push(...steps);
      a.page.overhead.push(overhead);
      steps.forEach((ms, k) => {
        const id = k + 1;
        const kind = id === stepsPerRun ? "final" : a.config.failEvery && id % a.config.failEvery === 0 ? "failed" : "ok";
        a.page[kind].push(ms);
      });
      if (a.probed) {
        const split = workerSplit(await probeMarks(a.worker), stepsPerRun);
        a.split ??= { step: [], modelRtt: [], toolRtt: [], engine: [] };
        for (const key of Object.keys(split)) a.split[key].push(...split[key]);
      }
    }
  }
  const elapsedMs = performance.now() - started;
  for (const a of agents) a.agent.dispose();
  return {
    elapsedMs,
    crossOriginIsolated,
    userAgent: navigator.userAgent,
    hardwareConcurrency: navigator.hardwareConcurrency,
    agents: agents.map(({ config, probed, page, split, prompts }) => ({
      config: config.name,
      format: config.format,
      failEvery: config.failEvery,
      probed,
      page,
      split,
      prompts: { first: prompts.first.slice(warmup), last: prompts.last.slice(warmup) },
    })),
  };
}
