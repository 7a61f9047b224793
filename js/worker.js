// @ts-check
// The keel worker: loads the wasm engine and hands it the page's messages. Messages that arrive
// while the wasm loads are buffered and handled first, in order. No top-level await: bundlers
// emit workers as classic scripts by default (Vite's `worker.format` is "iife"), where it fails.
//
// The page's first message (pings aside) says where the wasm comes from: `{type: "wasm", module}`
// carries the `WebAssembly.Module` the page compiled while this worker started (engine-module.js),
// or null when it could not; any other first message means the page compiled nothing. The page's
// module is instantiated at once, synchronously (a worker may: no promise, no task between the
// module's arrival and the engine's start, whose `init` is then the next message). Without a
// module, or with one this glue cannot instantiate, the worker fetches and compiles the wasm
// itself (`instantiateStreaming`). The build writes this file into pkg/ as one, its imports inlined
// (scripts/flat-modules.mjs): a module worker fetches its imports level by level before it starts.
// @ts-ignore: keel.js is wasm-bindgen's glue, generated into pkg/ by the build, not kept in js/.
import init, { initSync, startWorker } from "./keel.js";
import { KeelErrorCode } from "./codes.js";
import { toRawFailure } from "./errors.js";

/**
 * Posts a message to the page, typed with wire.d.ts (generated from src/web/protocol.rs), as the
 * engine posts its own: JSON text of an array of messages (src/web/worker.rs says why).
 * @param {import("./wire.js").WorkerMessage} message
 */
const post = (message) => self.postMessage(JSON.stringify([message]));

/** @type {unknown[]} */
const early = [];
let loading = false;
// The page's liveness pings are answered while the wasm loads (which may take a while on a slow
// network): the worker is alive, just not ready.
const buffer = (event) => {
  const data = event.data;
  if (data?.type === "ping") return post({ type: "pong", id: data.id });
  if (!loading) {
    loading = true;
    const given = data?.type === "wasm" ? data.module : undefined;
    load(given instanceof WebAssembly.Module && isEngine(given) ? given : undefined);
    if (data?.type === "wasm") return;
  }
  early.push(data);
};
self.addEventListener("message", buffer);

/**
 * Whether `module` is keel's engine at all (another build's would still fail to link against this
 * glue, and the worker then fetches its own).
 * @param {WebAssembly.Module} module
 */
function isEngine(module) {
  return WebAssembly.Module.exports(module).some((e) => e.name === "startWorker" && e.kind === "function");
}

/**
 * Instantiates `module` (the page's) at once, or fetches the wasm if there is none or it does not
 * fit, then starts the engine on the buffered messages.
 * @param {WebAssembly.Module | undefined} module
 */
function load(module) {
  if (module && instantiated(module)) return start();
  init().then(start, failed);
}

/**
 * Whether the glue could instantiate `module`; one it cannot (another build's) leaves the worker
 * to load its own.
 * @param {WebAssembly.Module} module
 */
function instantiated(module) {
  try {
    initSync({ module });
    return true;
  } catch {
    return false;
  }
}

/** Hands the engine the messages buffered so far; from now on it reads the page's messages itself. */
function start() {
  self.removeEventListener("message", buffer);
  try {
    startWorker(early);
  } catch (e) {
    failed(e);
  }
}

/**
 * The engine could not be loaded or started: the page hears why, as `initFailed`.
 * @param {unknown} e
 */
function failed(e) {
  self.removeEventListener("message", buffer);
  post({ type: "initFailed", error: { ...toRawFailure(e), code: KeelErrorCode.WASM_LOAD_FAILED } });
}
