// Per-step cost as a run and a session grow, measured on the page, with the store in memory and in
// IndexedDB, each configuration on its own agent, database and sessions: per step at step 10, 100
// and 1,000 of one run, and per step of a 10-step run after 10, 100 and 1,000 earlier runs of its
// session (three sessions of one database, measured in turn). Beside them, the floor: postMessage round trips to a bare worker, and one IndexedDB put,
// into an empty database and into one holding as many records as the session's runs leave.
// Also the size of what each model call carries to the page (its messages and step schema).
// Measures; asserts nothing about speed.
import { Agent } from "/pkg/index.js";
import { deleteDb, floor, instantLookup, instantModel, KEEP_ALL } from "./instant.js";
import { SCRIPTED, pageSteps, timedRun } from "./steps.js";

/** An agent on its own worker; `sizes` gets each call's step, its prompt as the backend got it and
 * when (page clock), `wire` each `modelCall` message as the page got it (what crossed from the
 * worker). */
async function agentOn(store, steps, sizes, wire) {
  const worker = new Worker("/pkg/worker.js", { type: "module", name: "keel" });
  // The worker posts JSON text of an array of messages (src/web/worker.rs); builds before
  // 2026-11-27 posted each message as an object.
  worker.addEventListener("message", (e) => {
    const messages = typeof e.data === "string" ? JSON.parse(e.data) : [e.data];
    wire.push(...messages.filter((m) => m?.type === "modelCall"));
  });
  return Agent.create({
    model: { custom: instantModel(steps, (n, messages, schema) => sizes.push([n, { messages, schema }, performance.now()])) },
    tools: [instantLookup()],
    config: { ...SCRIPTED, format: "xml", maxSteps: Math.min(steps, 1000), store },
    worker,
  });
}

/** JSON length of what was kept, weighed after the timed run. */
const weigh = (kept) => kept.map((x) => JSON.stringify(x).length);

/** `db` for IndexedDB, deleted first; "memory" otherwise. */
async function storeOf(kind, db) {
  if (kind === "memory") return "memory";
  await deleteDb(db);
  return { name: db, retention: KEEP_ALL };
}

/** Steps `at`-9 ..= `at` of `reps` runs of 1,000 steps, each run on its own database and session. */
async function longRun(kind, reps) {
  const at = { 10: [], 100: [], 1000: [] };
  const chars = { 10: [], 100: [], 1000: [] };
  const wired = { 10: [], 100: [], 1000: [] };
  for (let rep = 0; rep < reps; rep++) {
    const db = `keel-bench-long-${kind}-${rep}`;
    const sizes = [];
    const wire = [];
    const agent = await agentOn(await storeOf(kind, db), 1000, sizes, wire);
    const run = await timedRun(agent, "Look up 999 items.", `long-${rep}`);
    if (run.result.counts.steps !== 1000) throw new Error(`the long run took ${run.result.counts.steps} steps: ${JSON.stringify(run.result.reason)} ${run.result.answer}`);
    const { steps } = pageSteps(run);
    for (const k of [10, 100, 1000]) {
      // Step 1,000 answers and ends the run: its neighbours 990-999 stand for it.
      const last = k === 1000 ? 999 : k;
      at[k].push(...steps.slice(last - 10, last));
      chars[k].push(...weigh(sizes.filter(([n]) => n > last - 10 && n <= last).map(([, c]) => c)));
      wired[k].push(...weigh(wire.slice(last - 10, last)));
    }
    agent.dispose();
    if (kind !== "memory") await deleteDb(db);
  }
  return { at, chars, wired };
}

/**
 * Three sessions of one agent and database, grown to 10, 100 and 1,000 runs, then measured side by
 * side: `rounds` rounds of one ten-step run in each, in turn, so that the three points share the
 * database, the machine's load and the page's state (up to cc77a13 one session was measured
 * as it grew, ten runs a point: "after 10" came first, in a smaller and younger database, and a
 * drift in time read as growth). Steps 2-10 of each run, and apart its last step (the answer and
 * the run's end, from the model's last reply).
 */
async function session(kind, rounds) {
  const db = `keel-bench-session-${kind}`;
  const sizes = [];
  const wire = [];
  const agent = await agentOn(await storeOf(kind, db), 10, sizes, wire);
  const marks = [10, 100, 1000];
  const after = { 10: [], 100: [], 1000: [] };
  const runEnds = { 10: [], 100: [], 1000: [] };
  const chars = { 10: [], 100: [], 1000: [] };
  const wired = { 10: [], 100: [], 1000: [] };
  const t0 = performance.now();
  for (const k of marks) for (let i = 0; i < k; i++) await agent.run("Look up 9 items.", { session: `grow-${k}` }).result;
  for (let round = 0; round < rounds; round++) {
    for (const k of marks) {
      sizes.length = 0;
      wire.length = 0;
      const run = await timedRun(agent, "Look up 9 items.", `grow-${k}`);
      const steps = pageSteps(run).steps;
      after[k].push(...steps.slice(1));
      // The run's end: from the model's last reply (it answers at once) to `runEnded`. Not from the
      // last step's `stepStarted`, which the worker sends when the step before is stored: before
      // the model's reply or with it, whichever comes first (a race of tens of microseconds that
      // a larger prompt tips one way), which moved that step's start by up to half a millisecond.
      const answered = sizes.findLast(([n]) => n === 10)[2];
      runEnds[k].push(run.marks.find(([type]) => type === "runEnded")[1] - answered);
      chars[k].push(...weigh(sizes.slice(1).map(([, c]) => c)));
      wired[k].push(...weigh(wire.slice(1)));
    }
  }
  const elapsedMs = performance.now() - t0;
  agent.dispose();
  if (kind !== "memory") await deleteDb(db);
  return { after, runEnds, chars, wired, elapsedMs };
}

/** Everything above, in one page: `reps` long runs per store. */
export async function benchGrowth({ reps = 2, rounds = 20, floorSamples = 300 } = {}) {
  // `held`: about the records the session bench's database ends with (1,110 runs and 3 a round,
  // eleven records each).
  const held = 11 * (1110 + 3 * rounds);
  const result = { floor: await floor(floorSamples, { relaxed: true, held }), stores: {} };
  for (const kind of ["memory", "indexeddb"]) {
    result.stores[kind] = { long: await longRun(kind, reps), session: await session(kind, rounds) };
  }
  return result;
}
