// End-to-end: many tools (`toolSelection`) in the built package, through the recovery bench's
// `keel-50tools` and `keel-50tools-all` modes (so this also checks that they build a config the
// engine accepts). The scenarios live in many-tools-scenarios.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { useScenarioPage } from "./scenario-page.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

const { scenario, pageErrors } = useScenarioPage();

test("with ~50 tools each step offers the ranked few; a known tool not offered still runs", async () => {
  const r = await scenario("manyTools", "keel-50tools");
  assert.equal(r.tools, 49);
  // Each step's prompt lists what its schema offers: the few ranked near the best (at most 8) and
  // the pinned ones, never 49.
  // Three whole steps: the task names "Fahrenheit", which no call sent and no result holds, so
  // the answer is not asked for alone after get_weather (engine/answer_after_result.rs).
  assert.equal(r.schemas.length, 3);
  for (const [i, names] of r.schemas.entries()) {
    assert.ok(names.length >= 1 && names.length <= 10, `step ${i + 1} offered ${names}`);
    assert.equal(r.listed[i], names.length, `step ${i + 1}: the prompt lists the schema's tools`);
  }
  // Step 1: the four scoring at least half the best (bench/results/tool-selection-cut.md, unknown-key).
  assert.deepEqual(r.schemas[0], ["set_thermostat", "convert_units", "get_weather", "get_server_metrics"]);
  assert.ok(!r.schemas[0].includes("define_word"), `${r.schemas[0]}`);
  // The custom model ignored the schema and called define_word: it ran, and stays offered.
  assert.deepEqual(r.outcomes, [["define_word", "ok"], ["get_weather", "ok"], [null, "final"]]);
  assert.ok(r.schemas[1].includes("define_word"), `${r.schemas[1]}`);
  assert.equal(r.success, true, r.answer);
  assert.deepEqual(pageErrors, []);
});

test("with selection off (keel-50tools-all) every step offers all ~50 tools", async () => {
  const r = await scenario("manyTools", "keel-50tools-all");
  assert.deepEqual(r.schemas.map((s) => s.length), [49, 49, 49]);
  assert.deepEqual(r.listed, [49, 49, 49]);
  const selected = await scenario("manyTools", "keel-50tools");
  assert.ok(selected.systemChars[0] * 3 < r.systemChars[0], `${selected.systemChars[0]} vs ${r.systemChars[0]} characters`);
  assert.equal(r.success, true, r.answer);
  assert.deepEqual(pageErrors, []);
});

test("the native relevance-cut listing reads the bench's tools as they are (tests/fixtures/recovery-50tools.json)", () => {
  // tests/tool_selection_bench.rs reads this fixture to write bench/results/tool-selection-cut.md.
  const written = execFileSync(process.execPath, [join(ROOT, "bench/recovery/tool-selection.mjs")], { encoding: "utf8" });
  const fixture = readFileSync(join(ROOT, "tests/fixtures/recovery-50tools.json"), "utf8");
  assert.ok(written === fixture, "stale: node bench/recovery/tool-selection.mjs > tests/fixtures/recovery-50tools.json");
});
