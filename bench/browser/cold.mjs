// Worker cold start to ready, over fresh page loads: `first` loads each get a new browser context
// (an empty HTTP cache and no compiled-wasm cache); `cached` loads are new pages in one context that
// loaded the page once before. The two alternate, so machine noise falls on both alike.
import { summary } from "./stats.mjs";

async function load(context, url, requests, watch) {
  const before = requests.length;
  const page = await context.newPage();
  watch(page);
  await page.goto(url);
  await page.waitForFunction(() => window.cold !== undefined);
  const cold = await page.evaluate(() => window.cold);
  await page.close();
  if (cold.error) throw new Error(`cold start failed: ${cold.error}`);
  const fetched = requests.slice(before);
  return { ...cold, wasmFetched: fetched.some((p) => p.endsWith(".wasm")), requests: fetched.length };
}

export async function coldStart({ browser, url, loads, requests, watch }) {
  const samples = { first: [], cached: [] };
  const warm = await browser.newContext();
  await load(warm, url, requests, watch);
  for (let i = 0; i < loads; i++) {
    const fresh = await browser.newContext();
    samples.first.push(await load(fresh, url, requests, watch));
    await fresh.close();
    samples.cached.push(await load(warm, url, requests, watch));
  }
  await warm.close();
  const describe = (list) => ({
    create: summary(list.map((s) => s.createMs)),
    import: summary(list.map((s) => s.importMs)),
    pageToReady: summary(list.map((s) => s.sincePageStartMs)),
    wasmFetchedLoads: list.filter((s) => s.wasmFetched).length,
    requestsPerLoad: summary(list.map((s) => s.requests)),
    createSamples: list.map((s) => Math.round(s.createMs * 100) / 100),
    crossOriginIsolated: list.every((s) => s.isolated),
  });
  return { loads, first: describe(samples.first), cached: describe(samples.cached) };
}
