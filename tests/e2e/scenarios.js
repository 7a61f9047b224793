// Scenarios run inside the page against the built package; each returns plain data for the test
// to assert on. The model is a script: it returns the next step whatever it is asked.
import { Agent, ToolError } from "/pkg/index.js";
// The backend's class is not part of the package's surface (index.js holds it inlined): its own
// scenario tests the module as written.
import { PromptApiBackend } from "/js/backends/prompt-api.js";
import { installFakeLanguageModel } from "/tests/fakes/language-model.js";

import { act, answer, scripted, sessionRecords, tool } from "./steps.js";

const fast = { retry: { baseDelayMs: 20, jitter: 0, maxRetryAfterMs: 5000 } };

/** Tools that fail on purpose: stale ref, a hang, a 429 with Retry-After, a 503, then an answer. */
export async function faultyTools() {
  const seen = [];
  const calls = [];
  const hung = {};
  let rateCalls = 0;
  let flakyCalls = 0;
  const agent = await Agent.create({
    model: {
      custom: scripted(
        [act("click", { ref: "e5" }), act("hang"), act("rate_limited"), act("flaky"), answer("All done.")],
        seen,
      ),
    },
    config: fast,
    tools: [
      tool("click", async ({ ref }) => {
        calls.push("click");
        throw new ToolError(`Element ${ref} is no longer on the page.`, {
          code: "STALE_REFERENCE",
          recovery: ["Call `snapshot` to get fresh refs.", "Click the new ref of the same button."],
          availableActions: ["snapshot"],
          details: { ref },
        });
      }),
      tool(
        "hang",
        (_args, { signal, timeoutMs }) =>
          new Promise(() => {
            calls.push("hang");
            hung.timeoutMs = timeoutMs;
            const started = performance.now();
            signal.addEventListener("abort", () => {
              hung.aborted = true;
              hung.reason = signal.reason?.name;
              hung.afterMs = performance.now() - started;
            });
          }),
        { timeoutMs: 150, maxAttempts: 1 },
      ),
      tool("rate_limited", async () => {
        calls.push("rate_limited");
        rateCalls += 1;
        if (rateCalls === 1) throw new Response("slow down", { status: 429, headers: { "Retry-After": "1" } });
        return { ok: true };
      }),
      tool("flaky", async (_args, { attempt, warn }) => {
        calls.push("flaky");
        flakyCalls += 1;
        if (flakyCalls === 1) throw Object.assign(new Error("Service Unavailable"), { status: 503 });
        warn("served from a replica");
        return { attempt };
      }),
      tool("snapshot", async () => ["e6"]),
    ],
  });
  const viaCallback = [];
  const run = agent.run("Click the button, then fetch things.", { onEvent: (e) => viaCallback.push(e) });
  const events = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  agent.dispose();
  return { events, viaCallback, result, calls, hung, seen: seen.map(({ messages, ...s }) => s) };
}

/** A run cancelled through its AbortSignal while a tool is running. */
export async function cancelMidTool() {
  const tool_ = {};
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const agent = await Agent.create({
    model: scripted([act("slow")]),
    tools: [
      tool("slow", (_args, { signal }) => {
        started();
        return new Promise((_, reject) => {
          signal.addEventListener("abort", () => {
            tool_.aborted = true;
            reject(signal.reason);
          });
        });
      }),
    ],
  });
  const controller = new AbortController();
  const run = agent.run("Do the slow thing.", { signal: controller.signal });
  await running;
  controller.abort();
  const result = await run.result;
  // Give the worker's abort message time to arrive if it were late.
  await new Promise((r) => setTimeout(r, 50));
  agent.dispose();
  return { reason: result.reason, success: result.success, tool: tool_ };
}

