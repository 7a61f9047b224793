// The real in-browser model, once, by hand (not part of `npm test`: it takes minutes):
//
//   ./build.sh demo model && (cd tests/e2e && node smollm2-run.mjs ["task"])
//
// Serves the demo with the fetched SmolLM2 GGUF, picks the SmolLM2 backend, runs one task in
// headless Chromium and prints the trace, the result and the timings; screenshot in artifacts/.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./browser.mjs";
import { serveDemo } from "../../www/server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const task = process.argv[2] ?? "What's the weather in Paris?";
const server = await serveDemo({ modelsDir: process.env.KEEL_MODELS_DIR ?? join(HERE, "../../.cache/models") });
const browser = await launchChromium();
const t0 = Date.now();
const at = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s`;
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on("console", (m) => console.log(`${at()} [console.${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => console.log(`${at()} [pageerror] ${e}`));
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true]");
  const isolated = await page.evaluate(() => self.crossOriginIsolated);
  console.log(`${at()} page ready, crossOriginIsolated=${isolated}`);
  await page.check("input[name=backend][value=smollm2]");
  await page.fill("#task", task);
  // Log each trace item as it appears.
  await page.exposeFunction("logItem", (line) => console.log(`${at()} ${line}`));
  await page.evaluate(() => {
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n.classList?.contains("item")) window.logItem(`[${n.dataset.kind}] ${n.textContent.replace(/\s+/g, " ").slice(0, 400)}`);
        }
      }
    }).observe(document.querySelector("#trace"), { childList: true, subtree: true });
  });
  await page.click("#run");
  const poll = setInterval(async () => {
    const state = await page
      .evaluate(() => `${document.querySelector("#run-status").textContent} | ${document.querySelector("#progress-text").textContent}`)
      .catch(() => "");
    console.log(`${at()} [status] ${state}`);
  }, 15_000);
  await page.waitForFunction(() => !document.querySelector("#run").disabled, null, { timeout: 30 * 60_000, polling: 1000 });
  clearInterval(poll);
  const answer = await page.textContent("#answer");
  const stats = await page.$$eval("[data-stat]", (dds) => dds.map((d) => `${d.dataset.stat}=${d.textContent}`).join(" "));
  const status = await page.textContent("#run-status");
  console.log(`${at()} status: ${status}\n         answer: ${answer}\n         stats: ${stats}`);
  mkdirSync(join(HERE, "artifacts"), { recursive: true });
  await page.screenshot({ path: join(HERE, "artifacts/smollm2.png") });
} finally {
  await browser.close();
  await server.close();
}
