// The page most end-to-end tests drive: tests/e2e/page.html, served from the repo root in headless
// Chromium, with every page-side scenario module loaded. One per test file.
import { after, before } from "node:test";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serve } from "./server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Registers the file's before/after hooks that open the page and close it all again. Returns
 * `scenario(name, ...args)`, which runs `window.scenarios[name](...args)` in the page and resolves
 * to what it returns, `pageErrors`, the page's uncaught and console errors, and `opened()`, the
 * `{ server, browser, page }` the hooks opened. `beforeLoad(opened)` runs before the page loads
 * (to expose functions to it).
 */
export function useScenarioPage({ beforeLoad } = {}) {
  let server;
  let browser;
  let page;
  const pageErrors = [];
  before(async () => {
    server = await serve(ROOT);
    browser = await launchChromium();
    page = await browser.newPage();
    collectErrors(page, pageErrors);
    await beforeLoad?.({ server, browser, page });
    await page.goto(`${server.url}/tests/e2e/page.html`);
    await page.waitForFunction(() => window.scenariosLoaded === true);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  const scenario = (name, ...args) => page.evaluate(([n, a]) => window.scenarios[n](...a), [name, args]);
  return { scenario, pageErrors, opened: () => ({ server, browser, page }) };
}

/**
 * For tests that open their own browser contexts and tabs (reloads, several tabs, a tab's
 * storage): registers the file's before/after hooks that start the server and the browser.
 * Returns `openTab(context)`, a new tab of `context` on the scenarios page, loaded;
 * `call(page, name, ...args)`, which runs `window.scenarios[name](...args)` in that tab;
 * `pageErrors`, every tab's uncaught and console errors; and `opened()`, the `{ server, browser }`.
 */
export function useScenarioTabs() {
  let server;
  let browser;
  const pageErrors = [];
  before(async () => {
    server = await serve(ROOT);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  const openTab = async (context) => {
    const page = await context.newPage();
    collectErrors(page, pageErrors);
    await page.goto(`${server.url}/tests/e2e/page.html`);
    await page.waitForFunction(() => window.scenariosLoaded === true);
    return page;
  };
  const call = (page, name, ...args) => page.evaluate(([n, a]) => window.scenarios[n](...a), [name, args]);
  return { openTab, call, pageErrors, opened: () => ({ server, browser }) };
}
