// The extension's service worker. It opens the side panel from the toolbar button, keeps the
// engine's host (the offscreen document, offscreen.html) open, and does for the host what an
// offscreen document cannot: it only has chrome.runtime, so the DOM ops (chrome.scripting) and the
// navigation (chrome.tabs) of a run happen here, one message each. It holds no run state: Chrome
// may stop it between two messages, and the next message starts it again.
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
    return failure("PERMISSION_DENIED", `the tab shows ${url || "a page"}, which extensions may not script`, [
      "Call navigate with an http(s) URL, or tell the user the agent cannot act on this page.",
    ]);
  }
  if (tab.status === "loading") {
    return failure("FRAME_DETACHED", `the page is loading (${url}): the document the call was for is gone`, [
      "Call snapshot for the new page's refs, then retry with them.",
    ]);
  }
  return failure("PERMISSION_DENIED", `the extension may not script ${url}: ${e.message}`, [
    "Ask the user to allow the extension on this site (chrome://extensions → keel agent → Site access).",
  ]);
}

/** Runs `domOp(op, args)` in the tab's top frame; resolves to its JSON result. */
async function dom(tabId, op, args) {
  try {
    const [first] = await chrome.scripting.executeScript({ target: { tabId }, func: domOp, args: [op, args ?? {}] });
    // `result` is undefined when the frame went away before the function returned.
    return first?.result ?? (await whyNot(tabId, new Error("the frame returned no result")));
  } catch (e) {
    return whyNot(tabId, e);
  }
}

/** Resolves once `tabId` has finished loading, or with a failure after LOAD_TIMEOUT_MS. */
function loaded(tabId) {
  return new Promise((resolve) => {
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
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.onRemoved.addListener(removed);
  });
}

async function navigate(tabId, url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return failure("INVALID_ARGS", `"${url}" is not an absolute URL`, ["Pass a full http(s) URL, e.g. https://example.com/."]);
  }
  if (!/^https?:$/.test(parsed.protocol)) {
    return failure("INVALID_ARGS", `navigate takes http(s) URLs, not ${parsed.protocol}`, ["Pass a full http(s) URL."]);
  }
  const done = loaded(tabId);
  try {
    await chrome.tabs.update(tabId, { url: parsed.href });
  } catch (e) {
    return whyNot(tabId, e);
  }
  return done;
}

async function back(tabId) {
  const done = loaded(tabId);
  try {
    await chrome.tabs.goBack(tabId);
  } catch (e) {
    return failure("NAVIGATION_FAILED", `the tab has no page to go back to (${e.message})`, [
      "Call navigate with the URL you want instead.",
    ]);
  }
  return done;
}

async function tabInfo(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  return tab ? { id: tab.id, title: tab.title ?? "", url: tab.url ?? "" } : null;
}

const HANDLERS = {
  host: () => ensureHost().then(() => ({ ok: true })),
  dom: (m) => dom(m.tabId, m.op, m.args),
  navigate: (m) => navigate(m.tabId, m.url),
  back: (m) => back(m.tabId),
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
