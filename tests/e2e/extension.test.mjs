// The example extension (www/extension/, assembled into dist/extension/ by ./build.sh extension or
// test), loaded unpacked into headless Chromium: a scripted-model task on the shop fixture
// (extension-site/) through the side panel and the DOM tools, with a stale ref the run recovers
// from; the panel closed and reopened mid-run (the run goes on in the host); the host closed
// mid-run (a new host resumes the run from IndexedDB). Headless Chromium cannot open the real side
// panel (chrome.sidePanel.open needs a user gesture on the toolbar), so the panel page is opened as
// a tab, pinned to the shop's tab with ?tab=<id>.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, collectErrors } from "./browser.mjs";
import { completion, openaiServer } from "./openai-server.mjs";
import { serve } from "./server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const EXT = join(ROOT, "dist/extension");

let server;
let context;
let profile;
let worker; // the extension's service worker
let extensionId;
const pageErrors = [];
let shops = 0;

before(async () => {
  assert.ok(existsSync(join(EXT, "manifest.json")), `no extension in ${EXT}: run ./build.sh extension first`);
  server = await serve(ROOT);
  profile = await mkdtemp(join(tmpdir(), "keel-ext-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    // Playwright passes --disable-extensions unless told not to.
    ignoreDefaultArgs: ["--disable-extensions"],
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${EXT}`, `--load-extension=${EXT}`],
  });
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  extensionId = new URL(worker.url()).host;
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** A fresh shop tab; resolves to its page and its chrome tab id. */
async function openShop() {
  const shop = await context.newPage();
  collectErrors(shop, pageErrors);
  const url = `${server.url}/tests/e2e/extension-site/index.html?tab=${++shops}`;
  await shop.goto(url);
  const tabs = await worker.evaluate((u) => chrome.tabs.query({ url: u }), url);
  assert.equal(tabs.length, 1, "one shop tab");
  return { shop, tabId: tabs[0].id };
}

/** The panel page as a tab, pinned to `tabId`, once it is ready. */
async function openPanel(tabId) {
  const panel = await context.newPage();
  collectErrors(panel, pageErrors);
  await panel.goto(`chrome-extension://${extensionId}/sidepanel.html?tab=${tabId}`);
  await panel.waitForSelector("body[data-ready=true]");
  return panel;
}

/** Picks the model `kind`; `fields` fills the panel's inputs by id (each committed with a change). */
async function pickModel(panel, kind, fields = {}) {
  await panel.check(`input[name=model][value=${kind}]`);
  for (const [id, value] of Object.entries(fields)) {
    await panel.locator(`#${id}`).fill(value);
    await panel.locator(`#${id}`).dispatchEvent("change");
  }
}

/** Runs the task with the scripted model; resolves to the run's id once its step 2 is drawn. */
async function runScripted(panel, delayMs) {
  await pickModel(panel, "scripted", { "scripted-delay": String(delayMs) });
  // A panel opens on the last run that ended: wait for the trace of the new one.
  const before = await panel.evaluate(() => document.getElementById("trace").dataset.runId ?? "");
  await panel.click("#run");
  await panel.waitForFunction((id) => (document.getElementById("trace").dataset.runId ?? "") !== id, before);
  await panel.waitForSelector('#trace li.step[data-step="2"] li.item[data-kind=observation]');
  return panel.evaluate(() => document.getElementById("trace").dataset.runId);
}

/** What the panel's trace shows: the run, its step groups in order, and what each holds. */
function traceOf(panel) {
  return panel.evaluate(() => {
    const list = document.getElementById("trace");
    const steps = [...list.querySelectorAll(":scope > li.step")].map((li) => ({
      step: Number(li.dataset.step),
      kinds: [...li.querySelectorAll("li.item")].map((i) => i.dataset.kind),
      codes: [...li.querySelectorAll("li.item[data-code]")].map((i) => i.dataset.code),
      args: [...li.querySelectorAll("code.args")].map((c) => JSON.parse(c.textContent)),
      tools: [...li.querySelectorAll("code.tool")].map((c) => c.textContent),
    }));
    return {
      runId: list.dataset.runId,
      steps,
      restored: list.querySelector("[data-kind=restored]")?.textContent ?? null,
      answer: document.getElementById("answer").textContent,
      success: document.getElementById("answer-card").dataset.success,
    };
  });
}

/** The run's stored record and the steps of its turns, in write order, read from the panel's IndexedDB. */
function stored(panel, runId) {
  return panel.evaluate(async (id) => {
    const req = (r) => new Promise((ok, no) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => no(r.error))));
    const db = await req(indexedDB.open("keel"));
    const range = IDBKeyRange.bound(["extension"], ["extension", []]);
    const tx = db.transaction(["runs", "turns"]);
    const runs = await req(tx.objectStore("runs").index("session_startedMs").getAll(range));
    const turns = await req(tx.objectStore("turns").index("session_seq").getAll(range));
    db.close();
    const run = runs.find((r) => r.id === id);
    return { status: run?.status, steps: turns.filter((t) => t.runId === id).map((t) => t.turn.step) };
  }, runId);
}

/**
 * The checks both runs share: a snapshot, the currency switch, a click on a ref from before the
 * re-render (stale), then a fresh ref, the cart read back. Where the runtime recovers by itself (the
 * DOM tools' `recoverWith`, when the engine has it) the stale click's observation already holds a
 * fresh snapshot and the next step clicks; otherwise the model takes the snapshot first.
 */
function assertShopRun(trace, shopState) {
  const tools = trace.steps.map((s) => s.tools[0] ?? null);
  const byRuntime = ["snapshot", "click", "click", "click", "read", null];
  const byModel = ["snapshot", "click", "click", "snapshot", "click", "read", null];
  assert.ok([byRuntime, byModel].some((t) => JSON.stringify(t) === JSON.stringify(tools)), JSON.stringify(trace.steps));
  assert.deepEqual(trace.steps.map((s) => s.step), tools.map((_, i) => i + 1));
  assert.ok(trace.steps[2].codes.includes("STALE_REFERENCE"), `step 3 fails stale: ${JSON.stringify(trace.steps[2])}`);
  const fresh = trace.steps.at(-3);
  assert.equal(fresh.tools[0], "click");
  assert.deepEqual(fresh.codes, [], "the click on the fresh ref succeeds");
  assert.notDeepEqual(fresh.args[0], trace.steps[2].args[0], "it is another ref than the stale one");
  assert.equal(trace.success, "true");
  assert.match(trace.answer, /Cart: 1 item, total €11\.04/);
  // Each click happened once: the currency switched, one mug in the cart.
  assert.deepEqual(shopState, { currency: "EUR", cart: ["Blue mug"] });
}

test("the manifest asks for no more than the README justifies, and a CSP with only 'wasm-unsafe-eval' added", () => {
  const manifest = JSON.parse(readFileSync(join(EXT, "manifest.json"), "utf8"));
  assert.deepEqual(manifest.permissions, ["sidePanel", "offscreen", "scripting"]);
  assert.deepEqual(manifest.host_permissions, ["<all_urls>"]);
  assert.equal(manifest.content_security_policy.extension_pages, "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'");
});

test("a task through the panel: DOM tools on the tab, a stale ref recovered, the panel closed and reopened mid-run", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  const runId = await runScripted(panel, 600);
  await panel.close();
  // The run goes on with no panel open: the mug is added (step 4) while it is closed.
  await shop.waitForFunction(() => window.shop.cart.length === 1, null, { timeout: 15_000 });
  const reopened = await openPanel(tabId);
  await reopened.waitForSelector("#answer-card[data-success]", { timeout: 15_000 });
  const trace = await traceOf(reopened);
  assert.equal(trace.runId, runId, "the reopened panel shows the same run");
  assert.equal(trace.restored, null, "the run was never cut off: nothing to restore");
  assertShopRun(trace, await shop.evaluate(() => ({ currency: window.shop.currency, cart: window.shop.cart })));
  assert.deepEqual(await stored(reopened, runId), { status: "succeeded", steps: trace.steps.map((s) => s.step) });
  // The history lists it, and the failure log its stale ref.
  await reopened.waitForSelector(`[data-part=runs] tr[data-run-id="${runId}"][data-status=succeeded]`);
  await reopened.waitForSelector("[data-part=failures] tr[data-tool=click][data-code=STALE_REFERENCE]");
  assert.deepEqual(pageErrors, []);
  await Promise.all([reopened.close(), shop.close()]);
});

