// bench/results/browser.md from the benchmark's result object (the same data as browser.json).

const ms = (x) => (x == null ? "–" : x < 10 ? x.toFixed(3) : x < 100 ? x.toFixed(2) : x.toFixed(1));
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const row = (cells) => `| ${cells.join(" | ")} |`;
const table = (head, rows) => [row(head), row(head.map(() => "---")), ...rows.map(row)].join("\n");
const mp = (s) => (s ? `${ms(s.median)} / ${ms(s.p95)}` : "–");

function headline({ steps, cold, size, store }) {
  const plain = steps.agents.filter((a) => a.worker === "package");
  const lines = plain.map((a) => `- per step, ${a.config}: **median ${ms(a.page.all.median)} ms, p95 ${ms(a.page.all.p95)} ms** (${a.page.all.n} steps)`);
  lines.push(
    `- worker cold start (\`Agent.create()\` → resolved): **median ${ms(cold.first.create.median)} ms, p95 ${ms(cold.first.create.p95)} ms** on a first load; ` +
      `**median ${ms(cold.cached.create.median)} ms, p95 ${ms(cold.cached.create.p95)} ms** cached (${cold.loads} loads each)`,
  );
  if (store) {
    lines.push(
      `- committing one step to IndexedDB (step with IndexedDB − step with \`store: "memory"\`): **median ${ms(store.commit.median)} ms, p95 ${ms(store.commit.p95)} ms**; ` +
        `opening the database: **median ${ms(store.open.existing.median)} ms** (existing), ${ms(store.open.fresh.median)} ms for a new one with its first query; ` +
        `one session's failures among ${store.log.records.toLocaleString("en")}: **median ${ms(store.log.failures.median)} ms, p95 ${ms(store.log.failures.p95)} ms**`,
    );
  }
  lines.push(
    `- wasm: **${kb(size.wasm.raw)} raw, ${kb(size.wasm.gzip)} gzip -9**; everything a page loads for \`Agent.create\` (the wasm, index.js and its imports, worker.js): ` +
      `${kb(size.loaded.raw)} raw, ${kb(size.loaded.gzip)} gzip -9, ${kb(size.loaded.brotli)} brotli`,
  );
  return lines.join("\n");
}

function stepTables(steps) {
  const plain = steps.agents.filter((a) => a.worker === "package");
  const overall = table(
    ["configuration", "worker", "steps", "median ms", "p95 ms", "p99 ms", "mean ms", "max ms"],
    steps.agents.map((a) => [a.config, a.worker, a.page.all.n, ms(a.page.all.median), ms(a.page.all.p95), ms(a.page.all.p99), ms(a.page.all.mean), ms(a.page.all.max)]),
  );
  const kinds = table(
    ["configuration", "tool ok: median / p95 ms", "tool failed: median / p95 ms", "final answer: median / p95 ms", "per-run fixed cost: median / p95 ms"],
    plain.map((a) => [a.config, mp(a.page.ok), mp(a.page.failed), mp(a.page.final), mp(a.page.overhead)]),
  );
  const split = table(
    ["configuration", "step (worker clock)", "model round trip", "tool round trip", "engine", "prompt chars, step 1 → 10"],
    steps.agents
      .filter((a) => a.split)
      .map((a) => [a.config, mp(a.split.step), mp(a.split.modelRtt), mp(a.split.toolRtt), mp(a.split.engine), `${a.promptChars.first.median} → ${a.promptChars.last.median}`]),
  );
  // Where the tail is, in this run's own figures.
  const reading = steps.agents
    .filter((a) => a.split)
    .map(
      (a) =>
        `${a.config}: p95 ${ms(a.split.step.p95)} ms a step, of which the engine's own p95 is ${ms(a.split.engine.p95)} ms ` +
        `and the two round trips' ${ms(a.split.modelRtt.p95)} + ${ms(a.split.toolRtt.p95)} ms`,
    )
    .join("; ");
  return { overall, kinds, split, reading };
}

