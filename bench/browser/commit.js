// What committing a step costs, two builds of the package side by side in one page (commit.mjs):
// each build's own index.js, worker and wasm, ten-step runs of an instant scripted model and an
// instant tool, the store in memory and in IndexedDB, the tool read-only (a step is one write),
// with side effects (its intent is written before it runs, then the step), or read-only and
// failing every other call (a step with a failure record to write), every agent on its own
// worker, database and sessions, interleaved run by run. Per step = from one `stepStarted` event
// to the next, on the page; steps 2-10 of each run are kept. Beside them, the floor: two
// postMessage round trips to a bare worker, with and without one IndexedDB put.
//
// A second agent per configuration runs on a probe worker (commit-hooks.js before the build's
// worker.js), in the same rotation, and is not timed on the page: it counts the IndexedDB
// transactions, requests and bytes each step writes, and times them on the worker's clock.
// Measures; asserts nothing about speed.
import { deleteDb, floor, instantLookup, instantModel, KEEP_ALL } from "./instant.js";
import { summary } from "./stats.mjs";
import { SCRIPTED, pageSteps, timedRun } from "./steps.js";

export const CONFIGS = [
  { name: "memory, read-only tool", store: "memory", readOnly: true },
  { name: "memory, tool with side effects", store: "memory", readOnly: false },
  { name: "memory, read-only tool failing every other call", store: "memory", readOnly: true, failing: true },
  { name: "memory, read-only tool returning 56 KB of JSON", store: "memory", readOnly: true, large: true },
  { name: "indexeddb, read-only tool", store: "indexeddb", readOnly: true },
  { name: "indexeddb, tool with side effects", store: "indexeddb", readOnly: false },
  { name: "indexeddb, read-only tool failing every other call", store: "indexeddb", readOnly: true, failing: true },
];

/**
 * The instant `lookup` tool of `config`: failing (`NOT_FOUND`) for even ids when `config.failing`,
 * so that every other step records a failure and the step after it recovers it.
 */
function lookupOf(config, ToolError) {
  const lookup = instantLookup(config.readOnly, { large: config.large });
  if (!config.failing) return lookup;
  const found = lookup.execute;
  return {
    ...lookup,
    execute: async (args) => {
      if (args.id % 2 === 0) throw new ToolError(`No item ${args.id}.`, { code: "NOT_FOUND" });
      return found(args);
    },
  };
}

/**
 * The synchronous work of the floor's overlap rows: about what building a step's prompt takes
 * (the probed agents' `tx → next call` on main).
 */
const BUSY_MS = 0.2;

/**
 * The engine's two stretches of a small step on the worker's clock, from the first build's probed
 * agent with the store in memory and a read-only tool, in this round's run: model reply → tool
 * call and tool reply → next model call, medians of steps 2-9, to 5 µs. The floor's `worked` row
 * makes a bare worker busy that long before its answers, round by round.
 */
function engineMs(agents) {
  const probed = agents.find((a) => a.probed && a.config.name === CONFIGS[0].name);
  const steps = probed.probes.at(-1).steps.slice(1, -1);
  const median = (key) => Math.round(summary(steps.map((s) => s[key]).filter((x) => x !== null)).median / 0.005) * 0.005;
  return [median("beforeToolMs"), median("afterToolMs")];
}

async function agentOf({ Agent, ToolError }, build, config, probed, steps) {
  const kind = config.failing ? "failing" : config.large ? "large" : config.readOnly ? "ro" : "fx";
  const tag = `${build.label}-${config.store}-${kind}${probed ? "-probe" : ""}`;
  const db = `keel-bench-commit-${tag}`;
  let store = "memory";
  if (config.store === "indexeddb") {
    await deleteDb(db);
    store = { name: db, retention: KEEP_ALL };
  }
  const script = probed ? `${build.dir}/commit-probe.js` : `${build.dir}/worker.js`;
  const worker = new Worker(script, { type: "module", name: `keel-${tag}` });
  const agent = await Agent.create({
    model: { custom: instantModel(steps) },
    tools: [lookupOf(config, ToolError)],
    config: { ...SCRIPTED, format: "xml", maxSteps: steps + 2, store },
    worker,
  });
  return { build: build.label, config, probed, agent, worker, db, steps: [], overheads: [], probes: [] };
}

function probe(worker) {
  const channel = new MessageChannel();
  const log = new Promise((resolve) => (channel.port1.onmessage = (e) => resolve(e.data)));
  worker.postMessage({ type: "benchProbe" }, [channel.port2]);
  return log;
}

/**
 * One probed run's log, per step: the transactions begun in it (step k: from its model call to
 * the next; the last step to the run's end), their requests and bytes, and their time from
 * `transaction()` to `complete` on the worker's clock. Also the run's writes before its first
 * model call (its start) and the worker's time from the tool's reply to the next model call.
 */
