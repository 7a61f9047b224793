// What committing a step costs, two builds of the package side by side in one headless Chromium
// page (commit.js): per step with the store in memory and in IndexedDB, a read-only tool, one
// with side effects and a read-only one failing every other call, beside the floor (two round trips to a bare worker, those with the worker busy as long as the engine is, and those with one put);
// and, from probed agents, the IndexedDB transactions, requests and bytes of each step.
// Prints markdown; asserts nothing, writes nothing but the probe workers (commit-probe.js) in
// each build's directory.
//   node bench/browser/commit.mjs --build DIR:LABEL [--build DIR:LABEL ...] [--runs N] [--warmup N]
// Each DIR is under the repository root and holds a whole built package (pkg/, or a copy of it
// built from another commit).
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { inBenchPage } from "./bench-page.mjs";
import { summary } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values: opts } = parseArgs({
  options: {
    build: { type: "string", multiple: true, default: ["pkg:this tree"] },
    runs: { type: "string", default: "40" },
    warmup: { type: "string", default: "5" },
  },
});
const builds = opts.build.map((spec) => {
  const [path, label = path] = spec.split(":");
  const dir = resolve(path);
  if (!dir.startsWith(`${ROOT}/`)) throw new Error(`${path} must be under ${ROOT}`);
  writeFileSync(join(dir, "commit-probe.js"), 'import "/bench/browser/commit-hooks.js";\nimport "./worker.js";\n');
  return { label, dir: `/${dir.slice(ROOT.length + 1)}` };
});
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

const loadStart = load();
const date = new Date().toISOString();
const raw = await inBenchPage(ROOT, "/bench/browser/commit.html", (page) =>
  page.evaluate((o) => window.benchCommit(o), { builds, runs: Number(opts.runs), warmup: Number(opts.warmup) }),
);

const ms = (s) => (s ? `${s.median.toFixed(3)} / ${s.p95.toFixed(3)}` : "–");
const row = (cells) => `| ${cells.join(" | ")} |`;
const out = [];
out.push(`${date}, ${Math.round(raw.elapsedMs / 1000)} s, load average ${loadStart} → ${load()}`, "");
out.push("Per step, steps 2-10 of each run, on the page (ms, median / p95):", "");
const labels = builds.map((b) => b.label);
out.push(row(["", ...labels]), row(["---", ...labels.map(() => "---")]));
for (const config of [...new Set(raw.agents.map((a) => a.config))]) {
  out.push(row([config, ...labels.map((l) => ms(summary(raw.agents.find((a) => a.build === l && a.config === config).steps)))]));
}
out.push("", "Per run, outside its steps (from `agent.run` to the first step, and from `runEnded` to the result; ms, median / p95):", "");
out.push(row(["", ...labels]), row(["---", ...labels.map(() => "---")]));
for (const config of [...new Set(raw.agents.map((a) => a.config))]) {
  out.push(row([config, ...labels.map((l) => ms(summary(raw.agents.find((a) => a.build === l && a.config === config).overheads)))]));
}
out.push("", "The floor, beside them (ms, median / p95):", "");
out.push(row(["", "floor"]), row(["---", "---"]));
out.push(row(["2 postMessage round trips", ms(summary(raw.floor.roundTrips))]));
out.push(row([`2 round trips, the worker busy ${raw.floor.engineMs.join(" + ")} ms before its answers (the engine's in each round, median)`, ms(summary(raw.floor.worked))]));
out.push(row(["2 round trips + one strict put", ms(summary(raw.floor.strictPut))]));
out.push(row([`the same + ${raw.floor.busyMs} ms of work after the put's complete`, ms(summary(raw.floor.busyAfterPut))]));
out.push(row([`the same + ${raw.floor.busyMs} ms of work while the put commits`, ms(summary(raw.floor.busyDuringPut))]));
out.push("", "Per step on the worker's clock, from the probed agents: IndexedDB and `postMessage` (steps 2-9 / step 10, which answers and ends the run):", "");
out.push(row(["build", "configuration", "transactions", "puts", "reads", "bytes put", "in transactions ms", "model reply → tool call ms", "tool reply → next call ms", "… → step's tx ms", "step's tx ms", "tx → next call ms", "posts", "in posts ms", "start txs"]));
out.push(row(Array(15).fill("---")));
for (const p of raw.probes) {
  const mid = p.runs.flatMap((r) => r.steps.slice(1, -1));
  const last = p.runs.map((r) => r.steps.at(-1));
  const avg = (xs, key) => (xs.reduce((s, x) => s + x[key], 0) / xs.length).toFixed(2).replace(/\.00$/, "");
  const both = (key) => `${avg(mid, key)} / ${avg(last, key)}`;
  const med = (xs, key) => summary(xs.map((x) => x[key]).filter((x) => x !== null))?.median.toFixed(3) ?? "–";
  out.push(row([p.build, p.config, both("transactions"), both("puts"), both("reads"), both("bytes"), med(mid, "txMs"), med(mid, "beforeToolMs"), med(mid, "afterToolMs"), med(mid, "toTxMs"), med(mid, "turnTxMs"), med(mid, "fromTxMs"), both("posts"), med(mid, "postMs"), avg(p.runs, "start")]));
}
out.push("", "What a step 2 writes:", "");
for (const p of raw.probes.filter((p) => p.config.startsWith("indexeddb"))) {
  out.push(`- ${p.build}, ${p.config}: ${p.runs[0].steps[1].detail.join("; ")}`);
  out.push(`  step 10: ${p.runs[0].steps.at(-1).detail.join("; ")}`);
}
process.stdout.write(`${out.join("\n")}\n`);

const marks = {};
for (const p of raw.probes) {
  for (const r of p.runs) for (const st of r.steps.slice(1, -1)) for (const [name, t] of st.marks) ((marks[`${p.build} ${p.config}`] ??= {})[name] ??= []).push(t);
}
for (const [k, v] of Object.entries(marks)) {
  process.stdout.write(`${k}: ${Object.entries(v).map(([n, ts]) => `${n} ${summary(ts).median.toFixed(3)}`).join(", ")}\n`);
}

for (const p of raw.probes.filter((p) => p.config.startsWith("indexeddb"))) {
  const reqs = p.runs.flatMap((r) => r.steps.slice(1, -1).flatMap((st) => st.txs));
  const put = (tx) => tx.requests.at(-1);
  const f = (xs) => summary(xs.filter((x) => Number.isFinite(x))).median.toFixed(3);
  process.stdout.write(`${p.build} ${p.config}: begin→last put ${f(reqs.map((tx) => put(tx).t0 - tx.t0))}, put→success ${f(reqs.map((tx) => put(tx).t1 - put(tx).t0))}, success→complete ${f(reqs.map((tx) => tx.t1 - put(tx).t1))}\n`);
}
