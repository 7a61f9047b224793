// Model backends that run on the page and have their own entry point (keel-agent/wllama): each
// registers its factory here when imported, so the core package never imports their dependencies
// and bundlers never need them unless the page does.
const factories = new Map();

/** Called by a backend's entry point: `factory(options)` returns a model function. */
export function registerPageBackend(kind, factory) {
  factories.set(kind, factory);
}

/** The factory of `kind`, if its entry point was imported. */
export function pageBackend(kind) {
  return factories.get(kind);
}
