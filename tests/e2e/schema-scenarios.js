// Tools declared in the ecosystem's shapes (a Zod 4 schema, a hand-written Standard JSON Schema),
// run by the built package in the page. Zod comes through the page's import map.
import { Agent, tool } from "/pkg/index.js";
import { z } from "zod";

import { act, answer, scripted } from "./steps.js";

/** A run whose tool is declared with Zod: a wrong type, a refused refinement, then a good call. */
export async function zodToolRun() {
  const calls = [];
  const schemas = [];
  const model = scripted([
    act("get_forecast", { city: 42 }),
    act("get_forecast", { city: "Atlantis" }),
    act("get_forecast", { city: "Lisbon" }),
    act("echo", { word: "hi" }),
    answer("Sunny in Lisbon."),
  ]);
  // A Standard JSON Schema written by hand (what a non-Zod library hands over): JSON Schema from
  // `~standard.jsonSchema`, parsing from `~standard.validate` (here: upper-casing the word).
  const echoSchema = {
    "~standard": {
      version: 1,
      vendor: "handmade",
      validate: (value) => ({ value: { word: String(value.word).toUpperCase() } }),
      jsonSchema: {
        input: ({ target }) => ({ type: "object", properties: { word: { type: "string", maxLength: 5 } }, required: ["word"], "x-target": target }),
        output: () => ({}),
      },
    },
  };
  const agent = await Agent.create({
    model: { custom: (messages, options) => (schemas.push(JSON.stringify(options.schema ?? null)), model(messages, options)) },
    config: { maxSteps: 8, maxConsecutiveFailures: 5 },
    tools: [
      tool({
        name: "get_forecast",
        description: "The forecast for a city.",
        inputSchema: z.object({
          city: z.string().refine((c) => c !== "Atlantis", "no such city"),
          days: z.number().int().min(1).max(7).default(1),
        }),
        execute: async (args) => (calls.push(["get_forecast", args]), `sunny in ${args.city} for ${args.days} day(s)`),
      }),
      tool({ name: "echo", description: "Echoes a word.", inputSchema: echoSchema, execute: (args) => (calls.push(["echo", args]), args.word) }),
    ],
  });
  try {
    const handle = agent.run("Weather in Lisbon?");
    const events = [];
    for await (const e of handle) events.push(e);
    const result = await handle.result;
    const failures = events.filter((e) => e.type === "failure").map((e) => ({ code: e.code, message: e.message, class: e.class, envelope: JSON.stringify(e.envelope) }));
    return { calls, failures, success: result.success, answer: result.answer, firstSchema: schemas[0] };
  } finally {
    agent.dispose();
  }
}

/** Agent.create with an `inputSchema` that gives no JSON Schema: the errors it rejects with. */
export async function unconvertibleSchemas() {
  const attempt = (inputSchema) =>
    Agent.create({ model: scripted([]), tools: [{ name: "lookup", description: "", inputSchema, execute: () => 1 }] }).then(
      (agent) => (agent.dispose(), { rejected: false }),
      (e) => ({ rejected: true, name: e.name, code: e.code, message: e.message }),
    );
  return {
    map: await attempt(new Map([["type", "object"]])),
    noConverter: await attempt({ "~standard": { version: 1, vendor: "valibot", validate: () => ({ value: {} }) } }),
    zodDate: await attempt(z.object({ when: z.date() })),
  };
}
