// The package's worker with its IndexedDB writes recorded (write-count-hooks.js). Static imports
// evaluate in order, so the hooks are in place before worker.js starts the engine.
import "./write-count-hooks.js";
import "/pkg/worker.js";