test("the host closed mid-run: a new host resumes the run from IndexedDB, every committed step kept once, in order", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  const runId = await runScripted(panel, 1000);
  // Steps 1 and 2 are committed; step 3's model call is waiting: close the host (its worker goes too).
  await worker.evaluate(() => chrome.offscreen.closeDocument());
  await panel.waitForSelector("#trace [data-kind=restored]", { timeout: 15_000 });
  await panel.waitForSelector("#answer-card[data-success]", { timeout: 15_000 });
  const trace = await traceOf(panel);
  assert.equal(trace.runId, runId, "the same run, resumed under its id");
  assert.match(trace.restored, /2 committed step/);
  assertShopRun(trace, await shop.evaluate(() => ({ currency: window.shop.currency, cart: window.shop.cart })));
  assert.deepEqual(await stored(panel, runId), { status: "succeeded", steps: trace.steps.map((s) => s.step) });
  assert.deepEqual(pageErrors, []);
  await Promise.all([panel.close(), shop.close()]);
});

test("Stop cancels the run under way: it ends cancelled, in the panel and in the store", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  const runId = await runScripted(panel, 1500);
  await panel.click("#stop");
  await panel.waitForSelector("#answer-card[data-success=false]", { timeout: 10_000 });
  assert.equal(await panel.locator("#run-status").textContent(), "cancelled");
  const { status, steps } = await stored(panel, runId);
  assert.equal(status, "cancelled");
  assert.deepEqual(steps, [1, 2], "the steps committed before the stop are kept");
  assert.deepEqual(await shop.evaluate(() => window.shop.cart), [], "nothing was added after the stop");
  assert.deepEqual(pageErrors, []);
  await Promise.all([panel.close(), shop.close()]);
});

