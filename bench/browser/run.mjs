// The browser benchmark: engine overhead per step, worker cold start, package size. Measures and
// records (bench/results/browser.{json,md}); asserts nothing about speed.
// Also the store (bench/browser/store.js): commit per step, open, a 100,000-record failure query.
//   node bench/browser/run.mjs [--runs N] [--warmup N] [--loads N] [--out DIR]
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CHROMIUM, collectErrors, launchChromium } from "../../tests/e2e/browser.mjs";
import { serve } from "../../tests/e2e/server.mjs";
import { coldStart } from "./cold.mjs";
import { markdown } from "./report.mjs";
import { packageSizes } from "./sizes.mjs";
import { HEADERS } from "./headers.mjs";
import { summary } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "120" },
    warmup: { type: "string", default: "10" },
    loads: { type: "string", default: "30" },
    out: { type: "string", default: join(ROOT, "bench/results") },
  },
});
const runs = Number(opts.runs);
const warmup = Number(opts.warmup);
const loads = Number(opts.loads);

// Debian's chromium wrapper script chatters on stderr: keep only stdout.
const sh = (cmd, args) => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
const tryShell = (cmd, args) => {
  try {
    return sh(cmd, args);
  } catch {
    return "unknown";
  }
};

/** The store's costs (bench/browser/store.js), summarised; commit = IndexedDB minus memory. */
async function storeBench(browser, runs, warmup) {
  const context = await browser.newContext();
  const page = await context.newPage();
  watch(page);
  await page.goto(`${server.url}/bench/browser/store.html`);
  await page.waitForFunction(() => window.benchLoaded === true);
  const raw = await page.evaluate((o) => window.benchStore(o), { runs, warmup, stepsPerRun: 10 });
  await context.close();
  const perStore = (s) => ({ step: summary(s.steps), perRun: summary(s.perRun) });
  const memory = perStore(raw.steps.memory);
  const indexeddb = perStore(raw.steps.indexeddb);
  const round = (x) => Math.round(x * 1000) / 1000;
  return {
    runs: raw.runs,
    warmup: raw.warmup,
    stepsPerRun: raw.stepsPerRun,
    memory,
    indexeddb,
    commit: { median: round(indexeddb.step.median - memory.step.median), p95: round(indexeddb.step.p95 - memory.step.p95) },
    open: { existing: summary(raw.open.existing), fresh: summary(raw.open.fresh) },
    log: {
      records: raw.log.records,
      sessions: raw.log.sessions,
      perSession: raw.log.perSession,
      seedMs: Math.round(raw.log.seedMs),
      failures: summary(raw.log.times.failures),
      stats: summary(raw.log.times.stats),
    },
  };
}

const requests = [];
const server = await serve(ROOT, { headers: HEADERS, onRequest: (path) => requests.push(path) });
const browser = await launchChromium();
const pageErrors = [];
const watch = (page) => collectErrors(page, pageErrors);

let steps;
let cold;
let store;
try {
  const machine = {
    date: new Date().toISOString(),
    uname: sh("uname", ["-a"]),
    nproc: availableParallelism(),
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    chromium: `${tryShell(CHROMIUM, ["--version"])} (playwright reports ${browser.version()})`,
    rustc: tryShell("rustc", ["--version"]),
    node: process.version,
    commit: `${tryShell("git", ["rev-parse", "--short", "HEAD"])}${tryShell("git", ["status", "--porcelain"]) ? " (dirty tree)" : ""}`,
  };
  process.stdout.write(`    step overhead: ${warmup} warm-up + ${runs} measured runs per agent...\n`);
  const context = await browser.newContext();
  const page = await context.newPage();
  watch(page);
  await page.goto(`${server.url}/bench/browser/steps.html`);
  await page.waitForFunction(() => window.benchLoaded === true);
  const raw = await page.evaluate((o) => window.benchSteps(o), { runs, warmup, stepsPerRun: 10 });
  await context.close();
  steps = {
    stepsPerRun: 10,
    runs,
    warmup,
    elapsedMs: Math.round(raw.elapsedMs),
    crossOriginIsolated: raw.crossOriginIsolated,
    agents: raw.agents.map((a) => ({
      config: a.config,
      format: a.format,
      failEvery: a.failEvery,
      worker: a.probed ? "probed" : "package",
      page: Object.fromEntries(Object.entries(a.page).map(([k, v]) => [k, summary(v)])),
      split: a.split && Object.fromEntries(Object.entries(a.split).map(([k, v]) => [k, summary(v)])),
      promptChars: { first: summary(a.prompts.first), last: summary(a.prompts.last) },
    })),
  };
  process.stdout.write(`    store: memory vs IndexedDB per step, opening, 100,000 failures...\n`);
  store = await storeBench(browser, runs, warmup);
  process.stdout.write(`    cold start: ${loads} loads each, empty cache and cached...\n`);
  cold = await coldStart({ browser, url: `${server.url}/bench/browser/cold.html`, loads, requests, watch });
  machine.loadavgEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  const result = {
    command: (process.env.KEEL_BENCH_COMMAND ?? `node bench/browser/run.mjs ${process.argv.slice(2).join(" ")}`).trim(),
    machine,
    steps,
    store,
    cold,
    size: packageSizes(join(ROOT, "pkg")),
    pageErrors,
  };
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, "browser.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(opts.out, "browser.md"), markdown(result));
  process.stdout.write(`==> wrote ${join(opts.out, "browser.md")} and browser.json\n`);
  process.stdout.write(markdown(result).split("\n## ")[0].split("\n").filter((l) => l.startsWith("- ")).join("\n") + "\n");
} finally {
  await browser.close();
  await server.close();
}
if (pageErrors.length) {
  process.stderr.write(`error: the bench pages reported errors:\n${pageErrors.join("\n")}\n`);
  process.exit(1);
}
