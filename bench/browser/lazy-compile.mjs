// What the engine compiles before `Agent.create()` resolves. Chrome compiles each wasm function
// lazily, with Liftoff, the first time it runs, so a cold `init` spends much of its time compiling:
// this counts the functions, their bytes and V8's own compile time for each, from V8's
// `--trace-wasm-compilation-times` (Chromium in `--single-process` mode, whose stdout carries V8's
// trace), over loads of `cold.html?mark` (the custom model, no tools, the default store), each in
// a fresh browser. When `Agent.create()` resolves, the page compiles and runs a one-function module
// of its own (the marker): keel's functions traced before it were compiled before the page had
// `ready`. The worker's work right after `ready` (the database's open) races with the marker, so
// the counts vary from load to load (by up to a third with many small functions); V8's times
// vary with the machine. Names
// come from a copy of the module that kept them, with the same functions in the same order
// (`bench/size/shipped.sh` writes one: target/bench-size/shipped-out/named.wasm); without it,
// functions are shown by index. DIR (default: this checkout) holds the pkg/ and bench/browser/ to
// load, as cold-ab.mjs's do.
//   node bench/browser/lazy-compile.mjs [--dir DIR] [--loads N] [--top N] [--names FILE]
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../tests/e2e/browser.mjs";
import { serve } from "../../tests/e2e/server.mjs";
import { HEADERS } from "./headers.mjs";
import { summary } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values: opts } = parseArgs({
  options: {
    dir: { type: "string", default: "." },
    loads: { type: "string", default: "3" },
    top: { type: "string", default: "15" },
    names: { type: "string", default: "target/bench-size/shipped-out/named.wasm" },
  },
});
const dir = resolve(ROOT, opts.dir);
const pkg = join(dir, "pkg");
if (!existsSync(join(pkg, "keel_bg.wasm"))) throw new Error(`no keel_bg.wasm in ${pkg}: run ./build.sh build`);

/** A wasm module's functions: their body sizes, in order, and the names its name section gives. */
function functionsOf(bytes, file) {
  const magic = [0x00, 0x61, 0x73, 0x6d];
  if (bytes.length < 8 || magic.some((b, i) => bytes[i] !== b)) throw new Error(`${file} is not a wasm module`);
  let at = 8;
  const uleb = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (at >= bytes.length) throw new Error(`${file} ends inside a number: truncated`);
      const byte = bytes[at++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return result;
    }
  };
  const text = (length) => new TextDecoder().decode(bytes.subarray(at, (at += length)));
  let imported = 0;
  const sizes = [];
  const names = new Map();
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = uleb();
    const end = at + size;
    if (id === 2) {
      for (let n = uleb(); n > 0; n--) {
        text(uleb());
        text(uleb());
        const kind = bytes[at++];
        if (kind === 0) (uleb(), imported++);
        else if (kind === 1) (at++, uleb() & 1 ? (uleb(), uleb()) : uleb());
        else if (kind === 2) (uleb() & 1 ? (uleb(), uleb()) : uleb());
        else if (kind === 3) at += 2;
        else (at++, uleb());
      }
    } else if (id === 10) {
      for (let n = uleb(); n > 0; n--) {
        const body = uleb();
        sizes.push(body);
        at += body;
      }
    } else if (id === 0 && text(uleb()) === "name") {
      while (at < end) {
        const kind = bytes[at++];
        const length = uleb();
        const next = at + length;
        if (kind === 1) for (let n = uleb(); n > 0; n--) names.set(uleb(), text(uleb()));
        at = next;
      }
    }
    at = end;
  }
  return { imported, sizes, names };
}

const shipped = functionsOf(readFileSync(join(pkg, "keel_bg.wasm")), join(pkg, "keel_bg.wasm"));
let names = new Map();
const namesFile = resolve(ROOT, opts.names);
if (existsSync(namesFile)) {
  const named = functionsOf(readFileSync(namesFile), namesFile);
  const same = named.imported === shipped.imported && named.sizes.join() === shipped.sizes.join();
  if (same) names = named.names;
  else process.stderr.write(`${opts.names} is another build (its functions differ from ${pkg}'s): no names\n`);
} else {
  process.stderr.write(`no ${opts.names} (bench/size/shipped.sh writes it): functions by index\n`);
}

