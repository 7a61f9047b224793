// The page profile.mjs samples: one agent of a build (its own worker), ten-step runs of the instant
// scripted model and the instant read-only tool, store in memory; per step = from one `stepStarted`
// to the next, on the page, steps 2-10 of each run.
import { instantLookup, instantModel } from "./instant.js";
import { SCRIPTED, pageSteps, timedRun } from "./steps.js";

let agent;

/** Starts the agent of the package in `dir` (e.g. "/pkg"); with `large`, each result 56 KB of JSON. */
export async function benchProfileSetup(dir, large = false) {
  const { Agent } = await import(`${dir}/index.js`);
  agent = await Agent.create({
    model: { custom: instantModel(10) },
    tools: [instantLookup(true, { large })],
    config: { ...SCRIPTED, format: "xml", maxSteps: 12, store: "memory" },
  });
}

/** `n` runs; each step's time on the page (ms). */
export async function benchProfileRuns(n) {
  const steps = [];
  for (let i = 0; i < n; i++) {
    const run = await timedRun(agent, "Look up the items of the catalogue.", `profile-${i}`);
    steps.push(...pageSteps(run).steps.slice(1));
  }
  return steps;
}
