// One benchmark page in headless Chromium, for the scripts that measure in a single page
// (growth.mjs, commit.mjs, profile.mjs): the repository served with the benchmarks' headers, the
// page opened and loaded, `work` run on it, everything closed; the page's errors end the process
// with status 1 after the teardown, as a failed measurement.
import { collectErrors, launchChromium } from "../../tests/e2e/browser.mjs";
import { serve } from "../../tests/e2e/server.mjs";

const HEADERS = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };

/**
 * Serves `root`, opens `path` (a page that sets `window.benchLoaded`), and returns what
 * `work(page)` returns. `before(page)`, if given, runs before the page is opened.
 * @template T
 * @param {string} root
 * @param {string} path
 * @param {(page: import("playwright-core").Page) => Promise<T>} work
 * @param {(page: import("playwright-core").Page) => Promise<void>} [before]
 * @returns {Promise<T>}
 */
export async function inBenchPage(root, path, work, before) {
  const server = await serve(root, { headers: HEADERS });
  const browser = await launchChromium();
  const errors = [];
  let out;
  try {
    const page = await (await browser.newContext()).newPage();
    collectErrors(page, errors);
    if (before) await before(page);
    await page.goto(`${server.url}${path}`);
    await page.waitForFunction(() => window.benchLoaded === true);
    out = await work(page);
  } finally {
    await browser.close();
    await server.close();
  }
  if (errors.length) {
    process.stderr.write(`error: the bench page reported errors:\n${errors.join("\n")}\n`);
    process.exit(1);
  }
  return out;
}
