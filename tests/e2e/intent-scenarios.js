// Side effects and resume, page side of intents.test.mjs: a worker terminated while a tool runs,
// then a new agent resumes the run. A call of a tool with side effects is not made again silently
// (reported to the model, or made again once the user approves); an idempotent one is made again.
// Each on its own session of the default database.
import { Agent } from "/pkg/index.js";

import { act, answer, scripted as script, sessionRecords, sleep, tool } from "./steps.js";

const PAY = { invoice: "INV-7" };

/**
 * A run whose first step calls `pay` (declared with `declare`), cut off while `pay` runs by
 * `worker.terminate()`; a new agent (model replaying `then`) resumes it, answering each approval
 * request with `decide(handle, event)`. Returns the intent stored before the kill, every `pay` call
 * with its idempotency key (`agent` 1 before the kill, 2 after), the resumed run's events, result
 * and failure log.
 */
async function cutThenResume(declare, then, decide = async () => {}) {
  const session = `intents-${Math.random().toString(36).slice(2, 8)}`;
  const calls = [];
  const pay = (agent, execute) =>
    tool("pay", (args, { idempotencyKey }) => (calls.push({ agent, key: idempotencyKey }), execute()), declare);
  const lookup = tool("list_payments", async () => [], { readOnly: true });
  const worker = new Worker("/pkg/worker.js", { type: "module", name: "keel" });
  let running;
  const reached = new Promise((r) => (running = r));
  const first = await Agent.create({
    worker,
    session,
    model: { custom: script([act("pay", PAY)]) },
    tools: [pay(1, () => (running(), new Promise(() => {}))), lookup],
  });
  const cut = first.run("Pay invoice INV-7.");
  cut.result.catch(() => {});
  await reached;
  await sleep(50);
  const intent = (await sessionRecords(session)).runs[0].intent ?? null;
  worker.terminate(); // what a killed tab leaves: no dispose, no last write

  const second = await Agent.create({
    session,
    model: { custom: script(then) },
    tools: [pay(2, async () => "paid"), lookup],
  });
  const handle = second.resume(cut.runId);
  const events = [];
  for await (const e of handle) {
    events.push(e);
    if (e.type === "approvalRequested") await decide(handle, e);
  }
  const result = await handle.result;
  const failures = await second.failures({ runId: cut.runId });
  second.dispose();
  return {
    runId: cut.runId,
    intent,
    calls,
    actions: events.filter((e) => e.type === "action").map((e) => [e.step, e.tool, e.idempotencyKey]),
    asked: events.filter((e) => e.type === "approvalRequested").map((e) => [e.callId, e.tool, e.outcomeUnknown ?? false]),
    result: {
      answer: result.answer,
      success: result.success,
      steps: result.turns.map((t) => [t.step, t.action?.tool ?? null, t.outcome]),
      first: result.turns[0].observation,
    },
    failures: failures.map((f) => [f.step, f.tool, f.code, f.idempotencyKey ?? null]),
  };
}

/** `pay` has side effects (no declaration): resumed, the model is told, and checks instead. */
export function resumeSideEffect() {
  return cutThenResume({}, [act("list_payments"), answer("I could not tell whether INV-7 was paid.")]);
}

/** `pay` is declared idempotent: resumed, the model asks for it again and it is made again. */
export function resumeIdempotent() {
  return cutThenResume({ idempotent: true }, [act("pay", PAY), answer("Paid.")]);
}

/** `pay` declares `onUnknownOutcome: "ask"`: resumed, the call waits for the user, who approves. */
export function resumeAskFirst() {
  return cutThenResume({ onUnknownOutcome: "ask" }, [answer("Paid.")], (handle, e) => handle.approve(e.callId));
}

/** A declaration keel does not know fails `Agent.create` with a message naming what it takes. */
export async function badUnknownOutcome() {
  try {
    await Agent.create({
      model: { custom: script([]) },
      config: { store: "memory" },
      tools: [tool("pay", async () => "paid", { onUnknownOutcome: "retry" })],
    });
    return { created: true };
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message };
  }
}
