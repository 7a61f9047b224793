// End-to-end: tools whose `inputSchema` is a Zod schema or another Standard JSON Schema, converted on
// the page and run by the built package in headless Chromium (schema-scenarios.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioPage } from "./scenario-page.mjs";

const { scenario, pageErrors } = useScenarioPage();

test("a Zod-declared tool: its JSON Schema reaches the model and the validator, execute gets its output", async () => {
  const r = await scenario("zodToolRun");
  // Zod's own JSON Schema (draft 2020-12) is in the step schema the model is constrained by.
  assert.match(r.firstSchema, /"days":\{"default":1,"type":"integer","minimum":1,"maximum":7\}/);
  assert.match(r.firstSchema, /"x-target":"draft-2020-12"/);
  // `{ city: 42 }` refused by keel's validator from the converted schema; "Atlantis" by the Zod
  // refinement JSON Schema cannot carry; neither reached `execute`.
  assert.deepEqual(r.failures.map((f) => [f.code, f.class]), [["INVALID_ARGS", "persistent"], ["INVALID_ARGS", "persistent"]]);
  assert.match(r.failures[0].envelope, /city/);
  assert.match(r.failures[1].message, /get_forecast's schema: city: no such city/);
  // The schema's output: Zod's default applied, the hand-written schema's transform run.
  assert.deepEqual(r.calls, [["get_forecast", { city: "Lisbon", days: 1 }], ["echo", { word: "HI" }]]);
  assert.deepEqual([r.success, r.answer], [true, "Sunny in Lisbon."]);
});

test("an inputSchema that gives no JSON Schema fails Agent.create with INVALID_TOOLS naming the tool", async () => {
  const r = await scenario("unconvertibleSchemas");
  for (const [what, e] of Object.entries(r)) {
    assert.deepEqual([e.rejected, e.name, e.code], [true, "KeelError", "INVALID_TOOLS"], `${what}: ${JSON.stringify(e)}`);
    assert.match(e.message, /tools\[0\] \(`lookup`\): `inputSchema`/, what);
  }
  assert.match(r.map.message, /neither JSON Schema \(a plain object\) nor a schema that gives JSON Schema/);
  assert.match(r.noConverter.message, /vendor `valibot`\) that gives no JSON Schema/);
  assert.match(r.zodDate.message, /could not be converted to JSON Schema: .*Date/);
});

test("no uncaught errors in the page", () => {
  assert.deepEqual(pageErrors, []);
});
