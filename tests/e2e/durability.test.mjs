// End-to-end durability in headless Chromium, each test on its own database: a reload mid-run
// (resume and abandon from the reloaded page), a run live in another tab (not unfinished, not
// resumable until its worker is gone), two tabs running one session (the session's Web Lock; none
// when the stores are in memory, each tab's own, or on two databases), and
// a storage that fills up mid-run (a real quota, set through the DevTools protocol). The scenarios live in durable-scenarios.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioTabs } from "./scenario-page.mjs";

const { openTab, call, pageErrors, opened } = useScenarioTabs();
const stepsOf = (turns, runId) => turns.filter((t) => t.runId === runId).map((t) => t.step);

test("a reload mid-run: the reloaded page resumes one cut-off run to its end and abandons the other", async () => {
  const context = await opened().browser.newContext();
  const page = await openTab(context);
  const db = "keel-e2e-reload";
  const ids = await call(page, "startRunsThenStall", db);
  await page.reload();
  await page.waitForFunction(() => window.scenariosLoaded === true);
  const r = await call(page, "resumeAfterReload", db, ids);
  await context.close();

  // Both runs were found, as the killed worker left them: running, with what they had committed.
  const found = Object.fromEntries(r.unfinished.map((u) => [u.id, u]));
  assert.deepEqual(Object.keys(found).sort(), [ids.long, ids.short].sort());
  assert.deepEqual([found[ids.long].status, found[ids.long].steps], ["running", 2]);
  assert.deepEqual([found[ids.short].status, found[ids.short].steps], ["running", 1]);
  assert.deepEqual(stepsOf(r.before.turns, ids.long), [1, 2]);
  assert.deepEqual(stepsOf(r.before.turns, ids.short), [1]);

  // Resumed at step 3, under the same id, to the end.
  assert.equal(r.steps[0], 3, "the resumed run starts after its last committed step");
  assert.deepEqual(r.resumed, { runId: ids.long, answer: "resumed after reload", success: true, steps: [1, 2, 3, 4] });
  assert.deepEqual(stepsOf(r.after.turns, ids.long), [1, 2, 3, 4], "every step once, in order");
  const committed = (s) => s.turns.filter((t) => t.runId === ids.long && t.step <= 2).map((t) => t.turn);
  assert.deepEqual(committed(r.after), committed(r.before), "the steps committed before the reload are kept as they were");

  // Abandoned: interrupted, with its committed step kept.
  assert.deepEqual(r.abandoned, { runId: ids.short, reason: "interrupted", success: false, steps: [1] });
  assert.deepEqual(stepsOf(r.after.turns, ids.short), [1]);
  const status = Object.fromEntries(r.after.runs.map((run) => [run.id, [run.status, run.steps]]));
  assert.deepEqual(status, { [ids.long]: ["succeeded", 4], [ids.short]: ["interrupted", 1] });
  assert.equal(r.left, 0, "nothing is left unfinished");
});

test("a run live in another tab is not offered for resume, and resuming or abandoning it is refused at once", async () => {
  const context = await opened().browser.newContext();
  const [one, two] = [await openTab(context), await openTab(context)];
  const db = "keel-e2e-live";
  const runId = await call(one, "startLiveRun", db);
  const probe = await call(two, "probeLiveRun", db, runId);
  await call(one, "killLiveRun");
  const dead = await call(two, "resumeDeadRun", db, runId);
  await context.close();

  assert.equal(probe.status, "running", "the store alone cannot tell it from a cut-off run");
  assert.deepEqual(probe.unfinished, [], "a live run is not unfinished");
  for (const refused of [probe.resumed, probe.abandoned]) {
    assert.deepEqual([refused.name, refused.code], ["KeelError", "RUN_LIVE"], JSON.stringify(refused));
    assert.match(refused.message, /still under way in another tab or worker/);
    assert.ok(refused.ms < 1000, `refused after ${refused.ms} ms, not once the run ended`);
  }
  // Once its worker is gone, the same run is cut off: listed, and resumed from step 2.
  assert.deepEqual(dead.unfinished, [runId]);
  assert.deepEqual([dead.answer, dead.success, dead.turns], ["taken over", true, [1, 2, 3]]);
});

