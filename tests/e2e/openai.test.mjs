// End-to-end: the built package's OpenAI-compatible backend in headless Chromium, against a
// scripted chat-completions server on another port (CORS, preflight, Retry-After exposure).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serve } from "./server.mjs";
import { completion, openaiServer } from "./openai-server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const PROMPT_RUNS = 12;
const PROMPT_STEPS = 4;
// One long run under the same budget: its steps move into the summary as it goes.
const LONG_STEPS = 40;
/** The scripted replies of `runs` runs of `steps` steps: a city each step, then the answer. */
const cities = (runs, steps) =>
  Array.from({ length: runs * steps }, (_, i) =>
    completion(
      i % steps === steps - 1
        ? answer("It is sunny in every city.")
        : { thought: `city ${i % steps}`, action: { tool: "get_weather", args: { city: `City ${Math.floor(i / steps)}-${i % steps}` } } },
    ),
  );
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
    flaky: [
      { status: 429, headers: { "retry-after": "1" }, body: { error: { message: "Rate limit reached", code: "rate_limit_exceeded" } } },
      { status: 503, body: { error: { message: "Loading model", type: "unavailable_error" } } },
      completion(act("get_weather", { city: "Paris" })),
      completion(answer("It is sunny in Paris.")),
    ],
    locked: [{ status: 401, body: { error: { message: "Incorrect API key provided", code: "invalid_api_key" } } }],
    open: [completion(act("get_weather", { city: "Oslo" })), completion(answer("Sunny in Oslo."))],
    hang: ["hang"],
    prompts: cities(PROMPT_RUNS, PROMPT_STEPS),
    long: cities(1, LONG_STEPS),
  });
  browser = await launchChromium();
  page = await browser.newPage();
  collectErrors(page, pageErrors);
  await page.exposeFunction("waitForHungRequest", async () => {
    for (let i = 0; i < 500 && api.hung.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    return api.hung.length;
  });
  await page.goto(`${site.url}/tests/e2e/page.html`);
  await page.waitForFunction(() => window.scenariosLoaded === true);
});

after(async () => {
  await browser?.close();
  await api?.close();
  await site?.close();
});

const scenario = (name) =>
  page.evaluate(async ([n, server]) => (await import("/tests/e2e/openai-scenarios.js"))[n]({ server }), [name, api.url]);

const posts = (route) => api.requests.filter((r) => r.route === route && r.method === "POST");

test("openai backend: a 429 waits its Retry-After, a 503 is retried, then a tool call and the answer", async () => {
  const { events, result, calls, origin } = await scenario("retries");
  assert.equal(result.success, true, JSON.stringify(result.reason));
  assert.equal(result.answer, "It is sunny in Paris.");
  assert.deepEqual(calls, ["Paris"]);

  const retries = events.filter((e) => e.type === "retryScheduled");
  assert.deepEqual(retries.map((e) => [e.tool, e.code]), [[null, "RATE_LIMITED"], [null, "UNAVAILABLE"]]);
  assert.ok(retries[0].delayMs >= 1000 && retries[0].delayMs < 1100, `Retry-After delay ${retries[0].delayMs}`);

  // What the server received: the step schema as response_format, from another origin.
  const sent = posts("flaky");
  assert.equal(sent.length, 4);
  const body = sent[0].body;
  assert.deepEqual([body.model, body.temperature, body.stream, typeof body.seed], ["scripted-model", 0, true, "number"]);
  assert.equal(body.messages[0].role, "system");
  assert.equal(body.response_format.type, "json_schema");
  assert.equal(body.response_format.json_schema.name, "step");
  // The first step must be a tool call (toolChoice "required" by default): one tool, one branch.
  const first = body.response_format.json_schema.schema;
  assert.equal(first.properties.action.properties.tool.const, "get_weather");
  assert.equal(first.anyOf, undefined, "no final-answer branch before a call");
  // After the call's result, which leaves nothing to do, the answer alone is asked for.
  const focused = sent[3].body;
  assert.match(focused.messages[0].content, /^Answer the user's question using only the tool results below/);
  assert.deepEqual(focused.response_format.json_schema.schema.required, ["final_answer"]);
  assert.equal(sent[0].headers.origin, origin);
  assert.notEqual(new URL(api.url).port, new URL(origin).port, "cross-origin");
  assert.ok(api.requests.some((r) => r.route === "flaky" && r.method === "OPTIONS"), "a CORS preflight");
  assert.equal(sent[0].headers.authorization, undefined, "no key, no Authorization");
});

test("openai backend: a fallback chain moves past an unauthorised server with a warning", async () => {
  const { events, result, calls } = await scenario("fallback");
  assert.equal(result.success, true, JSON.stringify(result.reason));
  assert.deepEqual(calls, ["Oslo"]);
  const warnings = events.filter((e) => e.type === "warning");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].message, /^Model backend 1 of 2 \(openai first-choice at http:\/\/127\.0\.0\.1:\d+\/locked\/v1\) failed with MODEL_UNAVAILABLE: HTTP 401/);
  assert.match(warnings[0].message, /Falling back to backend 2 \(openai second-choice at .*\/open\/v1\/\)/);
  assert.equal(posts("locked").length, 1, "not retried: a wrong key is no passing state");
  assert.equal(posts("locked")[0].headers.authorization, "Bearer sk-wrong");
  const open = posts("open");
  assert.equal(open.length, 2, "the rest of the run stays on the second backend");
  assert.equal(open[0].body.response_format.type, "json_object");
  assert.deepEqual(open[1].body.response_format.schema.required, ["final_answer"], "llama-cpp-python's shape");
});

