// Per-step cost of two builds of the engine, side by side in one headless Chromium page
// (compare.js): pkg/ and another build of the package, e.g. the same source at another opt-level.
// Prints medians and p95 per configuration; asserts nothing, writes nothing.
//   node bench/browser/compare.mjs --other DIR [--label NAME] [--runs N] [--warmup N]
// DIR is under the repository root and holds worker.js and keel_bg.wasm (a copy of pkg/ with
// another keel_bg.wasm and the worker.js built with it, which holds its glue).
import { loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { collectErrors, launchChromium } from "../../tests/e2e/browser.mjs";
import { serve } from "../../tests/e2e/server.mjs";
import { summary } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const HEADERS = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
const { values: opts } = parseArgs({
  options: {
    other: { type: "string" },
    label: { type: "string", default: "other" },
    runs: { type: "string", default: "60" },
    warmup: { type: "string", default: "10" },
  },
});
if (!opts.other) throw new Error("--other DIR is required (a build of the package under the repository root)");
const other = resolve(opts.other);
if (!other.startsWith(`${ROOT}/`)) throw new Error(`--other must be under ${ROOT}`);
const builds = [
  { label: "pkg", dir: "/pkg" },
  { label: opts.label, dir: `/${other.slice(ROOT.length + 1)}` },
];

const server = await serve(ROOT, { headers: HEADERS });
const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage();
  collectErrors(page, errors);
  await page.goto(`${server.url}/bench/browser/compare.html`);
  await page.waitForFunction(() => window.benchLoaded === true);
  const load = loadavg().map((x) => x.toFixed(2)).join(" ");
  const rows = await page.evaluate((o) => window.benchCompare(o), {
    builds,
    runs: Number(opts.runs),
    warmup: Number(opts.warmup),
  });
  process.stdout.write(`load average before: ${load}; after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}\n\n`);
  process.stdout.write("| configuration | build | steps | median ms | p95 ms | mean ms |\n|---|---|---:|---:|---:|---:|\n");
  for (const row of rows) {
    const s = summary(row.steps);
    process.stdout.write(`| ${row.config} | ${row.build} | ${s.n} | ${s.median} | ${s.p95} | ${s.mean} |\n`);
  }
} finally {
  await browser.close();
  await server.close();
}
if (errors.length) {
  process.stderr.write(`error: the page reported errors:\n${errors.join("\n")}\n`);
  process.exit(1);
}
