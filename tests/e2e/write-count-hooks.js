// Evaluated in the worker before the package's worker.js (write-count-worker.js): records each
// read-write IndexedDB transaction the engine opens ("<stores>:<durability> put <stores put>")
// and each model call it posts, so a test can tell what one step writes; and, in the order the
// worker saw them, when each such transaction began and completed and each model and tool call
// was posted, so a test can tell what waited for what. The engine is untouched: the hooks wrap
// the IndexedDB prototypes and `self.postMessage`, and answer their own probe messages before the
// engine sees them.
const log = [];
/** `begin <n> <stores>`, `complete <n>`, `abort <n>`, `modelCall`, `toolCall`: what happened, in order. */
const order = [];
const entries = new WeakMap();
let transactions = 0;
const transaction = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function (...args) {
  const tx = transaction.apply(this, args);
  if (tx.mode === "readwrite") {
    const entry = { head: `${[...tx.objectStoreNames].join(",")}:${tx.durability}`, puts: [] };
    entries.set(tx, entry);
    log.push(entry);
    const n = ++transactions;
    order.push(`begin ${n} ${[...tx.objectStoreNames].join(",")}`);
    tx.addEventListener("complete", () => order.push(`complete ${n}`));
    tx.addEventListener("abort", () => order.push(`abort ${n}`));
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
  for (const m of JSON.parse(message)) {
    if (m.type === "modelCall") log.push("modelCall");
    if (m.type === "modelCall" || m.type === "toolCall") order.push(m.type);
  }
  return post(message, ...rest);
};
self.addEventListener("message", (event) => {
  const probe = event.data?.type;
  if (probe !== "writeCountProbe" && probe !== "writeOrderProbe") return;
  event.stopImmediatePropagation();
  if (probe === "writeOrderProbe") return event.ports[0].postMessage(order);
  event.ports[0].postMessage(log.map((e) => (typeof e === "string" ? e : `${e.head} put ${e.puts.join(",")}`)));
});
