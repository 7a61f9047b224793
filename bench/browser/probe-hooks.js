// Hooks evaluated in the worker before the package's worker.js (see probe-worker.js). They
// timestamp, on the worker's clock, each model and tool request the engine posts and each reply it
// gets, so the page can split a step into the two page<->worker round trips and the engine's own
// time. The engine is untouched: the hooks wrap `self.postMessage` (which the wasm-bindgen glue
// looks up on the global object) and listen before the engine does.
const marks = [];
const post = self.postMessage.bind(self);
// The engine posts JSON text of an array of messages (src/web/worker.rs); builds before 2026-11-27
// posted each message as an object, and the benchmarks compare builds.
const posted = (message) => (typeof message === "string" ? JSON.parse(message) : [message]);
self.postMessage = (message, ...rest) => {
  for (const m of posted(message)) if (m.type === "modelCall" || m.type === "toolCall") marks.push([m.type, m.id, performance.now()]);
  return post(message, ...rest);
};
self.addEventListener("message", (event) => {
  // The page posts its replies as JSON text since 2026-11-27, objects before.
  const message = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
  if (message?.type === "benchProbe") {
    // Ours, not the engine's: answered on the port the page sent, never seen by the engine.
    event.stopImmediatePropagation();
    event.ports[0].postMessage(marks.splice(0));
    return;
  }
  if (message?.type === "modelResult" || message?.type === "toolResult") marks.push([message.type, message.id, performance.now()]);
});
