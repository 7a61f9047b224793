// The example extension (www/extension/, assembled into dist/extension/ by ./build.sh extension or
// test), loaded unpacked into headless Chromium: a scripted-model task on the fixture shop
// (tests/fixtures/site/) through the side panel and the DOM tools — a link that navigates, a stale
// ref the run recovers from, back — with the panel closed and reopened mid-run (the run goes on in
// the host), and the host closed mid-run (a new host resumes the run from IndexedDB); Stop; the
// model backends as the extension runs them; navigate and its failures. Headless Chromium cannot open the real side
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

const site = (path) => `${server.url}/tests/fixtures/site/${path}`;

/** A fresh shop tab on its home page; resolves to its page and its chrome tab id. */
async function openShop() {
  const shop = await context.newPage();
  collectErrors(shop, pageErrors);
  const url = site(`index.html?tab=${++shops}`);
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
  await panel.fill("#task", "Find the deal code for the Blue mug on the Deals page, then go back to where you started.");
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
      observation: li.querySelector("li.item[data-kind=observation] pre")?.textContent ?? "",
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
 * The checks both runs share: home, the Deals link (a navigation), a snapshot of Deals, "Show code"
 * (which re-renders the list), the same ref again (stale: the runtime calls `snapshot` itself, the
 * DOM tools' `recoverWith`, and the observation holds the fresh refs), the fresh ref, the code read,
 * back home.
 */
function assertDealsRun(trace) {
  const tools = trace.steps.map((s) => s.tools[0] ?? null);
  assert.deepEqual(tools, ["snapshot", "click", "snapshot", "click", "click", "click", "read", "back", null], JSON.stringify(trace.steps));
  assert.deepEqual(trace.steps.map((s) => s.step), tools.map((_, i) => i + 1));
  assert.deepEqual(trace.steps[3].codes, [], "the first Show code click works (and re-renders the list)");
  assert.ok(trace.steps[4].codes.includes("STALE_REFERENCE"), `the same ref again is stale: ${JSON.stringify(trace.steps[4])}`);
  assert.deepEqual(trace.steps[4].args, trace.steps[3].args, "it was the ref from before the re-render");
  assert.match(trace.steps[4].observation, /STALE_REFERENCE[\s\S]*page "Deals"/, "the failure and the runtime's fresh snapshot");
  const fresh = trace.steps.at(-4);
  assert.deepEqual([fresh.tools[0], fresh.codes], ["click", []], "the click on the fresh ref works");
  assert.equal(trace.success, "true");
  assert.equal(trace.answer, "The deal code for the Blue mug is MUG-15.");
}

test("the manifest asks for no more than the README justifies, and a CSP with only 'wasm-unsafe-eval' added", () => {
  const manifest = JSON.parse(readFileSync(join(EXT, "manifest.json"), "utf8"));
  assert.deepEqual(manifest.permissions, ["sidePanel", "offscreen", "scripting"]);
  assert.deepEqual(manifest.host_permissions, ["<all_urls>"]);
  assert.equal(manifest.content_security_policy.extension_pages, "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'");
});

test("a task through the panel: a navigation, a stale ref recovered, back; the panel closed and reopened mid-run", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  const runId = await runScripted(panel, 600);
  assert.match(shop.url(), /\/deals\.html$/, "step 2's link click opened Deals, and the tools waited for it");
  await panel.close();
  // The run goes on with no panel open: it clicks, reads and goes back home while it is closed.
  await shop.waitForURL(/\/index\.html\?tab=/, { timeout: 20_000 });
  const reopened = await openPanel(tabId);
  await reopened.waitForSelector("#answer-card[data-success]", { timeout: 15_000 });
  const trace = await traceOf(reopened);
  assert.equal(trace.runId, runId, "the reopened panel shows the same run");
  assert.equal(trace.restored, null, "the run was never cut off: nothing to restore");
  assertDealsRun(trace);
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
  // Steps 1 and 2 are committed, step 3's model call is waiting: close the host (its worker goes too).
  await worker.evaluate(() => chrome.offscreen.closeDocument());
  // What the store holds of the run now, before a new host goes on with it.
  const cut = await stored(panel, runId);
  assert.equal(cut.status, "running");
  assert.ok(cut.steps.length >= 2, JSON.stringify(cut));
  await panel.waitForSelector("#trace [data-kind=restored]", { timeout: 15_000 });
  await panel.waitForSelector("#answer-card[data-success]", { timeout: 15_000 });
  const trace = await traceOf(panel);
  assert.equal(trace.runId, runId, "the same run, resumed under its id");
  assert.match(trace.restored, new RegExp(`: ${cut.steps.length} committed step`), "resumed from what was committed");
  assertDealsRun(trace);
  assert.deepEqual(await stored(panel, runId), { status: "succeeded", steps: trace.steps.map((s) => s.step) });
  assert.match(shop.url(), /\/index\.html\?tab=/, "back home");
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
  // Stopped during step 3's model call (the steps are 1.5 s apart): steps 1 and 2 are kept.
  assert.deepEqual(steps, [1, 2], "the steps committed before the stop are kept");
  assert.equal(await shop.locator("#notice").textContent(), "Pick a deal to see its code.", "no click after the stop");
  assert.deepEqual(pageErrors, []);
  await Promise.all([panel.close(), shop.close()]);
});

test("the Prompt API where Chromium has no model: the run is refused with MODEL_UNAVAILABLE, shown in the panel", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  // Debian's Chromium exposes LanguageModel to extension pages and reports it unavailable.
  assert.equal(await panel.locator("#prompt-api-state").getAttribute("data-state"), "unavailable");
  await pickModel(panel, "prompt-api");
  await panel.fill("#task", "What is on this page?");
  await panel.click("#run");
  await panel.waitForSelector("#answer.failed");
  const shown = await panel.evaluate(() => ({
    answer: document.getElementById("answer").textContent,
    failure: [...document.querySelectorAll("#trace li.item[data-kind=failure]")].map((li) => li.textContent),
  }));
  assert.match(shown.answer, /could not start: Chrome's built-in model is not available/);
  assert.equal(shown.failure.length, 1);
  assert.match(shown.failure[0], /KeelError[\s\S]*MODEL_UNAVAILABLE/);
  assert.equal(await panel.locator("#run").isDisabled(), false, "the panel can run again");
  assert.deepEqual(pageErrors, []);
  await Promise.all([panel.close(), shop.close()]);
});

test("built-in AI, then the fallbacks: with no Gemini Nano, the OpenAI-compatible server answers, through the host's fetch", async () => {
  const server = await openaiServer({
    ext: [
      completion({ thought: "Read the page for the price.", action: { tool: "read", args: {} } }),
      completion({ thought: "The page says it.", final_answer: "Free delivery from €50." }),
    ],
  });
  try {
    const { shop, tabId } = await openShop();
    const panel = await openPanel(tabId);
    await pickModel(panel, "auto", { "openai-url": `${server.url}/ext/v1`, "openai-model": "test", "gguf-url": "" });
    await panel.fill("#task", "From what amount is delivery free?");
    await panel.click("#run");
    await panel.waitForSelector("#answer-card[data-success]", { timeout: 15_000 });
    const trace = await traceOf(panel);
    assert.equal(trace.success, "true");
    assert.equal(trace.answer, "Free delivery from €50.");
    assert.deepEqual(trace.steps.map((s) => s.tools[0] ?? null), ["read", null]);
    const posts = server.requests.filter((r) => r.method === "POST");
    assert.equal(posts.length, 2, "both steps came from the server");
    assert.match(JSON.stringify(posts[1].body), /Household goods since 1921/, "the second call saw the page's text");
    assert.deepEqual(pageErrors, []);
    await Promise.all([panel.close(), shop.close()]);
  } finally {
    await server.close();
  }
});

test("the GGUF backend: wllama's module and wasm start under the extension's CSP; a file that is no model stops the run", async () => {
  const { shop, tabId } = await openShop();
  const panel = await openPanel(tabId);
  await pickModel(panel, "gguf", { "gguf-url": `${server.url}/tests/fixtures/not-a-model.gguf` });
  await panel.fill("#task", "What is on this page?");
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

test("navigate (chrome.tabs) and back (the page's history): a page opens and is listed, an HTTP 404 fails with NAVIGATION_FAILED, back returns", async () => {
  const { shop, tabId } = await openShop();
  const model = await openaiServer({
    nav: [
      completion({ thought: "Open the price list.", action: { tool: "navigate", args: { url: site("prices.html") } } }),
      completion({ thought: "Open a page that is not there.", action: { tool: "navigate", args: { url: site("missing.html") } } }),
      completion({ thought: "Go back to the price list.", action: { tool: "back", args: {} } }),
      completion({ thought: "Done.", final_answer: "Back on the price list." }),
    ],
  });
  try {
    const panel = await openPanel(tabId);
    await pickModel(panel, "openai", { "openai-url": `${model.url}/nav/v1`, "openai-model": "test" });
    await panel.fill("#task", "Open the price list.");
    await panel.click("#run");
    await panel.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
    const shown = await panel.evaluate(() =>
      [...document.querySelectorAll("#trace > li.step")].map((li) => ({
        codes: [...li.querySelectorAll("li.item[data-code]")].map((i) => i.dataset.code),
        observation: li.querySelector("li.item[data-kind=observation] pre")?.textContent ?? "",
      })),
    );
    assert.equal(shown.length, 4, JSON.stringify(shown));
    assert.deepEqual(shown[0].codes, [], JSON.stringify(shown));
    assert.match(shown[0].observation, /^Opened .*prices\.html\.\npage "Price list"/);
    assert.deepEqual(shown[1].codes, ["NAVIGATION_FAILED"]);
    assert.match(shown[1].observation, /HTTP 404/);
    assert.deepEqual(shown[2].codes, [], JSON.stringify(shown[2]));
    assert.match(shown[2].observation, /^Went back\.\npage "Price list"/);
    assert.match(shop.url(), /\/prices\.html$/);
    assert.deepEqual(pageErrors.filter((e) => !/404/.test(e)), [], "only the missing page's own 404");
    await panel.close();
  } finally {
    await model.close();
    await shop.close();
  }
});
