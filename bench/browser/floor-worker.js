// The floor a step cannot go below: a worker that answers at once, or after one IndexedDB put;
// with `busyMs`, the put and that long of synchronous work, done while the put commits (`overlap`)
// or after it has (whether the browser commits while the worker is busy).
let db;
const open = () =>
  new Promise((ok, no) => {
    const req = indexedDB.open("keel-bench-floor", 1);
    req.onupgradeneeded = () => req.result.createObjectStore("turns", { keyPath: ["runId", "step"] });
    req.onsuccess = () => ok(req.result);
    req.onerror = () => no(req.error);
  });
/** Synchronous work for `ms` milliseconds, as building a prompt is. */
const busy = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
onmessage = async ({ data }) => {
  if (data.put) {
    db ??= await open();
    const tx = db.transaction("turns", "readwrite", { durability: data.put });
    tx.objectStore("turns").put({ runId: "floor", step: data.n, thought: "x".repeat(40), observation: "y".repeat(120) });
    // The engine commits at once, as here: the browser need not wait for the put's result.
    if (data.busyMs) tx.commit();
    const done = new Promise((ok, no) => ((tx.oncomplete = ok), (tx.onerror = tx.onabort = () => no(tx.error))));
    if (data.overlap) busy(data.busyMs);
    await done;
    if (data.busyMs && !data.overlap) busy(data.busyMs);
  }
  postMessage(data.n);
};
