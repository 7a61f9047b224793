// End-to-end: the built package (pkg/) in headless Chromium. The agent runs in its worker, the
// tools and the scripted model on the page; the scenarios live in scenarios.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioPage } from "./scenario-page.mjs";

const { scenario, pageErrors } = useScenarioPage();

test("tools that fail on purpose: retried, aborted, explained, then a final answer", async () => {
  const { events, viaCallback, result, calls, hung, seen } = await scenario("faultyTools");
  const types = events.map((e) => e.type);
  assert.deepEqual(viaCallback, events, "onEvent and the iterator see the same events");
  assert.equal(types[0], "runStarted");
  assert.equal(types.at(-1), "runEnded");

  // The ToolError's envelope crossed as data: class, code, and the author's recovery steps.
  const stale = events.find((e) => e.type === "failure" && e.tool === "click");
  assert.equal(stale.class, "persistent");
  assert.equal(stale.code, "STALE_REFERENCE");
  assert.deepEqual(stale.envelope.recovery, ["Call `snapshot` to get fresh refs.", "Click the new ref of the same button."]);
  assert.deepEqual(stale.envelope.availableActions, ["snapshot"]);
  assert.equal(stale.envelope.details.ref, "e5");

  // The hung tool was aborted through its signal when its 150 ms timeout fired.
  assert.equal(hung.aborted, true);
  assert.equal(hung.reason, "AbortError");
  assert.equal(hung.timeoutMs, 150);
  assert.ok(hung.afterMs >= 140 && hung.afterMs < 2000, `aborted after ${hung.afterMs} ms`);
  const timeout = events.find((e) => e.type === "failure" && e.tool === "hang" && e.envelope);
  assert.equal(timeout.code, "TIMEOUT");

  // The 429's Retry-After (1 s) and the 503 were retried by the runtime, not shown to the model.
  const retries = events.filter((e) => e.type === "retryScheduled");
  const rate = retries.find((e) => e.tool === "rate_limited");
  assert.equal(rate.code, "RATE_LIMITED");
  assert.ok(rate.delayMs >= 1000 && rate.delayMs < 1100, `delay ${rate.delayMs}`);
  const flaky = retries.find((e) => e.tool === "flaky");
  assert.equal(flaky.code, "UNAVAILABLE");
  assert.deepEqual(calls, ["click", "hang", "rate_limited", "rate_limited", "flaky", "flaky"]);
  const warned = events.find((e) => e.type === "observation" && e.outcome === "warning");
  assert.match(warned.text, /served from a replica/);

  const final = events.find((e) => e.type === "finalAnswer");
  assert.deepEqual([final.answer, final.success], ["All done.", true]);
  assert.equal(result.success, true);
  assert.equal(result.reason.kind, "finalAnswer");
  assert.deepEqual(result.failures.map((f) => f.code), ["STALE_REFERENCE", "TIMEOUT", "RATE_LIMITED", "UNAVAILABLE"]);
  assert.ok(result.stats.recovered >= 2, JSON.stringify(result.stats));
  assert.ok(seen.every((s) => s.hasSchema && s.signalIsSignal), "the model got the step schema and a signal");
});

test("run() cancelled through its AbortSignal aborts the tool under way", async () => {
  const { reason, success, tool } = await scenario("cancelMidTool");
  assert.equal(reason.kind, "cancelled");
  assert.equal(success, false);
  assert.equal(tool.aborted, true);
});

test("a second run() on the same session queues behind the first", async () => {
  const r = await scenario("sessionQueue");
  assert.deepEqual(r.beforeRelease, [`model:${r.firstRunId}`, "tool:wait"], "the second run waited");
  assert.deepEqual(r.order.slice(2), [`model:${r.firstRunId}`, `model:${r.secondRunId}`]);
  assert.deepEqual(r.answers, ["first done", "second done"]);
  assert.ok(r.secondSawFirst, "the second run's prompt holds the first run's history");
});

