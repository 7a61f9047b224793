// What the two real-model benchmarks (bench/recovery, bench/web) share: llama-cpp-python's server
// behind the fault-injecting proxy, the page server and headless Chromium, and the report's
// provenance (the model file's hash, the server, the machine, the commit).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, mkdirSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM, launchChromium } from "../tests/e2e/browser.mjs";
import { serve } from "../tests/e2e/server.mjs";
import { startLlama } from "./recovery/llama.mjs";
import { startProxy } from "./recovery/proxy.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const sha256 = (file) =>
  new Promise((done, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => done(hash.digest("hex")))
      .on("error", reject);
  });

// Debian's chromium wrapper chatters on stderr: keep only stdout.
const sh = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
};

/**
 * Starts the model server (`logName`: its log under target/), the proxy in front of it
 * (`faultsFor(scenarioId)`: the model faults to inject), the repository's file server and the
 * browser. `close()` stops all four.
 */
export async function startModelBench({ python, model, logName, threads = 2, faultsFor = () => undefined, dump, sitePort = 0 }) {
  const log = join(ROOT, "target", `${logName}.log`);
  mkdirSync(dirname(log), { recursive: true });
  process.stdout.write(`    llama_cpp.server with ${basename(model)} (log: ${log})\n`);
  const llama = await startLlama({ python, model, log, threads });
  const proxy = await startProxy({ upstream: llama.url, faultsFor, dump });
  const site = await serve(ROOT, { port: sitePort });
  const browser = await launchChromium();
  const close = async () => {
    await browser.close();
    await site.close();
    await proxy.close();
    await llama.close();
  };
  return { llama, proxy, site, browser, close };
}

/** What a report says about what ran: the model file (hashed here: what is named is what ran), the server, the machine. */
export async function provenance({ python, model, threads = 2 }) {
  const version = sh(python, ["-c", "import llama_cpp; print(llama_cpp.__version__)"]);
  return {
    model: { file: basename(model), sha256: await sha256(model) },
    server: `llama-cpp-python ${version}, n_ctx 8192, ${threads} thread${threads === 1 ? "" : "s"}, temperature 0, seed 42`,
    machine: {
      date: new Date().toISOString(),
      cpu: `${cpus()[0]?.model ?? "unknown"} × ${availableParallelism()}`,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      loadavgEnd: loadavg().map((x) => Math.round(x * 100) / 100),
      chromium: sh(CHROMIUM, ["--version"]),
      commit: `${sh("git", ["rev-parse", "--short", "HEAD"])}${sh("git", ["status", "--porcelain"]) ? " (dirty tree)" : ""}`,
    },
  };
}
