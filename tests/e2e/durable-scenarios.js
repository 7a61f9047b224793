// Durability scenarios, each on its own database (deleted first): runs cut off by a reload and
// resumed or abandoned by the reloaded page, a run still live in another tab, two tabs running one
// session, and a storage that fills up mid-run. The page side of durability.test.mjs, which drives reloads, tabs and the quota.
import { Agent } from "/pkg/index.js";

import { act, answer, idbRequest as request, scripted as script, tool } from "./steps.js";

/** Deletes database `name`, so that a test starts from nothing. */
export async function freshDatabase(name) {
  await request(indexedDB.deleteDatabase(name));
}

/**
 * Every run and turn of database `db`, read raw by the page: runs by start, turns by session and, in
 * a session, in the order they were written.
 */
export async function stored(db) {
  const conn = await request(indexedDB.open(db));
  const all = (store, index) => request(conn.transaction(store).objectStore(store).index(index).getAll());
  const [runs, turns] = [await all("runs", "startedMs"), await all("turns", "session_seq")];
  conn.close();
  return {
    runs: runs.map((r) => ({ id: r.id, session: r.session, status: r.status, steps: r.counts.steps, task: r.task.length })),
    turns: turns.map((t) => ({ runId: t.runId, step: t.turn.step, turn: t.turn })),
  };
}

/** An agent on database `db` whose model replays `steps`, with a quick `step` tool and `extra` tools. */
function agentOn(db, steps, extra = [], options = {}) {
  return Agent.create({
    config: { store: { name: db }, ...options.config },
    model: { custom: script(steps) },
    tools: [tool("step", async () => "ok"), ...extra],
    ...options.agent,
  });
}

/**
 * Starts two runs that get stuck in a tool that never answers: `long` (session a) after committing
 * steps 1 and 2, `short` (session b) after step 1. Resolves once both are stuck, with their ids; the
 * test then reloads the page, which kills the worker mid-run.
 */
export async function startRunsThenStall(db) {
  await freshDatabase(db);
  let stalls = 0;
  let bothStuck;
  const stuck = new Promise((r) => (bothStuck = r));
  // Idempotent: resumed, the cut-off call is asked of the model again, not reported as of unknown outcome.
  const stall = tool("stall", () => (++stalls === 2 && bothStuck(), new Promise(() => {})), { idempotent: true });
  const steps = { a: [act("step"), act("step"), act("stall")], b: [act("step"), act("stall")] };
  const agents = await Promise.all(["a", "b"].map((s) => agentOn(db, steps[s], [stall], { agent: { session: s } })));
  const [long, short] = [agents[0].run("Three steps, cut off."), agents[1].run("Two steps, cut off.")];
  await stuck;
  return { long: long.runId, short: short.runId };
}

/**
 * After the reload: a new agent on `db` lists the cut-off runs, resumes `long` to its end and
 * abandons `short`; returns what was stored before and after, the events and results.
 */
export async function resumeAfterReload(db, ids) {
  const before = await stored(db);
  const agent = await agentOn(db, [act("step"), answer("resumed after reload")]);
  const unfinished = await agent.unfinishedRuns();
  const handle = agent.resume(ids.long);
  const events = [];
  for await (const e of handle) events.push(e);
  const resumed = await handle.result;
  const abandoned = await agent.abandon(ids.short);
  const left = await agent.unfinishedRuns();
  agent.dispose();
  return {
    before,
    after: await stored(db),
    unfinished: unfinished.map((r) => ({ id: r.id, session: r.session, status: r.status, steps: r.counts.steps })),
    steps: events.filter((e) => e.type === "stepStarted").map((e) => e.step),
    resumed: { runId: resumed.runId, answer: resumed.answer, success: resumed.success, steps: resumed.turns.map((t) => t.step) },
    abandoned: { runId: abandoned.runId, reason: abandoned.reason.kind, success: abandoned.success, steps: abandoned.turns.map((t) => t.step) },
    left: left.length,
  };
}

// The live-run scenarios keep their agents between calls.
const live = {};

/**
 * Tab one: a run that commits step 1, then waits in `hold` (for as long as the test wants). Its
 * worker is kept, for `killLiveRun` to terminate. Resolves with the run's id once it waits.
 */
export async function startLiveRun(db) {
  await freshDatabase(db);
  let holding;
  const held = new Promise((r) => (holding = r));
  live.worker = new Worker("/pkg/worker.js", { type: "module", name: "keel" });
  const hold = tool("hold", () => (holding(), new Promise(() => {})), { idempotent: true });
  live.agent = await agentOn(db, [act("step"), act("hold")], [hold], { agent: { worker: live.worker } });
  // A task naming no tool: the other tab's script answers without calling `hold` again, which a
  // task naming it ("Hold on.") would send back as a part left (task_parts.rs).
  const run = live.agent.run("Wait for me.");
  run.result.catch(() => {});
  await held;
  return run.runId;
}

/** Tab one: the worker running the live run is terminated, as a closed tab or a crash leaves it. */
export function killLiveRun() {
  live.worker.terminate();
}

