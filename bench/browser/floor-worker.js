// The floor a step cannot go below: a worker that answers at once, or after one IndexedDB put.
let db;
const open = () =>
  new Promise((ok, no) => {
    const req = indexedDB.open("keel-bench-floor", 1);
    req.onupgradeneeded = () => req.result.createObjectStore("turns", { keyPath: ["runId", "step"] });
    req.onsuccess = () => ok(req.result);
    req.onerror = () => no(req.error);
  });
onmessage = async ({ data }) => {
  if (data.put) {
    db ??= await open();
    const tx = db.transaction("turns", "readwrite", { durability: data.put });
    tx.objectStore("turns").put({ runId: "floor", step: data.n, thought: "x".repeat(40), observation: "y".repeat(120) });
    await new Promise((ok, no) => ((tx.oncomplete = ok), (tx.onerror = tx.onabort = () => no(tx.error))));
  }
  postMessage(data.n);
};
