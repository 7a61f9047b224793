// The floor a step's cost is compared with, measured on the page: postMessage round trips to a bare
// worker (`floor-worker.js`), alone and with one IndexedDB put in the worker.

const request = (r) => new Promise((ok, no) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => no(r.error))));

/**
 * `n` samples (after 10 discarded) of two round trips, then two with one strict put on the first,
 * and with `relaxed` two more with one relaxed put: `{ roundTrips, strictPut, relaxedPut? }` in ms.
 */
export async function floor(n, { relaxed = false } = {}) {
  const worker = new Worker("./floor-worker.js", { type: "module" });
  const ask = (data) => new Promise((ok) => ((worker.onmessage = ok), worker.postMessage(data)));
  const out = { roundTrips: [], strictPut: [], ...(relaxed ? { relaxedPut: [] } : {}) };
  for (let i = 0; i < n + 10; i++) {
    const t0 = performance.now();
    await ask({ n: i });
    await ask({ n: i });
    const t1 = performance.now();
    await ask({ n: i, put: "strict" });
    await ask({ n: i });
    const t2 = performance.now();
    if (relaxed) {
      await ask({ n: i, put: "relaxed" });
      await ask({ n: i });
    }
    const t3 = performance.now();
    if (i < 10) continue;
    out.roundTrips.push(t1 - t0);
    out.strictPut.push(t2 - t1);
    if (relaxed) out.relaxedPut.push(t3 - t2);
  }
  worker.terminate();
  await request(indexedDB.deleteDatabase("keel-bench-floor"));
  return out;
}
