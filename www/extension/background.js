// The extension's service worker. It opens the side panel from the toolbar button, keeps the
// engine's host (the offscreen document, offscreen.html) open, and does for the host what an
// offscreen document cannot: it only has chrome.runtime, so the DOM ops (chrome.scripting) and the
// navigation (chrome.tabs.update; back through the page's history) of a run happen here, one message
// each. It holds no run state: Chrome may stop it between two messages, and the next one starts it.
import { domOp } from "./keel/dom/page-op.js";

const HOST = "offscreen.html";
/** How long `navigate` and `back` wait for the page to finish loading. */
const LOAD_TIMEOUT_MS = 20_000;

chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch((e) => console.error("keel: side panel", e));

let creating;

/** Opens the host unless it is open. One at a time: Chrome allows one offscreen document. */
async function ensureHost() {
  const documentUrls = [chrome.runtime.getURL(HOST)];
  const open = await chrome.runtime.getContexts({ contextTypes: ["OFFSCREEN_DOCUMENT"], documentUrls });
  if (open.length) return;
  creating ??= chrome.offscreen
    .createDocument({
      url: HOST,
      reasons: ["WORKERS"],
      justification: "keel's agent engine runs in a dedicated worker, which a service worker cannot start",
    })
    .finally(() => (creating = undefined));
  await creating;
}

const failure = (code, message, recovery) => ({ ok: false, error: { code, message, ...(recovery ? { recovery } : {}) } });

// Why a tab cannot be scripted, read from the tab's state (chrome.scripting's errors carry only a
// message, whose wording changes between Chrome versions).
async function whyNot(tabId, e) {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  if (!tab) {
    return failure("NOT_FOUND", `the tab the task was given for (${tabId}) is closed`, [
      "Tell the user the tab was closed; the task cannot go on without it.",
    ]);
  }
  const url = tab.url ?? tab.pendingUrl ?? "";
  if (!/^(https?|file):/.test(url)) {
    return failure("PERMISSION_DENIED", `the tab shows ${url || "a page this extension has no access to"}, which it may not script`, [
      "Call navigate with an http(s) URL, or tell the user the agent cannot act on this page.",
    ]);
  }
  if (tab.status === "loading") {
    return failure("FRAME_DETACHED", `the page is loading (${url}): the document the call was for is gone`, [
      "Call snapshot for the new page's refs, then retry with them.",
    ]);
  }
  return failure("PERMISSION_DENIED", `the extension may not script ${url}${e ? `: ${e.message}` : ""}`, [
    "Ask the user to allow the extension on this site (chrome://extensions → keel agent → Site access).",
  ]);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * After an op that started a navigation (a link, a form): resolves once the tab has left `fromUrl`
 * (or started loading) and finished loading, so the next op runs on the new document. The
 * navigation may have committed before the op's result came back, hence the polling of the tab's
 * state instead of waiting for an event that may have passed.
 */
async function settle(tabId, fromUrl) {
  const t0 = Date.now();
  let started = false;
  while (Date.now() - t0 < LOAD_TIMEOUT_MS) {
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!tab) return;
    started ||= tab.status === "loading" || tab.url !== fromUrl;
    if (started && tab.status === "complete") return;
    // A navigation the page cancelled (or one to this same URL that already ended) never shows.
    if (!started && Date.now() - t0 > 2000) return;
    await sleep(50);
  }
}

/**
 * Runs `domOp(op, args)` in the tab's top frame; resolves to its JSON result, or to undefined when
 * the frame went away during the call (the tools report FRAME_DETACHED).
 */
async function dom(tabId, op, args) {
  const before = await chrome.tabs.get(tabId).catch(() => undefined);
  if (!before) return whyNot(tabId);
  let result;
  try {
    [{ result } = {}] = await chrome.scripting.executeScript({ target: { tabId }, func: domOp, args: [op, args ?? {}] });
  } catch (e) {
    return whyNot(tabId, e);
  }
  if (result?.navigating) await settle(tabId, before.url);
  return result;
}

