// A worker that never answers: the page's liveness check must declare it dead.
self.onmessage = () => {};