/** The marker module's compile (cold.html?mark): a module of one function, not keel's. */
function markerOf(compiled) {
  const counts = new Map();
  for (const f of compiled) counts.set(f.module, (counts.get(f.module) ?? 0) + 1);
  return compiled.find((f) => counts.get(f.module) === 1 && f.index === 0 && f.bytes === 4);
}

if (!(Number(opts.loads) >= 1)) throw new Error(`--loads ${opts.loads}: give at least 1`);
const server = await serve(dir, { headers: HEADERS });
const loads = [];
try {
  for (let i = 0; i < Number(opts.loads); i++) {
    const browserServer = await chromium.launchServer({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, "--single-process", "--no-zygote", "--js-flags=--trace-wasm-compilation-times"],
    });
    const compiled = [];
    let out = "";
    browserServer.process().stdout.setEncoding("utf8");
    browserServer.process().stdout.on("data", (chunk) => {
      out += chunk;
      const lines = out.split("\n");
      out = lines.pop();
      for (const line of lines) {
        // Liftoff's lines (a lazy compile); TurboFan's, written otherwise, come with tier-up.
        const m = /function (0x[0-9a-f]+)#(\d+) using Liftoff, took (\d+) μs and \d+ bytes; bodysize (\d+)/.exec(line);
        if (m) compiled.push({ module: m[1], index: Number(m[2]), us: Number(m[3]), bytes: Number(m[4]) });
      }
    });
    const browser = await chromium.connect(browserServer.wsEndpoint());
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${server.url}/bench/browser/cold.html?mark`);
      await page.waitForFunction(() => window.cold !== undefined, null, { timeout: 60_000 });
      const cold = await page.evaluate(() => window.cold);
      if (cold.error) throw new Error(`cold start failed: ${cold.error}`);
      // Up to the page's marker module, compiled when `Agent.create()` resolved: keel's module is
      // the other one.
      for (let wait = 0; wait < 100 && !markerOf(compiled); wait++) await new Promise((r) => setTimeout(r, 20));
      const marker = markerOf(compiled);
      if (!marker) throw new Error("V8's trace never showed the page's marker module");
      const before = compiled.slice(0, compiled.indexOf(marker)).filter((f) => f.module !== marker.module);
      loads.push({ createMs: cold.createMs, compiled: before });
    } finally {
      await browser.close();
      await browserServer.close();
    }
  }
} finally {
  await server.close();
}

const total = (load, key) => load.compiled.reduce((sum, f) => sum + f[key], 0);
const round = (x) => Math.round(x * 100) / 100;
process.stdout.write(
  `${pkg}: ${loads.length} loads of cold.html, Chromium --single-process\n` +
    `functions compiled before ready: ${loads.map((l) => l.compiled.length).join(", ")}; ` +
    `their bytes: ${loads.map((l) => total(l, "bytes")).join(", ")}; ` +
    `V8's compile time, median ms: ${round(summary(loads.map((l) => total(l, "us") / 1000)).median)}; ` +
    `create → ready, median ms: ${round(summary(loads.map((l) => l.createMs)).median)} (single-process: slower than a normal load)\n\n`,
);
const byIndex = new Map();
for (const load of loads) {
  for (const f of load.compiled) {
    const seen = byIndex.get(f.index) ?? { ...f, times: [] };
    seen.times.push(f.us);
    byIndex.set(f.index, seen);
  }
}
const rows = [...byIndex.values()]
  .map((f) => ({ ...f, us: summary(f.times).median }))
  .sort((a, b) => b.us - a.us)
  .slice(0, Number(opts.top));
process.stdout.write("| function | body bytes | compile µs (median) |\n| --- | ---: | ---: |\n");
for (const f of rows) {
  const name = names.get(f.index)?.replace(/::h[0-9a-f]{16}$/, "") ?? `#${f.index}`;
  process.stdout.write(`| \`${name.length > 110 ? `${name.slice(0, 110)}…` : name}\` | ${f.bytes} | ${f.us} |\n`);
}
if (loads.some((l) => l.compiled.length === 0)) {
  process.stderr.write("a load compiled nothing before ready: V8's trace was not read\n");
  process.exitCode = 1;
}