test('model: "prompt-api" against the fake LanguageModel: download, overflow compacted, tool failure recovered', async () => {
  const { events, result, created, prompts, liveBeforeDispose, liveAfterDispose } = await scenario("promptApiRun");
  const downloads = events.filter((e) => e.type === "modelDownload");
  assert.deepEqual(downloads.map((e) => [e.loaded, e.total]), [[0, 1], [0.5, 1], [1, 1]]);
  assert.equal(events.indexOf(downloads[0]), 2, "the download comes in the first step, before its thought");
  const overflow = events.find((e) => e.type === "warning" && /compacting/.test(e.message));
  assert.match(overflow.message, /compacting to \d+ tokens/);
  const failure = events.find((e) => e.type === "failure" && e.tool === "lookup");
  assert.deepEqual([failure.class, failure.code], ["persistent", "NOT_FOUND"]);
  assert.deepEqual([result.answer, result.success], ["Found b.", true]);
  assert.deepEqual(result.failures.map((f) => [f.code, f.recovered]), [["NOT_FOUND", true], ["CONTEXT_OVERFLOW", true]]);
  assert.ok(result.counts.promptTokens > 0, "token counts from measureContextUsage");
  // A base session per system prompt (the whole step's, then the answer alone's after the result
  // that leaves nothing to do); each call prompts the rest, constrained, abortable.
  assert.deepEqual(created, [["system"], ["system"]]);
  assert.ok(prompts.length >= 3 && prompts.every((p) => p.roles[0] === "user" && !p.roles.includes("system")));
  assert.ok(prompts.every((p) => p.constrained && p.omitted && p.aborts), JSON.stringify(prompts));
  assert.equal(liveBeforeDispose, 2, "the clones are destroyed after each call, the two bases kept");
  assert.equal(liveAfterDispose, 0, "dispose() destroys the base session");
});

test("the Prompt API backend answers four system prompts at once and keeps three base sessions", async () => {
  const r = await scenario("promptApiManyBases");
  assert.deepEqual(r.answers.slice().sort(), ["four", "one", "three", "two"], "no call fails for a base dropped while made");
  assert.equal(r.fifth, "five");
  assert.equal(r.created, 5);
  assert.equal(r.liveAfterFour, 4, "the four bases (the clones destroyed)");
  assert.equal(r.liveAfterFive, 3, "the least recently used two dropped for the fifth");
  assert.equal(r.liveAfterDispose, 0);
});

test("the worker committed both runs and their turns to IndexedDB, in order", async () => {
  const { runs, turns } = await scenario("storedChat");
  assert.deepEqual(runs, [
    { task: "First task: alpha.", status: "succeeded", answer: "first done" },
    { task: "Second task: beta.", status: "succeeded", answer: "second done" },
  ]);
  assert.deepEqual(
    turns.map((t) => [t.step, t.outcome, t.seq]),
    [[1, "ok", 0], [2, "final", 1], [1, "final", 2]],
  );
  assert.equal(new Set(turns.map((t) => t.runId)).size, 2);
});

