// A scripted OpenAI-compatible chat-completions server for the tests, on 127.0.0.1 and a free port
// (so another origin than the page's: CORS is exercised, preflight included).
//
// Routes by the path's first segment: `/<route>/v1/chat/completions` answers from `routes[route]`, a
// list of replies used in order (the last one repeats); a reply is `{ status, headers, body }` or
// `"hang"` (never answers; the test reads whether the client aborted), or `{ events, delayMs, cutAfter }`
// (server-sent events, as a server answers `stream: true`: each event a `data:` line `delayMs` apart;
// with `cutAfter`, the connection is destroyed after that many events, a stream broken mid-way; see
// `streamed`); `GET /<route>/v1/models` lists one model, `local`. Every request is recorded.
import { createServer } from "node:http";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, accept",
  "access-control-expose-headers": "retry-after, retry-after-ms",
};

/** A 200 chat completion whose message content is `step` (an object, sent as JSON text). */
export function completion(step) {
  return {
    status: 200,
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify(step) } }],
      usage: { prompt_tokens: 120, completion_tokens: 24, total_tokens: 144 },
    },
  };
}

/**
 * A streamed chat completion of `step` (an object, sent as JSON text `chunkChars` characters per
 * event, then a finish event with usage and `[DONE]`); `cutAfter` events and the stream breaks.
 */
export function streamed(step, { chunkChars = 6, delayMs = 0, cutAfter } = {}) {
  const text = JSON.stringify(step);
  const events = [{ choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] }];
  for (let at = 0; at < text.length; at += chunkChars) {
    events.push({ choices: [{ index: 0, delta: { content: text.slice(at, at + chunkChars) }, finish_reason: null }] });
  }
  events.push({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 120, completion_tokens: 24 } });
  events.push("[DONE]");
  return { events, delayMs, cutAfter };
}

/** Starts the server; resolves to { url, requests, hung, streams, close } (`streams`: each streamed
 * answer's route, events sent and whether the client went away before its end). */
export function openaiServer(routes) {
  const requests = [];
  const hung = [];
  const streams = [];
  const used = new Map();
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const path = new URL(request.url, "http://x").pathname;
      const route = path.split("/")[1];
      let body;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      requests.push({ method: request.method, path, route, headers: request.headers, body });
      if (request.method === "OPTIONS") {
        response.writeHead(204, CORS).end();
        return;
      }
      const script = routes[route];
      // The model list, which the demo asks for before it calls the server ready.
      if (script && request.method === "GET" && path.endsWith("/v1/models")) {
        response.writeHead(200, { ...CORS, "content-type": "application/json" });
        response.end(JSON.stringify({ object: "list", data: [{ id: "local", object: "model" }] }));
        return;
      }
      if (!script || request.method !== "POST" || !path.endsWith("/v1/chat/completions")) {
        response.writeHead(404, { ...CORS, "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `no route ${request.method} ${path}` } }));
        return;
      }
      const index = used.get(route) ?? 0;
      used.set(route, index + 1);
      const reply = script[Math.min(index, script.length - 1)];
      if (reply === "hang") {
        const entry = { route, aborted: false };
        hung.push(entry);
        response.on("close", () => (entry.aborted = !response.writableEnded));
        return;
      }
      if (reply.events) {
        const entry = { route, aborted: false, sent: 0 };
        streams.push(entry);
        response.on("close", () => (entry.aborted = !response.writableEnded));
        response.writeHead(200, { ...CORS, "content-type": "text/event-stream", "cache-control": "no-cache" });
        // Sent at once: a connection cut before any byte of the answer is retried by the browser itself.
        response.flushHeaders();
        (async () => {
          for (const event of reply.events) {
            if (reply.cutAfter !== undefined && entry.sent >= reply.cutAfter) {
              response.destroy();
              return;
            }
            if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
            if (response.destroyed) return;
            response.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
            entry.sent += 1;
          }
          response.end();
        })();
        return;
      }
      response.writeHead(reply.status, { ...CORS, "content-type": "application/json", ...(reply.headers ?? {}) });
      response.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {}));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      const close = () => {
        server.closeAllConnections();
        return new Promise((r) => server.close(r));
      };
      resolve({ url: `http://127.0.0.1:${port}`, requests, hung, streams, close });
    });
  });
}