/** How a promise settles, and how long that took: `{ ok }` or `{ name, code, message }`, `ms`. */
async function settle(promise) {
  const start = performance.now();
  const out = await promise.then(
    (value) => ({ ok: value }),
    (e) => ({ name: e.name, code: e.code, message: e.message }),
  );
  return { ...out, ms: performance.now() - start };
}

/**
 * Tab two, while tab one's run is live: what `unfinishedRuns()` lists, what the store says of the
 * run, and how `resume` and `abandon` of it end (they must be refused, not wait for it).
 */
export async function probeLiveRun(db, runId) {
  live.other = await agentOn(db, [act("step"), answer("taken over")], [tool("hold", async () => "ok", { idempotent: true })]);
  const unfinished = (await live.other.unfinishedRuns()).map((r) => r.id);
  const record = (await stored(db)).runs.find((r) => r.id === runId);
  const resumed = await settle(live.other.resume(runId).result);
  const abandoned = await settle(live.other.abandon(runId));
  return { unfinished, status: record?.status, resumed, abandoned };
}

/** Tab two, once tab one's worker is gone: the run is listed now, and resumes to its end. */
export async function resumeDeadRun(db, runId) {
  const unfinished = (await live.other.unfinishedRuns()).map((r) => r.id);
  const result = await live.other.resume(runId).result;
  live.other.dispose();
  const turns = (await stored(db)).turns.filter((t) => t.runId === runId).map((t) => t.step);
  return { unfinished, answer: result.answer, success: result.success, turns };
}

// Wall-clock time with sub-millisecond precision, comparable between tabs.
const wallMs = () => performance.timeOrigin + performance.now();

/**
 * One tab of two on one session: builds its agent (three slow steps, then answers `tag`) and waits;
 * `tabGo` then starts the run. The test builds both tabs' agents first and starts both runs at
 * once, so that the second run is asked for while the first is under way. `store` is database
 * `db` unless given (`"memory"`: the tab's own).
 */
export async function tabReady(db, session, tag, store = { name: db }) {
  const spans = [];
  const slow = tool("slow", async () => {
    const start = wallMs();
    await new Promise((r) => setTimeout(r, 40));
    spans.push([start, wallMs()]);
    return "ok";
  });
  const agent = await Agent.create({
    config: { store },
    session,
    model: { custom: script([act("slow"), act("slow"), act("slow"), answer(tag)]) },
    tools: [slow],
  });
  live.tab = { agent, spans, tag };
}

/** Starts this tab's run; resolves with its id, answer, when it was asked for and its tool spans. */
export async function tabGo() {
  const { agent, spans, tag } = live.tab;
  const asked = wallMs();
  const result = await agent.run(`Tab ${tag}.`).result;
  agent.dispose();
  return { runId: result.runId, answer: result.answer, asked, spans };
}

/** `n` characters that do not compress (IndexedDB may compress values on disk). */
function noise(n) {
  const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(n / 2)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, n);
}

/**
 * Fills database `db` with old runs until the origin uses `untilUsage` bytes: each in its own
 * session, a step whose arguments carry 6 KB that do not compress, then an answer. The agent keeps
 * everything (retention prunes only when the storage is full) and stays for `quotaRun`. Resolves
 * with the old runs' ids, oldest first.
 */
export async function quotaFill(db, untilUsage) {
  await freshDatabase(db);
  let old = 0;
  let next = 0;
  let newest;
  // The old runs' step and answer, until `quotaRun` sets the newest run's script.
  const model = async () => newest?.shift() ?? (next++ % 2 === 0 ? act("note", { text: noise(6000) }) : answer(`old ${old++}`));
  const keepAll = { maxRuns: null, maxAgeMs: null, everyWrites: 0 };
  live.quota = {
    agent: await Agent.create({
      config: { store: { name: db, retention: keepAll } },
      model: { custom: model },
      tools: [tool("note", async () => "noted")],
    }),
    // Five steps of 20 KB each, then the answer.
    newest: () => (newest = [...Array.from({ length: 5 }, () => act("note", { text: noise(20000) })), answer("newest done")]),
  };
  const ids = [];
  while ((await navigator.storage.estimate()).usage < untilUsage) {
    ids.push((await live.quota.agent.run(`Old run ${ids.length}.`, { session: `old-${ids.length}` }).result).runId);
  }
  return ids;
}

/**
 * The newest run, five steps of 20 KB: more than the quota has room for, so a write of it fails
 * with QuotaExceededError. Resolves with its result and the warnings it raised.
 */
export async function quotaRun() {
  live.quota.newest();
  const handle = live.quota.agent.run("The newest run.", { session: "new" });
  const events = [];
  for await (const e of handle) events.push(e);
  const result = await handle.result;
  return {
    runId: result.runId,
    answer: result.answer,
    success: result.success,
    steps: result.turns.map((t) => t.step),
    warnings: events.filter((e) => e.type === "warning").map((e) => e.message),
  };
}

/** After the quota is lifted: one more run, its warnings, and the database as stored. */
export async function afterQuota(db) {
  const handle = live.quota.agent.run("After the quota.", { session: "after" });
  const events = [];
  for await (const e of handle) events.push(e);
  const result = await handle.result;
  live.quota.agent.dispose();
  const warnings = events.filter((e) => e.type === "warning").map((e) => e.message);
  return { success: result.success, warnings, stored: await stored(db) };
}