test("the failure log from the page: by tool and code, stats, export with turns, clear", async () => {
  const r = await scenario("failureLog");
  assert.deepEqual(r.result, { success: true, failures: 2 });
  assert.deepEqual(r.all.map((f) => [f.tool, f.code]), [["flaky", "UNAVAILABLE"], ["lookup", "NOT_FOUND"]], "newest first");
  assert.deepEqual(r.byTool.map((f) => [f.runId, f.code, f.step]), [[r.runId, "NOT_FOUND", 1]]);
  assert.deepEqual(r.byCode.map((f) => [f.tool, f.retried, f.recovered]), [["flaky", true, true]]);
  assert.deepEqual(r.since, []);
  assert.equal(r.stats.totals.faults, 2);
  assert.ok(r.stats.totals.recoveryRate > 0 && r.stats.totals.recoveryRate <= 1, JSON.stringify(r.stats.totals));
  assert.equal(r.stats.byTool.flaky.recoveryRate, 1);
  assert.deepEqual(Object.keys(r.stats.byCode).sort(), ["NOT_FOUND", "UNAVAILABLE"]);
  assert.equal(r.exported.runs[0].id, r.runId);
  assert.deepEqual(r.exported.turns.map((t) => [t.turn.step, t.turn.outcome]), [[1, "failed"], [2, "ok"], [3, "final"]]);
  assert.equal(r.exported.failures.length, 2);
  // The same run as OTLP spans: run + 3 steps + the 2 tool calls, all in one trace; step 1 failed.
  assert.deepEqual(r.otlp.map((s) => s.name), ["run", "tool lookup", "step 1", "tool flaky", "step 2", "step 3"]);
  assert.ok(r.otlp.every((s) => s.traceId === r.otlp[0].traceId && (s.name === "run") !== !!s.parentSpanId));
  assert.equal(r.otlp.find((s) => s.name === "step 1").status.code, 2);
  assert.equal(r.sessionExport.session.runs, 1);
  assert.deepEqual(r.cleared, { runs: 1, turns: 3, failures: 2 });
  assert.deepEqual(r.afterClear, []);
  assert.deepEqual([r.exportAfterClear.session, r.exportAfterClear.runs], [null, []]);
  assert.equal(typeof r.retention.runs, "number");
  assert.equal(r.badQuery, "KeelError INVALID_CONFIG");
  assert.equal(r.afterDispose, "KeelError AGENT_DISPOSED");
});

test("a conversation: the follow-up sees the first question and answer; history() lists both; clearSession forgets", async () => {
  const r = await scenario("conversation");
  assert.deepEqual(r.answers, ["It is 18°C in Paris.", "It is 4°C in Oslo.", "I do not know what you are asking about."]);
  const at = (s) => r.followUpPrompt.indexOf(s);
  assert.ok(at("User asked: What is the weather in Paris?") >= 0, r.followUpPrompt);
  assert.ok(at("User asked: What is the weather in Paris?") < at("You answered: It is 18°C in Paris."), r.followUpPrompt);
  assert.ok(at("You answered: It is 18°C in Paris.") < at("Task: And in Oslo?"), r.followUpPrompt);
  assert.deepEqual(r.history, [
    { runId: r.runIds[0], task: "What is the weather in Paris?", answer: "It is 18°C in Paris.", status: "succeeded", steps: 2, timed: true },
    { runId: r.runIds[1], task: "And in Oslo?", answer: "It is 4°C in Oslo.", status: "succeeded", steps: 2, timed: true },
  ]);
  assert.deepEqual(r.otherSession, []);
  assert.deepEqual(r.cleared, { runs: 2, turns: 4, failures: 0 });
  assert.deepEqual(r.afterClear, []);
  assert.deepEqual(r.afterForgotten, ["And in Oslo?"], "the cleared session starts a new conversation");
});

