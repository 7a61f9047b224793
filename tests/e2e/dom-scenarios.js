// keel-agent/dom in an agent run (the page side of dom.test.mjs). The scripted model reads refs
// out of the observations it is shown, as a model would: each step is a string or a function of
// the prompt's text. Runs use the memory store.
import { Agent, ToolError } from "/pkg/index.js";
import { domTools, pageRunner } from "/pkg/dom/index.js";

import { act, answer } from "./steps.js";

/** The ref of the latest line in `text` matching `pattern` (e.g. /button "Place order"/), as `@eN`. */
export function refIn(text, pattern) {
  const lines = text.split("\n").filter((l) => pattern.test(l) && /@e\d+/.test(l));
  if (!lines.length) throw new Error(`no line matching ${pattern} in the prompt`);
  return lines.at(-1).match(/@e\d+/)[0];
}

/** A custom model whose steps may depend on the prompt so far (all messages' text). */
function reactive(steps, prompts, schemas = []) {
  let next = 0;
  return async (messages, { schema } = {}) => {
    const text = messages.map((m) => m.content).join("\n");
    prompts.push(text);
    schemas.push(schema);
    const step = steps[next++];
    if (step === undefined) return answer("out of script");
    return typeof step === "function" ? step(text) : step;
  };
}

/** The tab's tools, as an extension's: domOp runs in the other tab through the test's exposed functions. */
const tabTools = () =>
  domTools({
    run: (op, args) => window.__keelTabRun(op, args),
    navigate: (url) => window.__keelTabNavigate(url),
    back: () => window.__keelTabBack(),
  });

/** The refs the step schema `schema` lets `tool` take, or null when it does not offer the tool. */
function refsOffered(schema, tool) {
  const branch = (schema?.anyOf ?? []).find((b) => b.properties?.action?.properties?.tool?.const === tool);
  return branch ? (branch.properties.action.properties.args.properties.ref.enum ?? "any") : null;
}

async function runWith(tools, steps, task) {
  const prompts = [];
  const schemas = [];
  const agent = await Agent.create({ model: { custom: reactive(steps, prompts, schemas) }, tools, config: { store: "memory", maxSteps: 12 } });
  try {
    const events = [];
    const run = agent.run(task);
    for await (const event of run) events.push(event);
    const result = await run.result;
    return {
      answer: result.answer,
      success: result.success,
      reason: result.reason.kind,
      failures: result.failures.map((f) => ({ tool: f.tool, code: f.code, recovered: f.recovered })),
      failureEvents: events.filter((e) => e.type === "failure").map((e) => ({ tool: e.tool, code: e.code, message: e.message, envelope: e.envelope })),
      observations: events.filter((e) => e.type === "observation").map((e) => ({ text: e.text, outcome: e.outcome })),
      actions: events.filter((e) => e.type === "action").map((e) => e.tool),
      recoveryCalls: events.filter((e) => e.type === "recoveryCall").map(({ tool, code, called, ok }) => ({ tool, code, called, ok })),
      toolNames: tools.map((t) => t.name),
      // Per model call, the refs the step schema offered `type` and `click` (null: the tool sat out).
      typeRefs: schemas.map((schema) => refsOffered(schema, "type")),
      clickRefs: schemas.map((schema) => refsOffered(schema, "click")),
    };
  } finally {
    agent.dispose();
  }
}

/**
 * Extension-like: the deals SPA in the other tab. Navigate there, click a deal (the page re-renders
 * instead of answering; the click's result shows what appeared), click the ref the first listing
 * gave again (stale: the runtime takes a snapshot itself, the tool's recoverWith), click the new ref
 * that snapshot shows, read.
 */
