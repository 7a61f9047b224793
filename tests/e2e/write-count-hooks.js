// Evaluated in the worker before the package's worker.js (write-count-worker.js): records each
// read-write IndexedDB transaction the engine opens ("<stores>:<durability> put <stores put>")
// and each model call it posts, so a test can tell what one step writes. The engine is
// untouched: the hooks wrap the IndexedDB prototypes and `self.postMessage`, and answer their
// own probe message before the engine sees it.
const log = [];
const entries = new WeakMap();
const transaction = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function (...args) {
  const tx = transaction.apply(this, args);
  if (tx.mode === "readwrite") {
    const entry = { head: `${[...tx.objectStoreNames].join(",")}:${tx.durability}`, puts: [] };
    entries.set(tx, entry);
    log.push(entry);
  }
  return tx;
};
const put = IDBObjectStore.prototype.put;
IDBObjectStore.prototype.put = function (...args) {
  entries.get(this.transaction)?.puts.push(this.name);
  return put.apply(this, args);
};
const post = self.postMessage.bind(self);
// The engine posts JSON text of an array of messages (src/web/worker.rs).
self.postMessage = (message, ...rest) => {
  for (const m of JSON.parse(message)) if (m.type === "modelCall") log.push("modelCall");
  return post(message, ...rest);
};
self.addEventListener("message", (event) => {
  if (event.data?.type !== "writeCountProbe") return;
  event.stopImmediatePropagation();
  event.ports[0].postMessage(log.map((e) => (typeof e === "string" ? e : `${e.head} put ${e.puts.join(",")}`)));
});
