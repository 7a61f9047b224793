// Where a step's time goes, in the page and in the worker: V8's sampling profiler over ten-step
// runs of one agent (profile.js: instant scripted model and tool, store in memory), read through
// the DevTools protocol, the worker's through the page's session. Prints each thread's share of
// the wall time by kind (idle, the engine's wasm, wasm-bindgen's JS glue, the browser's own
// functions such as postMessage, GC) and its top functions by self time. wasm functions have
// names only with `--named`: it runs wasm-bindgen on the cargo output
// (target/wasm32-unknown-unknown/release/keel.wasm, without wasm-opt, which drops the names) into
// target/profile-pkg, a copy of DIR, and profiles that; DIR must be built from the same tree, or
// the glue will not match. The profiler slows the threads it samples: read the shares, not the
// absolute times. Asserts nothing; writes nothing else.
// `--large` adds 56 KB of JSON records to each tool result (instant.js).
//   node bench/browser/profile.mjs [--pkg DIR] [--runs N] [--warmup N] [--interval µs] [--top N] [--named] [--large] [--save FILE]
import { execFileSync } from "node:child_process";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { inBenchPage } from "./bench-page.mjs";
import { summary } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values: opts } = parseArgs({
  options: {
    pkg: { type: "string", default: "pkg" },
    runs: { type: "string", default: "100" },
    warmup: { type: "string", default: "20" },
    interval: { type: "string", default: "50" },
    top: { type: "string", default: "25" },
    named: { type: "boolean", default: false },
    large: { type: "boolean", default: false },
    save: { type: "string" },
  },
});
let dir = resolve(opts.pkg);
if (!dir.startsWith(`${ROOT}/`)) throw new Error(`${opts.pkg} must be under ${ROOT}`);
if (opts.named) {
  const named = join(ROOT, "target/profile-pkg");
  rmSync(named, { recursive: true, force: true });
  cpSync(dir, named, { recursive: true });
  const wasm = join(ROOT, "target/wasm32-unknown-unknown/release/keel.wasm");
  const bindgen = join(ROOT, "target/profile-bindgen");
  execFileSync("wasm-bindgen", [wasm, "--target", "web", "--out-dir", bindgen, "--out-name", "keel"]);
  cpSync(join(bindgen, "keel_bg.wasm"), join(named, "keel_bg.wasm"));
  dir = named;
}
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

/** Each thread's samples: shares by kind and the top functions by self time. */
function shares(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map();
  for (const id of profile.samples) {
    const { functionName, url } = nodes.get(id).callFrame;
    const key = `${functionName || "(anonymous)"}${url ? ` ${url.split("/").pop()}` : ""}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
  }
  const kindOf = (key) =>
    key === "(idle)" ? "idle"
    : key.endsWith("keel_bg.wasm") ? "engine (wasm)"
    : key.endsWith(" worker.js") || key.endsWith(" keel.js") ? "wasm-bindgen glue (JS)"
    : key === "(garbage collector)" ? "GC"
    : key === "(program)" ? "V8 (program)"
    : key.includes(" ") ? "page JS (keel-agent, the bench)"
    : "browser functions (postMessage, timers…)";
  const byKind = new Map();
  for (const [key, n] of byFunction) byKind.set(kindOf(key), (byKind.get(kindOf(key)) ?? 0) + n);
  const total = profile.samples.length;
  const pct = (n) => `${((n / total) * 100).toFixed(1)}%`;
  // Total time: each function counted once in each sample whose stack holds it.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byTotal = new Map();
  for (const id of profile.samples) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = nodes.get(at).callFrame;
      if (!url.endsWith("keel_bg.wasm") && !url.endsWith("worker.js") && !url.endsWith("keel.js")) continue;
      seen.add(functionName || "(anonymous)");
    }
    for (const key of seen) byTotal.set(key, (byTotal.get(key) ?? 0) + 1);
  }
  return {
    kinds: [...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, pct(n)]),
    top: [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(opts.top)).map(([k, n]) => [k, pct(n)]),
    total: [...byTotal].sort((a, b) => b[1] - a[1]).slice(0, Number(opts.top)).map(([k, n]) => [k, pct(n)]),
  };
}

const loadStart = load();
// The worker's DevTools session, reached through the page's (non-flat) target messages.
let cdp;
let worker;
let next = 1;
const waiting = new Map();
const inWorker = (method, params = {}) =>
  new Promise((ok) => {
    const id = next++;
    waiting.set(id, ok);
    cdp.send("Target.sendMessageToTarget", { sessionId: worker, message: JSON.stringify({ id, method, params }) });
  });
const attach = async (page) => {
  cdp = await page.context().newCDPSession(page);
  cdp.on("Target.attachedToTarget", (e) => e.targetInfo.type === "worker" && (worker = e.sessionId));
  cdp.on("Target.receivedMessageFromTarget", (e) => {
    const m = JSON.parse(e.message);
    waiting.get(m.id)?.(m.result);
    waiting.delete(m.id);
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
};
const out = await inBenchPage(
  ROOT,
  "/bench/browser/profile.html",
  async (page) => {
    await page.evaluate(([d, large]) => window.benchProfileSetup(d, large), [`/${dir.slice(ROOT.length + 1)}`, opts.large]);
    if (!worker) throw new Error("the agent's worker was not attached");
    await page.evaluate((n) => window.benchProfileRuns(n), Number(opts.warmup));
    const interval = Number(opts.interval);
    for (const send of [(m, p) => cdp.send(m, p), inWorker]) {
      await send("Profiler.enable", {});
      await send("Profiler.setSamplingInterval", { interval });
      await send("Profiler.start", {});
    }
    const steps = await page.evaluate((n) => window.benchProfileRuns(n), Number(opts.runs));
    const pageProfile = (await cdp.send("Profiler.stop")).profile;
    const workerProfile = (await inWorker("Profiler.stop")).profile;
    if (opts.save) writeFileSync(opts.save, JSON.stringify({ page: pageProfile, worker: workerProfile }));
    return { steps: summary(steps), page: shares(pageProfile), worker: shares(workerProfile) };
  },
  attach,
);
const lines = [
  `${new Date().toISOString()}, ${dir.slice(ROOT.length + 1)}, ${opts.runs} runs, sampling every ${opts.interval} µs, load average ${loadStart} → ${load()}`,
  "",
  `Per step while profiled (ms): median ${out.steps.median.toFixed(3)}, p95 ${out.steps.p95.toFixed(3)}`,
];
for (const thread of ["worker", "page"]) {
  lines.push("", `**${thread}**, share of the wall time by kind: ${out[thread].kinds.map(([k, p]) => `${k} ${p}`).join(", ")}`, "");
  lines.push("| function (self time) | share |", "| --- | --- |", ...out[thread].top.map(([k, p]) => `| \`${k}\` | ${p} |`));
  if (thread === "worker") {
    lines.push("", "**worker**, the engine's and its glue's functions by total time (self and callees):", "");
    lines.push("| function (total time) | share |", "| --- | --- |", ...out.worker.total.map(([k, p]) => `| \`${k}\` | ${p} |`));
  }
}
console.log(lines.join("\n"));
