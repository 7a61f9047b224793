// The keel worker: loads the wasm engine and hands it the page's messages. Messages that arrive
// while the wasm loads are buffered and handled first, in order. No top-level await: bundlers
// emit workers as classic scripts by default (Vite's `worker.format` is "iife"), where it fails.
import init, { startWorker } from "./keel.js";
import { toRawFailure } from "./errors.js";

const early = [];
const buffer = (event) => early.push(event.data);
self.addEventListener("message", buffer);
init()
  .then(() => {
    self.removeEventListener("message", buffer);
    startWorker(early);
  })
  .catch((e) => {
    self.removeEventListener("message", buffer);
    self.postMessage({ type: "initFailed", error: { ...toRawFailure(e), code: "WASM_LOAD_FAILED" } });
  });