/** Two runs on one session: the second waits for the first and sees its history. */
export async function sessionQueue() {
  const order = [];
  const seen = [];
  let release;
  const gate = new Promise((r) => (release = r));
  const steps = [act("wait"), answer("first done"), answer("second done")];
  const model = scripted(steps, seen);
  const agent = await Agent.create({
    model: async (messages, options) => {
      order.push(`model:${options.runId}`);
      return model(messages, options);
    },
    session: "chat",
    // The second run answers at once: a tool-free step the default toolChoice ("required") refuses.
    config: { toolChoice: "auto" },
    tools: [tool("wait", async () => (order.push("tool:wait"), await gate, "waited"))],
  });
  const first = agent.run("First task: alpha.");
  const second = agent.run("Second task: beta.");
  await new Promise((r) => setTimeout(r, 200));
  const beforeRelease = [...order];
  release();
  const [a, b] = await Promise.all([first.result, second.result]);
  agent.dispose();
  const secondPrompt = JSON.stringify(seen.find((s) => s.runId === second.runId)?.messages ?? []);
  return {
    beforeRelease,
    order,
    firstRunId: first.runId,
    secondRunId: second.runId,
    answers: [a.answer, b.answer],
    secondSawFirst: secondPrompt.includes("first done"),
  };
}

/**
 * `model: "prompt-api"` on a page whose LanguageModel is the spec-following fake: the model must be
 * downloaded, overflows its context once, and a tool fails before the answer.
 */
export async function promptApiRun() {
  const fake = installFakeLanguageModel({
    availability: "downloadable",
    replies: [
      act("lookup", { id: "a" }),
      { error: "QuotaExceededError", message: "The input is too large.", requested: 12000, quota: 6000 },
      act("lookup", { id: "b" }),
      answer("Found b."),
    ],
  });
  try {
    const agent = await Agent.create({
      model: "prompt-api",
      tools: [
        tool("lookup", async ({ id }) => {
          if (id === "a") throw new ToolError("No record a.", { code: "NOT_FOUND", recovery: ["Look up b instead."] });
          return { id, found: true };
        }),
      ],
    });
    const run = agent.run("Find the record.");
    const events = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    const liveBeforeDispose = fake.live();
    agent.dispose();
    const prompts = fake.log.prompts.map((p) => ({
      roles: p.input.map((m) => m.role),
      constrained: typeof p.options.responseConstraint === "object",
      omitted: p.options.omitResponseConstraintInput,
      aborts: p.options.signal instanceof AbortSignal,
    }));
    return {
      events,
      result,
      created: fake.log.created.map((c) => c.initialPrompts.map((m) => m.role)),
      prompts,
      liveBeforeDispose,
      liveAfterDispose: fake.live(),
    };
  } finally {
    fake.uninstall();
  }
}

/**
 * The Prompt API backend asked with four system prompts at once, one more than it keeps base
 * sessions for: every call is answered (a base still being made is not dropped), then a fifth
 * brings the kept ones back to three.
 */
export async function promptApiManyBases() {
  const fake = installFakeLanguageModel({ replies: ["one", "two", "three", "four", "five"] });
  try {
    const backend = new PromptApiBackend(fake.LanguageModel, "available");
    const ask = (n) => backend.complete([{ role: "system", content: `system ${n}` }, { role: "user", content: "hi" }]);
    const settled = await Promise.allSettled([1, 2, 3, 4].map(ask));
    const liveAfterFour = fake.live();
    const fifth = await ask(5);
    const liveAfterFive = fake.live();
    backend.dispose();
    return {
      answers: settled.map((s) => (s.status === "fulfilled" ? s.value.text : `${s.reason.name}: ${s.reason.message}`)),
      fifth: fifth.text,
      created: fake.log.created.length,
      liveAfterFour,
      liveAfterFive,
      liveAfterDispose: fake.live(),
    };
  } finally {
    fake.uninstall();
  }
}

/** What the worker committed to IndexedDB (database `keel`) for session "chat", read by the page. */
export async function storedChat() {
  const { runs, turns } = await sessionRecords("chat");
  return {
    runs: runs.map((r) => ({ task: r.task, status: r.status, answer: r.answer })),
    turns: turns.map((t) => ({ runId: t.runId, step: t.turn.step, outcome: t.turn.outcome, seq: t.seq })),
  };
}

/** A backend this build does not have: Agent.create rejects with a structured error. */
export async function unavailableBackend() {
  try {
    await Agent.create({ model: "prompt-api", tools: [] });
    return { rejected: false };
  } catch (e) {
    return { rejected: true, name: e.name, sourceName: e.sourceName, code: e.code, message: e.message };
  }
}

