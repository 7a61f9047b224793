// A dry check of the recovery bench's modes, with no model, server or browser: every mode named
// (default: all) loads, every scenario's tools build (with the distractors where the mode asks),
// names are unique, and the mode's config merges over the bench's common settings. Prints each
// mode's config and tool counts; exits non-zero on the first problem.
//
//   node bench/recovery/dry.mjs [--modes keel-50tools,keel-50tools-all]
import { parseArgs } from "node:util";
import { MODES } from "./modes.js";
import { scenarios } from "./scenarios.js";
import { DISTRACTOR_COUNT, withDistractors } from "./distractors.js";

const { values: opts } = parseArgs({ options: { modes: { type: "string", default: Object.keys(MODES).join(",") } } });
const modes = opts.modes.split(",").filter(Boolean);
for (const m of modes) if (!MODES[m]) throw new Error(`unknown mode '${m}' (${Object.keys(MODES).join(", ")})`);
const all = scenarios(class extends Error {});

for (const mode of modes) {
  const settings = MODES[mode];
  const counts = new Set();
  for (const s of all) {
    const own = s.tools();
    const tools = settings.distractors ? withDistractors(s.id, own) : own;
    const names = tools.map((t) => t.name);
    if (new Set(names).size !== names.length) throw new Error(`${mode}/${s.id}: duplicate tool names`);
    for (const t of own) if (!names.includes(t.name)) throw new Error(`${mode}/${s.id}: lost its tool ${t.name}`);
    if (names[0] === own[0].name && settings.distractors) throw new Error(`${mode}/${s.id}: its tool is listed first`);
    for (const t of tools) {
      if (typeof t.execute !== "function" || t.inputSchema?.type !== "object") throw new Error(`${mode}/${s.id}: bad tool ${t.name}`);
      JSON.stringify(t.inputSchema);
    }
    if (settings.distractors) {
      const out = tools.find((t) => !own.includes(t)).execute({});
      if (typeof out !== "string" || !out.startsWith("{")) throw new Error(`${mode}/${s.id}: a distractor answered ${out}`);
    }
    counts.add(tools.length);
  }
  const config = JSON.stringify(settings.config);
  process.stdout.write(`${mode.padEnd(24)} tools per scenario ${[...counts].sort((a, b) => a - b).join("/")}  config ${config}  responseFormat ${settings.responseFormat}\n`);
}
process.stdout.write(`ok: ${modes.length} mode(s), ${all.length} scenarios, ${DISTRACTOR_COUNT} distractors\n`);
