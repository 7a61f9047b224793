// End-to-end: the demo page (www/) as served by www/server.mjs, in headless Chromium. The scripted
// model runs a task while the fault panel makes the tools fail; the trace must show the recovery, and
// the history panel the run, its failure log and stats, its exports.
// Screenshots land in tests/e2e/artifacts/ (git-ignored) for a human to judge.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serveDemo } from "../../www/server.mjs";
import { completion, openaiServer } from "./openai-server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = join(HERE, "artifacts");

let server;
let ai;
let browser;
let page;
const pageErrors = [];

before(async () => {
  // No model files: the test never loads the real model, and the page must cope without it.
  server = await serveDemo({ modelsDir: mkdtempSync(join(tmpdir(), "keel-models-")) });
  // A model server whose model answers one step, then fails: at once (400) or after retries (500).
  const step = completion({ thought: "Look it up.", action: { tool: "get_weather", args: { city: "Paris" } } });
  ai = await openaiServer({
    fatal: [{ status: 400, body: { error: { message: "the model exploded" } } }],
    later: [step, { status: 500, body: { error: { message: "the model exploded" } } }],
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  collectErrors(page, pageErrors);
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true]");
});

after(async () => {
  await browser?.close();
  await server?.close();
  await ai?.close();
});

const toggle = (fault) => page.click(`label[for=fault-${fault}]`);
const items = (selector) =>
  page.$$eval(selector, (els) => els.map((el) => ({ ...el.dataset, text: el.textContent })));

test("the page is cross-origin isolated and finds no SmolLM2 file to offer", async () => {
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
  assert.match(await page.textContent('[data-backend=smollm2] .state'), /not fetched/);
  // Nothing usable but the scripted model here: it is the default, and a note says why and how
  // to pick a real model.
  assert.equal(await page.$eval("input[name=backend]:checked", (i) => i.value), "scripted");
  const note = await page.textContent("#backend-note:not([hidden])");
  assert.match(note, /Chrome's built-in AI is (unavailable on this device|not in this browser) and SmolLM2 is not fetched/);
  assert.match(note, /\.\/build\.sh demo.*OpenAI-compatible server/s);
  // The model's download progress sits by the Run button.
  assert.equal(await page.$eval("#progress", (p) => p.closest(".card").id), "task-card");
  // A new browser profile: the history panel has read an empty store.
  assert.match(await page.textContent("#history-card [data-part=runs]"), /No runs yet/);
  assert.equal(await page.textContent("#history-card [data-total=runs]"), "0");
});

test("a scripted run with faults: retries with their delays, failures with envelopes, the answer", async () => {
  await page.check("input[name=backend][value=scripted]");
  for (const fault of ["timeout", "unavailable", "rateLimited", "stale", "wrongArgs"]) await toggle(fault);
  await page.fill("#task", "What's the weather in Paris? Then subscribe me to the newsletter and tell me my latest invoice.");
  await page.click("#run");
  await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });

  // Transient faults, retried by the runtime with their delay shown.
  const retries = await items(".item.retry");
  const unavailable = retries.find((r) => r.code === "UNAVAILABLE");
  const rate = retries.find((r) => r.code === "RATE_LIMITED");
  assert.match(retries.find((r) => r.code === "TIMEOUT")?.text ?? "", /get_weather failed with TIMEOUT/);
  assert.ok(unavailable, JSON.stringify(retries));
  assert.match(unavailable.text, /list_invoices failed with UNAVAILABLE \(attempt 1\)/);
  assert.ok(Number(rate.delayMs) >= 2000, `Retry-After honoured: ${rate.delayMs} ms`);
  assert.match(rate.text, /retried after 2\.\d s/);

  // Persistent faults: class, code and the recovery envelope the model got.
  const failures = await items(".item.failure");
  const stale = failures.find((f) => f.code === "STALE_REFERENCE");
  assert.equal(stale.class, "persistent");
  assert.match(stale.text, /Recovery envelope/);
  assert.match(stale.text, /Call `snapshot` to get fresh refs\./);
  const wrong = failures.find((f) => f.code === "INVALID_ARGS");
  assert.equal(wrong?.class, "persistent", JSON.stringify(failures.map((f) => f.code)));
  assert.match(wrong.text, /city/);
  const transient = failures.filter((f) => f.class === "transient").map((f) => f.code);
  assert.deepEqual(transient.sort(), ["RATE_LIMITED", "TIMEOUT", "UNAVAILABLE"]);

  // Thought / action / observation, then the answer and the stats.
  assert.ok((await items(".item.thought")).length >= 5);
  assert.ok((await items(".item.action")).some((a) => /snapshot/.test(a.text)));
  assert.ok((await items('.item.observation[data-outcome="warning"]')).some((o) => /first page/.test(o.text)));
  assert.equal(await page.getAttribute("#answer-card", "data-success"), "true");
  const answer = await page.textContent("#answer");
  assert.match(answer, /INV-1042/);
  assert.match(answer, /18°C, light rain in Paris/);
  const stat = (k) => page.textContent(`[data-stat=${k}]`);
  assert.equal(await stat("faults"), "5");
  assert.equal(await stat("retried"), "3");
  assert.equal(await stat("recovered"), "5");
  assert.equal(await stat("rate"), "100%");

  mkdirSync(ARTIFACTS, { recursive: true });
  // The page at the top, the trace scrolled to the first retry.
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    const list = document.querySelector("#trace");
    const first = list.querySelector(".item.failure");
    list.scrollTop = first.offsetTop - list.offsetTop - 120;
  });
  await page.screenshot({ path: join(ARTIFACTS, "demo.png") });
  await page.evaluate(() => {
    const list = document.querySelector("#trace");
    list.scrollTop = list.querySelector(".item.retry").offsetTop - list.offsetTop - 200;
  });
  await page.screenshot({ path: join(ARTIFACTS, "demo-retries.png") });
  await page.evaluate(() => window.scrollTo(0, document.querySelector("#backend-card").offsetTop - 80));
  await page.screenshot({ path: join(ARTIFACTS, "demo-controls.png") });
  await page.screenshot({ path: join(ARTIFACTS, "demo-full.png"), fullPage: true });
});

