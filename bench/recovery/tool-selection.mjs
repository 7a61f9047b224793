// The recovery bench's tools as keel-50tools sees them, written as JSON for the native test that
// lists which tools step 1 offers (tests/selection_bench.rs → bench/results/tool-selection-cut.md).
// Run after changing scenarios*.js or distractors.js:
//
//   node bench/recovery/tool-selection.mjs > tests/fixtures/recovery-50tools.json
//
// `distractors`: the 48 distractor tools, each as keel's ToolSpec reads it (no `execute`).
// `scenarios`: each scenario's id, earlier tasks (`before`), task, and its ~50 tools in the order
// the agent gets them: a distractor by its name, one of the scenario's own tools in full.
import { scenarios } from "./scenarios.js";
import { distractors, withDistractors } from "./distractors.js";

const spec = ({ execute, ...declared }) => declared;
const out = {
  distractors: distractors().map(spec),
  scenarios: scenarios(class extends Error {}).map((s) => {
    const own = s.tools();
    return {
      id: s.id,
      before: s.before ?? [],
      task: s.task,
      tools: withDistractors(s.id, own).map((t) => (own.includes(t) ? spec(t) : t.name)),
    };
  }),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
