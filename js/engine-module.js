// @ts-check
// The engine's wasm, compiled on the page while the worker starts: `Agent.create` begins the
// fetch and the (streaming) compile before it spawns the worker, and hands the worker the
// compiled `WebAssembly.Module` (see worker.js), so the worker's own start (its script and the
// glue's modules) and the compile overlap instead of following each other. A module posted to a
// dedicated worker is shared, not copied: the code compiled for one agent serves the next, and
// every later agent of the page starts from it without a fetch.
//
// Best effort: where the page cannot compile it (the wasm moved by a bundler, a Content Security
// Policy without 'wasm-unsafe-eval' on the page but not in the worker, an old browser), the
// worker is told so and loads the wasm itself, as it did before, and reports its own error.

/** @type {Promise<WebAssembly.Module | null> | undefined} */
let compiling;

/**
 * The engine's compiled module, or null if the page could not compile it. Compiled once per page;
 * a failure is not kept, so the next agent tries again.
 * @returns {Promise<WebAssembly.Module | null>}
 */
export function engineModule() {
  if (compiling === undefined) {
    const started = compile();
    compiling = started;
    started.then((module) => {
      if (module === null && compiling === started) compiling = undefined;
    });
  }
  return compiling;
}

/** @returns {Promise<WebAssembly.Module | null>} */
async function compile() {
  try {
    // Spelt out literally, as the glue (keel.js) does: bundlers (Vite, webpack) recognise this
    // form and rewrite it to the wasm they emit, which is the glue's too.
    const response = await fetch(new URL("./keel_bg.wasm", import.meta.url));
    if (!response.ok) return null;
    const wasm = response.headers.get("content-type")?.split(";")[0].trim() === "application/wasm";
    if (wasm && typeof WebAssembly.compileStreaming === "function") return await WebAssembly.compileStreaming(response);
    return await WebAssembly.compile(await response.arrayBuffer());
  } catch {
    return null;
  }
}

/**
 * Hands `worker` the page's compiled engine (`module`), or null when there is none: the worker
 * then loads its own. Not a PageMessage: worker.js takes it before the engine starts, and the
 * engine never sees it. A worker the module cannot be posted to gets null.
 * @param {Worker} worker
 * @param {WebAssembly.Module | null} module
 */
export function handOver(worker, module) {
  const post = (/** @type {WebAssembly.Module | null} */ given) => worker.postMessage({ type: "wasm", module: given });
  try {
    post(module);
  } catch {
    post(null);
  }
}
