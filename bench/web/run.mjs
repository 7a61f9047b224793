// The web benchmark: a real local model (llama-cpp-python's server, as the recovery benchmark runs
// it) drives keel-agent/dom's tools on the fixture shop in headless Chromium. The agent's page runs
// the engine; domOp runs in a second tab, as chrome.scripting runs it from an extension. Records
// bench/results/web-<label>.json and rewrites bench/results/web.md from every web-*.json there.
// Asserts nothing.
//
//   node bench/web/run.mjs --python P --model M.gguf --label L [--only id,id] [--threads N] [--out DIR]
//     [--site-port N] (the fixture site's port, 8931 by default: fixed, as the pages' URLs reach the prompts)
//
// One llama.cpp thread by default: on the shared 2-core machine (load ~7) SmolLM2 generated 7.7
// tokens/s with 1 thread and 0.5 with 2 (threads spin at each barrier while the other is descheduled).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { collectErrors } from "../../tests/e2e/browser.mjs";
import { exposeTab } from "../../tests/e2e/dom-tab.mjs";
import { markdown, summarise } from "./report.mjs";
import { TASKS } from "./tasks.js";
import { provenance, startModelBench } from "../model-bench.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values: opts } = parseArgs({
  options: {
    python: { type: "string" },
    model: { type: "string" },
    label: { type: "string" },
    only: { type: "string", default: "" },
    threads: { type: "string", default: "1" },
    out: { type: "string", default: join(ROOT, "bench/results") },
    // The pages' URLs are in every snapshot the model reads: a fixed port keeps two runs' prompts
    // the same (with a free port each run's differ, and so may a greedy model's replies).
    "site-port": { type: "string", default: "8931" },
  },
});
for (const required of ["python", "model", "label"]) {
  if (!opts[required]) throw new Error(`--${required} is required`);
}
const only = opts.only.split(",").filter(Boolean);
for (const id of only) if (!TASKS.some((t) => t.id === id)) throw new Error(`unknown task '${id}' (${TASKS.map((t) => t.id).join(", ")})`);
const chosen = only.length ? TASKS.filter((t) => only.includes(t.id)) : TASKS;
const threads = Number(opts.threads);
if (!Number.isInteger(threads) || threads < 1) throw new Error(`--threads must be a whole number of at least 1, not '${opts.threads}'`);
const sitePort = Number(opts["site-port"]);
if (!Number.isInteger(sitePort) || sitePort < 1 || sitePort > 65535) throw new Error(`--site-port must be a port from 1 to 65535, not '${opts["site-port"]}'`);


mkdirSync(opts.out, { recursive: true });
const bench = await startModelBench({ python: opts.python, model: opts.model, logName: `llama-server-web-${opts.label}`, threads, faultsFor: () => undefined, sitePort });
const { site, browser, proxy } = bench;
const pageErrors = [];
const results = [];
const partial = join(opts.out, `web-${opts.label}.partial.json`);
const started = Date.now();
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    process.stdout.write(`    ${signal}: stopping after the task under way\n`);
    stopping = true;
  });
}
try {
  const page = await browser.newPage();
  collectErrors(page, pageErrors);
  let tab = null;
  await exposeTab(page, () => tab);
  await page.goto(`${site.url}/bench/web/page.html`);
  await page.waitForFunction(() => window.benchLoaded === true);
  for (const task of chosen) {
    if (stopping) break;
    // A fresh tab per task: no history or state from the task before.
    await tab?.close();
    tab = await browser.newPage();
    collectErrors(tab, pageErrors);
    await tab.goto(`${site.url}/tests/fixtures/site/${task.start}`);
    const t0 = Date.now();
    let record;
    try {
      record = await page.evaluate((a) => window.runTask(a), { id: task.id, proxy: proxy.url, model: opts.label });
      record.pageOk = task.pageCheck ? await tab.evaluate(task.pageCheck).catch(() => false) : null;
    } catch (e) {
      record = { task: task.id, error: String(e).slice(0, 2000), answerCorrect: false, pageOk: null };
    }
    record.completed = !record.error && record.answerCorrect && record.pageOk !== false && record.success === true;
    record.minSteps = task.minSteps;
    record.endUrl = tab.url().replace(site.url, "");
    record.modelCalls = proxy.calls(`web/${task.id}`);
    record.lastPrompt = proxy.lastRequest(`web/${task.id}`)?.messages ?? null;
    results.push(record);
    writeFileSync(partial, `${JSON.stringify(results, null, 2)}\n`);
    const mark = record.error ? "ERROR" : record.completed ? "done " : record.answerCorrect ? "right" : "wrong";
    process.stdout.write(
      `    ${mark} ${task.id.padEnd(14)} success ${String(record.success).padEnd(9)} steps ${String(record.counts?.steps ?? "-").padStart(2)}  faults ${record.stats?.faults ?? "-"}/${record.stats?.recovered ?? "-"}  ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  }
} finally {
  await bench.close();
}

const report = {
  command: (process.env.KEEL_BENCH_COMMAND ?? `node bench/web/run.mjs ${process.argv.slice(2).join(" ")}`).trim(),
  label: opts.label,
  ...(await provenance({ python: opts.python, model: opts.model, threads })),
  elapsedMs: Date.now() - started,
  runs: { planned: chosen.length, done: results.length },
  summary: summarise(results),
  pageErrors,
  results,
};
const file = join(opts.out, `web-${opts.label}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
rmSync(partial, { force: true });
const reports = readdirSync(opts.out)
  .filter((f) => /^web-.+\.json$/.test(f) && !f.endsWith(".partial.json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(opts.out, f), "utf8")));
writeFileSync(join(opts.out, "web.md"), markdown(reports, TASKS));
process.stdout.write(`    wrote ${file} and ${join(opts.out, "web.md")}\n`);
