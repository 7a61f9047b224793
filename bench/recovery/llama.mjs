// Starts llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`) on a free
// localhost port and waits until it serves; greedy decoding comes from each request
// (temperature 0, a fixed seed: keel's OpenAI backend sends both).
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createServer } from "node:net";

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/**
 * `python`: the venv's interpreter; `model`: the .gguf path; `log`: a file for the server's output.
 * Resolves to { url, close }. Rejects if the server exits or is not up within `startMs`.
 */
export async function startLlama({ python, model, log, nCtx = 8192, threads = 2, startMs = 180_000 }) {
  const port = await freePort();
  const out = createWriteStream(log);
  const child = spawn(
    python,
    [
      "-m", "llama_cpp.server",
      "--model", model,
      "--host", "127.0.0.1",
      "--port", String(port),
      "--n_ctx", String(nCtx),
      "--n_threads", String(threads),
      "--n_threads_batch", String(threads),
      "--seed", "42",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited = null;
  child.on("exit", (code, signal) => (exited = `exited with ${code ?? signal}`));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (exited) throw new Error(`llama_cpp.server ${exited}; see ${log}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`llama_cpp.server not up after ${startMs} ms; see ${log}`);
    }
    try {
      const r = await fetch(`${url}/v1/models`);
      if (r.ok) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}