test("the history panel shows the run just made, its failure log and stats, exports it, and clears", async () => {
  const row = await page.waitForSelector("#history-card tr[data-run-id]");
  const runId = await row.getAttribute("data-run-id");
  const cells = (sel) => page.$$eval(sel, (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim())));
  const runs = await cells("#history-card [data-part=runs] tbody tr");
  assert.equal(runs.length, 1, JSON.stringify(runs));
  const [task, status, steps, faults, recovered, time, exports] = runs[0];
  assert.match(task, /weather in Paris/);
  assert.deepEqual([status, steps, faults, recovered], ["succeeded", await page.textContent("[data-stat=steps]"), "5", "5"]);
  assert.match(time, /\d:\d\d:\d\d\b.* · \d+\.\d s$/);
  assert.equal(exports, "JSON OTLP");

  // The failure log: each fault with its tool, code, class, attempt and whether it was recovered.
  const log = await items("#history-card [data-part=failures] tbody tr");
  const byCode = Object.fromEntries(log.map((f) => [f.code, f]));
  assert.deepEqual(Object.keys(byCode).sort(), ["INVALID_ARGS", "RATE_LIMITED", "STALE_REFERENCE", "TIMEOUT", "UNAVAILABLE"]);
  assert.deepEqual([byCode.STALE_REFERENCE.tool, byCode.STALE_REFERENCE.class], ["click", "persistent"]);
  assert.deepEqual([byCode.UNAVAILABLE.tool, byCode.UNAVAILABLE.class], ["list_invoices", "transient"]);
  assert.ok(log.every((f) => f.recovered === "true"), JSON.stringify(log));
  assert.match(byCode.STALE_REFERENCE.text, /e5/);

  // The stats, in total and by tool and by code.
  const total = (k) => page.textContent(`#history-card [data-total=${k}]`);
  assert.deepEqual([await total("runs"), await total("faults"), await total("retried"), await total("recovered"), await total("rate")], ["1", "5", "3", "5", "100%"]);
  const tools = Object.fromEntries((await cells("#history-card [data-part=by-tool] tbody tr")).map(([k, ...v]) => [k, v]));
  assert.deepEqual(tools.get_weather, ["2", "1", "2", "100%"], JSON.stringify(tools));
  assert.deepEqual(tools.list_invoices, ["1", "1", "1", "100%"]);
  const codes = Object.fromEntries((await cells("#history-card [data-part=by-code] tbody tr")).map(([k, ...v]) => [k, v]));
  assert.deepEqual(codes.RATE_LIMITED, ["1", "1", "1", "100%"], JSON.stringify(codes));

  // The run's exports, as downloaded files.
  const download = async (kind) => {
    const [file] = await Promise.all([page.waitForEvent("download"), page.click(`tr[data-run-id="${runId}"] a[data-export=${kind}]`)]);
    return { name: file.suggestedFilename(), data: JSON.parse(readFileSync(await file.path(), "utf8")) };
  };
  const json = await download("json");
  assert.equal(json.name, `keel-${runId}.json`);
  assert.deepEqual(json.data.runs.map((r) => [r.id, r.status]), [[runId, "succeeded"]]);
  assert.equal(String(json.data.turns.length), steps);
  assert.equal(json.data.failures.length, log.length);
  const otlp = await download("otlp");
  assert.equal(otlp.name, `keel-${runId}.otlp.json`);
  const spans = otlp.data.resourceSpans[0].scopeSpans[0].spans;
  assert.equal(spans.filter((s) => s.name === "run").length, 1);
  assert.equal(spans.filter((s) => s.name.startsWith("step ")).length, Number(steps));

  await (await page.$("#history-card")).screenshot({ path: join(ARTIFACTS, "demo-history.png") });

  // Clear history: the session's records go, and the panel says so.
  await page.click("#history-card [data-action=clear]");
  const cleared = `Cleared 1 run, ${steps} steps and ${log.length} failures.`;
  await page.waitForFunction((text) => document.querySelector("#history-card [data-part=note]").textContent === text, cleared);
  assert.match(await page.textContent("#history-card [data-part=runs]"), /No runs yet/);
  assert.match(await page.textContent("#history-card [data-part=failures]"), /No failures yet/);
  assert.equal(await total("faults"), "0");
});

