// End-to-end: how an agent's engine gets its wasm. The page compiles it once (engine-module.js)
// and hands the module to each agent's worker, which then fetches nothing; where the page cannot
// compile it, or hands over something that is not keel's engine, the worker loads its own. Each
// test is a fresh page in a fresh context; the server sends no caching headers, so every fetch of
// the wasm reaches it and is counted.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serve } from "./server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
let server;
let browser;
const requests = [];
const pageErrors = [];

before(async () => {
  server = await serve(ROOT, { onRequest: (path) => requests.push(path) });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Runs scenario `name` on a fresh page; resolves to what it returned and the wasm fetches. */
async function fresh(name, ...args) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    collectErrors(page, pageErrors);
    await page.goto(`${server.url}/tests/e2e/start.html`);
    await page.waitForFunction(() => window.scenariosLoaded === true);
    const before = requests.length;
    const value = await page.evaluate(([n, a]) => window.scenarios[n](...a), [name, args]);
    return { value, wasmFetches: requests.slice(before).filter((p) => p.endsWith(".wasm")).length };
  } finally {
    await context.close();
  }
}

const answered = (count) => Array.from({ length: count }, (_, i) => [`agent ${i}`, true]);

test("three agents on one page: the wasm is fetched once, by the page, and every worker runs on it", async () => {
  const { value, wasmFetches } = await fresh("asIs", 3);
  assert.deepEqual(value, answered(3));
  assert.equal(wasmFetches, 1);
});

test("a page that cannot compile the wasm: each worker loads its own, and the agents run", async () => {
  const { value, wasmFetches } = await fresh("pageCannotCompile", 2);
  assert.deepEqual(value, answered(2));
  // Each agent: the page's fetch (its compile then refused), and its worker's own.
  assert.equal(wasmFetches, 4);
});

test("a module that is not keel's engine: the worker loads its own, and the agent runs", async () => {
  const { value, wasmFetches } = await fresh("foreignModule", 1);
  assert.deepEqual(value, answered(1));
  assert.equal(wasmFetches, 2);
});

test("the engine's wasm loads while Agent.create checks the model: it is asked for first", async () => {
  const { value, wasmFetches } = await fresh("loadsWhileTheModelIsChecked");
  assert.deepEqual(value, { askedBeforeCheck: true, answer: ["checked", true] });
  assert.equal(wasmFetches, 1);
});

test("no uncaught errors in the pages", () => {
  assert.deepEqual(pageErrors, []);
});
