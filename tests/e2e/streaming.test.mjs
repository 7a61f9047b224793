// End-to-end: streaming in headless Chromium. The Prompt API fake's `promptStreaming` (a
// ReadableStream of chunks, per the spec), custom models with `onText`, and an OpenAI-compatible
// server's server-sent events reach the page as `token` and `answerDelta` events while the step is
// generated; a stream broken mid-way is told as discarded and retried; cancelling mid-stream ends cleanly.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serve } from "./server.mjs";
import { openaiServer, streamed } from "./openai-server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const act = (tool, args) => ({ thought: `call ${tool}`, action: { tool, args } });
const answer = (text) => ({ thought: "done", final_answer: text });

let site;
let api;
let browser;
let page;
const pageErrors = [];

before(async () => {
  site = await serve(ROOT);
  api = await openaiServer({
    sse: [streamed(act("lookup", { id: "a" }), { delayMs: 10 }), streamed(answer("Record a is \"found\".\nAll good."), { delayMs: 10 })],
    broken: [streamed(answer("Half of this"), { cutAfter: 4, delayMs: 20 }), streamed(answer("Whole this time."))],
    slow: [streamed(answer("Too slow to finish."), { chunkChars: 3, delayMs: 150 })],
  });
  browser = await launchChromium();
  page = await browser.newPage();
  collectErrors(page, pageErrors);
  // A loaded machine (the benchmarks share it) can take long to start the page.
  await page.goto(`${site.url}/tests/e2e/page.html`, { timeout: 120_000 });
  await page.waitForFunction(() => window.scenariosLoaded === true, null, { timeout: 120_000 });
});

after(async () => {
  await browser?.close();
  await api?.close();
  await site?.close();
});

const scenario = (name, args = {}) =>
  page.evaluate(
    async ([n, a]) => (await import("/tests/e2e/streaming-scenarios.js"))[n](a),
    [name, { server: api.url, ...args }],
  );

/** The text the page holds per step: tokens appended, emptied at each discard. */
function shown(events, kind) {
  const by = {};
  for (const e of events) {
    if (e.type === "tokensDiscarded") by[e.step] = { token: "", answerDelta: "" };
    if (e.type !== "token" && e.type !== "answerDelta") continue;
    by[e.step] ??= { token: "", answerDelta: "" };
    by[e.step][e.type] += e.text;
  }
  return Object.fromEntries(Object.entries(by).map(([step, texts]) => [step, texts[kind]]).filter(([, text]) => text));
}

test("Prompt API: promptStreaming's chunks arrive as token events, the answer as answerDelta, before the step ends", async () => {
  const { events, result, replies, streamed: chunks, streaming } = await scenario("promptApiStreams");
  assert.equal(result.success, true, JSON.stringify(result.reason));
  assert.equal(result.answer, "Record a: found, “all good” 🎉.");
  assert.deepEqual(streaming, [true, true], "each step asked with promptStreaming");
  assert.deepEqual(shown(events, "token"), { 1: replies[0], 2: replies[1] });
  assert.deepEqual(shown(events, "answerDelta"), { 2: result.answer });
  assert.equal(events.filter((e) => e.type === "token").length, chunks.length, "one event per chunk of the stream");
  const index = (pred) => events.findIndex(pred);
  assert.ok(index((e) => e.type === "token" && e.step === 2) < index((e) => e.type === "thought" && e.step === 2));
  assert.ok(index((e) => e.type === "answerDelta") < index((e) => e.type === "finalAnswer"));
  assert.deepEqual(pageErrors, []);
});

test("Prompt API with config.stream false: prompt() answers whole, no token events", async () => {
  const { events, result, streaming, streamed: chunks } = await scenario("promptApiStreams", { stream: false });
  assert.equal(result.success, true);
  assert.deepEqual(streaming, [false, false]);
  assert.deepEqual(chunks, []);
  assert.deepEqual(events.filter((e) => ["token", "answerDelta", "tokensDiscarded"].includes(e.type)), []);
});

