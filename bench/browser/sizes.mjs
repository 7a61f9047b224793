// What the package ships, file by file: raw, gzip -9 -n (the gzip binary, as build.sh prints it)
// and brotli (quality 11, what a CDN would serve).
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

function walk(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => walk(join(path, name)));
}

function kind(file) {
  if (file.endsWith(".wasm")) return "wasm";
  if (file.endsWith(".d.ts")) return "types";
  if (!file.endsWith(".js")) return "other";
  return "keel-agent JS";
}

/**
 * The package's JS a page loads for `Agent.create`: `index.js` and what it imports, statically and
 * transitively (nothing since 2026-11-28: it is one file, scripts/flat-modules.mjs), and the worker
 * (`worker.js`, one file with the glue inlined). Not what only an option loads (`keel-agent/dom`,
 * `keel-agent/wllama`).
 */
function loadedJs(pkgDir) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(pkgDir, file), "utf8");
    // Static `import … from "./x.js"`, `export … from "./x.js"` and `import "./x.js"` at a line's
    // start (not JSDoc's `import("…")` types). A plain scan: it would miss a runtime `import()` or a
    // list holding a quote in a comment; keel's package has neither (checked against TypeScript's
    // `preProcessFile`, 2026-11-28).
    for (const [, spec] of text.matchAll(/^\s*(?:import|export)\b[^"'`;]*?["'](\.{1,2}\/[^"']+\.js)["']/gm)) {
      visit(relative(pkgDir, join(pkgDir, dirname(file), spec)));
    }
  };
  visit("index.js");
  visit("worker.js");
  return seen;
}

/** Every file in pkg/package.json's `files`, with its sizes; `loaded` totals what a browser fetches. */
export function packageSizes(pkgDir) {
  const { files } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const rows = files
    .flatMap((entry) => {
      try {
        return walk(join(pkgDir, entry));
      } catch {
        return [];
      }
    })
    .map((path) => {
      const body = readFileSync(path);
      const file = relative(pkgDir, path);
      return {
        file,
        kind: kind(file),
        raw: body.length,
        gzip: execFileSync("gzip", ["-9", "-n", "-c", path], { maxBuffer: 1 << 26 }).length,
        brotli: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
      };
    });
  const total = (filter) =>
    rows.filter(filter).reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }), {
      raw: 0,
      gzip: 0,
      brotli: 0,
    });
  const js = loadedJs(pkgDir);
  const missing = [...js].filter((file) => !rows.some((r) => r.file === file));
  if (missing.length) throw new Error(`pkg/ loads ${missing.join(", ")}, which package.json's \`files\` leaves out`);
  return {
    files: rows,
    wasm: total((r) => r.kind === "wasm"),
    js: total((r) => js.has(r.file)),
    loaded: total((r) => r.kind === "wasm" || js.has(r.file)),
  };
}
