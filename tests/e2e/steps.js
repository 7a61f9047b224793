// What the page-side scenarios share: the scripted model's steps, the scripted model itself, a
// minimal tool, and an IndexedDB request as a promise.

/** A step calling `tool`, as the model writes it. */
export const act = (tool, args = {}) => JSON.stringify({ thought: `call ${tool}`, action: { tool, args } });

/** A final-answer step. */
export const answer = (text) => JSON.stringify({ thought: "done", final_answer: text });

/** A custom model that replays `steps` in order (then says it is out of script) and records in
 * `seen` what it was asked. */
export function scripted(steps, seen = []) {
  let next = 0;
  return async (messages, { schema, signal, runId }) => {
    seen.push({ runId, messages, hasSchema: typeof schema === "object", signalIsSignal: signal instanceof AbortSignal });
    return next < steps.length ? steps[next++] : answer("out of script");
  };
}

/** A tool with an open object schema; `extra` adds spec fields (timeoutMs, maxAttempts…). */
export const tool = (name, execute, extra = {}) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object" },
  execute,
  ...extra,
});

/** An IDBRequest's result, or its error. */
export const idbRequest = (r) => new Promise((ok, no) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => no(r.error))));

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A session's stored runs (by start) and turns (in write order), read raw from database `db`. */
export async function sessionRecords(session, db = "keel") {
  const conn = await idbRequest(indexedDB.open(db));
  const range = IDBKeyRange.bound([session], [session, []]);
  const read = (store, index) => idbRequest(conn.transaction(store).objectStore(store).index(index).getAll(range));
  const [runs, turns] = [await read("runs", "session_startedMs"), await read("turns", "session_seq")];
  conn.close();
  return { runs, turns };
}
