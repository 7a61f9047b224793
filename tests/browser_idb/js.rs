//! JS helpers for the IndexedDB tests: a fixture database built by hand (not by keel's migration
//! code), raw reads of the layout, a connection that ignores `versionchange`, and fault injection.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const req = (r) => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
const done = (tx) => new Promise((ok, no) => { tx.oncomplete = () => ok(); tx.onabort = () => no(tx.error); });

// Version 1 as it is on disk, written by hand: the layout and one record per store in the shape
// keel 0.1 stores them. Version 1 is the first released layout, so this is the earliest fixture.
export async function fixtureV1(name) {
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => {
    const db = open.result;
    db.createObjectStore("sessions", { keyPath: "id" }).createIndex("updatedMs", "updatedMs");
    const runs = db.createObjectStore("runs", { keyPath: "id" });
    runs.createIndex("session_startedMs", ["session", "startedMs"]);
    runs.createIndex("startedMs", "startedMs");
    runs.createIndex("status_startedMs", ["status", "startedMs"]);
    db.createObjectStore("turns", { keyPath: ["runId", "turn.step"] }).createIndex("session_seq", ["session", "seq"]);
    const failures = db.createObjectStore("failures", { keyPath: "id" });
    for (const key of ["session", "runId", "tool", "code"]) failures.createIndex(`${key}_atMs`, [key, "atMs"]);
    failures.createIndex("atMs", "atMs");
  };
  const db = await req(open);
  const tx = db.transaction(["sessions", "runs", "turns"], "readwrite");
  tx.objectStore("sessions").put({ id: "s", createdMs: 1, updatedMs: 2, runs: 1, turns: 1, failures: 0 });
  tx.objectStore("runs").put({ id: "r", session: "s", task: "t", status: "succeeded", startedMs: 1, endedMs: 2,
    answer: "a", reason: { kind: "final_answer" },
    counts: { steps: 1, modelCalls: 1, toolCalls: 0, promptTokens: 0, completionTokens: 0 } });
  tx.objectStore("turns").put({ runId: "r", session: "s", atMs: 2, seq: 0,
    turn: { step: 1, thought: "th", action: null, observation: "a", outcome: "final" } });
  await done(tx);
  db.close();
}

// {version, stores: {store: [index names]}} of a database, read raw.
export async function layoutOf(name) {
  const db = await req(indexedDB.open(name));
  const stores = {};
  for (const store of db.objectStoreNames) {
    stores[store] = [...db.transaction(store).objectStore(store).indexNames];
  }
  const version = db.version;
  db.close();
  return { version, stores };
}

// A connection at the current version that ignores `versionchange` (an old tab).
export function holdOpen(name) { return req(indexedDB.open(name)); }

// "deleted", or "blocked" if a connection did not close when asked.
export function deleteOrBlocked(name) {
  return new Promise((ok, no) => {
    const r = indexedDB.deleteDatabase(name);
    r.onsuccess = () => ok("deleted");
    r.onblocked = () => ok("blocked");
    r.onerror = () => no(r.error);
  });
}

// Puts a raw value into a store.
export async function putRaw(name, store, value) {
  const db = await req(indexedDB.open(name));
  const tx = db.transaction(store, "readwrite");
  tx.objectStore(store).put(value);
  await done(tx);
  db.close();
}

// The next `times` puts into `store` of database `name` throw QuotaExceededError, as a full disk would.
export function quotaTimes(name, store, times) {
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (...args) {
    if (this.name === store && this.transaction.db.name === name) {
      if (--times === 0) IDBObjectStore.prototype.put = put;
      throw new DOMException("simulated: the disk is full", "QuotaExceededError");
    }
    return put.apply(this, args);
  };
}

// Records "<stores>:<durability> put <stores put>" for each read-write transaction on database
// `name` until stopped: what each write costs.
export function watchDurability(name) {
  const transaction = IDBDatabase.prototype.transaction;
  const put = IDBObjectStore.prototype.put;
  const log = [];
  const entries = new WeakMap();
  IDBDatabase.prototype.transaction = function (...args) {
    const tx = transaction.apply(this, args);
    if (this.name === name && tx.mode === "readwrite") {
      entries.set(tx, { at: log.length, head: `${[...tx.objectStoreNames].join(",")}:${tx.durability}`, puts: [] });
      log.push("");
    }
    return tx;
  };
  IDBObjectStore.prototype.put = function (...args) {
    const entry = entries.get(this.transaction);
    if (entry) {
      entry.puts.push(this.name);
      log[entry.at] = `${entry.head} put ${entry.puts.join(",")}`;
    }
    return put.apply(this, args);
  };
  return { log, stop: () => { IDBDatabase.prototype.transaction = transaction; IDBObjectStore.prototype.put = put; } };
}
"#)]
extern "C" {
    #[wasm_bindgen(catch, js_name = fixtureV1)]
    pub async fn fixture_v1(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = layoutOf)]
    pub async fn layout_of(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = holdOpen)]
    pub async fn hold_open(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = deleteOrBlocked)]
    pub async fn delete_or_blocked(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = putRaw)]
    pub async fn put_raw(name: &str, store: &str, value: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = quotaTimes)]
    pub fn quota_times(name: &str, store: &str, times: u32);
    #[wasm_bindgen(js_name = watchDurability)]
    pub fn watch_durability(name: &str) -> JsValue;
}