test("the Prompt API where Chromium has no model: the run is refused with MODEL_UNAVAILABLE, shown in the panel", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  // Debian's Chromium exposes LanguageModel to extension pages and reports it unavailable.
  assert.equal(await panel.locator("#prompt-api-state").getAttribute("data-state"), "unavailable");
  await pickModel(panel, "prompt-api");
  await panel.click("#run");
  await panel.waitForSelector("#answer.failed");
  const shown = await panel.evaluate(() => ({
    answer: document.getElementById("answer").textContent,
    failure: [...document.querySelectorAll("#trace li.item[data-kind=failure]")].map((li) => li.textContent),
  }));
  assert.match(shown.answer, /could not start: Chrome's built-in model is not available/);
  assert.equal(shown.failure.length, 1);
  assert.match(shown.failure[0], /NotSupportedError[\s\S]*MODEL_UNAVAILABLE/);
  assert.equal(await panel.locator("#run").isDisabled(), false, "the panel can run again");
  assert.deepEqual(pageErrors, []);
  await Promise.all([panel.close(), shop.close()]);
});

test("built-in AI, then the fallbacks: with no Gemini Nano, the OpenAI-compatible server answers, through the host's fetch", async () => {
  const server = await openaiServer({
    ext: [
      completion({ thought: "Read the page for the price.", action: { tool: "read", args: {} } }),
      completion({ thought: "The page says it.", final_answer: "The Blue mug costs $12.00." }),
    ],
  });
  try {
    const { shop, tabId } = await openShop();
    const panel = await openPanel(tabId);
    await pickModel(panel, "auto", { "openai-url": `${server.url}/ext/v1`, "openai-model": "test", "gguf-url": "" });
    await panel.fill("#task", "What does the Blue mug cost?");
    await panel.click("#run");
    await panel.waitForSelector("#answer-card[data-success]", { timeout: 15_000 });
    const trace = await traceOf(panel);
    assert.equal(trace.success, "true");
    assert.equal(trace.answer, "The Blue mug costs $12.00.");
    assert.deepEqual(trace.steps.map((s) => s.tools[0] ?? null), ["read", null]);
    const posts = server.requests.filter((r) => r.method === "POST");
    assert.equal(posts.length, 2, "both steps came from the server");
    assert.match(JSON.stringify(posts[1].body), /Blue mug — \$12\.00/, "the second call saw the page's text");
    assert.deepEqual(pageErrors, []);
    await Promise.all([panel.close(), shop.close()]);
  } finally {
    await server.close();
  }
});

test("the GGUF backend: wllama's module and wasm start under the extension's CSP; a file that is no model stops the run", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  await pickModel(panel, "gguf", { "gguf-url": `${server.url}/tests/e2e/extension-site/not-a-model.gguf` });
  await panel.click("#run");
  await panel.waitForSelector("#answer-card[data-success=false]", { timeout: 30_000 });
  const shown = await panel.evaluate(() => document.getElementById("run-status").textContent);
  // wllama fetched the file and its wasm ran (llama.cpp aborted on it): no CSP refusal, no
  // network error, the model itself is unusable.
  assert.equal(shown, "stopped: MODEL_UNAVAILABLE");
  assert.match(await panel.locator("#answer").textContent(), /wllama/);
  assert.deepEqual(pageErrors, []);
  await Promise.all([panel.close(), shop.close()]);
});