test("openai backend: cancelling the run aborts the request under way", async () => {
  const { reason, success } = await scenario("cancelDuringRequest");
  assert.deepEqual([reason, success], ["cancelled", false]);
  for (let i = 0; i < 100 && !api.hung[0]?.aborted; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(api.hung[0]?.aborted, true, "the server saw the connection closed before it answered");
});

test("openai backend: no uncaught errors in the page", () => {
  assert.deepEqual(pageErrors, []);
});

test("a custom model gets, call for call, the prompt and schema the worker sends an OpenAI-compatible server, though each modelCall carries only what changed", async () => {
  const { seen, schemas, wire } = await page.evaluate(
    async ([server, runs, steps]) => (await import("/tests/e2e/openai-scenarios.js")).samePrompts({ server, runs, steps }),
    [api.url, PROMPT_RUNS, PROMPT_STEPS],
  );
  const bodies = posts("prompts").map((r) => r.body);
  assert.equal(seen.length, PROMPT_RUNS * PROMPT_STEPS);
  assert.equal(bodies.length, seen.length);
  for (let i = 0; i < seen.length; i++) {
    assert.deepEqual(seen[i], bodies[i].messages, `model call ${i + 1}`);
    // Each call's own schema, whatever the model did to the one before.
    assert.deepEqual(schemas[i], bodies[i].response_format.json_schema.schema, `model call ${i + 1}'s schema`);
  }
  // The shortcuts were taken: messages kept from the call before, a message's middle rewritten,
  // the schema kept.
  assert.ok(wire.filter((w) => w.keep > 0).length >= seen.length / 2, JSON.stringify(wire));
  assert.ok(wire.some((w) => w.edit), JSON.stringify(wire));
  assert.ok(wire.some((w) => w.sameSchema), JSON.stringify(wire));
});

test("a long run's prompts, its steps moving into the summary, are rebuilt on the page call for call", async () => {
  const { seen, wire } = await page.evaluate(
    async ([server, steps]) => (await import("/tests/e2e/openai-scenarios.js")).samePrompts({ server, route: "long", runs: 1, steps }),
    [api.url, LONG_STEPS],
  );
  const sent = posts("long").map((r) => r.body.messages);
  assert.equal(seen.length, LONG_STEPS);
  assert.equal(sent.length, seen.length);
  for (let i = 0; i < seen.length; i++) assert.deepEqual(seen[i], sent[i], `model call ${i + 1}`);
  // Both of the window's shortcuts were taken: the steps moved into the summary skipped, and the
  // summary's lines kept from the call before as a span.
  assert.ok(wire.some((w) => w.skip > 0), JSON.stringify(wire));
  assert.ok(wire.some((w) => w.edit?.span), JSON.stringify(wire));
});