test("a backend that cannot start shows its structured error", async () => {
  // Debian's Chromium has LanguageModel but no model: Agent.create fails with MODEL_UNAVAILABLE.
  await page.check("input[name=backend][value=prompt-api]");
  await page.click("#run");
  await page.waitForSelector("#backend-error:not([hidden])");
  assert.match(await page.textContent("#backend-error"), /MODEL_UNAVAILABLE/);
  assert.match(await page.textContent("#answer"), /could not start/);
  await page.check("input[name=backend][value=scripted]");
});

test("the OpenAI backend is ready only once its server answered; an unreachable one says so and does not run", async () => {
  // A port nothing listens on: one a server had, closed again.
  const closed = await openaiServer({});
  await closed.close();
  const dead = `${closed.url}/v1`;
  await page.check("input[name=backend][value=openai]");
  await page.fill("#openai-url", dead);
  await page.dispatchEvent("#openai-url", "change");
  const state = "[data-backend=openai] .state";
  await page.waitForFunction((sel) => !/checking/.test(document.querySelector(sel).textContent), state);
  assert.equal(await page.textContent(state), "not reachable");
  assert.equal((await page.getAttribute(state, "title")).split(" could")[0], `${dead}/models`);
  assert.match(await page.getAttribute(state, "title"), /could not be reached: start the server/);
  await page.click("#run");
  await page.waitForSelector("#backend-error:not([hidden])");
  assert.match(await page.textContent("#backend-error"), /could not be reached: start the server .*CORS/);
  assert.equal(await page.textContent("#run-status"), "Server not reachable");

  await page.fill("#openai-url", `${ai.url}/later/v1`);
  await page.dispatchEvent("#openai-url", "change");
  await page.waitForFunction((sel) => /ready/.test(document.querySelector(sel).textContent), state);
  assert.equal(await page.textContent(state), "ready · serves local");
  assert.ok(ai.requests.some((r) => r.method === "GET" && r.path === "/later/v1/models"));
  // What Chromium logs for each probe of a closed port (the default URL's, then the dead one's).
  const refused = pageErrors.filter((e) => /net::ERR_CONNECTION_REFUSED/.test(e));
  assert.ok(refused.length >= 2, JSON.stringify(pageErrors));
  pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((e) => !refused.includes(e)));
});

