// End-to-end: the trace viewer (www/viewer.html). A scripted run with faults through the demo page
// (a fresh browser profile: its own IndexedDB), exported both ways; each export is opened in the
// viewer by the file input, and the run once by the history panel's "View" link. The viewer must
// show the run's steps, failures (class, code, attempt), retries and stats as the run stored them;
// a file that is not an export shows an error saying what was expected.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serveDemo } from "../../www/server.mjs";

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
const FILES = mkdtempSync(join(tmpdir(), "keel-viewer-"));

let server;
let browser;
let page;
const pageErrors = [];
let runId;
let live; // what the demo's live trace showed
const exported = {}; // json, otlp: the downloaded exports' paths and data

before(async () => {
  server = await serveDemo({ modelsDir: mkdtempSync(join(tmpdir(), "keel-models-")) });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  collectErrors(page, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const items = (selector) => page.$$eval(selector, (els) => els.map((el) => ({ ...el.dataset, text: el.textContent })));
const failureRows = async () => (await items("#trace .item.failure")).map((f) => `${f.class} ${f.code}`);
const retryRows = async () => (await items("#trace .item.retry")).map((r) => `${r.code} ${r.attempt}`);
const summary = (key) => page.textContent(`[data-summary=${key}]`);

async function openViewer() {
  await page.goto(new URL("viewer.html", server.url).href);
  await page.waitForSelector("body[data-ready=true]");
}

async function openFile(name, text) {
  const path = join(FILES, name);
  writeFileSync(path, text);
  await page.evaluate(() => delete document.body.dataset.loaded);
  await page.setInputFiles("#file", path);
  await page.waitForSelector("body[data-loaded]");
}

test("a scripted run with faults through the demo, exported as JSON and OTLP", async () => {
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true]");
  for (const fault of ["timeout", "unavailable", "rateLimited", "stale", "wrongArgs"]) await page.click(`label[for=fault-${fault}]`);
  await page.click("#run");
  await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
  live = {
    failures: await failureRows(),
    retries: await retryRows(),
    steps: await page.$$eval("#trace .step", (els) => els.map((el) => el.dataset.step)),
    stats: await Promise.all(["faults", "retried", "recovered"].map((k) => page.textContent(`[data-stat=${k}]`))),
  };
  assert.equal(live.failures.length, 5, JSON.stringify(live));
  runId = await (await page.waitForSelector("#history-card tr[data-run-id]")).getAttribute("data-run-id");
  for (const kind of ["json", "otlp"]) {
    const [file] = await Promise.all([page.waitForEvent("download"), page.click(`tr[data-run-id="${runId}"] a[data-export=${kind}]`)]);
    const text = readFileSync(await file.path(), "utf8");
    exported[kind] = { text, data: JSON.parse(text) };
  }
});

test("the JSON export, opened by file: every step, failure, code, attempt and retry of the run", async () => {
  await openViewer();
  await openFile("run.json", exported.json.text);
  assert.equal(await page.getAttribute("body", "data-loaded"), "json");
  const { runs, turns, failures } = exported.json.data;
  assert.equal(await page.getAttribute("#run-card", "data-run-id"), runId);
  assert.match(await page.textContent("#run-task"), /weather in Paris/);

  // Steps: one group per stored turn, the same as the live trace drew.
  const steps = await page.$$eval("#trace .step", (els) => els.map((el) => el.dataset.step));
  assert.deepEqual(steps, turns.map((t) => String(t.turn.step)));
  assert.deepEqual(steps, live.steps);
  assert.equal(await summary("steps"), String(runs[0].counts.steps));

  // Failures in time order with class, code and attempt; retries where the runtime retried.
  const shown = await items("#trace .item.failure");
  assert.deepEqual(shown.map((f) => [f.class, f.code, f.attempt]), failures.map((f) => [f.class, f.code, String(f.attempt)]));
  assert.deepEqual(await failureRows(), live.failures);
  const retried = failures.filter((f) => f.retried).map((f) => `${f.code} ${f.attempt}`);
  assert.deepEqual(await retryRows(), retried);
  assert.deepEqual(await retryRows(), live.retries);
  assert.ok((await items("#trace .item.retry")).every((r) => /retried by the runtime/.test(r.text)));
  // Each failure sits in its step's group.
  for (const f of failures) {
    const codes = await page.$$eval(`#trace .step[data-step="${f.step}"] .item.failure`, (els) => els.map((el) => el.dataset.code));
    assert.ok(codes.includes(f.code), `${f.code} in step ${f.step}: ${codes}`);
  }

  // Thoughts, actions with their arguments, the envelope the model read, the answer and the end.
  assert.equal((await items("#trace .item.thought")).length, turns.filter((t) => t.turn.thought).length);
  assert.ok((await items("#trace .item.action")).some((a) => /get_weather.*"city"/.test(a.text)));
  // Each call's idempotency key, as its tool received it and the turn stored it (none for a call
  // refused before it ran).
  const keys = turns.filter((t) => t.turn.action).map((t) => t.idempotencyKey);
  const ran = keys.filter((k) => k !== undefined);
  assert.ok(ran.length && ran.every((k) => k.startsWith(`${runId}:`)), JSON.stringify(keys));
  assert.deepEqual((await items("#trace .item.action")).map((a) => a.idempotencyKey), keys);
  const told = await items('#trace .item.observation[data-outcome="failed"]');
  assert.ok(told.some((o) => /snapshot/.test(o.text)), JSON.stringify(told));
  assert.match(await page.textContent("#trace .item.final"), /INV-1042/);
  assert.match(await page.textContent("#trace .item.end"), /Run ended · final answer · \d+(\.\d)? s/);
  assert.deepEqual(await Promise.all(["faults", "retried", "recovered"].map(summary)), live.stats);
  assert.equal(await summary("status"), "succeeded");

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, "viewer-json.png"), fullPage: true });
});