export async function tabDealsRun(dealsUrl) {
  const lamp = /button "Show code for Desk lamp"/;
  return runWith(
    tabTools(),
    [
      act("navigate", { url: dealsUrl }),
      (p) => act("click", { ref: refIn(p, lamp) }),
      (p) => act("click", { ref: refIn(p.split("The page now shows")[0], lamp) }),
      (p) => act("click", { ref: refIn(p, lamp) }),
      (p) => act("read", { ref: refIn(p, /text "Code for Desk lamp|text "Prices were updated|text "Pick a deal/) }),
      (p) => answer(/Code for Desk lamp: ([^\s"]+)/.exec(p)?.[1] ?? "no code seen"),
    ],
    "Reveal the code of the Desk lamp deal.",
  );
}

/**
 * Extension-like: a navigation that fails (404, then not a URL), then back to a page that works,
 * and a link followed: the click's result lists the page it opened, whose refs the next step takes.
 */
export async function tabNavigationRun(missingUrl, pricesUrl) {
  return runWith(
    tabTools(),
    [
      act("navigate", { url: missingUrl }),
      act("navigate", { url: "prices page" }),
      act("navigate", { url: pricesUrl }),
      (p) => act("click", { ref: refIn(p, /link "Garden hose"/) }),
      (p) => answer(/text "SKU: (GH-\d+)"/.exec(p)?.[1] ?? "no sku seen"),
    ],
    "Find the Garden hose's SKU.",
  );
}

/**
 * A copilot on its own page: pageRunner() operates this very document. A form with a covered button
 * and a cross-origin frame (reported as a warning, the snapshot still succeeding).
 */
export async function samePageRun(crossOriginUrl) {
  const host = document.createElement("section");
  host.id = "copilot-fixture";
  host.innerHTML = `
    <h2>Newsletter</h2>
    <p id="cp-card" style="cursor: pointer">Gift card offers</p>
    <label>Email <input id="cp-email" type="email" /></label>
    <button type="button" id="cp-send">Subscribe to the newsletter</button>
    <p id="cp-done"></p>
    <div id="cp-cover" role="dialog" aria-label="Welcome" style="position: fixed; inset: 0; background: #fffe">
      <button type="button" id="cp-close">Close</button>
    </div>
    <iframe title="Ads" src="${crossOriginUrl}" width="200" height="80"></iframe>`;
  document.body.append(host);
  await new Promise((r) => host.querySelector("iframe").addEventListener("load", r, { once: true }));
  document.getElementById("cp-close").addEventListener("click", () => document.getElementById("cp-cover").remove());
  document.getElementById("cp-send").addEventListener("click", () => {
    document.getElementById("cp-done").textContent = `Subscribed ${document.getElementById("cp-email").value}.`;
  });
  try {
    const out = await runWith(
      domTools({ run: pageRunner(), include: ["snapshot", "click", "type", "read"] }),
      [
        act("snapshot"),
        (p) => act("click", { ref: refIn(p, /button "Subscribe to the newsletter"/) }),
        (p) => act("click", { ref: refIn(p, /button "Close"/) }),
        (p) => act("type", { ref: refIn(p, /textbox "Email"/), text: "ada@example.com" }),
        (p) => act("click", { ref: refIn(p, /button "Subscribe to the newsletter"/) }),
        act("read"),
        (p) => answer(/Subscribed (\S+)\./.exec(p)?.[0] ?? "not subscribed"),
      ],
      "Subscribe ada@example.com to the newsletter.",
    );
    return { ...out, done: document.getElementById("cp-done").textContent };
  } finally {
    host.remove();
  }
}

/** domTools' own checks: bad options throw TypeErrors naming the option; a runner's missing answer is FRAME_DETACHED. */
export async function domToolsChecks() {
  const thrown = (f) => {
    try {
      f();
      return "no error";
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
  };
  const run = pageRunner();
  const context = { signal: new AbortController().signal, warn: () => {} };
  const click = domTools({ run: async () => undefined }).find((t) => t.name === "click");
  let gone;
  try {
    await click.execute({ ref: "@e1" }, context);
    gone = "no error";
  } catch (e) {
    // `instanceof` the package entry's ToolError: keel-agent/dom throws that class, not a copy.
    gone = { name: e.name, code: e.code, message: e.message, recovery: e.recovery, isToolError: e instanceof ToolError };
  }
  return {
    noRun: thrown(() => domTools({})),
    badInclude: thrown(() => domTools({ run, include: ["navigate"] })),
    badMax: thrown(() => domTools({ run, maxChars: 100 })),
    badNavigate: thrown(() => domTools({ run, navigate: "yes" })),
    names: domTools({ run, include: ["read", "snapshot"] }).map((t) => t.name),
    gone,
  };
}
