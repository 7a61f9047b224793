// Two builds of the engine side by side in one page: the same scripted runs as steps.js, each
// configuration once with pkg/'s worker and once with another build's worker (its worker.js, which
// holds its glue, and keel_bg.wasm), interleaved round by round. The page side (pkg/index.js) is shared,
// so only the wasm module differs. The store is in memory: the engine's cost, not IndexedDB's.
import { Agent } from "/pkg/index.js";
import { CONFIGS, SCRIPTED, check, lookupTool, pageSteps, scriptedModel, timedRun } from "./steps.js";

/** Per build and configuration, every step's page-side time (ms). */
export async function benchCompare({ builds, runs = 60, warmup = 10, stepsPerRun = 10 }) {
  const agents = [];
  for (const config of CONFIGS) {
    for (const build of builds) {
      const worker = new Worker(`${build.dir}/worker.js`, { type: "module", name: `keel-${build.label}` });
      const agent = await Agent.create({
        model: { custom: scriptedModel(stepsPerRun, { first: [], last: [] }) },
        tools: [lookupTool(config.failEvery)],
        config: { ...SCRIPTED, format: config.format, maxSteps: stepsPerRun + 2, store: "memory" },
        worker,
      });
      agents.push({ config, build: build.label, agent, steps: [] });
    }
  }
  for (let round = 0; round < warmup + runs; round++) {
    for (let i = 0; i < agents.length; i++) {
      const a = agents[(i + round) % agents.length];
      const run = await timedRun(a.agent, `Look up ${stepsPerRun - 1} items.`, `compare-${a.build}-${round}`);
      check(run.result, stepsPerRun, a.config.failEvery);
      if (round >= warmup) a.steps.push(...pageSteps(run).steps);
    }
  }
  for (const a of agents) a.agent.dispose();
  return agents.map(({ config, build, steps }) => ({ config: config.name, build, steps }));
}
