// The growth curves in headless Chromium (bench/browser/growth.js): per step at step 10/100/1,000
// of one run and after 10/100/1,000 earlier runs, store in memory and IndexedDB, beside the floor.
// Records one measurement under a label into bench/results/browser-growth.json, and writes
// browser-growth.md from every label recorded there (so a before and an after sit side by side).
//   node bench/browser/growth.mjs --label after [--reps N] [--rounds N] [--out DIR]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { inBenchPage } from "./bench-page.mjs";
import { summary } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values: opts } = parseArgs({
  options: {
    label: { type: "string", default: "this tree" },
    reps: { type: "string", default: "2" },
    rounds: { type: "string", default: "20" },
    out: { type: "string", default: join(ROOT, "bench/results") },
  },
});
const git = (args) => {
  try {
    return execFileSync("git", args, { encoding: "utf8", cwd: ROOT }).trim();
  } catch {
    return "unknown";
  }
};
const load = () => loadavg().map((x) => Math.round(x * 100) / 100);

const loadStart = load();
const raw = await inBenchPage(ROOT, "/bench/browser/growth.html", (page) =>
  page.evaluate((o) => window.benchGrowth(o), { reps: Number(opts.reps), rounds: Number(opts.rounds) }),
);
const byPoint = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, summary(v)]));
const entry = {
  label: opts.label,
  commit: `${git(["rev-parse", "--short", "HEAD"])}${git(["status", "--porcelain"]) ? " (dirty tree)" : ""}`,
  date: new Date().toISOString(),
  loadavg: { start: loadStart, end: load() },
  floor: byPoint(raw.floor),
  stores: Object.fromEntries(
    Object.entries(raw.stores).map(([kind, s]) => [
      kind,
      {
        step: byPoint(s.long.at),
        stepChars: byPoint(s.long.chars),
        stepWire: byPoint(s.long.wired),
        after: byPoint(s.session.after),
        runEnds: byPoint(s.session.runEnds),
        afterChars: byPoint(s.session.chars),
        afterWire: byPoint(s.session.wired),
        sessionMs: Math.round(s.session.elapsedMs),
      },
    ]),
  ),
};
mkdirSync(opts.out, { recursive: true });
const jsonPath = join(opts.out, "browser-growth.json");
const all = existsSync(jsonPath) ? JSON.parse(readFileSync(jsonPath, "utf8")) : [];
const kept = all.filter((e) => e.label !== entry.label).concat(entry);
writeFileSync(jsonPath, `${JSON.stringify(kept, null, 2)}\n`);
writeFileSync(join(opts.out, "browser-growth.md"), markdown(kept));
process.stdout.write(markdown([entry]));

function markdown(entries) {
  const ms = (s) => (s ? `${s.median.toFixed(3)} / ${s.p95.toFixed(3)}` : "–");
  const kb = (s) => (s ? `${(s.median / 1000).toFixed(1)} KB` : "–");
  const head = ["", ...entries.map((e) => `${e.label} (${e.commit})`)];
  const row = (cells) => `| ${cells.join(" | ")} |`;
  const rows = [];
  for (const kind of ["memory", "indexeddb"]) {
    for (const k of ["10", "100", "1000"]) rows.push([`${kind}: step ${k} of one run`, ...entries.map((e) => ms(e.stores[kind].step[k]))]);
    for (const k of ["10", "100", "1000"]) rows.push([`${kind}: after ${k} earlier runs`, ...entries.map((e) => ms(e.stores[kind].after[k]))]);
    // Up to cc77a13 (`ends`): the last step from its `stepStarted`; since (`runEnds`): from the last reply.
    if (entries.some((e) => e.stores[kind].ends)) {
      for (const k of ["10", "100", "1000"]) rows.push([`${kind}: a run's last step (answer, end) after ${k}`, ...entries.map((e) => ms(e.stores[kind].ends?.[k]))]);
    }
    for (const k of ["10", "100", "1000"]) rows.push([`${kind}: a run's end (last reply → runEnded) after ${k}`, ...entries.map((e) => ms(e.stores[kind].runEnds?.[k]))]);
  }
  rows.push(["floor: 2 postMessage round trips", ...entries.map((e) => ms(e.floor.roundTrips))]);
  rows.push(["floor: 2 round trips + one strict put", ...entries.map((e) => ms(e.floor.strictPut))]);
  rows.push(["floor: 2 round trips + one relaxed put", ...entries.map((e) => ms(e.floor.relaxedPut))]);
  rows.push(["floor: 2 round trips + one strict put into a fuller database", ...entries.map((e) => ms(e.floor.heldPut))]);
  const size = [];
  const both = (s, k, prompt, wire) => `${kb(s[prompt][k])} / ${s[wire] ? kb(s[wire][k]) : "–"}`;
  for (const k of ["10", "100", "1000"]) size.push([`step ${k} of one run`, ...entries.map((e) => both(e.stores.memory, k, "stepChars", "stepWire"))]);
  for (const k of ["10", "100", "1000"]) size.push([`after ${k} earlier runs`, ...entries.map((e) => both(e.stores.memory, k, "afterChars", "afterWire"))]);
  const machine = entries.map((e) => `- ${e.label}: ${e.commit}, ${e.date}, load average ${e.loadavg.start.join(" ")} → ${e.loadavg.end.join(" ")}`);
  return `# keel: per-step cost as a run and a session grow (headless Chromium)

Written by \`bench/browser/growth.mjs\` (\`./build.sh bench growth --label NAME\`); each label is one run of
the page \`bench/browser/growth.js\`. An instant scripted model (\`custom\`, a new call each step) and an
instant tool; the store in memory and in IndexedDB, each configuration on its own agent, database and
sessions. Per step = from one \`stepStarted\` event to the next, on the page. *Step k of one run*: steps
k-9..k of a 1,000-step run (990-999 for 1,000, the last being the answer). *After k earlier runs*: steps
2-10 of the ten-step runs after k earlier runs of the same session, and apart, those runs' ends: from
the model's last reply (the answer) to \`runEnded\` — up to cc77a13 the last step, from its
\`stepStarted\`, which the worker sends when the step before is stored, before the model's reply or
with it, whichever comes first: a race that a larger prompt tips, worth up to half a millisecond. Since cc77a13 three sessions of one database, grown to 10, 100 and
1,000 runs, each run once in turn for \`--rounds\` rounds (20 by default); before, one session was
measured as it grew, 10 runs a point (5 before 2026-11-27), so "after 10" ran first in a younger,
smaller database. "A fuller database": as many records as the session bench's database ends with
(11,110 up to cc77a13). Milliseconds, median / p95.

${machine.join("\n")}

${row(head)}
${row(head.map(() => "---"))}
${rows.map(row).join("\n")}

What each model call gives the backend (its messages and step schema, as JSON) / what its \`modelCall\`
message carries from the worker to the page (as JSON); median, store in memory. Both are weighed after
the run, not while it is timed:

${row(head)}
${row(head.map(() => "---"))}
${size.map(row).join("\n")}
`;
}
