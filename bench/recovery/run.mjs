// The recovery benchmark: a real local model (llama-cpp-python's server) reached through keel's
// OpenAI-compatible backend from headless Chromium, every scenario in every mode, in one run.
// Records bench/results/recovery-<label>.json (raw, per scenario) and rewrites
// bench/results/recovery.md from every recovery-*.json there. Asserts nothing.
//
//   node bench/recovery/run.mjs --python P --model M.gguf --label L [--modes a,b]
//                               [--only id,id] [--out DIR] [--dump DIR]
// --dump DIR writes every model call's request and reply there (to replay a step's prompt).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { collectErrors } from "../../tests/e2e/browser.mjs";
import { DEFAULT_MODES, MODES } from "./modes.js";
import { markdown, summarise } from "./report.mjs";
import { scenarios } from "./scenarios.js";
import { provenance, startModelBench } from "../model-bench.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values: opts } = parseArgs({
  options: {
    python: { type: "string" },
    model: { type: "string" },
    label: { type: "string" },
    modes: { type: "string", default: DEFAULT_MODES.join(",") },
    only: { type: "string", default: "" },
    out: { type: "string", default: join(ROOT, "bench/results") },
    dump: { type: "string" },
  },
});
for (const required of ["python", "model", "label"]) {
  if (!opts[required]) throw new Error(`--${required} is required`);
}
const modes = opts.modes.split(",").filter(Boolean);
for (const m of modes) if (!MODES[m]) throw new Error(`unknown mode '${m}' (${Object.keys(MODES).join(", ")})`);
const all = scenarios(class {});
const only = opts.only.split(",").filter(Boolean);
for (const id of only) if (!all.some((s) => s.id === id)) throw new Error(`unknown scenario '${id}'`);
const chosen = only.length ? all.filter((s) => only.includes(s.id)) : all;
const byId = new Map(all.map((s) => [s.id, s]));



mkdirSync(opts.out, { recursive: true });
const bench = await startModelBench({ python: opts.python, model: opts.model, logName: `llama-server-${opts.label}`, faultsFor: (id) => byId.get(id)?.modelFaults, dump: opts.dump });
const { site, browser, proxy } = bench;
const pageErrors = [];
const results = [];
const partial = join(opts.out, `recovery-${opts.label}.partial.json`);
const started = Date.now();
// SIGTERM / Ctrl-C: finish the scenario under way, then write the report of what ran.
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    process.stdout.write(`    ${signal}: stopping after the run under way\n`);
    stopping = true;
  });
}
try {
  const page = await browser.newPage();
  collectErrors(page, pageErrors);
  await page.goto(`${site.url}/bench/recovery/page.html`);
  await page.waitForFunction(() => window.benchLoaded === true);
  // Interleaved (scenario-major), so a machine slowing down mid-run touches every mode alike.
  for (const scenario of chosen) {
    for (const mode of modes) {
      if (stopping) break;
      const t0 = Date.now();
      let record;
      try {
        record = await page.evaluate((a) => window.runScenario(a), { id: scenario.id, mode, proxy: proxy.url, model: opts.label });
      } catch (e) {
        record = { scenario: scenario.id, mode, error: String(e).slice(0, 2000), correct: false };
      }
      record.minSteps = scenario.minSteps;
      record.mechanism = scenario.mechanism;
      record.modelCalls = proxy.calls(`${mode}/${scenario.id}`);
      record.lastPrompt = proxy.lastRequest(`${mode}/${scenario.id}`)?.messages ?? null;
      results.push(record);
      // Progress on disk as it goes: a long run can be read (and is not lost) before it ends.
      writeFileSync(partial, `${JSON.stringify(results, null, 2)}\n`);
      const mark = record.error ? "ERROR" : record.correct ? "ok   " : "wrong";
      const steps = record.counts?.steps ?? "-";
      const faults = record.stats?.faults ?? "-";
      process.stdout.write(
        `    ${mark} ${mode.padEnd(13)} ${scenario.id.padEnd(22)} steps ${String(steps).padStart(2)}  faults ${faults}  ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    }
  }
} finally {
  await bench.close();
}

const report = {
  command: (process.env.KEEL_BENCH_COMMAND ?? `node bench/recovery/run.mjs ${process.argv.slice(2).join(" ")}`).trim(),
  label: opts.label,
  ...(await provenance({ python: opts.python, model: opts.model })),
  modes: Object.fromEntries(modes.map((m) => [m, MODES[m].describe])),
  elapsedMs: Date.now() - started,
  runs: { planned: chosen.length * modes.length, done: results.length },
  summary: summarise(results, modes),
  pageErrors,
  results,
};
const file = join(opts.out, `recovery-${opts.label}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
rmSync(partial, { force: true });
const reports = readdirSync(opts.out)
  // Not another run's progress file (`.partial.json`): two models may run at once.
  .filter((f) => /^recovery-.+\.json$/.test(f) && !f.endsWith(".partial.json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(opts.out, f), "utf8")))
  // Only finished runs' reports: a stopped run's raw results kept beside them have no summary.
  .filter((r) => r.summary);
writeFileSync(join(opts.out, "recovery.md"), markdown(reports, all));
process.stdout.write(`    wrote ${file} and ${join(opts.out, "recovery.md")}\n`);
