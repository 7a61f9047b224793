// Worker cold start, two builds side by side: each directory (a checkout holding pkg/ and
// bench/browser/) is served on its own origin, and their loads interleave (A first, B first,
// A cached, B cached, …), so machine noise falls on both alike. With --probe, each load also runs
// cold-probe.html and the phases of Agent.create() are printed (medians, ms from create's start).
// With --preload, each load also runs cold-preload.html: the page calls Agent.preload() at load
// (where the build has it), waits --idle ms (default 300, an app's idle time after load), then
// times Agent.create() → ready; a build without preload() only waits. With --floor, each round
// also loads, from A's origin, first load and cached: cold-floor.html, a bare module worker handed
// an empty module (the floor of any engine in a worker: `empty`), and the same with keel's wasm
// compiled beside it (`keel`); and cold-compile.html, the page's compile of keel's wasm alone
// (`compile`). Each load's import of keel-agent and the page's start → ready (less any --settle)
// are printed too. With --settle MS, cold.html waits that long after the import before
// `Agent.create`, so that create runs on a page done loading: keel's start apart from the page's.
//   node bench/browser/cold-ab.mjs --a DIR --b DIR [--loads N] [--probe] [--preload] [--floor] [--idle MS] [--settle MS] [--json FILE]
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { collectErrors, launchChromium } from "../../tests/e2e/browser.mjs";
import { serve } from "../../tests/e2e/server.mjs";
import { HEADERS } from "./headers.mjs";
import { summary } from "./stats.mjs";

const { values: opts } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    loads: { type: "string", default: "30" },
    probe: { type: "boolean", default: false },
    preload: { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
    idle: { type: "string", default: "300" },
    settle: { type: "string", default: "0" },
    json: { type: "string" },
  },
});
if (!opts.a || !opts.b) throw new Error("usage: node bench/browser/cold-ab.mjs --a DIR --b DIR [--loads N] [--probe] [--preload] [--idle MS]");
const preloadPage = `/bench/browser/cold-preload.html?idle=${Number(opts.idle)}`;
const coldPage = `/bench/browser/cold.html?settle=${Number(opts.settle)}`;
const loads = Number(opts.loads);
const errors = [];
const FLOORS = { empty: "cold-floor.html?wasm=empty", keel: "cold-floor.html?wasm=keel", compile: "cold-compile.html" };
/** What each cold.html load reports, timed apart: Agent.create → ready, the import before it, the page's start → ready. */
const MEASURES = {
  create: { field: "createMs", label: "Agent.create → ready" },
  import: { field: "importMs", label: "import of keel-agent before it" },
  total: { field: "sincePageStartMs", label: "the page's start → ready" },
};
const KINDS = ["first", "cached"];
/** A measure's key in the output: `first`/`cached` for create (as before the others were timed), else e.g. `importFirst`. */
const key = (measure, kind) => (measure === "create" ? kind : `${measure}${kind[0].toUpperCase()}${kind.slice(1)}`);
/** One side's samples of `measure` over its loads of `kind`. */
const samples = (side, measure, kind) => side.loads[kind].map((cold) => cold[MEASURES[measure].field]);
const floor = Object.fromEntries(Object.keys(FLOORS).map((kind) => [kind, { first: [], cached: [] }]));

async function load(context, url) {
  const page = await context.newPage();
  collectErrors(page, errors);
  await page.goto(url);
  await page.waitForFunction(() => window.cold !== undefined, null, { timeout: 120_000 });
  const cold = await page.evaluate(() => window.cold);
  await page.close();
  if (cold.error) throw new Error(`cold start failed at ${url}: ${cold.error}`);
  return cold;
}