function perStep(log) {
  const calls = log.filter((e) => e.kind === "modelCall").map((e) => e.t);
  const txs = log.filter((e) => e.kind === "tx");
  const replies = log.filter((e) => e.kind === "toolResult").map((e) => e.t);
  const answers = log.filter((e) => e.kind === "modelResult").map((e) => e.t);
  const toolCalls = log.filter((e) => e.kind === "toolCall").map((e) => e.t);
  const posts = log.filter((e) => e.kind === "post");
  const steps = calls.map((t, k) => {
    const end = calls[k + 1] ?? Infinity;
    const mine = txs.filter((tx) => tx.t0 >= t && tx.t0 < end);
    const requests = mine.flatMap((tx) => tx.requests);
    const reply = replies.find((r) => r >= t && r < end);
    const answer = answers.find((r) => r >= t && r < end);
    const toolCall = toolCalls.find((c) => c >= t && c < end);
    const turnTx = mine.filter((tx) => reply !== undefined && tx.t0 >= reply).at(-1);
    return {
      transactions: mine.length,
      // The worker's `postMessage` calls in the step (events and requests), and their time.
      posts: posts.filter((p) => p.t >= t && p.t < end).length,
      postMs: posts.filter((p) => p.t >= t && p.t < end).reduce((sum, p) => sum + p.ms, 0),
      puts: requests.filter((r) => r.op === "put" || r.op === "add").length,
      reads: requests.filter((r) => r.op !== "put" && r.op !== "add").length,
      bytes: requests.reduce((sum, r) => sum + r.bytes, 0),
      txMs: mine.reduce((sum, tx) => sum + (tx.t1 ?? tx.t0) - tx.t0, 0),
      // From the tool's reply to the next model call: the step's commit and the next prompt.
      afterToolMs: reply !== undefined && calls[k + 1] !== undefined ? calls[k + 1] - reply : null,
      // From the model's reply to the tool call: parsing, checking, and a side effect's intent.
      beforeToolMs: answer !== undefined && toolCall !== undefined ? toolCall - answer : null,
      // The step's commit: from the tool's reply to its transaction, the transaction, and from its
      // `complete` to the next model call.
      toTxMs: turnTx ? turnTx.t0 - reply : null,
      turnTxMs: turnTx?.t1 ? turnTx.t1 - turnTx.t0 : null,
      fromTxMs: turnTx?.t1 && calls[k + 1] !== undefined ? calls[k + 1] - turnTx.t1 : null,
      txs: mine,
      marks: log.filter((e) => e.kind === "mark" && reply !== undefined && e.t >= reply && e.t < end).map((e) => [e.name, e.t - reply]),
      detail: mine.map((tx) => `${tx.stores}:${tx.durability}:${tx.requests.map((r) => `${r.op}(${r.store},${r.bytes})`).join("+")}`),
    };
  });
  const start = txs.filter((tx) => tx.t0 < calls[0]).length;
  return { steps, start };
}

/**
 * Every configuration of every build, interleaved: `warmup` runs per agent (discarded), then
 * `runs` runs, timed (the plain agents) or counted (the probed ones), and a floor sample after
 * each round.
 */
export async function benchCommit({ builds, runs = 40, warmup = 5, steps = 10, floorSamples = 10 }) {
  const agents = [];
  for (const build of builds) {
    const module = await import(`${build.dir}/index.js`);
    for (const config of CONFIGS) {
      for (const probed of [false, true]) agents.push(await agentOf(module, build, config, probed, steps));
    }
  }
  const floors = { roundTrips: [], strictPut: [], busyAfterPut: [], busyDuringPut: [], worked: [] };
  /** The engine's time in each round (`engineMs`). */
  const engines = [];
  const started = performance.now();
  for (let round = 0; round < warmup + runs; round++) {
    for (let i = 0; i < agents.length; i++) {
      const a = agents[(i + round) % agents.length];
      if (a.probed) await probe(a.worker);
      const run = await timedRun(a.agent, "Look up the items of the catalogue.", `commit-${round}`);
      if (run.result.counts.steps !== steps) throw new Error(`${a.build} ${a.config.name}: ${run.result.counts.steps} steps: ${run.result.answer}`);
      if (round < warmup) continue;
      if (a.probed) a.probes.push(perStep(await probe(a.worker)));
      else {
        const { steps: timed, overhead } = pageSteps(run);
        a.steps.push(...timed.slice(1));
        a.overheads.push(overhead);
      }
    }
    if (round >= warmup) {
      engines.push(engineMs(agents));
      const f = await floor(floorSamples, { busyMs: BUSY_MS, work: engines.at(-1) });
      for (const key of Object.keys(floors)) floors[key].push(...f[key]);
    }
  }
  const elapsedMs = performance.now() - started;
  const probes = agents.filter((a) => a.probed);
  for (const a of agents) {
    a.agent.dispose();
    if (a.config.store === "indexeddb") await deleteDb(a.db).catch(() => {});
  }
  return {
    elapsedMs,
    floor: { ...floors, busyMs: BUSY_MS, engineMs: [0, 1].map((i) => summary(engines.map((e) => e[i])).median.toFixed(3)) },
    agents: agents.filter((a) => !a.probed).map((a) => ({ build: a.build, config: a.config.name, steps: a.steps, overheads: a.overheads })),
    probes: probes.map((a) => ({ build: a.build, config: a.config.name, runs: a.probes })),
  };
}