// The HTTP status of the document the tab shows (Chrome 109+: PerformanceNavigationTiming.responseStatus).
async function httpStatus(tabId) {
  try {
    const [{ result } = {}] = await chrome.scripting.executeScript({
      target: { tabId },
      func: () => performance.getEntriesByType("navigation")[0]?.responseStatus ?? 0,
    });
    return result ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Calls `start()`, which makes the tab load a page, and resolves once it has loaded: `{ ok, url,
 * title }`, or a failure (`refused(error)` when `start` throws; an HTTP error page; a timeout).
 */
async function load(tabId, start, refused) {
  const result = await new Promise((resolve) => {
    const done = (value) => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      chrome.tabs.onRemoved.removeListener(removed);
      resolve(value);
    };
    const listener = (id, change, tab) => {
      if (id === tabId && change.status === "complete") done({ ok: true, url: tab.url, title: tab.title });
    };
    const removed = (id) => id === tabId && done(failure("NOT_FOUND", `the tab (${tabId}) was closed while loading`));
    const timer = setTimeout(
      () => done(failure("NAVIGATION_FAILED", `the page did not finish loading within ${LOAD_TIMEOUT_MS / 1000} s`)),
      LOAD_TIMEOUT_MS,
    );
    // Listening first: a fast page can finish loading before `start` resolves.
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.onRemoved.addListener(removed);
    start().catch(async (e) => done(await refused(e)));
  });
  if (!result.ok) return result;
  const status = await httpStatus(tabId);
  return status >= 400 ? failure("NAVIGATION_FAILED", `HTTP ${status} for ${result.url}`) : result;
}

function navigate(tabId, url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return failure("INVALID_ARGS", `"${url}" is not an absolute URL`, ["Pass a full http(s) URL, e.g. https://example.com/."]);
  }
  if (!/^https?:$/.test(parsed.protocol)) {
    return failure("INVALID_ARGS", `navigate takes http(s) URLs, not ${parsed.protocol}`, ["Pass a full http(s) URL."]);
  }
  return load(tabId, () => chrome.tabs.update(tabId, { url: parsed.href }), (e) => whyNot(tabId, e));
}

class NoHistory extends Error {}

// The page goes back itself: chrome.tabs.goBack acts as the toolbar's back button, which skips the
// entries of pages left without a user gesture (Chrome's history manipulation intervention), and
// every page the agent clicks away from is one of those.
function back(tabId) {
  const start = async () => {
    const [{ result } = {}] = await chrome.scripting.executeScript({
      target: { tabId },
      func: () => (navigation.canGoBack ? (history.back(), true) : false),
    });
    if (!result) throw new NoHistory("there is no earlier page in this tab's history");
  };
  const refused = (e) =>
    e instanceof NoHistory
      ? failure("NAVIGATION_FAILED", e.message, ["Call navigate with the URL you want instead."])
      : whyNot(tabId, e);
  return load(tabId, start, refused);
}

async function tabInfo(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  return tab ? { id: tab.id, title: tab.title ?? "", url: tab.url ?? "" } : null;
}

const HANDLERS = {
  host: () => ensureHost().then(() => ({ ok: true })),
  dom: (m) => dom(m.tabId, m.op, m.args),
  navigate: async (m) => navigate(m.tabId, m.url),
  back: async (m) => back(m.tabId),
  tab: (m) => tabInfo(m.tabId),
};

// Messages for this worker say `to: "background"`; the others are for the host or the panel.
chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  if (message?.to !== "background") return false;
  const handler = HANDLERS[message.type];
  if (!handler) {
    reply(failure("INVALID_ARGS", `unknown background message ${message.type}`));
    return false;
  }
  handler(message).then(reply, (e) => reply(failure("INTERNAL_ERROR", e?.message ?? String(e))));
  return true;
});