// Phases of one probed load, in ms from Agent.create()'s start.
function phases({ page, worker }) {
  const t = (x) => (x === undefined ? undefined : x - page.createStart);
  const wasm = worker.resources.find((r) => r.name.endsWith(".wasm"));
  const pageWasm = page.resources?.find((r) => r.name.endsWith(".wasm"));
  const m = worker.marks;
  return {
    workerConstructed: t(page.constructed),
    workerOrigin: t(m.workerOrigin),
    workerModulesEvaluated: t(m.hooks),
    wasmFetchStart: t(wasm?.start),
    wasmFetchEnd: t(wasm?.end),
    instantiateStart: t(m.instantiateStreamingStart ?? m.instantiateStart),
    instantiateEnd: t(m.instantiateStreamingEnd ?? m.instantiateEnd),
    pageWasmFetchStart: t(pageWasm?.start),
    pageWasmFetchEnd: t(pageWasm?.end),
    pageCompileStart: t(page.compileStreamingStart ?? page.compileStart),
    pageCompileEnd: t(page.compileStreamingEnd ?? page.compileEnd),
    initArrived: t(m.initArrived),
    workerReady: t(m.ready),
    pageReady: t(page.ready),
    ...Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith("keel:")).map(([k, v]) => [k, t(v)])),
  };
}

// A cold-preload.html load's create → ready, counting the loads whose spare was warm at create.
function preloaded(side, cold) {
  if (cold.warmAtCreate) side.warmAtCreate++;
  return cold.createMs;
}

