// Page side of preload.test.mjs: `Agent.preload()`'s spare worker taken by the next agent, a second
// agent beside it, a spare that fails, and a spare terminated. Each agent runs once to a final answer.
import { Agent } from "/pkg/index.js";

import { act, answer, scripted, tool } from "./steps.js";

/** An agent on the memory store whose runs (two) add `i + 1` and answer `agent <i>`. */
function agent(i) {
  const run = [act("add", { a: i, b: 1 }), answer(`agent ${i}`)];
  return Agent.create({
    model: { custom: scripted([...run, ...run]) },
    config: { store: "memory" },
    tools: [tool("add", async ({ a, b }) => a + b)],
  });
}

/** One run's answer and success. */
async function runOnce(a) {
  const { answer: text, success } = await a.run("add").result;
  return [text, success];
}

/** A rejection as `{ name, code }`, or "resolved". */
async function outcome(promise) {
  try {
    await promise;
    return "resolved";
  } catch (e) {
    return { name: e?.name, code: e?.code, message: e?.message };
  }
}

/** Preloads, waits for the spare, creates an agent (which takes it) and runs it; `terminate()`
 * on the handle afterwards leaves the agent's worker alone. */
export async function adoptWarm() {
  const spare = Agent.preload();
  const same = Agent.preload() === spare;
  await spare.ready;
  const a = await agent(0);
  const first = await runOnce(a);
  spare.terminate();
  const second = await runOnce(a);
  a.dispose();
  return { same, first, second };
}

/** Creates the agent at once after preloading: it takes the spare while it is still loading. */
export async function adoptLoading() {
  const spare = Agent.preload();
  const a = await agent(0);
  const ready = await outcome(spare.ready);
  const run = await runOnce(a);
  a.dispose();
  return { ready, run };
}

/** One spare, two agents: the first takes it, the second starts its own; a new `preload()` after
 * that is a new spare, which a third agent takes. */
export async function twoAgentsThenAnotherSpare() {
  const first = Agent.preload();
  const a = await agent(0);
  const b = await agent(1);
  const second = Agent.preload();
  const c = await agent(2);
  const runs = [await runOnce(a), await runOnce(b), await runOnce(c)];
  for (const x of [a, b, c]) x.dispose();
  return { newSpare: first !== second, runs, ready: [await outcome(first.ready), await outcome(second.ready)] };
}

/** Preloads and creates at once; the test fails the worker script's first fetch (the spare's). */
export async function spareFails() {
  const spare = Agent.preload();
  const ready = outcome(spare.ready);
  const a = await agent(0);
  const run = await runOnce(a);
  a.dispose();
  return { ready: await ready, run };
}

/** Preloads and creates at once; the test fails every fetch of the worker script. */
export async function everyWorkerFails() {
  const spare = Agent.preload();
  const ready = outcome(spare.ready);
  const created = await outcome(agent(0));
  return { ready: await ready, created };
}

/** A spare kept for the test to look at, then terminated. */
let kept;
export async function keepSpare(wait) {
  kept = Agent.preload();
  if (wait) await kept.ready;
  return true;
}
export async function terminateSpare() {
  const ready = outcome(kept.ready);
  kept.terminate();
  return ready;
}

/** Agent.preload's options, checked like Agent.create's. */
export function badOptions() {
  const thrown = [];
  for (const options of [{ wroker: "/pkg/worker.js" }, { worker: 42 }, null]) {
    try {
      Agent.preload(/** @type {any} */ (options));
      thrown.push("nothing");
    } catch (e) {
      thrown.push(e.code);
    }
  }
  return thrown;
}
