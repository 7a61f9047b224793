// Runs keel-agent/dom's `domOp` in another tab, as an extension does with chrome.scripting: the
// function's source is sent and evaluated there (so the test also proves it is self-contained).
// Shared by the e2e tests and the web benchmark.
import { domOp } from "../../js/dom/page-op.js";

const SOURCE = domOp.toString();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// After an op that started a navigation: the new document has no domOp state yet (a link to the
// same URL reloads, so the URL cannot tell), then it loads. A navigation that never happens (the
// page cancelled it) ends the wait after `ms`.
async function newDocument(target, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const old = await target.evaluate(() => globalThis.__keelDom !== undefined).catch(() => null);
    if (old === false) return target.waitForLoadState("load");
    await sleep(50);
  }
}

/** `domOp(op, args)` in `target` (a playwright Page); waits for a navigation the op started. */
export async function runInTab(target, op, args = {}) {
  let result;
  for (let attempt = 1; ; attempt++) {
    try {
      result = await target.evaluate(`(${SOURCE})(${JSON.stringify(op)}, ${JSON.stringify(args)})`);
      break;
    } catch (e) {
      // Called while the tab was between documents: once the new one has loaded, run there.
      if (attempt > 1 || !/context was destroyed|navigat/i.test(String(e))) throw e;
      await target.waitForLoadState("load");
    }
  }
  if (result?.navigating) await newDocument(target);
  return result;
}

/** Loads `url` in `target`; rejects on an HTTP error status or when nothing loads. */
export async function navigateTab(target, url) {
  const response = await target.goto(url);
  if (response && response.status() >= 400) throw new Error(`HTTP ${response.status()} for ${url}`);
}

/** Goes back in `target`'s history; rejects when there is no earlier page. */
export async function backTab(target) {
  const response = await target.goBack({ waitUntil: "load" });
  if (!response) throw new Error("there is no earlier page in this tab's history");
}

/**
 * Lets the scripts of `agentPage` drive `target` through `window.keelTab.run / navigate / back`
 * (playwright's exposeFunction: calls cross to Node and into the other tab).
 */
export async function exposeTab(agentPage, getTarget) {
  await agentPage.exposeFunction("__keelTabRun", (op, args) => runInTab(getTarget(), op, args));
  await agentPage.exposeFunction("__keelTabNavigate", (url) => navigateTab(getTarget(), url));
  await agentPage.exposeFunction("__keelTabBack", () => backTab(getTarget()));
}
