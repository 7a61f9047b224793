// A worker that answers as keel's workers did before 2026-11-27, with objects, not JSON text:
// the page must refuse it clearly instead of waiting for a `ready` it cannot read.
self.onmessage = () => self.postMessage({ type: "ready", warnings: [] });