test("Prompt API: a stream that errors mid-way is discarded, retried as transient, and the retry streams", async () => {
  const { events, result, good } = await scenario("promptApiBreaksMidStream");
  assert.equal(result.success, true, JSON.stringify(result.reason));
  const kinds = events.filter((e) => ["token", "tokensDiscarded", "retryScheduled", "failure"].includes(e.type));
  const discard = kinds.findIndex((e) => e.type === "tokensDiscarded");
  assert.ok(discard > 0, JSON.stringify(kinds));
  assert.equal(kinds[discard].step, 1);
  assert.equal(kinds[discard + 1].type, "failure", "the discard comes before the failure and its retry");
  assert.equal(kinds[discard + 1].class, "transient");
  assert.equal(kinds[discard].code, kinds[discard + 1].code);
  assert.equal(kinds[discard + 2].type, "retryScheduled");
  assert.equal(events.slice(0, events.indexOf(kinds[discard])).filter((e) => e.type === "token").map((e) => e.text).join(""), good.slice(0, 12));
  assert.deepEqual(shown(events, "token"), { 1: good });
  assert.deepEqual(shown(events, "answerDelta"), { 1: "Done." });
});

test("custom models: onText streams, a model that ignores it and config.stream false answer whole", async () => {
  const { streamed: s, whole, off, asked, step } = await scenario("customModels");
  assert.deepEqual(asked, ["function", "undefined"], "onText is offered only while streaming");
  assert.equal(s.result.answer, "Streamed by hand.");
  assert.deepEqual(shown(s.events, "token"), { 1: step });
  assert.deepEqual(shown(s.events, "answerDelta"), { 1: "Streamed by hand." });
  for (const { events, result } of [whole, off]) {
    assert.equal(result.success, true, JSON.stringify(result));
    assert.deepEqual(events.filter((e) => e.type === "token"), []);
  }
});

test("OpenAI-compatible server: server-sent events arrive as token events and the step is parsed whole", async () => {
  const { events, result } = await scenario("openaiStreams", { route: "sse" });
  assert.equal(result.success, true, JSON.stringify(result.reason));
  assert.equal(result.answer, "Record a is \"found\".\nAll good.");
  assert.deepEqual(shown(events, "token"), {
    1: JSON.stringify(act("lookup", { id: "a" })),
    2: JSON.stringify(answer(result.answer)),
  });
  assert.deepEqual(shown(events, "answerDelta"), { 2: result.answer });
  assert.ok(events.filter((e) => e.type === "token" && e.step === 2).length > 1, "the text as it came, not at the end");
  const body = api.requests.find((r) => r.route === "sse" && r.method === "POST").body;
  assert.equal(body.stream, true);
  assert.equal(result.counts.promptTokens, 240, "usage from the streams' last events");
});

test("OpenAI-compatible server: a stream cut off mid-way is discarded as a network failure and retried", async () => {
  const { events, result } = await scenario("openaiStreams", { route: "broken" });
  assert.equal(result.success, true, JSON.stringify(result.reason));
  assert.equal(result.answer, "Whole this time.");
  const discarded = events.find((e) => e.type === "tokensDiscarded");
  assert.deepEqual(discarded ?? events, { type: "tokensDiscarded", step: 1, code: "NETWORK_ERROR" });
  assert.ok(events.some((e) => e.type === "retryScheduled" && e.code === "NETWORK_ERROR"));
  assert.deepEqual(shown(events, "answerDelta"), { 1: "Whole this time." });
});

test("OpenAI-compatible server: cancelling at the first token ends the run cancelled and the fetch is aborted", async () => {
  const { events, result } = await scenario("openaiStreams", { route: "slow", cancelAtFirstToken: true });
  assert.equal(result.reason.kind, "cancelled");
  assert.deepEqual(events.find((e) => e.type === "tokensDiscarded"), { type: "tokensDiscarded", step: 1, code: "ABORTED" });
  assert.equal(events.at(-1).type, "runEnded");
  const slow = api.streams.find((s) => s.route === "slow");
  for (let i = 0; i < 100 && !slow.aborted; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(slow.aborted, true, "the server saw the client go before the stream's end");
  assert.deepEqual(pageErrors, []);
});
