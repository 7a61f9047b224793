// End-to-end side effects and resume in headless Chromium: the worker is terminated while a tool
// runs, and a new agent resumes the run. A tool with side effects has its intent stored before it
// runs and is never made again silently; an idempotent one is made again, with the same
// idempotency key. The scenarios live in intent-scenarios.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioPage } from "./scenario-page.mjs";

const { scenario, pageErrors } = useScenarioPage();

test("a call with side effects cut off by a terminated worker is reported, not made again", async () => {
  const r = await scenario("resumeSideEffect");
  const key = `${r.runId}:1`;
  assert.deepEqual(
    [r.intent?.tool, r.intent?.step, r.intent?.idempotencyKey, r.intent?.args],
    ["pay", 1, key, { invoice: "INV-7" }],
    "the intent was stored before the call ran",
  );
  assert.deepEqual(r.calls, [{ agent: 1, key }], "made once, before the kill; not again after the resume");
  assert.deepEqual(r.result.steps, [[1, "pay", "failed"], [2, "list_payments", "ok"], [3, null, "final"]]);
  assert.match(r.result.first, /OUTCOME_UNKNOWN/);
  assert.match(r.result.first, /may or may not have taken effect/);
  assert.deepEqual(r.failures, [[1, "pay", "OUTCOME_UNKNOWN", key]], "the failure log shows it, with the key");
  assert.deepEqual(r.actions[0], [1, "pay", key], "so does the action event");
});

test("an idempotent call cut off by a terminated worker is made again, with the same key", async () => {
  const r = await scenario("resumeIdempotent");
  const key = `${r.runId}:1`;
  assert.equal(r.intent, null, "no intent for an idempotent tool");
  assert.deepEqual(r.calls, [{ agent: 1, key }, { agent: 2, key }]);
  assert.deepEqual(r.result.steps, [[1, "pay", "ok"], [2, null, "final"]]);
  assert.equal(r.result.success, true);
  assert.deepEqual(r.failures, []);
});

test("with onUnknownOutcome 'ask' the cut-off call waits for approval, then is made again with its key", async () => {
  const r = await scenario("resumeAskFirst");
  const key = `${r.runId}:1`;
  assert.deepEqual(r.asked, [[key, "pay", true]], "approvalRequested says the outcome is unknown");
  assert.deepEqual(r.calls, [{ agent: 1, key }, { agent: 2, key }], "made again only once approved, same key");
  assert.deepEqual(r.result.steps, [[1, "pay", "ok"], [2, null, "final"]]);
  assert.equal(r.result.success, true);
});

test("an onUnknownOutcome keel does not know fails Agent.create saying what it takes", async () => {
  const r = await scenario("badUnknownOutcome");
  assert.deepEqual([r.name, r.code], ["KeelError", "INVALID_TOOLS"], JSON.stringify(r));
  assert.match(r.message, /onUnknownOutcome must be "ask".*"report".*retry/);
});

test("no uncaught errors in the page", () => {
  assert.deepEqual(pageErrors, []);
});
