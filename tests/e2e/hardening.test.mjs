// End-to-end: bad input through the public API and across the page↔worker boundary (issue 14).
// Each case asserts the clear error or the completed run; tools ran exactly once; nothing hangs.
// The page side is hardening-scenarios.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioPage } from "./scenario-page.mjs";

const { scenario } = useScenarioPage();

const refused = (got, code, pattern) => {
  assert.equal(got.hung, undefined, "settled");
  assert.equal(got.ok, false, JSON.stringify(got));
  assert.equal(got.code, code, got.message);
  assert.match(got.message, pattern);
  assert.deepEqual([got.name, got.keelError], ["KeelError", true], JSON.stringify(got));
};

test("Agent.create refuses bad options at once, naming what was wrong", async () => {
  const r = await scenario("hardenCreate");
  refused(r.configArray, "INVALID_CONFIG", /config.* must be an object; got an array/);
  refused(r.maxStep, "INVALID_CONFIG", /`config\.maxStep`: unknown key \(did you mean `maxSteps`\?\)/);
  assert.deepEqual([r.maxStep.path, r.maxStep.suggestion], ["config.maxStep", "maxSteps"]);
  assert.deepEqual([r.topLevel.path, r.topLevel.suggestion], ["modle", "model"]);
  refused(r.maxAttemps, "INVALID_CONFIG", /`config\.retry\.maxAttemps`: unknown key \(did you mean `maxAttempts`\?\)/);
  refused(r.nan, "INVALID_CONFIG", /config\.maxSteps is NaN: expected a finite number/);
  refused(r.negative, "INVALID_CONFIG", /`config\.maxSteps`: got the number `-1`; expected a whole number/);
  refused(r.hugeAttempts, "INVALID_CONFIG", /retry\.maxAttempts` is 4294967295: from 1 \(never retry\) to 100/);
  refused(r.storeKey, "INVALID_CONFIG", /memory store has none|nmae/);
  refused(r.toolsObject, "INVALID_CONFIG", /`tools` must be an array of tools; got an object/);
  refused(r.modelEmpty, "INVALID_CONFIG", /`model` is an empty array/);
  refused(r.modelNumber, "INVALID_CONFIG", /`model` is the number 42; expected/);
  refused(r.modelExtra, "INVALID_CONFIG", /`model`: unknown option `timeout`/);
  refused(r.topLevel, "INVALID_CONFIG", /unknown option `modle` \(did you mean `model`\?\)/);
  refused(r.toolTimeout0, "INVALID_TOOLS", /tool `search`: timeoutMs is 0: expected from 1 ms/);
  refused(r.toolAttempts0, "INVALID_TOOLS", /tool `search`: maxAttempts is 0/);
  refused(r.toolField, "INVALID_TOOLS", /`tools\[0\]\.timeoutMS`: unknown key \(did you mean `timeoutMs`\?\)/);
  refused(r.refsFrom, "INVALID_TOOLS", /refsFrom names `nope`, which is not one of the agent's tools/);
  refused(r.schema70, "INVALID_TOOLS", /inputSchema nests 71 levels deep: at most 64/);
  refused(r.schema150, "INVALID_TOOLS", /nests deeper than 100 levels/);
  refused(r.schemaBigInt, "INVALID_TOOLS", /inputSchema\.maximum is the BigInt 10n/);
  refused(r.schemaCycle, "INVALID_TOOLS", /refers back to itself \(a cycle\)/);
  assert.deepEqual(r.loneDescription, { ok: true, hung: undefined });
});

test("run options and failure queries with a mistake are refused, naming the key", async () => {
  const r = await scenario("hardenRunOptions");
  refused(r.signal, "INVALID_CONFIG", /`signal` must be an AbortSignal; got an object/);
  refused(r.sesion, "INVALID_CONFIG", /unknown option `sesion` \(did you mean `session`\?\)/);
  refused(r.task, "INVALID_CONFIG", /`task` must be a string; got the number 42/);
  refused(r.query, "INVALID_CONFIG", /`query\.sesion`: unknown key \(did you mean `session`\?\)/);
  refused(r.queryKind, "INVALID_CONFIG", /`query\.limt`: unknown key \(did you mean `limit`\?\)/);
  assert.equal(r.stillWorks, "ok");
});

test("unreadable tool replies: each tool runs once, the run goes on and completes", async () => {
  const r = await scenario("hardenToolReplies");
  assert.equal(r.hung, undefined, "the run settled");
  assert.deepEqual(r.calls, { surrogate: 1, surrogate_error: 1, deep: 1, retry_ms: 1, retry_header: 1, cycle: 1, fn: 1, nothing: 1, dated: 1 }, JSON.stringify(r, null, 1));
  assert.equal(r.retries, 0, "no retry: the Retry-Afters are far past maxRetryAfterMs");
  assert.ok(r.elapsedMs < 2500, `no call waited for its 3 s timeout (${r.elapsedMs} ms)`);
  assert.equal(r.answer, "done \u{FFFD}", JSON.stringify(r, null, 1));
  const byTool = Object.fromEntries(r.failures.map((f) => [f.tool, f]));
  assert.deepEqual([byTool.deep.code, byTool.deep.class], ["PROTOCOL_ERROR", "persistent"]);
  assert.match(byTool.deep.message, /the tool ran, but its reply could not be read .*recursion limit.*not run again/);
  assert.match(byTool.surrogate_error.message, /bad \u{FFFD} input/u);
  assert.equal(byTool.retry_ms.code, "RATE_LIMITED");
  assert.equal(byTool.retry_header.code, "RATE_LIMITED");
  assert.match(byTool.cycle.message, /the tool returned a value that cannot be sent as JSON: .*circular/i);
  assert.match(byTool.fn.message, /the tool returned a function, which cannot be sent as JSON/);
  assert.ok(r.observations.includes("(no result)"), JSON.stringify(r.observations));
  assert.ok(r.observations.includes('{"at":"1970-01-01T00:00:00.000Z"}'), JSON.stringify(r.observations));
  assert.ok(r.warnings.some((w) => /the run's task or session held a lone UTF-16 surrogate/.test(w)), r.warnings.join("\n"));
  assert.ok(r.warnings.some((w) => /the tool's reply held a lone UTF-16 surrogate/.test(w)), r.warnings.join("\n"));
});

test("a custom model's bad reply ends the run saying what came, asked once", async () => {
  const r = await scenario("hardenModelReplies");
  assert.equal(r.number.asked, 1);
  assert.equal(r.number.reason.kind, "fatal");
  assert.match(r.number.reason.message, /the custom model returned the number 42: expected the text it wrote/);
  assert.equal(r.usage.asked, 1);
  assert.match(r.usage.reason.message, /usage\.promptTokens is the number -1: expected a whole number of tokens/);
});

test("a dead, broken, silent or foreign worker rejects what waits on it instead of hanging", async () => {
  const r = await scenario("hardenDeadWorker");
  refused(r.run, "WORKER_TERMINATED", /the worker was terminated/);
  refused(r.query, "WORKER_TERMINATED", /the worker was terminated/);
  refused(r.later, "WORKER_TERMINATED", /the worker was terminated/);
  assert.ok(r.afterMs < 1000, `rejected at once (${r.afterMs} ms)`);
  refused(r.brokenScript, "WORKER_FAILED", /worker error/);
  refused(r.silent, "WORKER_UNRESPONSIVE", /has not answered for \d+ ms \(workerTimeoutMs is 300\)/);
  assert.ok(r.silentMs < 2000, `declared dead soon after its timeout (${r.silentMs} ms)`);
  refused(r.objects, "PROTOCOL_ERROR", /the worker posted an object, not JSON text/);
});

test("30 000 near misses against a 1 000-option enum: bounded work, cancel acts at once", async () => {
  const r = await scenario("hardenNearMisses");
  assert.equal(r.calls, 0, "the invalid calls never reached the tool");
  assert.ok(r.codes.every((c) => c === "INVALID_ARGS"), r.codes.join());
  assert.ok(r.runMs < 5000, `three steps took ${r.runMs} ms`);
  assert.equal(r.cancelledKind, "cancelled");
  assert.ok(r.cancelMs < 2000, `cancel acted in ${r.cancelMs} ms`);
});