test("two tabs running one session take turns: their runs never overlap and their turns never interleave", async () => {
  // Two tabs of one browser context (one origin's IndexedDB and locks).
  const context = await opened().browser.newContext();
  const [one, other] = [await openTab(context), await openTab(context)];
  const db = "keel-e2e-tabs";
  const session = "shared";
  await call(one, "freshDatabase", db);
  await Promise.all([call(one, "tabReady", db, session, "A"), call(other, "tabReady", db, session, "B")]);
  const [a, b] = await Promise.all([call(one, "tabGo"), call(other, "tabGo")]);
  const { turns } = await call(one, "stored", db);
  await context.close();

  assert.deepEqual([a.answer, b.answer], ["A", "B"]);
  const [first, second] = a.spans[0][0] < b.spans[0][0] ? [a, b] : [b, a];
  // The test means something only if the second run was asked for while the first was under way.
  assert.ok(second.asked < first.spans.at(-1)[1], "both runs were started together");
  assert.ok(
    second.spans[0][0] >= first.spans.at(-1)[1],
    `the second tab's tools ran only after the first tab's: ${JSON.stringify([first.spans, second.spans])}`,
  );
  const order = turns.map((t) => t.runId);
  assert.deepEqual(order, [...Array(4).fill(first.runId), ...Array(4).fill(second.runId)], JSON.stringify(turns));
  assert.deepEqual(turns.map((t) => t.step), [1, 2, 3, 4, 1, 2, 3, 4]);
});

/** Runs one session's name in two tabs, each with its own `store`, started together; resolves with both runs. */
async function twoTabs(session, [storeA, storeB], dbs = []) {
  const context = await opened().browser.newContext();
  const [one, other] = [await openTab(context), await openTab(context)];
  for (const db of dbs) await call(one, "freshDatabase", db);
  await Promise.all([call(one, "tabReady", "", session, "A", storeA), call(other, "tabReady", "", session, "B", storeB)]);
  const runs = await Promise.all([call(one, "tabGo"), call(other, "tabGo")]);
  await context.close();
  assert.deepEqual(runs.map((r) => r.answer), ["A", "B"]);
  return runs;
}

/** Asserts that the second of two runs went on while the first did. */
function overlapped([a, b]) {
  const [first, second] = a.spans[0][0] < b.spans[0][0] ? [a, b] : [b, a];
  // Each run takes three 40 ms tool calls: had the second waited for the first's Web Lock, its
  // first call would start after the first run's last one ended.
  assert.ok(
    second.spans[0][0] < first.spans.at(-1)[1],
    `the second tab's run went on while the first tab's did: ${JSON.stringify([first.spans, second.spans])}`,
  );
}

test("two tabs whose stores are in memory run one session's name at once: nothing is shared, so nothing waits", async () => {
  overlapped(await twoTabs("shared", ["memory", "memory"]));
});

test("two tabs on two databases run one session's name at once: the session's lock is the database's", async () => {
  const dbs = ["keel-e2e-tabs-a", "keel-e2e-tabs-b"];
  overlapped(await twoTabs("shared", dbs.map((name) => ({ name })), dbs));
});

test("a full storage mid-run: the oldest runs are pruned by retention, a warning says so, the newest run is whole", async () => {
  const context = await opened().browser.newContext();
  const page = await openTab(context);
  const db = "keel-e2e-quota";
  // A real quota for the origin, set before it stores anything (Chromium reads it when the database
  // opens): writes past it fail with QuotaExceededError inside the worker's IndexedDB, as on a full
  // disk. The old runs fill it up to 40 KB short; the newest run writes more than that.
  const quota = 400_000;
  const cdp = await context.newCDPSession(page);
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: opened().server.url, quotaSize: quota });
  const old = { ids: await call(page, "quotaFill", db, quota - 40_000) };
  const full = await call(page, "quotaRun");
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: opened().server.url });
  const after = await call(page, "afterQuota", db);
  await context.close();

  // The run kept going and is whole.
  assert.deepEqual([full.answer, full.success, full.steps], ["newest done", true, [1, 2, 3, 4, 5, 6]]);
  const runs = after.stored.runs;
  const newest = runs.find((r) => r.id === full.runId);
  assert.deepEqual([newest.status, newest.steps], ["succeeded", 6]);
  assert.deepEqual(stepsOf(after.stored.turns, full.runId), [1, 2, 3, 4, 5, 6], "every step of the newest run is stored");

  // The warnings name the pruning; what they count is what went: the oldest runs, with their turns.
  assert.ok(full.warnings.length > 0, "the page was warned");
  let pruned = 0;
  for (const w of full.warnings) {
    const m = w.match(/storage was full, so older history was pruned: the oldest (\d+) runs/);
    assert.ok(m, `a warning about the pruning: ${w}`);
    pruned += Number(m[1]);
  }
  const kept = runs.map((r) => r.id).filter((id) => old.ids.includes(id));
  assert.ok(pruned > 0 && pruned < old.ids.length, `pruned ${pruned} of ${old.ids.length}`);
  assert.deepEqual(kept, old.ids.slice(pruned), "the oldest went first, the rest are kept");
  const left = new Set(runs.map((r) => r.id));
  assert.ok(after.stored.turns.every((t) => left.has(t.runId)), "no turn outlived its run");

  // With room again, the next run goes through without a warning.
  assert.deepEqual([after.success, after.warnings], [true, []]);
});

test("no uncaught errors in the pages", () => {
  assert.deepEqual(pageErrors, []);
});
