// Per-step cost as a run and a session grow, measured on the page, with the store in memory and in
// IndexedDB, each configuration on its own agent, database and sessions: per step at step 10, 100
// and 1,000 of one run, and per step of a 10-step run after 10, 100 and 1,000 earlier runs of its
// session. Beside them, the floor: postMessage round trips to a bare worker, and one IndexedDB put,
// into an empty database and into one holding as many records as the session's runs leave.
// Also the size of what each model call carries to the page (its messages and step schema).
// Measures; asserts nothing about speed.
import { Agent } from "/pkg/index.js";
import { deleteDb, floor, instantLookup, instantModel, KEEP_ALL } from "./instant.js";
import { pageSteps, timedRun } from "./steps.js";

/** An agent on its own worker; `sizes` gets each call's prompt as the backend got it, `wire` each
 * `modelCall` message as the page got it (what crossed from the worker). */
async function agentOn(store, steps, sizes, wire) {
  const worker = new Worker("/pkg/worker.js", { type: "module", name: "keel" });
  // The worker posts JSON text of an array of messages (src/web/worker.rs); builds before
  // 2026-11-27 posted each message as an object.
  worker.addEventListener("message", (e) => {
    const messages = typeof e.data === "string" ? JSON.parse(e.data) : [e.data];
    wire.push(...messages.filter((m) => m?.type === "modelCall"));
  });
  return Agent.create({
    model: { custom: instantModel(steps, (n, messages, schema) => sizes.push([n, { messages, schema }])) },
    tools: [instantLookup()],
    // The scripted model calls ids no result named first: id provenance and the task-values check off.
    // It calls the tool again when asked for the answer alone: focusedAnswer off, so that every
    // step is the whole step (since d0b18de the step after a result asked for the answer alone).
    config: {
      format: "xml",
      maxSteps: Math.min(steps, 1000),
      store,
      idProvenance: false,
      taskValues: false,
      focusedAnswer: false,
    },
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

/** One session on its own database growing run by run; steps 2-10 of the 5 runs after 10, 100, 1,000. */
async function session(kind) {
  const db = `keel-bench-session-${kind}`;
  const sizes = [];
  const wire = [];
  const agent = await agentOn(await storeOf(kind, db), 10, sizes, wire);
  const after = { 10: [], 100: [], 1000: [] };
  // The runs' last steps apart: the answer and the run's end, which read the session.
  const ends = { 10: [], 100: [], 1000: [] };
  const chars = { 10: [], 100: [], 1000: [] };
  const wired = { 10: [], 100: [], 1000: [] };
  const t0 = performance.now();
  for (let earlier = 0; earlier < 1010; earlier++) {
    sizes.length = 0;
    wire.length = 0;
    const run = await timedRun(agent, "Look up 9 items.", "grow");
    const mark = [10, 100, 1000].find((k) => earlier >= k && earlier < k + 10);
    if (mark === undefined) continue;
    const steps = pageSteps(run).steps;
    after[mark].push(...steps.slice(1));
    ends[mark].push(steps.at(-1));
    chars[mark].push(...weigh(sizes.slice(1).map(([, c]) => c)));
    wired[mark].push(...weigh(wire.slice(1)));
  }
  const elapsedMs = performance.now() - t0;
  agent.dispose();
  if (kind !== "memory") await deleteDb(db);
  return { after, ends, chars, wired, elapsedMs };
}

/** Everything above, in one page: `reps` long runs per store. */
export async function benchGrowth({ reps = 2, floorSamples = 300 } = {}) {
  // `held`: the turns a session of 1,010 eleven-step runs leaves (the session bench's last runs).
  const result = { floor: await floor(floorSamples, { relaxed: true, held: 11_110 }), stores: {} };
  for (const kind of ["memory", "indexeddb"]) {
    result.stores[kind] = { long: await longRun(kind, reps), session: await session(kind) };
  }
  return result;
}
