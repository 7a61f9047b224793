// Page side of hardening.test.mjs: bad input through the public API and the boundary, each
// scenario returning what came back (an error's name/code/message, a run's result, how often each
// tool ran). Every agent uses the memory store or its own database, and is disposed.
import { Agent, KeelError, ToolError } from "/pkg/index.js";

import { act, answer, idbRequest, scripted, sleep, tool } from "./steps.js";

const memory = { store: "memory", retry: { baseDelayMs: 10, jitter: 0 } };
const LONE = "😀".slice(0, 1);

/** What a promise settled with, or `hung` after `ms`. */
async function settle(promise, ms = 5000) {
  const timeout = sleep(ms).then(() => ({ hung: true }));
  const settled = Promise.resolve(promise).then(
    (value) => ({ ok: true, value }),
    (e) => ({
      ok: false,
      name: e?.name,
      code: e?.code,
      message: String(e?.message ?? e),
      keelError: e instanceof KeelError && KeelError.isInstance(e),
      path: e?.path,
      suggestion: e?.suggestion,
    }),
  );
  return Promise.race([settled, timeout]);
}

/** What calling `fn` threw (synchronously or not), or `{ ok: true }`. */
const outcome = (fn) => settle((async () => fn())());

/** `Agent.create` with bad options: each rejects at once with a code naming what was wrong. */
export async function hardenCreate() {
  const model = { custom: scripted([answer("ok")]) };
  const t = (extra = {}) => tool("search", async () => "x", extra);
  const nested = (n) => Array.from({ length: n }).reduce((inner) => ({ type: "array", items: inner }), { type: "string" });
  const cyclic = { type: "object", properties: {} };
  cyclic.properties.self = cyclic;
  const cases = {
    configArray: { model, config: [12] },
    maxStep: { model, config: { maxStep: 3 } },
    maxAttemps: { model, config: { retry: { maxAttemps: 2 } } },
    nan: { model, config: { maxSteps: NaN } },
    negative: { model, config: { maxSteps: -1 } },
    hugeAttempts: { model, config: { retry: { maxAttempts: 2 ** 32 - 1 } } },
    storeKey: { model, config: { store: { kind: "memory", nmae: "x" } } },
    toolsObject: { model, tools: {} },
    modelEmpty: { model: [] },
    modelNumber: { model: 42 },
    modelExtra: { model: { custom: async () => answer("x"), timeout: 5 } },
    topLevel: { modle: model },
    toolTimeout0: { model, tools: [t({ timeoutMs: 0 })] },
    toolAttempts0: { model, tools: [t({ maxAttempts: 0 })] },
    toolField: { model, tools: [t({ timeoutMS: 10 })] },
    refsFrom: { model, tools: [t({ refsFrom: ["nope"] })] },
    schema70: { model, tools: [t({ inputSchema: nested(70) })] },
    schema150: { model, tools: [t({ inputSchema: nested(150) })] },
    schemaBigInt: { model, tools: [t({ inputSchema: { type: "integer", maximum: 10n } })] },
    schemaCycle: { model, tools: [t({ inputSchema: cyclic })] },
  };
  const out = {};
  for (const [name, options] of Object.entries(cases)) {
    out[name] = await settle(
      Agent.create({ ...options, config: options.config ?? { store: "memory" } }).then((a) => a.dispose()),
    );
  }
  // A lone surrogate in a description is replaced, not a hang: the agent is built.
  const ok = await settle(
    Agent.create({ model, config: { store: "memory" }, tools: [tool("s", async () => 1, { description: `cut ${LONE}` })] }),
  );
  out.loneDescription = { ok: ok.ok, hung: ok.hung };
  if (ok.ok) ok.value.dispose();
  return out;
}

/** Run options and failure queries with mistakes: refused at once, naming the key. */
export async function hardenRunOptions() {
  const agent = await Agent.create({ model: { custom: scripted([answer("ok")]) }, config: { store: "memory" } });
  const out = {
    signal: await outcome(() => agent.run("t", { signal: { aborted: false } })),
    sesion: await outcome(() => agent.run("t", { sesion: "s" })),
    task: await outcome(() => agent.run(42)),
    query: await settle(agent.failures({ sesion: "s" })),
    queryKind: await settle(agent.failureStats({ code: "TIMEOUT", limt: 3 })),
  };
  const run = agent.run("fine", {});
  out.stillWorks = (await settle(run.result)).value?.answer;
  agent.dispose();
  return out;
}

/**
 * Tool replies the worker cannot read as they are: a lone surrogate (replaced, with a warning), a
 * result nested 200 deep (a clear failure), a Retry-After of 1e300 ms or 99999999999999999999 s
 * (clamped: handed to the model). Each tool must run exactly once, and nothing waits for a timeout.
 */
