// The floor a step cannot go below: a worker that answers at once, or after one IndexedDB put;
// with `busyMs`, the put and that long of synchronous work, done while the put commits (`overlap`)
// or after it has (whether the browser commits while the worker is busy); with `work` alone, that
// long of synchronous work before the answer, as the engine works before each of its answers.
// With `held`, the put goes to a second database, filled first (`fill`) with that many records as
// a session of 1,000 ten-step runs leaves: whether a put costs more in a larger database.
const dbs = new Map();
const open = (name) =>
  new Promise((ok, no) => {
    const req = indexedDB.open(name, 1);
    req.onupgradeneeded = () => req.result.createObjectStore("turns", { keyPath: ["runId", "step"] });
    req.onsuccess = () => ok(req.result);
    req.onerror = () => no(req.error);
  });
const dbOf = async (held) => {
  const name = held ? "keel-bench-floor-held" : "keel-bench-floor";
  if (!dbs.has(name)) dbs.set(name, await open(name));
  return dbs.get(name);
};
const record = (runId, step) => ({ runId, step, thought: "x".repeat(40), observation: "y".repeat(120) });
/** Puts `n` records, 11 a run, in one transaction. */
const fill = async (n) => {
  const tx = (await dbOf(true)).transaction("turns", "readwrite");
  for (let i = 0; i < n; i++) tx.objectStore("turns").put(record(`run-${Math.floor(i / 11)}`, i % 11));
  await new Promise((ok, no) => ((tx.oncomplete = ok), (tx.onerror = tx.onabort = () => no(tx.error))));
};
/** Synchronous work for `ms` milliseconds, as building a prompt is. */
const busy = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
onmessage = async ({ data }) => {
  if (data.fill) await fill(data.fill);
  if (data.put) {
    const db = await dbOf(data.held);
    const tx = db.transaction("turns", "readwrite", { durability: data.put });
    tx.objectStore("turns").put(record("floor", data.n));
    // The engine commits at once, as here: the browser need not wait for the put's result.
    if (data.busyMs) tx.commit();
    const done = new Promise((ok, no) => ((tx.oncomplete = ok), (tx.onerror = tx.onabort = () => no(tx.error))));
    if (data.overlap) busy(data.busyMs);
    await done;
    if (data.busyMs && !data.overlap) busy(data.busyMs);
  } else if (data.work) busy(data.work);
  postMessage(data.n);
};
