// Many tools (`toolSelection`) in the browser, through the recovery bench's own many-tools modes:
// a bench scenario's tool among the 48 distractors (bench/recovery/distractors.js), each mode's
// config as the bench builds it, and a custom model that records what each step offered and
// ignores it, calling a distractor that was not offered first. The page side of
// many-tools.test.mjs.
import { Agent, ToolError } from "/pkg/index.js";
import { MODES } from "/bench/recovery/modes.js";
import { scenarios } from "/bench/recovery/scenarios.js";
import { withDistractors } from "/bench/recovery/distractors.js";

import { act, answer, scripted } from "./steps.js";

/** The tool names a step schema offers. */
const offered = (schema) =>
  (schema.anyOf ?? [schema]).map((b) => b.properties?.action?.properties?.tool?.const).filter(Boolean);

/** The bench's `unknown-key` scenario (Austin's weather) in bench mode `mode`. */
export async function manyTools(mode) {
  const bench = scenarios(ToolError).find((s) => s.id === "unknown-key");
  const tools = withDistractors(bench.id, bench.tools());
  const seen = [];
  const schemas = [];
  const steps = [
    act("define_word", { word: "Austin" }),
    act("get_weather", { city: "Austin", units: "imperial" }),
    answer("It is 88°F in Austin."),
  ];
  const model = scripted(steps, seen);
  const agent = await Agent.create({
    model: { custom: (messages, options) => (schemas.push(options.schema), model(messages, options)) },
    tools,
    config: { store: "memory", ...MODES[mode].config },
  });
  const result = await agent.run(bench.task).result;
  agent.dispose();
  const record = [];
  for (const { messages } of seen) {
    const system = messages[0].content;
    record.push({ listed: (system.match(/^- [a-z_]+/gm) ?? []).length, systemChars: system.length });
  }
  return {
    tools: tools.length,
    answer: result.answer,
    success: result.success,
    outcomes: result.turns.map((t) => [t.action?.tool ?? null, t.outcome]),
    listed: record.map((r) => r.listed),
    systemChars: record.map((r) => r.systemChars),
    schemas: schemas.map(offered),
  };
}
