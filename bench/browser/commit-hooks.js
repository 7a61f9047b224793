// Hooks evaluated in the worker before a build's worker.js (see commit.mjs, which writes the
// probe worker next to each build's). They log, on the worker's clock, every IndexedDB
// transaction the engine opens (mode, durability, stores, when it began and when it completed),
// every request made in it (put, get, getAll, count, cursors, delete) with the JSON length of
// what a put wrote, each model and tool request and reply crossing the worker's boundary, and each
// `postMessage` with the time the call took.
// The engine is untouched: the hooks wrap the IndexedDB prototypes (which wasm-bindgen's glue
// calls) and `self.postMessage`, and listen before the engine does.
const log = [];
const now = () => performance.now();
/** The transaction each request belongs to, by its object store or index. */
const txOf = (source) => (source instanceof IDBIndex ? source.objectStore.transaction : source.transaction);
const entries = new WeakMap();

const transaction = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function (stores, mode, options) {
  const tx = transaction.call(this, stores, mode, options);
  const entry = {
    kind: "tx",
    mode: mode ?? "readonly",
    durability: options?.durability ?? "default",
    stores: [].concat(stores).join(","),
    t0: now(),
    t1: null,
    requests: [],
  };
  log.push(entry);
  entries.set(tx, entry);
  const end = () => (entry.t1 = now());
  tx.addEventListener("complete", end);
  tx.addEventListener("abort", end);
  return tx;
};

function wrap(proto, name, weigh) {
  const real = proto[name];
  proto[name] = function (...args) {
    const entry = entries.get(txOf(this));
    const request = { op: name, store: this.name, bytes: weigh ? JSON.stringify(args[0]).length : 0, t0: now(), t1: null };
    entry?.requests.push(request);
    const req = real.apply(this, args);
    req.addEventListener("success", () => (request.t1 = now()));
    return req;
  };
}
wrap(IDBObjectStore.prototype, "put", true);
wrap(IDBObjectStore.prototype, "add", true);
for (const name of ["get", "getAll", "getAllKeys", "count", "openCursor", "openKeyCursor", "delete", "clear"]) {
  wrap(IDBObjectStore.prototype, name, false);
}
for (const name of ["get", "getAll", "getAllKeys", "count", "openCursor", "openKeyCursor"]) {
  wrap(IDBIndex.prototype, name, false);
}

const post = self.postMessage.bind(self);
// The engine posts JSON text of an array of messages (src/web/worker.rs); builds before 2026-11-27
// posted each message as an object, and the benchmarks compare builds.
const posted = (message) => (typeof message === "string" ? JSON.parse(message) : [message]);
// Each post is logged too, with the time the call itself took in the worker.
// The post's own time starts after the hook has read the message (before 2026-11-27 it included
// that `JSON.parse`, about a third of what the column showed).
self.postMessage = (message, ...rest) => {
  const t = now();
  for (const m of posted(message)) if (m.type === "modelCall" || m.type === "toolCall") log.push({ kind: m.type, t });
  const t0 = now();
  const result = post(message, ...rest);
  log.push({ kind: "post", t, ms: now() - t0 });
  return result;
};
self.addEventListener("message", (event) => {
  // The page posts its replies as JSON text since 2026-11-27, objects before.
  const message = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
  if (message?.type === "benchProbe") {
    // Ours, not the engine's: answered on the port the page sent, never seen by the engine.
    event.stopImmediatePropagation();
    // Marks the build itself sets (a test build's performance.mark), if any.
    for (const m of performance.getEntriesByType("mark")) log.push({ kind: "mark", name: m.name, t: m.startTime });
    performance.clearMarks();
    log.sort((a, b) => (a.t ?? a.t0) - (b.t ?? b.t0));
    event.ports[0].postMessage(log.splice(0));
    return;
  }
  if (message?.type === "modelResult" || message?.type === "toolResult") log.push({ kind: message.type, t: now() });
});