const sides = {};
for (const [name, dir] of [["a", opts.a], ["b", opts.b]]) {
  sides[name] = { dir: resolve(dir), server: await serve(resolve(dir), { headers: HEADERS }), loads: { first: [], cached: [] }, probeFirst: [], probeCached: [], preloadFirst: [], preloadCached: [], warmAtCreate: 0 };
}
const browser = await launchChromium();
const load0 = loadavg();
try {
  for (const side of Object.values(sides)) {
    side.warm = await browser.newContext();
    await load(side.warm, `${side.server.url}${coldPage}`);
    if (opts.probe) await load(side.warm, `${side.server.url}/bench/browser/cold-probe.html`);
    if (opts.preload) await load(side.warm, `${side.server.url}${preloadPage}`);
    if (opts.floor && side === sides.a) for (const page of Object.values(FLOORS)) await load(side.warm, `${side.server.url}/bench/browser/${page}`);
  }
  for (let i = 0; i < loads; i++) {
    for (const side of Object.values(sides)) {
      const fresh = await browser.newContext();
      side.loads.first.push(await load(fresh, `${side.server.url}${coldPage}`));
      await fresh.close();
    }
    for (const side of Object.values(sides)) {
      side.loads.cached.push(await load(side.warm, `${side.server.url}${coldPage}`));
    }
    if (opts.preload) {
      for (const side of Object.values(sides)) {
        const fresh = await browser.newContext();
        side.preloadFirst.push(preloaded(side, await load(fresh, `${side.server.url}${preloadPage}`)));
        await fresh.close();
      }
      for (const side of Object.values(sides)) {
        side.preloadCached.push(preloaded(side, await load(side.warm, `${side.server.url}${preloadPage}`)));
      }
    }
    if (opts.floor) {
      for (const [kind, page] of Object.entries(FLOORS)) {
        const url = `${sides.a.server.url}/bench/browser/${page}`;
        const fresh = await browser.newContext();
        floor[kind].first.push((await load(fresh, url)).createMs);
        await fresh.close();
        floor[kind].cached.push((await load(sides.a.warm, url)).createMs);
      }
    }
    if (!opts.probe) continue;
    for (const side of Object.values(sides)) {
      const fresh = await browser.newContext();
      side.probeFirst.push(phases(await load(fresh, `${side.server.url}/bench/browser/cold-probe.html`)));
      await fresh.close();
      side.probeCached.push(phases(await load(side.warm, `${side.server.url}/bench/browser/cold-probe.html`)));
    }
  }
} finally {
  for (const side of Object.values(sides)) await side.warm?.close();
  await browser.close();
  for (const side of Object.values(sides)) await side.server.close();
}
const load1 = loadavg();
const round = (x) => Math.round(x * 10) / 10;
const out = { loads, settleMs: Number(opts.settle), idleMs: opts.preload ? Number(opts.idle) : undefined, loadavgStart: load0.map(round), loadavgEnd: load1.map(round), sides: {} };
for (const [name, side] of Object.entries(sides)) {
  const phaseMedians = (list) =>
    list.length ? Object.fromEntries(Object.keys(list[0]).map((k) => [k, summary(list.map((p) => p[k]).filter((x) => x !== undefined))?.median ?? null])) : null;
  out.sides[name] = {
    dir: side.dir,
    ...Object.fromEntries(Object.entries(MEASURES).flatMap(([measure]) => KINDS.map((kind) => [key(measure, kind), summary(samples(side, measure, kind))]))),
    firstMs: samples(side, "create", "first"),
    cachedMs: samples(side, "create", "cached"),
    preloadFirst: opts.preload ? summary(side.preloadFirst) : undefined,
    preloadCached: opts.preload ? summary(side.preloadCached) : undefined,
    warmAtCreate: opts.preload ? side.warmAtCreate : undefined,
    phasesFirst: phaseMedians(side.probeFirst),
    phasesCached: phaseMedians(side.probeCached),
    probesFirst: opts.probe ? side.probeFirst : undefined,
    probesCached: opts.probe ? side.probeCached : undefined,
  };
}
// B − A per round (the two loads of a kind run back to back), so a change of the machine's load
// between rounds falls out: the median and p95 of those differences.
const pairs = (measure, kind) => {
  const b = samples(sides.b, measure, kind);
  return summary(samples(sides.a, measure, kind).map((x, i) => b[i] - x));
};
out.bMinusA = Object.fromEntries(Object.keys(MEASURES).flatMap((measure) => KINDS.map((kind) => [key(measure, kind), pairs(measure, kind)])));
if (opts.floor) out.floor = Object.fromEntries(Object.keys(FLOORS).map((kind) => [kind, { first: summary(floor[kind].first), cached: summary(floor[kind].cached) }]));
if (opts.json) writeFileSync(opts.json, `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(`load average ${out.loadavgStart.join(" ")} -> ${out.loadavgEnd.join(" ")}, ${loads} loads per kind${out.settleMs ? `, create ${out.settleMs} ms after the import` : ""}\n`);
for (const [name, s] of Object.entries(out.sides)) {
  for (const [measure, { label }] of Object.entries(MEASURES)) {
    const [f, c] = KINDS.map((kind) => s[key(measure, kind)]);
    process.stdout.write(`${measure === "create" ? `${name} (${s.dir})` : `  ${label}`}: first median ${f.median} p95 ${f.p95}; cached median ${c.median} p95 ${c.p95}\n`);
  }
  if (s.preloadFirst) {
    process.stdout.write(
      `  after ${out.idleMs} ms idle (Agent.preload() at load where the build has it; the spare warm at create in ${s.warmAtCreate} of ${2 * loads} loads): ` +
        `first median ${s.preloadFirst.median} p95 ${s.preloadFirst.p95}; cached median ${s.preloadCached.median} p95 ${s.preloadCached.p95}\n`,
    );
  }
  if (s.phasesFirst) process.stdout.write(`  phases first:  ${JSON.stringify(s.phasesFirst, (k, v) => (typeof v === "number" ? round(v) : v))}\n`);
  if (s.phasesCached) process.stdout.write(`  phases cached: ${JSON.stringify(s.phasesCached, (k, v) => (typeof v === "number" ? round(v) : v))}\n`);
}
for (const [measure, { label }] of Object.entries(MEASURES)) {
  const [f, c] = KINDS.map((kind) => out.bMinusA[key(measure, kind)]);
  const what = measure === "create" ? "" : `, ${label}`;
  process.stdout.write(`b - a${what}, paired by round: first median ${f.median} p95 ${f.p95}; cached median ${c.median} p95 ${c.p95}\n`);
}
for (const [kind, f] of Object.entries(out.floor ?? {})) {
  process.stdout.write(`floor, ${kind}: first median ${f.first.median} p95 ${f.first.p95}; cached median ${f.cached.median} p95 ${f.cached.p95}\n`);
}
if (errors.length) {
  process.stderr.write(`page errors:\n${errors.join("\n")}\n`);
  process.exit(1);
}
