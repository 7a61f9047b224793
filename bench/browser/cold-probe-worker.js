// The package's own worker with the cold-start probe around it (cold-probe-hooks.js). Static
// imports evaluate in order, so the hooks are in place before the glue and worker.js run.
import "./cold-probe-hooks.js";
import "/pkg/worker.js";
