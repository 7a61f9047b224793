// Hooks evaluated in the worker before the package's worker.js (see cold-probe-worker.js): they
// timestamp, on the shared clock (timeOrigin + now), when the worker's module graph had loaded,
// the wasm's compile and instantiation, the `init` message's arrival and the `ready` reply, so the
// cold-start probe (cold-probe.html) can split Agent.create() into its phases. The engine is
// untouched: the hooks wrap WebAssembly's entry points and `self.postMessage`, and listen first.
const at = () => performance.timeOrigin + performance.now();
const marks = { workerOrigin: performance.timeOrigin, hooks: at() };
const wrap = (name) => {
  const real = WebAssembly[name];
  if (typeof real !== "function") return;
  WebAssembly[name] = async (...args) => {
    marks[`${name}Start`] ??= at();
    try {
      return await real.apply(WebAssembly, args);
    } finally {
      marks[`${name}End`] ??= at();
    }
  };
};
for (const name of ["instantiateStreaming", "compileStreaming", "instantiate", "compile"]) wrap(name);
const post = self.postMessage.bind(self);
// The engine posts JSON text of an array of messages (src/web/worker.rs); builds before 2026-11-27
// posted each message as an object, and the benchmarks compare builds.
const posted = (message) => (typeof message === "string" ? JSON.parse(message) : [message]);
self.postMessage = (message, ...rest) => {
  for (const m of posted(message)) if (m.type === "ready" || m.type === "initFailed") marks.ready ??= at();
  return post(message, ...rest);
};
self.addEventListener("message", (event) => {
  const message = event.data;
  if (message?.type === "coldProbe") {
    event.stopImmediatePropagation();
    const resources = performance
      .getEntriesByType("resource")
      .map((e) => ({ name: new URL(e.name).pathname, start: performance.timeOrigin + e.startTime, end: performance.timeOrigin + e.responseEnd }));
    for (const e of performance.getEntriesByType("mark")) marks[e.name] = performance.timeOrigin + e.startTime;
    event.ports[0].postMessage({ marks, resources });
    return;
  }
  if (message?.type === "init") marks.initArrived ??= at();
});