function storeSection(store) {
  const stepRow = (name, s) => [name, s.step.n, ms(s.step.median), ms(s.step.p95), ms(s.step.p99), ms(s.step.mean), mp(s.perRun)];
  return `## The store (IndexedDB)

*Committing one step.* Two agents with the same instant model and tool (tools ok, xml), one with
\`config: {store: "memory"}\`, one with the default IndexedDB store (its own database, retention
off), take turns run by run: ${store.runs} runs of ${store.stepsPerRun} steps each after ${store.warmup} warm-up runs. The engine
awaits each step's write (one \`strict\` transaction on the turns store, to its \`complete\`) before the next model
call, so the difference of the two agents' step times is the cost of committing a step:
**median ${ms(store.commit.median)} ms, p95 ${ms(store.commit.p95)} ms** (differences of the medians and of the p95s).

${table(
  ["store", "steps", "median ms", "p95 ms", "p99 ms", "mean ms", "per-run fixed cost: median / p95 ms"],
  [stepRow("memory", store.memory), stepRow("IndexedDB", store.indexeddb)],
)}

*Opening the database.* \`indexedDB.open()\` of the existing database from the page, no upgrade
(${store.open.existing.n} times): **median ${ms(store.open.existing.median)} ms, p95 ${ms(store.open.existing.p95)} ms**. A new database as a new agent's worker
creates it (schema v1, every store and index) and answers a first \`agent.failures({limit: 1})\`,
timed from the page (${store.open.fresh.n} times): median ${ms(store.open.fresh.median)} ms, p95 ${ms(store.open.fresh.p95)} ms.

*Querying the failure log.* ${store.log.records.toLocaleString("en")} failure records over ${store.log.sessions.toLocaleString("en")} sessions were put from the
page in one bulk transaction (${store.log.seedMs} ms), in the worker's schema; then one session's
${store.log.perSession} failures were listed and counted ${store.log.failures.n} times each, from the page's call to its promise resolving
(the \`session_atMs\` index, newest first):

${table(
  ["query", "records", "median ms", "p95 ms", "min ms", "max ms"],
  [
    ["\`agent.failures({session})\`", store.log.perSession, ms(store.log.failures.median), ms(store.log.failures.p95), ms(store.log.failures.min), ms(store.log.failures.max)],
    ["\`agent.failureStats({session})\`", store.log.perSession, ms(store.log.stats.median), ms(store.log.stats.p95), ms(store.log.stats.min), ms(store.log.stats.max)],
  ],
)}

`;
}

