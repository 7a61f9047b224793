// Resume scenario: a run cut off by `worker.terminate()` and resumed by a new agent on the same
// database. The reload, live-run, two-tab and quota scenarios are in durable-scenarios.js.
import { Agent, ToolError } from "/pkg/index.js";

import { act, answer, scripted as script, sessionRecords, sleep, tool } from "./steps.js";

/** A session's turns (in write order) and runs, read by the page from IndexedDB `keel`. */
export async function storedSession(session) {
  const { runs, turns } = await sessionRecords(session);
  return {
    runs: runs.map((r) => ({ id: r.id, status: r.status, steps: r.counts.steps })),
    turns: turns.map((t) => ({ runId: t.runId, step: t.turn.step, seq: t.seq })),
  };
}

/** A run hangs in step 3's tool; its worker is terminated; a new agent finds and resumes it. */
export async function resumeAfterTerminate() {
  const session = `resume-${Math.random().toString(36).slice(2, 8)}`;
  const worker = new Worker("/pkg/worker.js", { type: "module", name: "keel" });
  let hanging;
  const reached = new Promise((r) => (hanging = r));
  const first = await Agent.create({
    worker,
    session,
    model: { custom: script([act("step"), act("step"), act("hang")]) },
    // Both tools are idempotent, so the cut-off call is simply asked of the model again (a tool
    // with side effects is not made again: intent-scenarios.js).
    tools: [tool("step", async () => "ok"), tool("hang", () => (hanging(), new Promise(() => {})), { idempotent: true })],
  });
  const cut = first.run("Three steps.");
  cut.result.catch(() => {});
  await reached;
  await sleep(50);
  worker.terminate(); // what a killed tab leaves: no dispose, no last write
  const resumed = await resumeCut(session, [tool("step", async () => "ok"), tool("hang", async () => "ok", { idempotent: true })]);
  const { result } = resumed;
  return {
    cutRunId: cut.runId,
    unfinished: resumed.unfinished,
    before: resumed.before,
    after: await storedSession(session),
    firstStep: resumed.firstStep,
    result: { runId: result.runId, answer: result.answer, success: result.success, steps: result.turns.map((t) => t.step) },
    again: resumed.again,
  };
}

/**
 * A new agent on `session` finds the run a terminated worker cut off and resumes it (a step, then
 * the answer): what was stored before, the unfinished runs it found, the first step it started,
 * the resumed run's result, and how many runs are still unfinished after it.
 */
async function resumeCut(session, tools) {
  const second = await Agent.create({ session, model: { custom: script([act("step"), answer("resumed")]) }, tools });
  const before = await storedSession(session);
  const unfinished = (await second.unfinishedRuns()).filter((r) => r.session === session);
  const handle = second.resume(unfinished[0].id);
  const events = [];
  for await (const e of handle) events.push(e);
  const result = await handle.result;
  const again = (await second.unfinishedRuns()).filter((r) => r.session === session);
  second.dispose();
  return {
    before,
    unfinished: unfinished.map((r) => ({ id: r.id, status: r.status, steps: r.counts.steps })),
    firstStep: events.find((e) => e.type === "stepStarted")?.step,
    result,
    again: again.length,
  };
}

/**
 * What each step of a run writes to IndexedDB, from a worker that records its write
 * transactions (write-count-worker.js): the run's writes before its first model call, then one
 * list per step (from its model call to the next; the last runs to the run's end). A read-only
 * call, one that fails, another read-only call, a call of a tool with side effects, an answer.
 */
export async function writesPerStep() {
  const replies = [act("look"), act("miss"), act("look"), act("pay"), answer("paid")];
  const { agent, worker, session } = await probedAgent("writes", replies, [
    tool("look", async () => "ok", { readOnly: true }),
    tool("miss", async () => { throw new ToolError("No such record.", { code: "NOT_FOUND" }); }, { readOnly: true }),
    tool("pay", async () => "paid"),
  ]);
  const result = await agent.run("Look twice, then pay.").result;
  const writes = [[]];
  for (const entry of await probe(worker, "writeCountProbe")) {
    if (entry === "modelCall") writes.push([]);
    else writes.at(-1).push(entry);
  }
  const stored = await storedSession(session);
  agent.dispose();
  return { success: result.success, writes, stored };
}

/** An agent of `replies` and `tools` on its own session, on a worker that records what it does
 * (write-count-worker.js, write-count-hooks.js). */
async function probedAgent(prefix, replies, tools) {
  const session = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  const worker = new Worker("/tests/e2e/write-count-worker.js", { type: "module", name: "keel" });
  const agent = await Agent.create({ worker, session, model: { custom: script(replies) }, tools });
  return { agent, worker, session };
}

/** What the recording worker answers to the probe message `type`: its log, in order. */
function probe(worker, type) {
  const channel = new MessageChannel();
  const log = new Promise((resolve) => (channel.port1.onmessage = (e) => resolve(e.data)));
  worker.postMessage({ type }, [channel.port2]);
  return log;
}

/**
 * When each step's write completed against the calls the worker posted: read-only calls, one with
 * side effects (its intent written before it runs) and an answer, from a worker that records its
 * transactions' begin and complete and its posts (write-count-worker.js), in the order it saw them.
 */
export async function stepWriteOrder() {
  const replies = [act("look"), act("look"), act("pay"), act("look"), answer("paid")];
  const { agent, worker } = await probedAgent("order", replies, [
    tool("look", async () => "ok", { readOnly: true }),
    tool("pay", async () => "paid"),
  ]);
  const result = await agent.run("Look twice, pay, look again.").result;
  const order = await probe(worker, "writeOrderProbe");
  agent.dispose();
  return { success: result.success, order };
}

/**
 * A run whose model hangs when asked for step 3 (asked while step 2's write may still be in
 * flight); its worker is terminated once the page has heard that step 3 started, and a new agent
 * finds and resumes it.
 */
export async function resumeAfterTerminateInModel() {
  const session = `resume-model-${Math.random().toString(36).slice(2, 8)}`;
  const worker = new Worker("/pkg/worker.js", { type: "module", name: "keel" });
  const steps = [act("step"), act("step")];
  let asked;
  const third = new Promise((r) => (asked = r));
  const first = await Agent.create({
    worker,
    session,
    model: { custom: async () => (steps.length ? steps.shift() : (asked(), new Promise(() => {}))) },
    tools: [tool("step", async () => "ok", { readOnly: true })],
  });
  const cut = first.run("Three steps.");
  cut.result.catch(() => {});
  for await (const e of cut) if (e.type === "stepStarted" && e.step === 3) break;
  await third;
  worker.terminate(); // what a killed tab leaves: no dispose, no last write
  const resumed = await resumeCut(session, [tool("step", async () => "ok", { readOnly: true })]);
  const { result } = resumed;
  return {
    cutRunId: cut.runId,
    unfinished: resumed.unfinished,
    before: resumed.before,
    firstStep: resumed.firstStep,
    result: { answer: result.answer, success: result.success, steps: result.turns.map((t) => t.step) },
  };
}
