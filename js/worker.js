// @ts-check
// The keel worker: loads the wasm engine and hands it the page's messages. Messages that arrive
// while the wasm loads are buffered and handled first, in order. No top-level await: bundlers
// emit workers as classic scripts by default (Vite's `worker.format` is "iife"), where it fails.
// @ts-ignore: keel.js is wasm-bindgen's glue, generated into pkg/ by the build, not kept in js/.
import init, { startWorker } from "./keel.js";
import { KeelErrorCode } from "./codes.js";
import { toRawFailure } from "./errors.js";

/**
 * Posts a message to the page, typed with wire.d.ts (generated from src/web/protocol.rs).
 * @param {import("./wire.js").WorkerMessage} message
 */
const post = (message) => self.postMessage(message);

/** @type {unknown[]} */
const early = [];
// The page's liveness pings are answered while the wasm loads (which may take a while on a slow
// network): the worker is alive, just not ready.
const buffer = (event) => {
  if (event.data?.type === "ping") post({ type: "pong", id: event.data.id });
  else early.push(event.data);
};
self.addEventListener("message", buffer);
init()
  .then(() => {
    self.removeEventListener("message", buffer);
    startWorker(early);
  })
  .catch((e) => {
    self.removeEventListener("message", buffer);
    post({ type: "initFailed", error: { ...toRawFailure(e), code: KeelErrorCode.WASM_LOAD_FAILED } });
  });