export function markdown(result) {
  const { machine, steps, cold, size, store } = result;
  const t = stepTables(steps);
  const coldRow = (name, c) => [name, c.create.n, ms(c.create.median), ms(c.create.p95), ms(c.create.min), ms(c.create.max), mp(c.import), mp(c.pageToReady), `${c.wasmFetchedLoads} / ${c.create.n}`];
  return `# Browser benchmark

Generated by \`${result.command}\` (bench/browser/run.mjs); do not edit by hand, re-run it. The raw
figures are in [browser.json](browser.json). A measurement, not a test: nothing here is asserted.
The machine is shared and noisy, so read medians and p95 and compare rows of the same run.

${headline(result)}

| | |
| --- | --- |
| date | ${machine.date} |
| commit | ${machine.commit} |
| machine | \`${machine.uname}\` |
| cores (nproc) | ${machine.nproc}; load average (1, 5, 15 min) ${machine.loadavg.join(", ")} at the start, ${machine.loadavgEnd?.join(", ")} at the end |
| browser | ${machine.chromium}, headless, the end-to-end tests' flags |
| rustc | ${machine.rustc} |
| node | ${machine.node} |

## Engine overhead per step

Agents with an instant scripted custom model and one instant tool (\`lookup\`, JSON-Schema-validated
args) run ${steps.runs} runs of ${steps.stepsPerRun} steps each (9 tool calls, then a final answer),
after ${steps.warmup} warm-up runs, each run in its own session. All the agents live in one page
and take turns run by run, so they share the same noise. A step is the time between two
\`stepStarted\` events as the page receives them (\`performance.now()\` in \`onEvent\`), the last step
of a run ending at \`runEnded\`. Every other configuration makes the even tool calls fail
persistently with a full \`ToolError\` envelope, so the engine classifies the failure, renders the
envelope (xml or text format, \`observationChars\` at its default of 1,500) and shows it to the
model. The page was cross-origin isolated (${steps.crossOriginIsolated ? "5 µs timer resolution" : "NOT isolated: 100 µs timers"}).

${t.overall}

\`package\` is the package's own worker; \`probed\` the same worker with bench/browser/probe-hooks.js
around it (the two should agree: the difference is the probe's own cost).

By kind of step (package worker), and the fixed cost per run (\`run()\` to the first \`stepStarted\`,
plus \`runEnded\` to \`result\` resolving):

${t.kinds}

Where a step's time goes, on the worker's clock (probed worker; median / p95 ms, tool steps only).
A *round trip* is from the engine posting the request to the reply reaching the worker: both
\`postMessage\` hops, the page's message handling, and the (instant) model or tool. *Engine* is the
rest of the step: parsing the model's step, validating the args, classifying and rendering, the
history, the next prompt, and posting the step's events. Medians do not add up exactly.

${t.split}

In this run: ${t.reading}. Every figure is wall time, so a busy machine's preemption lands in all
of them; a round trip also waits for two thread wake-ups (the page's main thread, then the
worker's), which is where a loaded machine's tail tends to show. The load average is above.

${store ? storeSection(store) : ""}## Worker cold start

From \`Agent.create()\` to its promise resolving: spawning the module worker, fetching worker.js
and the glue, fetching, compiling and instantiating the wasm (\`instantiateStreaming\`), and the
engine's \`init\`. Each load is a new page. *First load*: a new browser context each time (empty
HTTP cache, no compiled-code cache). *Cached*: new pages in one context that loaded the page
before; the server sends \`Cache-Control: max-age=3600\`, and the last column counts the loads
whose wasm came from the server rather than the cache. The two kinds alternate.

${table(
  ["load", "loads", "median ms", "p95 ms", "min ms", "max ms", "import keel-agent: median / p95 ms", "page start → ready: median / p95 ms", "wasm fetched"],
  [coldRow("first load", cold.first), coldRow("cached", cold.cached)],
)}

The start measured build against build, with the floor (a bare worker, with and without keel's
compile beside it) and its phases, is in [browser-start.md](browser-start.md) (\`cold-ab.mjs\`).

${
  cold.cached.create.median > cold.first.create.median
    ? `Cached loads were not faster than first loads in this run, though their wasm came from the
cache (last column). The cause is not established here; one candidate is Chromium's compiled-wasm
code cache being read in full where a first load compiles lazily.
`
    : ""
}
## Size

The files of pkg/ as shipped (its package.json \`files\`): raw, \`gzip -9 -n\`, and brotli quality 11.
*JS loaded* is what a page fetches for \`Agent.create\`: index.js and what it imports, and worker.js,
which holds the glue and its snippets inlined (the package ships no other copy of them); not keel-agent/dom
or keel-agent/wllama, which a page loads only if it uses them.

${table(
  ["file", "kind", "raw", "gzip -9", "brotli"],
  [
    ...size.files.map((f) => [f.file, f.kind, f.raw, f.gzip, f.brotli]),
    ["**wasm**", "", `${size.wasm.raw} (${kb(size.wasm.raw)})`, `${size.wasm.gzip} (${kb(size.wasm.gzip)})`, `${size.wasm.brotli} (${kb(size.wasm.brotli)})`],
    ["**JS loaded**", "", `${size.js.raw} (${kb(size.js.raw)})`, `${size.js.gzip} (${kb(size.js.gzip)})`, `${size.js.brotli} (${kb(size.js.brotli)})`],
    ["**all a page loads**", "", `${size.loaded.raw} (${kb(size.loaded.raw)})`, `${size.loaded.gzip} (${kb(size.loaded.gzip)})`, `${size.loaded.brotli} (${kb(size.loaded.brotli)})`],
  ],
)}
`;
}
