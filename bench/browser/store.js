// The store's costs, measured on the page: committing one step to IndexedDB (the same agent with
// `store: "memory"` and with IndexedDB, side by side), opening the database, and listing one
// session's failures among 100,000 records. Measures; asserts nothing about speed.
import { Agent } from "/pkg/index.js";
import { SCRIPTED, check, lookupTool, pageSteps, scriptedModel, timedRun } from "./steps.js";

const STEPS_DB = "keel-bench-steps";
const LOG_DB = "keel-bench-log";
const KEEP_ALL = { maxRuns: null, maxAgeMs: null, everyWrites: 0 };

const request = (req) => new Promise((ok, no) => ((req.onsuccess = () => ok(req.result)), (req.onerror = () => no(req.error))));
const deleteDb = (name) => request(indexedDB.deleteDatabase(name));
const done = (tx) => new Promise((ok, no) => ((tx.oncomplete = ok), (tx.onerror = tx.onabort = () => no(tx.error))));

/** Two agents, memory and IndexedDB, taking turns run by run: every step's page time, per store. */
async function stepCost({ runs, warmup, stepsPerRun }) {
  await deleteDb(STEPS_DB);
  const stores = { memory: "memory", indexeddb: { name: STEPS_DB, retention: KEEP_ALL } };
  const agents = [];
  for (const [name, store] of Object.entries(stores)) {
    const agent = await Agent.create({
      model: { custom: scriptedModel(stepsPerRun, { first: [], last: [] }) },
      tools: [lookupTool(0)],
      config: { ...SCRIPTED, format: "xml", maxSteps: stepsPerRun + 2, store },
    });
    agents.push({ name, agent, steps: [], overhead: [] });
  }
  for (let round = 0; round < warmup + runs; round++) {
    for (let i = 0; i < agents.length; i++) {
      const a = agents[(i + round) % agents.length];
      const run = await timedRun(a.agent, `Look up ${stepsPerRun - 1} items.`, `bench-${round}`);
      check(run.result, stepsPerRun, 0);
      if (round < warmup) continue;
      const { steps, overhead } = pageSteps(run);
      a.steps.push(...steps);
      a.overhead.push(overhead);
    }
  }
  for (const a of agents) a.agent.dispose();
  return Object.fromEntries(agents.map((a) => [a.name, { steps: a.steps, perRun: a.overhead }]));
}

/** Opening the existing database from the page (no upgrade), `n` times. */
async function openTimes(name, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const db = await request(indexedDB.open(name));
    times.push(performance.now() - t0);
    db.close();
  }
  return times;
}

/** The worker opening a new database (creating the schema) and answering a first query, `n` times. */
async function firstQueryTimes(n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const name = `keel-bench-fresh-${i}`;
    await deleteDb(name);
    const agent = await Agent.create({ model: { custom: async () => "" }, config: { store: { name } } });
    const t0 = performance.now();
    await agent.failures({ limit: 1 });
    times.push(performance.now() - t0);
    agent.dispose();
    await deleteDb(name);
  }
  return times;
}

/** A failure record as the worker stores it (its serde JSON). */
function failure(i, sessions) {
  const session = `s-${i % sessions}`;
  const run = `run-${Math.floor(i / 10)}`;
  const tools = ["lookup", "fetch", "click", null];
  const codes = ["NOT_FOUND", "TIMEOUT", "UNAVAILABLE", "INVALID_OUTPUT"];
  return {
    id: `${run}:${i}`,
    runId: run,
    session,
    step: 1 + (i % 10),
    tool: tools[i % 4],
    argsDigest: null,
    class: i % 3 ? "transient" : "persistent",
    code: codes[i % 4],
    attempt: 1,
    message: `Failure ${i} of the seeded log.`,
    retried: i % 2 === 0,
    recovered: i % 3 !== 0,
    atMs: 1_700_000_000_000 + i,
  };
}

/** Seeds `records` failures with one bulk transaction from the page, then times `agent.failures({session})`. */
async function logQuery({ records, sessions, queries }) {
  await deleteDb(LOG_DB);
  const agent = await Agent.create({ model: { custom: async () => "" }, config: { store: { name: LOG_DB, retention: KEEP_ALL } } });
  await agent.failures({ limit: 1 }); // the worker has created the schema
  const t0 = performance.now();
  const db = await request(indexedDB.open(LOG_DB));
  const tx = db.transaction("failures", "readwrite", { durability: "relaxed" });
  const store = tx.objectStore("failures");
  for (let i = 0; i < records; i++) store.put(failure(i, sessions));
  await done(tx);
  const count = await request(db.transaction("failures").objectStore("failures").count());
  db.close();
  const seedMs = performance.now() - t0;
  const session = `s-${Math.floor(sessions / 2)}`;
  const times = { failures: [], stats: [] };
  let found = 0;
  for (let i = 0; i < queries; i++) {
    const q0 = performance.now();
    found = (await agent.failures({ session })).length;
    times.failures.push(performance.now() - q0);
    const s0 = performance.now();
    await agent.failureStats({ session });
    times.stats.push(performance.now() - s0);
  }
  agent.dispose();
  await deleteDb(LOG_DB);
  return { records: count, sessions, perSession: found, seedMs, times };
}

/** Everything above, in one page. */
export async function benchStore({ runs = 120, warmup = 10, stepsPerRun = 10, opens = 30, records = 100_000, sessions = 1_000, queries = 30 } = {}) {
  const steps = await stepCost({ runs, warmup, stepsPerRun });
  const open = { existing: await openTimes(STEPS_DB, opens), fresh: await firstQueryTimes(Math.min(opens, 10)) };
  await deleteDb(STEPS_DB);
  const log = await logQuery({ records, sessions, queries });
  return { runs, warmup, stepsPerRun, steps, open, log };
}
