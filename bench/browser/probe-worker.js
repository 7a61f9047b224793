// The package's own worker with a probe around it (probe-hooks.js). Static imports evaluate in
// order, so the hooks are in place before worker.js registers its listener and starts the engine.
import "./probe-hooks.js";
import "/pkg/worker.js";
