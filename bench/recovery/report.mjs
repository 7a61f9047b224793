// The recovery benchmark's figures per mode, and bench/results/recovery.md from every model's
// raw results.

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, places = 2) => (x === null ? null : Math.round(x * 10 ** places) / 10 ** places);

/**
 * The faults of the runs whose scenario can be done: a scenario built to end in an honest failure
 * (`honest`, e.g. a service that stays down) has faults no run can recover.
 */
function doableFaults(ran, scenarios) {
  const honest = new Set(scenarios.filter((s) => s.honest).map((s) => s.id));
  const doable = ran.filter((r) => !honest.has(r.scenario));
  return { doableFaults: sum(doable.map((r) => r.stats.faults)), doableRecovered: sum(doable.map((r) => r.stats.recovered)) };
}

/** Figures for each mode over its scenario runs. */
export function summarise(results, modes) {
  return Object.fromEntries(
    modes.map((mode) => {
      const runs = results.filter((r) => r.mode === mode);
      const ran = runs.filter((r) => !r.error);
      const faults = sum(ran.map((r) => r.stats.faults));
      const extra = sum(ran.map((r) => Math.max(0, r.counts.steps - r.minSteps)));
      const injected = sum(runs.map((r) => r.modelCalls.filter((c) => c.fault).length));
      return [
        mode,
        {
          tasks: runs.length,
          correct: runs.filter((r) => r.correct).length,
          // The worst outcome: reported as success, with a wrong answer.
          wrongSuccess: ran.filter((r) => r.success === true && !r.correct).length,
          groundingFlags: sum(ran.map((r) => r.groundingFlags ?? 0)),
          groundingFalseAlarms: sum(ran.map((r) => r.groundingFalseAlarms ?? 0)),
          errors: runs.length - ran.length,
          faults,
          retried: sum(ran.map((r) => r.stats.retried)),
          recovered: sum(ran.map((r) => r.stats.recovered)),
          modelFaultsInjected: injected,
          extraStepsPerFault: faults ? round(extra / faults) : null,
          steps: sum(ran.map((r) => r.counts.steps)),
          modelCalls: sum(ran.map((r) => r.counts.modelCalls)),
          promptTokens: sum(ran.map((r) => r.counts.promptTokens)),
          // Per model call, as the server counted it (the proxy's record of each call's usage).
          maxPromptTokens: Math.max(0, ...ran.flatMap((r) => (r.modelCalls ?? []).map((c) => c.usage?.prompt_tokens ?? 0))),
          completionTokens: sum(ran.map((r) => r.counts.completionTokens)),
          wallMs: sum(ran.map((r) => r.wallMs)),
          medianWallMs: median(ran.map((r) => r.wallMs)),
        },
      ];
    }),
  );
}

const ROWS = [
  ["Tasks completed correctly", (s) => `${s.correct} / ${s.tasks}`],
  ["success: true with a wrong answer", (s) => s.wrongSuccess ?? "–"],
  ["Answers flagged ungrounded (of them right: false alarms)", (s) => (s.groundingFlags === undefined ? "–" : `${s.groundingFlags} (${s.groundingFalseAlarms})`)],
  ["Faults (failed calls the runtime saw)", (s) => s.faults],
  ["… retried by the runtime", (s) => s.retried],
  ["… recovered", (s) => `${s.recovered}${s.faults ? ` (${Math.round((100 * s.recovered) / s.faults)}%)` : ""}`],
  [
    "… recovered, of the faults in scenarios that can be done (those built to end in an honest failure left out)",
    (s) => (s.doableFaults === undefined ? "–" : `${s.doableRecovered} / ${s.doableFaults}${s.doableFaults ? ` (${Math.round((100 * s.doableRecovered) / s.doableFaults)}%)` : ""}`),
  ],
  ["Model-server faults injected", (s) => s.modelFaultsInjected],
  ["Extra steps per fault", (s) => s.extraStepsPerFault ?? "–"],
  ["Steps", (s) => s.steps],
  ["Model calls", (s) => s.modelCalls],
  // Over the runs that ran: an errored run's calls are not counted.
  ["Model calls per task", (s) => (s.tasks > s.errors ? (s.modelCalls / (s.tasks - s.errors)).toFixed(2) : "–")],
  ["Prompt tokens", (s) => s.promptTokens.toLocaleString("en-US")],
  ["Prompt tokens per model call", (s) => (s.modelCalls ? Math.round(s.promptTokens / s.modelCalls).toLocaleString("en-US") : "–")],
  ["Largest prompt (tokens)", (s) => (s.maxPromptTokens === undefined ? "–" : s.maxPromptTokens.toLocaleString("en-US"))],
  ["Completion tokens", (s) => s.completionTokens.toLocaleString("en-US")],
  ["Wall time, total", (s) => `${(s.wallMs / 1000).toFixed(0)} s`],
  ["Wall time per task, median", (s) => (s.medianWallMs === null ? "–" : `${(s.medianWallMs / 1000).toFixed(1)} s`)],
  ["Runs that errored (harness)", (s) => s.errors],
];

