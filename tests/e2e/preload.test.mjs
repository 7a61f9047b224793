// End-to-end: `Agent.preload()` (js/spare.js). The spare worker it starts is taken by the next
// agent, which then starts no worker of its own; a second agent starts its own; a spare whose
// script fails is reported through `ready` and the agent starts its own worker (or fails with its
// own error); a terminated spare leaves no worker running. Each test is a fresh page in a fresh
// context; the server sends no caching headers, so every fetch of the worker script reaches it and
// is counted.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serve } from "./server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const WORKER = "/pkg/worker.js";
let server;
let browser;
const requests = [];
const pageErrors = [];
/** Which fetches of the worker script (1 for the page's first) the server fails with a 404. */
let failing = () => false;
/** Where the current page's requests start in `requests`. */
let pageStart = 0;
/** Which fetches of the worker script the server holds until `release()` (a spare kept loading). */
let holding = () => false;
/** Answers the held fetches. */
let release = () => {};

/** How many times the current page has asked for the worker script (this request included). */
const pageWorkerFetches = () => requests.slice(pageStart).filter((p) => p === WORKER).length;

before(async () => {
  server = await serve(ROOT, {
    onRequest: (path) => requests.push(path),
    fail: (path) => (path === WORKER && failing(pageWorkerFetches()) ? 404 : undefined),
    hold: (path) =>
      path === WORKER && holding(pageWorkerFetches()) ? new Promise((resolve) => (release = resolve)) : undefined,
  });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh page on preload.html; `run(name, ...args)` runs a scenario in it. */
async function fresh(fail = () => false, hold = () => false) {
  failing = fail;
  holding = hold;
  pageStart = requests.length;
  const context = await browser.newContext();
  const page = await context.newPage();
  collectErrors(page, pageErrors);
  await page.goto(`${server.url}/tests/e2e/preload.html`);
  await page.waitForFunction(() => window.scenariosLoaded === true);
  const start = requests.length;
  return {
    page,
    run: (name, ...args) => page.evaluate(([n, a]) => window.scenarios[n](...a), [name, args]),
    workerFetches: () => requests.slice(start).filter((p) => p === WORKER).length,
    close: () => context.close(),
  };
}

/** `read()` once it gives `wanted`, or after 5 s what it gives then. */
async function settled(read, wanted) {
  for (let i = 0; i < 100 && read() !== wanted; i++) await new Promise((r) => setTimeout(r, 50));
  return read();
}

/** Waits until the page runs `count` workers (playwright sees each dedicated worker until it ends). */
const workersRunning = (page, count) => settled(() => page.workers().length, count);

test("the next agent takes the warm spare: one worker started, not two", async () => {
  const p = await fresh();
  try {
    const { same, first, second } = await p.run("adoptWarm");
    assert.equal(same, true, "preload() while a spare waits returns that spare");
    assert.deepEqual(first, ["agent 0", true]);
    assert.deepEqual(second, ["agent 0", true], "terminate() on a taken spare's handle leaves the agent's worker alone");
    assert.equal(p.workerFetches(), 1);
    assert.equal(await workersRunning(p.page, 0), 0, "dispose() ends the worker the agent took");
  } finally {
    await p.close();
  }
});

test("an agent created while the spare still loads takes it", async () => {
  const p = await fresh();
  try {
    const { ready, run } = await p.run("adoptLoading");
    assert.equal(ready, "resolved");
    assert.deepEqual(run, ["agent 0", true]);
    assert.equal(p.workerFetches(), 1);
  } finally {
    await p.close();
  }
});

test("a spare is taken once: the second agent starts its own worker, and a new preload() is a new spare", async () => {
  const p = await fresh();
  try {
    const { newSpare, runs, ready } = await p.run("twoAgentsThenAnotherSpare");
    assert.deepEqual(runs, [["agent 0", true], ["agent 1", true], ["agent 2", true]]);
    assert.equal(newSpare, true);
    assert.deepEqual(ready, ["resolved", "resolved"]);
    // The first spare (agent 0's), agent 1's own, the second spare (agent 2's).
    assert.equal(p.workerFetches(), 3);
    assert.equal(await workersRunning(p.page, 0), 0);
  } finally {
    await p.close();
  }
});

test("a spare whose script fails: ready rejects with WORKER_FAILED and the agent starts its own worker", async () => {
  const p = await fresh((n) => n === 1);
  try {
    const { ready, run } = await p.run("spareFails");
    assert.deepEqual([ready.name, ready.code], ["KeelError", "WORKER_FAILED"]);
    assert.match(ready.message, /spare worker failed/);
    assert.deepEqual(run, ["agent 0", true]);
    assert.equal(p.workerFetches(), 2);
  } finally {
    await p.close();
  }
});

test("when the agent's own worker fails too, Agent.create rejects with its own error", async () => {
  const p = await fresh(() => true);
  try {
    const { ready, created } = await p.run("everyWorkerFails");
    assert.deepEqual([ready.code, created.code], ["WORKER_FAILED", "WORKER_FAILED"]);
    assert.match(created.message, /worker error/);
    assert.doesNotMatch(created.message, /spare/, "the create's error is its own worker's");
    assert.equal(p.workerFetches(), 2);
    assert.equal(await workersRunning(p.page, 0), 0);
  } finally {
    await p.close();
  }
});

test("terminate() ends an unused spare, warm or loading: no worker is left", async () => {
  // The second spare's script is held by the server until it is terminated: it is still loading,
  // and its fetch was made (a terminate() right after preload() may otherwise beat the fetch).
  const p = await fresh(() => false, (n) => n === 2);
  try {
    await p.run("keepSpare", true);
    assert.equal(p.page.workers().length, 1, "the warm spare runs");
    assert.equal(await p.run("terminateSpare"), "resolved");
    assert.equal(await workersRunning(p.page, 0), 0);
    await p.run("keepSpare", false);
    assert.equal(await settled(p.workerFetches, 2), 2, "the second spare asked for its script");
    const aborted = await p.run("terminateSpare");
    assert.equal(aborted.name, "AbortError");
    assert.equal(await workersRunning(p.page, 0), 0);
    assert.equal(p.workerFetches(), 2);
  } finally {
    release();
    await p.close();
  }
});

test("Agent.preload's options are checked", async () => {
  const p = await fresh();
  try {
    assert.deepEqual(await p.run("badOptions"), ["INVALID_CONFIG", "INVALID_CONFIG", "INVALID_CONFIG"]);
    assert.equal(await workersRunning(p.page, 0), 0, "nothing started");
  } finally {
    await p.close();
  }
});

test("no uncaught errors in the pages", () => {
  // The failing tests' worker scripts are answered 404, which Chromium logs as a console error.
  assert.deepEqual(pageErrors.filter((e) => !/404|Failed to load resource/.test(e)), []);
});