/**
 * The failure log from the page: a run whose tools fail (a NOT_FOUND, a 503 retried), then the
 * failures listed by tool and code, their stats, the run and session exported, the session cleared.
 */
export async function failureLog() {
  const session = `faillog-${Math.random().toString(36).slice(2, 8)}`;
  let flakyCalls = 0;
  const agent = await Agent.create({
    model: { custom: scripted([act("lookup", { id: 7 }), act("flaky"), answer("Logged.")]) },
    session,
    config: fast,
    tools: [
      tool("lookup", async ({ id }) => {
        throw new ToolError(`No record ${id}.`, { code: "NOT_FOUND", recovery: ["Try another id."] });
      }),
      tool("flaky", async () => {
        flakyCalls += 1;
        if (flakyCalls === 1) throw Object.assign(new Error("Service Unavailable"), { status: 503 });
        return { ok: true };
      }),
    ],
  });
  const run = agent.run("Log some failures.");
  const result = await run.result;
  const out = { runId: run.runId, result: { success: result.success, failures: result.failures.length } };
  out.all = await agent.failures({ session });
  out.byTool = await agent.failures({ session, tool: "lookup" });
  out.byCode = await agent.failures({ session, code: "UNAVAILABLE" });
  out.since = await agent.failures({ session, since: new Date(Date.now() + 60_000) });
  out.stats = await agent.failureStats({ session });
  out.exported = JSON.parse(JSON.stringify(await agent.exportRun(run.runId)));
  out.otlp = (await agent.exportRunOtlp(run.runId)).resourceSpans[0].scopeSpans[0].spans;
  out.sessionExport = await agent.exportSession();
  out.cleared = await agent.clearSession(session);
  out.afterClear = await agent.failures({ session });
  out.exportAfterClear = await agent.exportSession(session);
  out.retention = await agent.applyRetention();
  out.badQuery = await agent.failures({ limit: -1 }).then(
    () => null,
    (e) => `${e.name} ${e.code}`,
  );
  agent.dispose();
  out.afterDispose = await agent.failures().then(
    () => null,
    (e) => `${e.name} ${e.code}`,
  );
  return out;
}

/**
 * A custom model that decodes greedily, said by `{ custom, greedy: true }` or by the function's own
 * `greedy`, against one that does not: each calls a tool with the reply format's placeholder for an
 * argument twice, and answers each focused call (the same request both times) with the placeholder
 * again; then it calls the tool and answers. `greedy: "yes"` is refused.
 */
export async function greedyCustom() {
  const copied = () => act("get_weather", { city: "<city>" });
  const copiedArgs = () => JSON.stringify({ city: "<city>" });
  const script = (greedy) => [
    copied(),
    copiedArgs(),
    copied(),
    ...(greedy ? [] : [copiedArgs()]),
    act("get_weather", { city: "Oslo" }),
    answer("Oslo: 4°C, rain"),
  ];
  const tools = [tool("get_weather", async () => "Oslo: 4°C, rain")];
  const runWith = async (makeModel, greedy) => {
    const seen = [];
    const fn = scripted(script(greedy), seen);
    const agent = await Agent.create({ model: makeModel(fn), tools, config: { store: "memory" } });
    const handle = agent.run("Weather in Oslo?");
    const events = [];
    for await (const e of handle) events.push(e);
    const result = await handle.result;
    agent.dispose();
    const warning = events.find((e) => e.type === "warning" && /same request as at step/.test(e.message));
    return { asked: seen.length, modelCalls: result.counts.modelCalls, answer: result.answer, success: result.success, warning: warning?.message };
  };
  let refused;
  try {
    await Agent.create({ model: { custom: scripted([]), greedy: "yes" }, tools });
  } catch (e) {
    refused = { name: e.name, code: e.code, message: e.message };
  }
  return {
    declared: await runWith((fn) => ({ custom: fn, greedy: true }), true),
    own: await runWith((fn) => Object.assign(fn, { greedy: true }), true),
    sampled: await runWith((fn) => ({ custom: fn }), false),
    refused,
  };
}