test("the OTLP export, opened by file: the same steps, failures and retries", async () => {
  await openFile("run.otlp.json", exported.otlp.text);
  assert.equal(await page.getAttribute("body", "data-loaded"), "otlp");
  assert.equal(await page.getAttribute("#run-card", "data-run-id"), runId);
  assert.deepEqual(await page.$$eval("#trace .step", (els) => els.map((el) => el.dataset.step)), live.steps);
  const { failures } = exported.json.data;
  assert.deepEqual((await items("#trace .item.failure")).map((f) => [f.class, f.code, f.attempt]),
    failures.map((f) => [f.class, f.code, String(f.attempt)]));
  assert.deepEqual(await retryRows(), live.retries);
  assert.deepEqual(await Promise.all(["faults", "retried", "recovered"].map(summary)), live.stats);
  // What OTLP does not keep is said, not invented.
  assert.match(await page.textContent("#trace .item.action"), /arguments not exported \(digest [0-9a-f]+\)/);
  // The calls' idempotency keys are kept (keel.tool.idempotency_key).
  const keys = exported.json.data.turns.filter((t) => t.turn.action).map((t) => t.idempotencyKey);
  assert.deepEqual((await items("#trace .item.action")).map((a) => a.idempotencyKey), keys);
  // The first action may be a call that never ran (refused before it ran: no key).
  const actions = await page.$$eval("#trace .item.action", (els) => els.map((el) => el.textContent));
  assert.match(actions.join("\n"), /idempotency key \S+:\d+/);
  assert.match(await page.textContent("#run-missing"), /thoughts/);
  assert.match(await page.textContent("#trace .item.end"), /The model gave its final answer\./);
  await page.screenshot({ path: join(ARTIFACTS, "viewer-otlp.png"), fullPage: true });
});

test("a file dropped on the page opens like a picked one", async () => {
  await page.evaluate(() => delete document.body.dataset.loaded);
  const transfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "dropped.otlp.json", { type: "application/json" }));
    return dt;
  }, exported.otlp.text);
  await page.dispatchEvent("#drop", "drop", { dataTransfer: transfer });
  await page.waitForSelector("body[data-loaded]");
  assert.equal(await page.getAttribute("body", "data-loaded"), "otlp");
  assert.deepEqual(await failureRows(), live.failures);
});

