// Human approval end to end in headless Chromium: tools declared `needsApproval` pause a run until
// the page approves or rejects the call, the rejection reaches the model, and a pause stored in
// IndexedDB is listed and decided after a reload. The scenarios live in approval-scenarios.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioTabs } from "./scenario-page.mjs";

const { openTab, call, pageErrors, opened } = useScenarioTabs();

test("a call needing approval waits until the page approves or rejects it; a rejection reaches the model", async () => {
  const context = await opened().browser.newContext();
  const r = await call(await openTab(context), "approveAndReject", "keel-e2e-approval");
  await context.close();

  // The small payment needed no approval (the function said no); the three others waited, each
  // listed by pendingApprovals while it waited, and nothing ran before its decision.
  assert.deepEqual(r.pauses.map((p) => [p.key, p.callId, p.step]), [
    ["send_email:ann", `${r.runId}:2`, 2],
    ["send_email:bob", `${r.runId}:3`, 3],
    ["pay:500", `${r.runId}:4`, 4],
  ]);
  assert.deepEqual(r.pauses.map((p) => p.callsSoFar), [["pay:5"], ["pay:5", "send:ann"], ["pay:5", "send:ann"]]);
  assert.deepEqual(r.pauses[1].listed, [[`${r.runId}:3`, "send_email", true]]);
  assert.deepEqual(r.calls, ["pay:5", "send:ann", "pay:500", "draft"], "the rejected email never ran");

  // Deciding a call the run does not wait on is a clear error, before and after the run ends.
  for (const refused of [r.wrongCall, r.afterEnd]) {
    assert.deepEqual([refused?.name, refused?.code], ["KeelError", "APPROVAL_NOT_PENDING"], JSON.stringify(refused));
  }
  assert.match(r.wrongCall.message, /waits on/);

  // The rejection: a persistent failure, not retried, shown to the model with the reason and the
  // other tools.
  assert.deepEqual(r.failures, [["send_email", "APPROVAL_REJECTED", "persistent", false]]);
  for (const needle of ["APPROVAL_REJECTED", "Bob has left the company", "draft_email", "pay"]) {
    assert.ok(r.rejectedShown.includes(needle), `${needle} in ${r.rejectedShown}`);
  }
  assert.equal(r.left, 0);
  assert.equal(r.answer, r.done);
});

for (const decision of ["approve", "reject"]) {
  test(`a pause survives a reload: pendingApprovals lists it and ${decision === "approve" ? "approving" : "rejecting"} it resumes the run`, async () => {
    const context = await opened().browser.newContext();
    const page = await openTab(context);
    const db = `keel-e2e-approval-reload-${decision}`;
    const waiting = await call(page, "waitForApproval", db);
    await page.reload();
    await page.waitForFunction(() => window.scenariosLoaded === true);
    const r = await call(page, "approveAfterReload", db, decision);
    await context.close();

    assert.deepEqual(r.pending, [
      {
        callId: waiting.callId,
        runId: waiting.runId,
        session: "approvals",
        task: "Email Carol.",
        step: 1,
        tool: "send_email",
        args: { to: "carol" },
        thought: "call send_email",
        requestedMs: "number",
        argsRedacted: false,
        live: false,
      },
    ]);
    assert.deepEqual(r.unfinished, [[waiting.runId, waiting.callId]]);
    assert.equal(r.result.runId, waiting.runId, "the same run, resumed");
    assert.equal(r.modelCalls, 1, "the waiting call is not asked of the model again");
    if (decision === "approve") {
      assert.deepEqual(r.calls, ["send:carol"]);
      assert.deepEqual(r.result.steps, [[1, "ok"], [2, "final"]]);
      assert.equal(r.result.success, true);
    } else {
      assert.deepEqual(r.calls, []);
      assert.deepEqual(r.result.steps, [[1, "failed"], [2, "final"]]);
    }
    assert.ok(r.events.includes("approvalDecided") && !r.events.includes("approvalRequested"), r.events.join(","));
    assert.equal(r.again?.code, "RUN_FINISHED", JSON.stringify(r.again));
    assert.equal(r.left, 0);
  });
}
