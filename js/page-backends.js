// Model backends that run on the page and have their own entry point (keel-agent/wllama): each
// registers its factory here when imported, so the core package never imports their dependencies
// and bundlers never need them unless the page does. The registry is kept on `globalThis`, under
// a registered symbol: keel-agent's index.js is shipped as one file with this module inlined
// (scripts/flat-modules.mjs), and keel-agent/wllama imports this module itself, so a page holds two
// copies of it, which must see one registry.
const REGISTRY = Symbol.for("keel-agent.pageBackends");

/** @returns {Map<string, (options: any) => any>} */
function factories() {
  const global = /** @type {any} */ (globalThis);
  return (global[REGISTRY] ??= new Map());
}

/** Called by a backend's entry point: `factory(options)` returns a model function. */
export function registerPageBackend(kind, factory) {
  factories().set(kind, factory);
}

/** The factory of `kind`, if its entry point was imported. */
export function pageBackend(kind) {
  return factories().get(kind);
}
