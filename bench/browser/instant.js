// What the growth and commit benchmarks share: an instant scripted model and an instant tool, the
// retention that keeps everything, and the floor a step's cost is compared with (postMessage round
// trips to a bare worker, `floor-worker.js`, alone and with one IndexedDB put in the worker).

/** Retention off: every run and turn is kept. */
export const KEEP_ALL = { maxRuns: null, maxAgeMs: null, everyWrites: 0 };

const request = (r) => new Promise((ok, no) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => no(r.error))));

/** Deletes IndexedDB database `name`. */
export const deleteDb = (name) => request(indexedDB.deleteDatabase(name));

/**
 * A custom model that calls `lookup` with a new id until step `steps`, which answers; `onCall`, if
 * given, hears each call's step number, messages and schema.
 */
export function instantModel(steps, onCall) {
  const counts = new Map();
  return async (messages, { runId, schema }) => {
    const n = (counts.get(runId) ?? 0) + 1;
    counts.set(runId, n);
    onCall?.(n, messages, schema);
    if (n >= steps) {
      counts.delete(runId);
      return JSON.stringify({ thought: "I have what I need.", final_answer: `Looked up ${n - 1} items.` });
    }
    return JSON.stringify({ thought: `Look up item ${n}.`, action: { tool: "lookup", args: { id: n, fields: ["name"] } } });
  };
}

/** 930 records, 55,622 bytes of JSON: what an API's search might return (`instantLookup`'s `large`). */
const RELATED = Array.from({ length: 930 }, (_, i) => ({ id: i, name: `item ${i}`, price: i * 1.25, tags: ["a", "b"] }));

/**
 * The instant `lookup` tool; its result names the next id, so each call's id is one a result gave
 * (id provenance). `readOnly: false` gets a call's intent stored before it runs; `large: true` adds
 * 56 KB of JSON records to each result (bench/steps.rs returns the same natively).
 */
export const instantLookup = (readOnly, { large = false } = {}) => ({
  name: "lookup",
  description: "Looks up an item of the catalogue by id.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "integer", minimum: 1 }, fields: { type: "array", items: { type: "string" } } },
    required: ["id"],
    additionalProperties: false,
  },
  ...(readOnly === undefined ? {} : { readOnly }),
  execute: async ({ id }) => ({ id, name: `Item ${id}`, next: id + 1, ...(large ? { related: RELATED } : {}) }),
});

/**
 * `n` samples (after 10 discarded) of two round trips, then two with one strict put on the first,
 * with `relaxed` two more with one relaxed put, and with `busyMs` two pairs more with a strict put
 * and that much synchronous work in the worker, after the put's `complete` and while it commits,
 * with `held` two more with one strict put into a database holding that many records, and with
 * `work` ([ms, ms]) two round trips more whose answers the worker sends after that much
 * synchronous work each (what a worker doing the engine's work pays for the page's thread having
 * gone idle meanwhile):
 * `{ roundTrips, strictPut, relaxedPut?, busyAfterPut?, busyDuringPut?, heldPut?, worked? }` in ms.
 */
export async function floor(n, { relaxed = false, busyMs = 0, held = 0, work } = {}) {
  const worker = new Worker("./floor-worker.js", { type: "module" });
  const ask = (data) => new Promise((ok) => ((worker.onmessage = ok), worker.postMessage(data)));
  const out = {
    roundTrips: [],
    strictPut: [],
    ...(relaxed ? { relaxedPut: [] } : {}),
    ...(busyMs ? { busyAfterPut: [], busyDuringPut: [] } : {}),
    ...(held ? { heldPut: [] } : {}),
    ...(work ? { worked: [] } : {}),
  };
  if (held) {
    await deleteDb("keel-bench-floor-held");
    await ask({ fill: held });
  }
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
    if (busyMs) {
      await ask({ n: i, put: "strict", busyMs });
      await ask({ n: i });
    }
    const t4 = performance.now();
    if (busyMs) {
      await ask({ n: i, put: "strict", busyMs, overlap: true });
      await ask({ n: i });
    }
    const t5 = performance.now();
    if (held) {
      await ask({ n: i, put: "strict", held: true });
      await ask({ n: i });
    }
    const t6 = performance.now();
    if (work) {
      await ask({ n: i, work: work[0] });
      await ask({ n: i, work: work[1] });
    }
    const t7 = performance.now();
    if (i < 10) continue;
    out.roundTrips.push(t1 - t0);
    out.strictPut.push(t2 - t1);
    if (relaxed) out.relaxedPut.push(t3 - t2);
    if (busyMs) {
      out.busyAfterPut.push(t4 - t3);
      out.busyDuringPut.push(t5 - t4);
    }
    if (held) out.heldPut.push(t6 - t5);
    if (work) out.worked.push(t7 - t6);
  }
  worker.terminate();
  await deleteDb("keel-bench-floor");
  if (held) await deleteDb("keel-bench-floor-held");
  return out;
}
