// The web benchmark's figures over its task runs, and bench/results/web.md from every model's raw
// results.

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Figures over one model's task runs. */
export function summarise(results) {
  const ran = results.filter((r) => !r.error);
  const codes = {};
  for (const f of ran.flatMap((r) => r.failures)) {
    const c = (codes[f.code] ??= { seen: 0, recovered: 0 });
    c.seen += 1;
    if (f.recovered) c.recovered += 1;
  }
  return {
    tasks: results.length,
    completed: results.filter((r) => r.completed).length,
    answerCorrect: results.filter((r) => r.answerCorrect).length,
    // success must agree with the checks: true on a task done, false on one that is not.
    successTrue: ran.filter((r) => r.success === true).length,
    successWrong: ran.filter((r) => r.success === true && !r.completed).length,
    errors: results.length - ran.length,
    faults: sum(ran.map((r) => r.stats.faults)),
    recovered: sum(ran.map((r) => r.stats.recovered)),
    codes,
    steps: sum(ran.map((r) => r.counts.steps)),
    minSteps: sum(ran.map((r) => r.minSteps)),
    modelCalls: sum(ran.map((r) => r.counts.modelCalls)),
    promptTokens: sum(ran.map((r) => r.counts.promptTokens)),
    completionTokens: sum(ran.map((r) => r.counts.completionTokens)),
    wallMs: sum(ran.map((r) => r.wallMs)),
    medianWallMs: median(ran.map((r) => r.wallMs)),
  };
}

const ROWS = [
  ["Tasks completed (answer checked, page checked, success = true)", (s) => `${s.completed} / ${s.tasks}`],
  ["Answers correct", (s) => `${s.answerCorrect} / ${s.tasks}`],
  ["Runs reporting success = true", (s) => s.successTrue],
  ["… of which not completed (success overclaimed)", (s) => s.successWrong],
  ["Faults (failed calls)", (s) => s.faults],
  ["… recovered", (s) => `${s.recovered}${s.faults ? ` (${Math.round((100 * s.recovered) / s.faults)}%)` : ""}`],
  ["Faults by code (seen / recovered)", (s) => Object.entries(s.codes).map(([c, v]) => `${c} ${v.seen}/${v.recovered}`).join(", ") || "–"],
  ["Steps (a perfect run's in brackets)", (s) => `${s.steps} (${s.minSteps})`],
  ["Model calls", (s) => s.modelCalls],
  ["Prompt tokens", (s) => s.promptTokens.toLocaleString("en-US")],
  ["Completion tokens", (s) => s.completionTokens.toLocaleString("en-US")],
  ["Wall time, total", (s) => `${(s.wallMs / 1000).toFixed(0)} s`],
  ["Wall time per task, median", (s) => (s.medianWallMs === null ? "–" : `${(s.medianWallMs / 1000).toFixed(1)} s`)],
  ["Runs that errored (harness)", (s) => s.errors],
];

function cell(r) {
  if (!r) return "–";
  if (r.error) return "error";
  const mark = r.completed ? "✓" : r.answerCorrect ? "½" : "✗";
  const codes = r.failures.map((f) => `${f.code}${f.recovered ? "" : "!"}`).join(" ");
  return `${mark} ${r.counts.steps} st, ${r.stats.faults}/${r.stats.recovered}${r.success ? "" : ", success=false"}${codes ? ` (${codes})` : ""}`;
}

/** The whole results page: one summary column per model, then the tasks. */
export function markdown(reports, tasks) {
  const labels = reports.map((r) => r.label);
  const lines = [
    "# Web benchmark",
    "",
    "Written by `./build.sh bench web` (bench/web/). A real model served by llama-cpp-python on localhost drives",
    "keel-agent/dom's tools (snapshot, click, type, select, check, press, scroll, read, navigate, back) on the",
    "fixture shop in `tests/fixtures/site/`, from headless Chromium: the engine runs in the agent's page, `domOp`",
    "in a second tab (as `chrome.scripting` runs it from an extension). A task is completed when its answer is",
    "right, the page shows it done (where it changes the page) and the run reports `success: true`. Raw JSON",
    "with the traces: `web-<model>.json` next to this file.",
    "",
    ...reports.flatMap((r) => [
      `- **${r.label}**: ${r.model.file} (sha256 \`${r.model.sha256.slice(0, 16)}…\`); ${r.server}; ${r.machine.cpu}, ${r.machine.memoryGb} GB; ${r.machine.chromium}; ${r.machine.date}; commit ${r.machine.commit}; took ${(r.elapsedMs / 60000).toFixed(1)} min; load at end ${r.machine.loadavgEnd.join(" ")}; \`${r.command}\``,
      ...(r.runs.done < r.runs.planned ? [`  - **Stopped early:** ${r.runs.done} of ${r.runs.planned} tasks ran.`] : []),
    ]),
    "",
    `| | ${labels.join(" | ")} |`,
    `|---|${labels.map(() => "---").join("|")}|`,
    ...ROWS.map(([name, f]) => `| ${name} | ${reports.map((r) => f(r.summary)).join(" | ")} |`),
    "",
    "Per task (✓ completed, ½ right answer but not completed, ✗ wrong; steps, faults seen / recovered; codes, `!` unrecovered):",
    "",
    `| task | what gets in the way | perfect run | ${labels.join(" | ")} |`,
    `|---|---|---|${labels.map(() => "---").join("|")}|`,
    ...tasks.map((t) => `| ${t.id} | ${t.fault} | ${t.minSteps} st | ${reports.map((r) => cell(r.results.find((x) => x.task === t.id))).join(" | ")} |`),
    "",
  ];
  return lines.join("\n");
}
