// The floor's worker (cold-floor.html): a module worker with nothing to load, which instantiates
// the module the page posts when it needs no imports (the empty one) and answers `ready`.
self.addEventListener("message", (event) => {
  const module = event.data?.module;
  if (module instanceof WebAssembly.Module && WebAssembly.Module.imports(module).length === 0) new WebAssembly.Instance(module);
  self.postMessage("ready");
});
