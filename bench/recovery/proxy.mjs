// The bench's model proxy: the page's worker calls `<proxy>/<mode>/<scenario>/v1/chat/completions`;
// the proxy injects the scenario's model faults (garbage text, a 503) by call number, forwards the
// rest to llama.cpp's server unchanged, adds CORS, and records each call's time and usage.
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "content-type, authorization",
  "access-control-allow-methods": "POST, GET, OPTIONS",
  "access-control-expose-headers": "retry-after",
};

// A reply a broken or overloaded small model could give: cut-off JSON and stray tokens.
const GARBAGE = '<|im_end|> {"thought": "I will call the tool", "action": {"tool": "get_ti';

const readBody = (request) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    request.on("data", (c) => chunks.push(c));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });

function completion(text) {
  return JSON.stringify({
    id: "proxy-fault",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  });
}

/**
 * Starts the proxy in front of `upstream` (e.g. http://127.0.0.1:8123). `faultsFor(scenario)`
 * gives `{ [callNumber]: "garbage" | "503" }`. `dump`, if given, is a directory where every call's
 * request and reply are written as `<mode>--<scenario>--<n>.json` (to replay a step's prompt with
 * variants, e.g. with bench/recovery/replay.mjs). Resolves to { url, calls(key), lastRequest(key), close }.
 */
export function startProxy({ upstream, faultsFor, dump }) {
  if (dump) mkdirSync(dump, { recursive: true });
  const save = (mode, scenario, number, body, reply) => {
    if (!dump) return;
    let request;
    try {
      request = JSON.parse(body);
    } catch {
      request = body;
    }
    writeFileSync(join(dump, `${mode}--${scenario}--${number}.json`), `${JSON.stringify({ request, reply }, null, 1)}\n`);
  };
  const log = new Map();
  // The last request body per key: the whole prompt the model saw last, for the raw results.
  const last = new Map();
  const server = createServer(async (request, response) => {
    if (request.method === "OPTIONS") {
      response.writeHead(204, CORS).end();
      return;
    }
    const match = /^\/([^/]+)\/([^/]+)\/v1\/chat\/completions$/.exec(new URL(request.url, "http://x").pathname);
    if (!match || request.method !== "POST") {
      response.writeHead(404, CORS).end("not found");
      return;
    }
    const [, mode, scenario] = match;
    const key = `${mode}/${scenario}`;
    const calls = log.get(key) ?? [];
    log.set(key, calls);
    const number = calls.length + 1;
    const body = await readBody(request);
    const fault = faultsFor(scenario)?.[number];
    const started = Date.now();
    const entry = { number, fault: fault ?? null, promptChars: body.length, ms: 0, usage: null, status: 200 };
    calls.push(entry);
    last.set(key, body);
    if (fault === "garbage") {
      save(mode, scenario, number, body, { fault });
      response.writeHead(200, { ...CORS, "content-type": "application/json" }).end(completion(GARBAGE));
      return;
    }
    if (fault === "503") {
      save(mode, scenario, number, body, { fault });
      entry.status = 503;
      response.writeHead(503, { ...CORS, "content-type": "application/json" }).end('{"error":{"message":"model server overloaded"}}');
      return;
    }
    try {
      const upstreamResponse = await fetch(`${upstream}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const text = await upstreamResponse.text();
      entry.status = upstreamResponse.status;
      entry.ms = Date.now() - started;
      save(mode, scenario, number, body, { status: upstreamResponse.status, text });
      try {
        entry.usage = JSON.parse(text).usage ?? null;
      } catch {
        entry.usage = null;
      }
      response.writeHead(upstreamResponse.status, { ...CORS, "content-type": "application/json" }).end(text);
    } catch (e) {
      entry.status = 502;
      entry.error = String(e);
      response.writeHead(502, { ...CORS, "content-type": "application/json" }).end(JSON.stringify({ error: { message: String(e) } }));
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        calls: (key) => log.get(key) ?? [],
        lastRequest: (key) => {
          try {
            return JSON.parse(last.get(key)) ?? null;
          } catch {
            return null;
          }
        },
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}