/** A report's stored figures for `mode`, with the faults of the scenarios that can be done, from its runs. */
function summaryOf(report, mode, scenarios) {
  const ran = report.results.filter((r) => r.mode === mode && !r.error);
  return { ...report.summary[mode], ...doableFaults(ran, scenarios) };
}

function modelSection(report, scenarios) {
  const modes = Object.keys(report.summary);
  const lines = [
    `## ${report.label} at ${report.machine.commit}: ${report.model.file}`,
    "",
    `- Model sha256: \`${report.model.sha256}\``,
    `- Server: ${report.server}`,
    `- Machine: ${report.machine.cpu}, ${report.machine.memoryGb} GB; ${report.machine.chromium}; load at end ${report.machine.loadavgEnd.join(" ")}`,
    `- Date: ${report.machine.date}; commit ${report.machine.commit}; took ${(report.elapsedMs / 60000).toFixed(1)} min`,
    `- Command: \`${report.command}\``,
    ...(report.runs && report.runs.done < report.runs.planned
      ? [`- **Stopped early:** ${report.runs.done} of ${report.runs.planned} runs done; scenarios without a row were not run.`]
      : []),
    "",
    "Modes:",
    ...modes.map((m) => `- **${m}**: ${report.modes[m]}`),
    "",
    `| | ${modes.join(" | ")} |`,
    `|---|${modes.map(() => "---").join("|")}|`,
    ...ROWS.map(([name, f]) => `| ${name} | ${modes.map((m) => f(summaryOf(report, m, scenarios))).join(" | ")} |`),
    "",
    "Per scenario (✓ correct, ✗ wrong; steps, faults seen / recovered):",
    "",
    `| scenario | mechanism | ${modes.join(" | ")} |`,
    `|---|---|${modes.map(() => "---").join("|")}|`,
  ];
  for (const s of scenarios) {
    const cells = modes.map((m) => {
      const r = report.results.find((x) => x.scenario === s.id && x.mode === m);
      if (!r) return "–";
      if (r.error) return "error";
      return `${r.correct ? "✓" : "✗"} ${r.counts.steps} st, ${r.stats.faults}/${r.stats.recovered}`;
    });
    if (cells.every((c) => c === "–")) continue;
    lines.push(`| ${s.id} | ${s.mechanism} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** The whole results page: one section per model, then the scenarios. */
export function markdown(reports, scenarios) {
  return [
    "# Recovery benchmark",
    "",
    "Written by `./build.sh bench recovery` (bench/recovery/). A real model served by llama-cpp-python on",
    "localhost, reached through keel's OpenAI-compatible backend from headless Chromium; every scenario's",
    "tools fail in one way; each answer is checked automatically. Raw per-scenario JSON with the traces:",
    "`recovery-<model>.json` next to this file; earlier runs kept as `recovery-<model>-<commit>.json`.",
    "",
    "Issue 9's runs, what each mechanism bought and what is left: `recovery-issue9.md`.",
    "",
    "Since issue 9 a scenario counts as correct only when its answer is right **and** `success` is right",
    "(true, or false for the scenarios that cannot be completed); runs before it checked the answer alone",
    "and did not count the rows shown as –.",
    "",
    ...reports.flatMap((r) => [modelSection(r, scenarios), ""]),
    "## Scenarios",
    "",
    "| scenario | from | fault | mechanism | best run |",
    "|---|---|---|---|---|",
    ...scenarios.map((s) => `| ${s.id} | ${s.source} | ${s.fault} | ${s.mechanism} | ${s.minSteps} steps |`),
    "",
    "Mechanisms: **tool**, the tool fails whatever the model sends; **api**, the tool rejects what a model is",
    "likely to send (a rule its schema does not state); **schema**, keel's validator rejects it, and",
    "constrained decoding makes it impossible; **model**, the bench's proxy breaks a model call.",
    "",
  ].join("\n");
}
