// A tiny static file server for the tests: the repo root on 127.0.0.1, a free port.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".ts": "text/plain; charset=utf-8",
};

/**
 * Serves `root`; resolves to { url, close }. `headers` are added to every response (the benchmark
 * sets COOP/COEP for fine timers, and Cache-Control); `onRequest(path)` sees each request's path;
 * `fail(path)` may return a status to answer with instead of the file (a test failing a script).
 * `hold(path)` may return a promise the answer waits for (a test keeping a script loading).
 * `port`: a fixed one (a benchmark whose pages' URLs reach a model's prompt), else a free one.
 */
export function serve(root, { headers = {}, onRequest, fail, hold, port = 0 } = {}) {
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname));
    onRequest?.(path);
    await hold?.(path);
    const status = fail?.(path);
    if (typeof status === "number") {
      response.writeHead(status).end();
      return;
    }
    const file = join(root, path);
    if (!file.startsWith(root + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, { ...headers, "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      response.end(body);
    } catch {
      response.writeHead(404).end("not found");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", (e) =>
      reject(e.code === "EADDRINUSE" ? new Error(`port ${port} on 127.0.0.1 is in use: free it or choose another`) : e),
    );
    server.listen(port, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