/** Runs `task` on the OpenAI backend at `route` and waits for its end. */
async function runOn(route, task) {
  await page.check("input[name=backend][value=openai]");
  await page.fill("#openai-url", `${ai.url}/${route}/v1`);
  await page.dispatchEvent("#openai-url", "change");
  await page.waitForFunction(() => /ready/.test(document.querySelector("[data-backend=openai] .state").textContent));
  await page.fill("#task", task);
  await page.click("#run");
  await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
  await page.waitForFunction(() => !document.body.classList.contains("running"));
}

/** The trace's step groups, in order. */
const stepGroups = () => page.$$eval("#trace li.step", (els) => els.map((el) => Number(el.dataset.step)));
/** The step group the final answer sits in (-1 outside any). */
const finalIn = () => page.$eval("#trace .item.final", (el) => Number(el.closest("li.step")?.dataset.step ?? -1));
/** The runs in the history panel. */
const historyRuns = () => page.$$eval("#history-card tr[data-run-id]", (rows) => rows.length);
/** The failure log's rows in the history panel, once it has at least `n`. */
async function logRows(n) {
  await page.waitForFunction((n) => document.querySelectorAll("#history-card [data-part=failures] tbody tr[data-code]").length >= n, n);
  return page.$$eval("#history-card [data-part=failures] tbody tr[data-code]", (rows) => rows.length);
}

/**
 * What a run whose model failed in step `step` must read like: the steps in order, ending in that
 * step; each failed attempt a row, the stop, then the runtime's account (not the agent's answer) in
 * red with no check mark; the stats' steps those of the trace; "1 fault".
 */
