// @ts-check
// What one `message` event from keel's worker carries. The worker posts JSON text of an array of
// messages — those it posted in a row — not objects: copying a string costs the
// worker far less than cloning objects (src/web/worker.rs says why), and the page parses it.

/** @typedef {import("./wire.js").WorkerMessage} WorkerMessage */

/**
 * The messages in `data`, in the order the worker posted them, or what is wrong with it (a
 * PROTOCOL_ERROR for the caller).
 * @param {unknown} data a `message` event's data
 * @returns {{ messages: WorkerMessage[] } | { error: string }}
 */
export function workerMessages(data) {
  if (typeof data !== "string") {
    const what = data === null ? "null" : typeof data === "object" ? "an object" : `a ${typeof data}`;
    return { error: `the worker posted ${what}, not JSON text: is it keel's worker.js, of this version?` };
  }
  let messages;
  try {
    messages = JSON.parse(data);
  } catch (e) {
    return { error: `the worker posted text that is not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  if (!Array.isArray(messages)) return { error: "the worker posted JSON that is not an array of messages" };
  return { messages };
}
