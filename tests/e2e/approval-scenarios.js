// Human approval scenarios: tools declared `needsApproval` (true, or a function of the arguments)
// pause the run until the page approves or rejects the call; a pause survives a reload. The page
// side of approval.test.mjs.
import { Agent } from "/pkg/index.js";

import { act, answer, idbRequest, scripted, tool } from "./steps.js";

const DONE = "Ann is emailed, the email to Bob is drafted, and the bills are paid.";

const emailSchema = { type: "object", properties: { to: { type: "string" } }, required: ["to"] };

/** The tools: `send_email` always waits, `pay` waits above 100, `draft_email` never. */
function approvalTools(calls) {
  return [
    tool("send_email", async ({ to }) => (calls.push(`send:${to}`), "sent"), { inputSchema: emailSchema, needsApproval: true }),
    tool("pay", async ({ amount }) => (calls.push(`pay:${amount}`), "paid"), { needsApproval: ({ amount }) => amount > 100 }),
    tool("draft_email", async () => (calls.push("draft"), "drafted")),
  ];
}

async function keelError(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return { name: e.name, code: e.code, message: e.message };
  }
}

/**
 * One run through four calls: a small payment (no approval), an email approved, an email
 * rejected with a reason, a large payment approved; what the page saw at each pause.
 */
export async function approveAndReject(db) {
  await idbRequest(indexedDB.deleteDatabase(db));
  const calls = [];
  const seen = [];
  const steps = [
    act("pay", { amount: 5 }),
    act("send_email", { to: "ann" }),
    act("send_email", { to: "bob" }),
    act("pay", { amount: 500 }),
    act("draft_email"),
    answer(DONE),
  ];
  const agent = await Agent.create({ model: { custom: scripted(steps, seen) }, tools: approvalTools(calls), config: { store: { name: db } } });
  const run = agent.run("Pay, email Ann and Bob, pay the big bill.");
  const pauses = [];
  const decisions = { "send_email:ann": null, "send_email:bob": "Bob has left the company", "pay:500": null };
  let wrongCall;
  for await (const event of run) {
    if (event.type !== "approvalRequested") continue;
    const listed = await agent.pendingApprovals();
    const key = `${event.tool}:${event.args.to ?? event.args.amount}`;
    pauses.push({ key, callId: event.callId, step: event.step, callsSoFar: [...calls], listed: listed.map((p) => [p.callId, p.tool, p.live]) });
    wrongCall ??= await keelError(run.approve(`${run.runId}:99`));
    const reason = decisions[key];
    await (reason ? run.reject(event.callId, reason) : run.approve(event.callId));
  }
  const result = await run.result;
  const afterEnd = await keelError(run.approve(pauses[0].callId));
  const left = await agent.pendingApprovals();
  agent.dispose();
  const prompt = (i) => seen[i].messages.at(-1).content;
  return {
    runId: run.runId,
    pauses,
    calls,
    wrongCall,
    afterEnd,
    left: left.length,
    failures: result.failures.map((f) => [f.tool, f.code, f.class, f.retried]),
    rejectedShown: prompt(3),
    success: result.success,
    answer: result.answer,
    done: DONE,
  };
}

/** Starts a run that waits for approval of an email, and returns once the page was asked. */
export async function waitForApproval(db) {
  await idbRequest(indexedDB.deleteDatabase(db));
  const agent = await Agent.create({
    model: { custom: scripted([act("send_email", { to: "carol" })]) },
    tools: approvalTools([]),
    config: { store: { name: db } },
    session: "approvals",
  });
  const run = agent.run("Email Carol.");
  for await (const event of run) {
    if (event.type === "approvalRequested") return { runId: run.runId, callId: event.callId };
  }
  throw new Error("the run ended without asking for approval");
}

/** After a reload: the stored pause is listed, approving it resumes the run, and the call runs. */
export async function approveAfterReload(db, decision = "approve") {
  const calls = [];
  const seen = [];
  const agent = await Agent.create({
    model: { custom: scripted([answer("handled after the reload")], seen) },
    tools: approvalTools(calls),
    config: { store: { name: db } },
    session: "approvals",
  });
  const pending = await agent.pendingApprovals();
  const unfinished = await agent.unfinishedRuns();
  const [waiting] = pending;
  const handle = decision === "approve" ? agent.approve(waiting.callId) : agent.reject(waiting.callId, "not Carol");
  const events = [];
  for await (const e of handle) events.push(e.type);
  const result = await handle.result;
  const again = await keelError(agent.approve(waiting.callId).result);
  const left = await agent.pendingApprovals();
  agent.dispose();
  return {
    pending: pending.map(({ requestedMs, ...p }) => ({ ...p, requestedMs: typeof requestedMs })),
    unfinished: unfinished.map((r) => [r.id, r.pendingApproval?.callId]),
    calls,
    modelCalls: seen.length,
    events,
    result: { runId: result.runId, success: result.success, answer: result.answer, steps: result.turns.map((t) => [t.step, t.outcome]) },
    again,
    left: left.length,
  };
}
