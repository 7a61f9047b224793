// The demo's static server: www/ at /, the built package at /pkg/, the GGUF models at /models/ and
// @wllama/wllama at /vendor/, on 127.0.0.1. Every response carries COOP/COEP so the page is
// cross-origin isolated: wllama then runs llama.cpp on several threads (SharedArrayBuffer).
//
//   node www/server.mjs [--port 8080] [--models DIR]     (./build.sh demo runs it)
//
// The e2e tests import `serveDemo` and start it on a free port.
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const WWW = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(WWW, "..");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".gguf": "application/octet-stream",
};

const ISOLATION = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-embedder-policy": "require-corp",
  "cross-origin-resource-policy": "same-origin",
};

/** URL prefix → directory; the first match wins, so `/` comes last. */
function mounts(modelsDir) {
  return [
    ["/pkg/", join(ROOT, "pkg")],
    ["/models/", modelsDir],
    ["/vendor/@wllama/wllama/", join(WWW, "node_modules/@wllama/wllama")],
    ["/", WWW],
  ];
}

function fileFor(table, pathname) {
  const path = normalize(decodeURIComponent(pathname));
  for (const [prefix, dir] of table) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length) || "index.html";
    const file = join(dir, rest);
    return file.startsWith(dir + sep) ? file : undefined;
  }
  return undefined;
}

/** The .gguf files the page may load: `[{ name, size }]` (empty when none were fetched). */
async function listModels(dir) {
  let names = [];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".gguf"));
  } catch {
    return [];
  }
  return Promise.all(names.map(async (name) => ({ name, size: (await stat(join(dir, name))).size })));
}

/**
 * Serves the demo; resolves to `{ url, close }`. `port` 0 picks a free one.
 * @param {{ port?: number, host?: string, modelsDir?: string }} options
 */
export function serveDemo({ port = 0, host = "127.0.0.1", modelsDir = join(ROOT, ".cache/models") } = {}) {
  const table = mounts(resolve(modelsDir));
  const server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url, "http://x");
    const head = { ...ISOLATION, "cache-control": "no-cache" };
    if (pathname === "/models/index.json") {
      const body = JSON.stringify(await listModels(modelsDir));
      response.writeHead(200, { ...head, "content-type": TYPES[".json"] }).end(body);
      return;
    }
    const file = fileFor(table, pathname);
    if (!file || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(file ? 405 : 403, head).end();
      return;
    }
    let info;
    try {
      info = await stat(file);
      if (!info.isFile()) throw new Error("not a file");
    } catch {
      response.writeHead(404, { ...head, "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, {
      ...head,
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "content-length": info.size,
    });
    if (request.method === "HEAD") response.end();
    else createReadStream(file).pipe(response);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolvePromise({
        url: `http://${host}:${address.port}/`,
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(arg("--port", "8080"));
  const modelsDir = arg("--models", join(ROOT, ".cache/models"));
  serveDemo({ port, modelsDir }).then(
    ({ url }) => console.log(`==> demo: ${url} (Ctrl-C to stop)`),
    (e) => {
      console.error(`error: cannot serve the demo on 127.0.0.1:${port}: ${e.message}`);
      process.exit(1);
    },
  );
}