async function assertModelFailedRun({ runs, step, code, attempts, stopMessage }) {
  // The history panel is read again once the run ended.
  await page.waitForFunction((n) => document.querySelectorAll("#history-card tr[data-run-id]").length === n, runs);
  assert.deepEqual(await stepGroups(), Array.from({ length: step }, (_, i) => i + 1), "steps in order, no step 0");
  assert.equal(await finalIn(), step, "the runtime's account sits in the step the model failed in");
  assert.equal(await page.textContent("[data-stat=steps]"), String(step), "the stats' steps are the trace's");
  const rows = await page.$$eval(`#trace li[data-step='${step}'] .item`, (els) => els.map((el) => ({ ...el.dataset, text: el.textContent })));
  // Each failed attempt is a failure row, as in the failure log; the retried ones have a retry row.
  const failed = rows.filter((r) => r.kind === "failure");
  assert.deepEqual(failed.map((f) => [f.code, f.attempt]), Array.from({ length: attempts }, (_, i) => [code, String(i + 1)]), JSON.stringify(rows));
  assert.equal(rows.filter((r) => r.kind === "retry").length, attempts - 1);
  // Then the stop, once, then the runtime's account, relabelled so it does not read as the agent's.
  const stop = rows.findIndex((r) => r.kind === "stop");
  assert.ok(stop > rows.findLastIndex((r) => r.kind === "failure"), JSON.stringify(rows));
  assert.equal(rows[stop].code, code);
  if (stopMessage) assert.match(rows[stop].text, stopMessage);
  assert.equal(rows.filter((r) => r.kind === "stop").length, 1);
  assert.equal(rows[stop + 1].kind, "final", "the stop comes just before the runtime's account");
  assert.match(rows[stop + 1].text, /^No answer from the agent · the runtime's account/);
  assert.equal(await page.$$eval("#trace .item.final.ok", (els) => els.length), 0);
  // No green check in the red card: the incomplete answer wears the failure mark, in red.
  const marks = await page.$eval("#trace .item.final.failed .icon", (el) => ({
    icon: el.innerHTML,
    failure: document.querySelector("#trace .item.failure .icon").innerHTML,
    color: getComputedStyle(el).color,
    bad: getComputedStyle(document.querySelector(".badge.fatal")).color,
  }));
  assert.equal(marks.icon, marks.failure);
  assert.equal(marks.color, marks.bad);
  // The answer card says the run stopped, not the engine's message as if the agent wrote it.
  const answer = await page.textContent("#answer");
  assert.match(answer, new RegExp(`^No answer: the run stopped on ${code} before the agent answered\\. `));
  assert.doesNotMatch(answer, /I could not complete the task/);
  assert.equal(await page.getAttribute("#answer-card", "data-success"), "false");
  assert.equal(await page.textContent("[data-stat=faults]"), "1");
  // "1 fault" in words, and as many failed attempts as the trace has failure rows.
  const end = await page.textContent("#trace .item.end .muted");
  const retried = attempts > 1 ? 1 : 0;
  assert.equal(end, `1 fault · ${retried} retried · 0 recovered${attempts > 1 ? ` · ${attempts} failed attempts` : ""}`);
  // The history's newest run: failed, with the trace's steps and one fault.
  const newest = await page.$$eval("#history-card [data-part=runs] tbody tr:first-child td", (tds) => tds.map((td) => td.textContent.trim()));
  assert.deepEqual(newest.slice(1, 5), ["failed", String(step), "1", "0"]);
}

test("a run whose model fails reads correctly: steps in order, no check mark, no engine error as the answer", async () => {
  // No fault switched on: the only failures are the model's.
  for (const key of await page.$$eval("input[data-fault]:checked", (els) => els.map((el) => el.dataset.fault))) await toggle(key);
  const before = await logRows(0);
  const runs = await historyRuns();

  // The first model call fails for good (HTTP 400): step 1, its one failure, no "Step 0".
  await runOn("fatal", "What's the weather in Paris?");
  await assertModelFailedRun({ runs: runs + 1, step: 1, code: "MODEL_REQUEST_REJECTED", attempts: 1 });
  // The stop does not repeat the failure's message, which the failure row shows.
  assert.equal(await page.$$eval("#trace .item.stop p", (els) => els.length), 0);
  assert.equal(await logRows(before + 1), before + 1, "the trace's failure rows are the log's");

  // One step, then the model fails three times (HTTP 500): each attempt in step 2, then the stop.
  await runOn("later", "What's the weather in Paris?");
  await assertModelFailedRun({ runs: runs + 2, step: 2, code: "UNAVAILABLE", attempts: 3, stopMessage: /The model failed 3 time\(s\); last: HTTP 500/ });
  assert.equal(await logRows(before + 4), before + 4);
  const total = (k) => page.textContent(`#history-card [data-total=${k}]`);
  assert.equal(await total("attempts"), String(before + 4));
  await page.check("input[name=backend][value=scripted]");
  await page.screenshot({ path: join(ARTIFACTS, "demo-model-failed.png"), fullPage: true });
});

test("the scripted model going down mid-run reads the same way", async () => {
  await page.check("input[name=backend][value=scripted]");
  await toggle("modelDown");
  const before = await logRows(0);
  const runs = await historyRuns();
  await page.fill("#task", "What's the weather in Paris?");
  await page.click("#run");
  await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
  await page.waitForFunction(() => !document.body.classList.contains("running"));
  await toggle("modelDown");
  // Step 1 ran get_weather; step 2's calls failed with 503: retried twice, then the run stopped.
  assert.match(await page.textContent("#trace li[data-step='1'] .item.action"), /get_weather/);
  await assertModelFailedRun({ runs: runs + 1, step: 2, code: "UNAVAILABLE", attempts: 3, stopMessage: /The model failed 3 time\(s\); last: The scripted model is down/ });
  assert.equal(await logRows(before + 3), before + 3, "the trace's three failure rows are the log's three");
  await page.screenshot({ path: join(ARTIFACTS, "demo-model-down.png"), fullPage: true });
});

test("keel-agent/wllama: { wllama } needs its entry point; a model that cannot load fails create() with a structured error", async () => {
  const other = await browser.newPage();
  try {
    await other.goto(server.url);
    await other.waitForSelector("body[data-ready=true]");
    const r = await other.evaluate(async () => {
      const { Agent, KeelError } = await import("keel-agent");
      const tryCreate = (modelUrl) =>
        Agent.create({ model: { wllama: { modelUrl } } }).then(
          (agent) => (agent.dispose(), { rejected: false }),
          (e) => ({ rejected: true, name: e.name, sourceName: e.sourceName, code: e.code, message: e.message }),
        );
      const before = await tryCreate("/models/SmolLM2-135M-Instruct.Q4_1.gguf");
      const { wllamaModel } = await import("keel-agent/wllama");
      const missing = await tryCreate("/models/missing.gguf");
      let threw = "";
      try {
        wllamaModel({});
      } catch (e) {
        threw = e.name;
      }
      // keel-agent's index.js is one file with its own KeelError; keel-agent/wllama's checks throw
      // theirs: `instanceof` holds across the two.
      let unknown = {};
      try {
        wllamaModel({ modelUrl: "/models/missing.gguf", threads: 2 });
      } catch (e) {
        unknown = { code: e.code, path: e.path, isKeelError: e instanceof KeelError && KeelError.isInstance(e) };
      }
      return { before, missing, threw, unknown };
    });
    assert.deepEqual(
      [r.before.rejected, r.before.name, r.before.sourceName, r.before.code],
      [true, "KeelError", "NotSupportedError", "MODEL_UNAVAILABLE"],
    );
    assert.match(r.before.message, /import "keel-agent\/wllama"/);
    assert.equal(r.missing.rejected, true);
    assert.equal(r.missing.name, "KeelError");
    assert.ok(["NetworkError", "NotSupportedError"].includes(r.missing.sourceName), JSON.stringify(r.missing));
    assert.match(r.missing.message, /missing\.gguf/);
    assert.equal(r.threw, "TypeError");
    assert.deepEqual(r.unknown, { code: "INVALID_CONFIG", path: "threads", isKeelError: true });
  } finally {
    await other.close();
  }
});

test("a payment waits for the user's approval in the trace: approved it runs, rejected the model is told", async () => {
  await page.check("input[name=backend][value=scripted]");
  for (const [click, answer] of [["approve", /INV-1042 is paid/], ["reject", /you rejected the payment of INV-1042/i]]) {
    await page.fill("#task", "Pay my latest invoice.");
    await page.click("#run");
    await page.waitForSelector(".item.approval button.approve:not([disabled])");
    const waiting = await items(".item.approval");
    assert.equal(waiting.length, 1);
    assert.match(waiting[0].text, /Waiting for your approval: pay_invoice\{"id":"INV-1042"\}/);
    await page.click(`.item.approval button.${click}`);
    await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
    await page.waitForFunction(() => !document.body.classList.contains("running"));
    const decided = await items(".item.decision");
    assert.deepEqual(decided.map((d) => d.approved), [String(click === "approve")]);
    assert.match(await page.textContent("#answer"), answer);
    if (click === "approve") {
      // The demo's payment API dedupes by the idempotency key keel gives the call (`<runId>:<step>`).
      assert.match(await page.textContent("#trace"), /Paid INV-1042 \(.+\), payment key run-\d+-[0-9a-z]+:\d+\./);
    }
    if (click === "reject") {
      const failures = await items(".item.failure");
      assert.ok(failures.some((f) => f.code === "APPROVAL_REJECTED"), JSON.stringify(failures));
    }
  }
});

test("a follow-up reads the conversation: the earlier exchange is shown and the new city is used", async () => {
  await page.check("input[name=backend][value=scripted]");
  for (const fault of await page.$$eval("input[data-fault]:checked", (els) => els.map((el) => el.dataset.fault))) await toggle(fault);
  const ask = async (task) => {
    await page.fill("#task", task);
    await page.click("#run");
    await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
    await page.waitForFunction(() => !document.body.classList.contains("running"));
  };
  await ask("What's the weather in Paris?");
  await ask("And in Tokyo?");
  // The scripted model planned the follow-up from the session's earlier task (the prompt recalls it).
  assert.match(await page.textContent("#answer"), /21°C.*Tokyo/);
  assert.doesNotMatch(await page.textContent("#answer"), /Paris/);
  const earlier = await items("#conversation:not([hidden]) li");
  assert.ok(earlier.length >= 1, "the conversation is shown");
  const last = earlier.at(-1);
  assert.equal(last.status, "succeeded");
  assert.match(last.text, /What's the weather in Paris\?.*Paris/s);
  // The answer shown below is not repeated above it.
  assert.ok(earlier.every((x) => !/And in Tokyo/.test(x.text)), JSON.stringify(earlier));
});

test("while the model writes a step, the live trace shows its text as it streams, then the parsed step", async () => {
  await page.check("input[name=backend][value=scripted]");
  // Watch the trace: every streaming row's text and answer-so-far as they grow.
  await page.evaluate(() => {
    window.streamSeen = [];
    const seen = new Map();
    window.streamObserver = new MutationObserver(() => {
      for (const row of document.querySelectorAll("#trace .item.streaming")) {
        const step = row.closest("li.step")?.dataset.step;
        const now = { step, text: row.querySelector(".stream-text").textContent, answer: row.querySelector(".stream-answer").textContent };
        if (!seen.has(row)) window.streamSeen.push(now);
        seen.set(row, now);
        Object.assign(window.streamSeen[window.streamSeen.length - 1], now);
      }
    });
    window.streamObserver.observe(document.querySelector("#trace"), { childList: true, subtree: true, characterData: true });
  });
  await page.fill("#task", "What's the weather in London?");
  await page.click("#run");
  await page.waitForSelector("#trace .item.streaming .stream-text:not(:empty)", { timeout: 30_000 });
  await page.waitForSelector("#answer-card[data-success]", { timeout: 30_000 });
  await page.waitForFunction(() => !document.body.classList.contains("running"));
  const seen = await page.evaluate(() => {
    window.streamObserver.disconnect();
    return window.streamSeen;
  });
  // Step 1's call, then the answer's step, each seen as it was written; the answer's text grew in it.
  const first = seen.find((s) => s.step === "1");
  assert.match(first?.text ?? "", /"action":\{"tool":"get_weather","args":\{"city":"London"/, JSON.stringify(seen));
  const last = seen.at(-1);
  assert.match(last.text, /"final_answer"/);
  const answer = await page.textContent("#answer");
  assert.equal(last.answer, `Answer so far: ${answer}`);
  // Once a step is parsed its streaming row gives way to the thought, action and answer.
  assert.equal(await page.$$eval("#trace .item.streaming", (rows) => rows.length), 0);
  assert.ok((await items(".item.action")).some((a) => /get_weather/.test(a.text)));
});

test("no uncaught errors in the demo page", () => {
  assert.deepEqual(pageErrors, []);
});
