// What the package ships, file by file: raw, gzip -9 -n (the gzip binary, as build.sh prints it)
// and brotli (quality 11, what a CDN would serve).
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import { importClosure } from "../../scripts/module-imports.mjs";

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
  const closure = importClosure([join(pkgDir, "index.js"), join(pkgDir, "worker.js")]);
  return new Set([...closure].map((file) => relative(pkgDir, file)));
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