test("a run whose failing tool the runtime recovers itself (recoverWith): the recovery call is shown", async () => {
  // A real run in the viewer's page (the memory store): `click` fails with STALE_REFERENCE once and
  // declares `recoverWith: { STALE_REFERENCE: "snapshot" }`, so the runtime calls snapshot itself.
  const texts = await page.evaluate(async () => {
    const { Agent, ToolError } = await import("keel-agent");
    const steps = [
      { thought: "look", action: { tool: "snapshot", args: {} } },
      { thought: "click it", action: { tool: "click", args: { ref: "e1" } } },
      { thought: "again", action: { tool: "click", args: { ref: "e2" } } },
      { thought: "done", final_answer: "Clicked e2." },
    ];
    let next = 0;
    let clicks = 0;
    const agent = await Agent.create({
      model: { custom: async () => JSON.stringify(steps[Math.min(next++, steps.length - 1)]) },
      config: { store: "memory" },
      tools: [
        { name: "snapshot", description: "The page's elements and their refs.", inputSchema: { type: "object" },
          readOnly: true, execute: () => `button "OK" [ref=e${clicks + 1}]` },
        { name: "click", description: "Clicks an element by ref.", refsFrom: ["snapshot"],
          inputSchema: { type: "object", properties: { ref: { type: "string" } }, required: ["ref"] },
          recoverWith: { STALE_REFERENCE: "snapshot" },
          execute: ({ ref }) => {
            if (clicks++ === 0) throw new ToolError(`ref ${ref} is stale`, { code: "STALE_REFERENCE" });
            return `clicked ${ref}`;
          } },
      ],
    });
    const { runId } = await agent.run("Click the OK button.").result;
    // A second run in the same session (the script is spent: it answers at once).
    await agent.run("Say what you clicked.").result;
    const [run, session] = [await agent.exportRun(runId), await agent.exportSession()];
    agent.dispose();
    return [JSON.stringify(run), JSON.stringify(session)];
  });
  const [text, sessionText] = texts;
  const data = JSON.parse(text);
  const stale = data.failures.find((f) => f.code === "STALE_REFERENCE");
  assert.equal(stale?.recoveryCall, "snapshot", JSON.stringify(data.failures));
  await openFile("recovery.json", text);
  const calls = await items("#trace .item.recovery");
  assert.deepEqual(calls.map((c) => [c.called, c.code]), [["snapshot", "STALE_REFERENCE"]]);
  assert.match(calls[0].text, /The runtime called snapshot after click failed with STALE_REFERENCE/);
  assert.equal(await page.$$eval(`#trace .step[data-step="${stale.step}"] .item.recovery`, (els) => els.length), 1);
  assert.equal(await page.isVisible("#run-pick"), false);

  // The session's export: a picker lists both runs, the last shown first; picking the first shows it.
  await openFile("session.json", sessionText);
  assert.equal(await page.isVisible("#run-pick"), true);
  const options = await page.$$eval("#run-select option", (els) => els.map((o) => o.textContent));
  const sessionRuns = JSON.parse(sessionText).runs;
  assert.deepEqual(options, sessionRuns.map((r) => `${r.task} · ${r.status}`));
  assert.deepEqual(sessionRuns.map((r) => r.task), ["Click the OK button.", "Say what you clicked."]);
  assert.match(await page.textContent("#run-task"), /Say what you clicked/);
  assert.equal((await items("#trace .item.recovery")).length, 0);
  await page.selectOption("#run-select", data.runs[0].id);
  assert.equal(await page.getAttribute("#run-card", "data-run-id"), data.runs[0].id);
  assert.match(await page.textContent("#run-task"), /Click the OK button/);
  assert.equal((await items("#trace .item.recovery")).length, 1);
});

test("files that are not exports show an error saying what was expected", async () => {
  await openFile("notes.json", JSON.stringify({ hello: "world" }));
  assert.equal(await page.getAttribute("body", "data-loaded"), "error");
  const error = await page.textContent("#error");
  assert.match(error, /not a keel run export: it holds an object with hello/);
  assert.match(error, /agent\.exportRun\(runId\).*agent\.exportRunOtlp\(runId\)/);
  assert.equal(await page.isVisible("#error"), true);

  await openFile("page.html", "<!doctype html><p>hi</p>");
  assert.match(await page.textContent("#error"), /This file is not JSON/);
  await openFile("empty.otlp.json", JSON.stringify({ resourceSpans: [] }));
  assert.match(await page.textContent("#error"), /holds no spans/);
  const broken = structuredClone(exported.json.data);
  delete broken.turns[1].turn;
  await openFile("broken.json", JSON.stringify(broken));
  assert.match(await page.textContent("#error"), /turns\[1\]\.turn should be an object/);
  // A good file after a bad one opens and hides the error.
  await openFile("run.json", exported.json.text);
  assert.equal(await page.isVisible("#error"), false);
  await page.screenshot({ path: join(ARTIFACTS, "viewer-after-error.png") });
});

test("the history panel's View link opens the run in the viewer", async () => {
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true]");
  await page.click(`tr[data-run-id="${runId}"] a[data-view]`);
  await page.waitForSelector("body[data-loaded]", { timeout: 15_000 });
  assert.equal(await page.getAttribute("body", "data-loaded"), "json");
  assert.equal(new URL(page.url()).pathname, "/viewer.html");
  assert.equal(await page.getAttribute("#run-card", "data-run-id"), runId);
  assert.deepEqual(await page.$$eval("#trace .step", (els) => els.map((el) => el.dataset.step)), live.steps);
  assert.deepEqual(await failureRows(), live.failures);
  assert.deepEqual(await retryRows(), live.retries);
  // An unknown run in the store: an error, not a blank page.
  await page.goto(new URL("viewer.html?run=no-such-run&session=demo", server.url).href);
  await page.waitForSelector("body[data-loaded=error]");
  assert.match(await page.textContent("#error"), /holds no run/);
  assert.deepEqual(pageErrors, []);
});
