// Combines the web bench's results of two invocations for one model (a run cut short, then the
// remaining tasks with --only --out elsewhere) into <out>/web-<label>.json: the second one's tasks
// replace the first one's, the figures are recomputed, both commands kept. Then rewrites web.md.
//
//   node bench/web/combine.mjs FIRST.json SECOND.json OUT_DIR
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { markdown, summarise } from "./report.mjs";
import { TASKS } from "./tasks.js";
const [first, second, out] = process.argv.slice(2);
const a = JSON.parse(readFileSync(first, "utf8"));
const b = JSON.parse(readFileSync(second, "utf8"));
const redo = new Set(b.results.map((r) => r.task));
const results = [...a.results.filter((r) => !redo.has(r.task)), ...b.results];
results.sort((x, y) => TASKS.findIndex((t) => t.id === x.task) - TASKS.findIndex((t) => t.id === y.task));
const merged = {
  ...a,
  command: `${a.command} (stopped by a SIGTERM from outside after ${a.runs.done} tasks, the last one errored), then ${b.command}`,
  parts: [a, b].map((p) => ({ command: p.command, machine: p.machine, elapsedMs: p.elapsedMs, runs: p.runs, tasks: p.results.map((r) => r.task) })),
  machine: b.machine,
  elapsedMs: a.elapsedMs + b.elapsedMs,
  runs: { planned: TASKS.length, done: results.length },
  summary: summarise(results),
  results,
};
writeFileSync(join(out, `web-${a.label}.json`), `${JSON.stringify(merged, null, 2)}\n`);
const reports = readdirSync(out).filter((f) => /^web-.+\.json$/.test(f) && !f.endsWith(".partial.json")).sort().map((f) => JSON.parse(readFileSync(join(out, f), "utf8")));
writeFileSync(join(out, "web.md"), markdown(reports, TASKS));
console.log(`merged ${results.length} tasks into ${out}/web-${a.label}.json`);