test('model: "prompt-api" where Chrome has no usable model fails Agent.create with a clear, structured error', async () => {
  const r = await scenario("unavailableBackend");
  assert.deepEqual([r.rejected, r.name, r.sourceName, r.code], [true, "KeelError", "NotSupportedError", "MODEL_UNAVAILABLE"]);
  assert.match(r.message, /Chrome's built-in model is not available (on this device \(availability: unavailable\)|in this browser)/);
  assert.match(r.message, /custom/);
});

test("a run cut off by worker.terminate() is found and resumed from its last committed step", async () => {
  const r = await scenario("resumeAfterTerminate");
  assert.deepEqual(r.unfinished, [{ id: r.cutRunId, status: "running", steps: 2 }]);
  assert.deepEqual(r.before.turns.map((t) => t.step), [1, 2], "steps 1 and 2 were committed before the kill");
  assert.equal(r.firstStep, 3, "the resumed run starts at step 3");
  assert.deepEqual(r.result, { runId: r.cutRunId, answer: "resumed", success: true, steps: [1, 2, 3, 4] });
  assert.deepEqual(r.after.turns.map((t) => [t.runId, t.step]), [1, 2, 3, 4].map((s) => [r.cutRunId, s]), "each step once");
  assert.deepEqual(r.after.runs, [{ id: r.cutRunId, status: "succeeded", steps: 4 }]);
  assert.equal(r.again, 0, "no longer unfinished");
});

test("a model hanging while the last step is written: the worker terminated once the step started keeps every step before it", async () => {
  const r = await scenario("resumeAfterTerminateInModel");
  assert.deepEqual(r.unfinished, [{ id: r.cutRunId, status: "running", steps: 2 }]);
  assert.deepEqual(r.before.turns.map((t) => t.step), [1, 2], "steps 1 and 2 were stored before step 3 was told");
  assert.equal(r.firstStep, 3, "the resumed run starts at step 3");
  assert.deepEqual(r.result, { answer: "resumed", success: true, steps: [1, 2, 3, 4] });
});

test("no tool runs, and no write begins, before every write begun earlier has completed (only the model is asked meanwhile)", async () => {
  const { success, order } = await scenario("stepWriteOrder");
  assert.equal(success, true);
  const open = new Set();
  let tools = 0;
  for (const entry of order) {
    const [what, n] = entry.split(" ");
    if (what === "begin") {
      assert.equal(open.size, 0, `${entry} began while transaction(s) ${[...open]} were in flight: ${order}`);
      open.add(n);
    } else if (what === "complete") open.delete(n);
    else if (what === "abort") assert.fail(`transaction ${n} aborted: ${order}`);
    else if (what === "toolCall") {
      tools += 1;
      assert.equal(open.size, 0, `a tool was called while transaction(s) ${[...open]} were in flight: ${order}`);
    }
  }
  assert.equal(tools, 4, "look, look, pay, look");
  assert.equal(open.size, 0, "every write completed");
});

test("a custom model that decodes greedily is not asked a request it already answered", async () => {
  const { declared, own, sampled, refused } = await scenario("greedyCustom");
  assert.equal(sampled.asked, 6, "asked again, the same focused call gets the same refused arguments");
  for (const greedy of [declared, own]) {
    assert.equal(greedy.asked, 5, JSON.stringify(greedy));
    assert.equal(greedy.modelCalls, 5);
    assert.deepEqual([greedy.answer, greedy.success], [sampled.answer, true], "the run ends as when asked again");
    assert.match(greedy.warning, /same request as at step 2/);
  }
  assert.equal(sampled.warning, undefined);
  assert.equal(refused.code, "INVALID_CONFIG");
  assert.match(refused.message, /`model.greedy` must be true or false; got/);
});

test("a step is one IndexedDB transaction and one put; a failing step's failure goes in it; a call with side effects adds its intent's; the answer's carries the run's end", async () => {
  const r = await scenario("writesPerStep");
  assert.equal(r.success, true);
  const [start, look1, miss, look2, pay, end] = r.writes;
  assert.deepEqual(start, ["runs,sessions,turns:relaxed put runs,sessions"], "the run's first write reads and stores the session");
  for (const step of [look1, look2]) assert.deepEqual(step, ["turns:strict put turns"], "a plain step writes its turn alone");
  assert.deepEqual(miss, ["failures,sessions,turns:strict put turns,failures,sessions"], "the turn, its failure and the session's count, together");
  assert.deepEqual(pay, ["runs:relaxed put runs", "turns:strict put turns"], "the intent, then the step");
  assert.deepEqual(end, ["runs,sessions,turns:strict put turns,runs,sessions"], "the answer and the run's end with the session's counts, together");
  assert.deepEqual(r.stored.turns.map((t) => [t.step, t.seq]), [[1, 0], [2, 1], [3, 2], [4, 3], [5, 4]]);
});

test("no uncaught errors in the page", () => {
  assert.deepEqual(pageErrors, []);
});