export async function hardenToolReplies() {
  const calls = {};
  const count = (name, fn) =>
    tool(name, async (...args) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return fn(...args);
    });
  const deep = Array.from({ length: 200 }).reduce((inner) => [inner], 1);
  const agent = await Agent.create({
    model: {
      custom: scripted([
        act("surrogate"),
        act("surrogate_error"),
        act("deep"),
        act("retry_ms"),
        act("retry_header"),
        act("nothing"),
        act("cycle"),
        act("fn"),
        act("dated"),
        answer(`done ${LONE}`),
      ]),
    },
    config: { ...memory, toolTimeoutMs: 3000 },
    tools: [
      count("surrogate", () => ({ note: `cut ${LONE}` })),
      count("surrogate_error", () => {
        throw new ToolError(`bad ${LONE} input`, { code: "BAD_INPUT" });
      }),
      count("deep", () => deep),
      count("retry_ms", () => {
        throw Object.assign(new Error("slow down"), { status: 429, retryAfterMs: 1e300 });
      }),
      count("retry_header", () => {
        throw new Response("slow down", { status: 429, headers: { "Retry-After": "99999999999999999999" } });
      }),
      // Values JSON has no form for are refused on the page, naming the value; `undefined` is null;
      // a value with `toJSON` is sent as it writes itself.
      count("cycle", () => {
        const cycle = { name: "loop" };
        cycle.self = cycle;
        return cycle;
      }),
      count("fn", () => () => 1),
      count("nothing", () => undefined),
      count("dated", () => ({ at: new Date(0) })),
    ],
  });
  const started = performance.now();
  const events = [];
  const run = agent.run(`summarise: 😀😀`.slice(0, -1), { onEvent: (e) => events.push(e) });
  const result = await settle(run.result, 8000);
  const elapsedMs = performance.now() - started;
  agent.dispose();
  return {
    calls,
    elapsedMs,
    ok: result.ok,
    hung: result.hung,
    answer: result.value?.answer,
    failures: events.filter((e) => e.type === "failure").map((e) => ({ tool: e.tool, code: e.code, class: e.class, message: e.message })),
    warnings: events.filter((e) => e.type === "warning").map((e) => e.message),
    retries: events.filter((e) => e.type === "retryScheduled").length,
    observations: events.filter((e) => e.type === "observation").map((e) => e.text),
  };
}

/** A custom model that returns a non-string, or a negative token count: the run says what came. */
export async function hardenModelReplies() {
  const out = {};
  for (const [name, reply] of Object.entries({ number: 42, usage: { text: answer("x"), usage: { promptTokens: -1, completionTokens: 2 } } })) {
    let asked = 0;
    const agent = await Agent.create({
      model: {
        custom: async () => {
          asked += 1;
          return reply;
        },
      },
      config: memory,
    });
    const result = await settle(agent.run("t").result);
    out[name] = { asked, reason: result.value?.reason, hung: result.hung };
    agent.dispose();
  }
  return out;
}

/**
 * The worker dies under a run: terminated mid-tool (the run, a pending query and later calls
 * reject with WORKER_TERMINATED), a worker script that fails (WORKER_FAILED), a worker that never
 * answers (WORKER_UNRESPONSIVE, after `workerTimeoutMs`), one that posts objects, not JSON text
 * (PROTOCOL_ERROR).
 */
export async function hardenDeadWorker() {
  await idbRequest(indexedDB.deleteDatabase("keel-e2e-hardening"));
  const worker = new Worker("/pkg/worker.js", { type: "module" });
  let release;
  const inTool = new Promise((r) => (release = r));
  const agent = await Agent.create({
    worker,
    model: { custom: scripted([act("wait"), answer("never")]) },
    config: { store: { name: "keel-e2e-hardening" } },
    tools: [tool("wait", () => (release(), new Promise(() => {})))],
  });
  const run = agent.run("t");
  await inTool;
  const query = agent.failures();
  const started = performance.now();
  worker.terminate();
  const out = {
    run: await settle(run.result, 3000),
    query: await settle(query, 3000),
    afterMs: performance.now() - started,
    later: await settle(agent.run("again").result, 3000),
  };
  agent.dispose();

  out.brokenScript = await settle(
    Agent.create({ worker: "/tests/e2e/no-such-worker.js", model: { custom: scripted([]) }, config: { store: "memory" } }),
    5000,
  );
  const silentStarted = performance.now();
  out.silent = await settle(
    Agent.create({
      worker: new Worker("/tests/e2e/silent-worker.js", { type: "module" }),
      workerTimeoutMs: 300,
      model: { custom: scripted([]) },
      config: { store: "memory" },
    }),
    5000,
  );
  out.silentMs = performance.now() - silentStarted;
  out.objects = await settle(
    Agent.create({
      worker: new Worker("/tests/e2e/object-worker.js", { type: "module" }),
      model: { custom: scripted([]) },
      config: { store: "memory" },
    }),
    5000,
  );
  return out;
}

/**
 * 30 000 near-miss values against a 1 000-option enum, every step: the did-you-mean search is
 * bounded, so the run ends quickly, and a cancel during it acts at once.
 */
export async function hardenNearMisses() {
  const options = Array.from({ length: 1000 }, (_, i) => `option_${String(i).padStart(4, "0")}`);
  const sent = Array.from({ length: 30_000 }, (_, i) => `optoin_${String(i % 1000).padStart(4, "0")}`);
  let calls = 0;
  const make = () =>
    Agent.create({
      model: { custom: async () => act("pick", { values: sent }) },
      config: { ...memory, maxSteps: 3, maxConsecutiveFailures: 3 },
      tools: [
        tool("pick", async () => (calls += 1), {
          inputSchema: { type: "object", properties: { values: { type: "array", items: { enum: options } } } },
        }),
      ],
    });
  const agent = await make();
  let started = performance.now();
  const result = await settle(agent.run("pick").result, 20_000);
  const runMs = performance.now() - started;
  const ctrl = new AbortController();
  const run = agent.run("pick again", { signal: ctrl.signal });
  await sleep(50);
  started = performance.now();
  ctrl.abort();
  const cancelled = await settle(run.result, 20_000);
  const cancelMs = performance.now() - started;
  agent.dispose();
  return {
    calls,
    runMs,
    cancelMs,
    reason: result.value?.reason?.kind,
    codes: result.value?.failures?.map((f) => f.code),
    cancelledKind: cancelled.value?.reason?.kind,
  };
}
