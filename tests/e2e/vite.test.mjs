// The built package (pkg/) through a bundler: vite-app/ imports `keel-agent` by name, `vite build`
// bundles it, and only vite-app/dist/ is served. The package's own worker and its wasm must come
// out of the bundle as assets and load from there.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { collectErrors, launchChromium } from "./browser.mjs";
import { serve } from "./server.mjs";

const APP = join(dirname(fileURLToPath(import.meta.url)), "vite-app");
const DIST = join(APP, "dist");

let server;
let browser;
const requests = [];

before(async () => {
  try {
    execFileSync(process.execPath, [join(APP, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"], {
      cwd: APP,
      encoding: "utf8",
      stdio: "pipe",
    });
  } catch (e) {
    throw new Error(`vite build failed (run ./build.sh setup if vite-app/node_modules is missing):\n${e.stdout}${e.stderr}`);
  }
  server = await serve(DIST, { onRequest: (path) => requests.push(path) });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("vite build emits the package's worker and wasm as assets", () => {
  const assets = readdirSync(join(DIST, "assets"));
  assert.ok(assets.some((f) => /^worker-.*\.js$/.test(f)), `a bundled worker in ${assets}`);
  assert.ok(assets.some((f) => /^keel_bg-.*\.wasm$/.test(f)), `the wasm in ${assets}`);
});

test("the bundled app runs an agent to its final answer", async () => {
  const page = await browser.newPage();
  const errors = [];
  collectErrors(page, errors);
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => window.viteResult !== undefined, null, { timeout: 20_000 });
  const result = await page.evaluate(() => window.viteResult);
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual([result.answer, result.success], ["2 + 3 = 5", true]);
  assert.deepEqual(result.calls, [{ a: 2, b: 3 }]);
  assert.ok(["action", "observation", "finalAnswer", "runEnded"].every((t) => result.events.includes(t)), result.events.join());
  assert.equal(await page.textContent("#answer"), "2 + 3 = 5");
  assert.ok(requests.some((p) => /^\/assets\/worker-.*\.js$/.test(p)), "the worker came from the bundle");
  assert.ok(requests.some((p) => /^\/assets\/keel_bg-.*\.wasm$/.test(p)), "the wasm came from the bundle");
  assert.deepEqual(errors, []);
});
