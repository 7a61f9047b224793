// Writes the package's two entry points that a page loads at its start as one file each, so that
// each costs one fetch, not one per level of imports (a module graph is fetched level by level
// before a line of it runs, and each level is a round trip: to the server, a CDN, or the HTTP
// cache): pkg/worker.js, with every module it imports (the wasm-bindgen glue keel.js, its
// snippets, codes.js, errors.js) inlined, and pkg/index.js, with every module it imports inlined.
// keel-agent/dom imports `ToolError` from index.js; keel-agent/wllama imports what it needs as it
// is, and what it shares with index.js is written to work from two copies (page-backends.js keeps
// its registry on `globalThis`; `KeelError` is recognised by a brand, also by `instanceof`). The
// files inlined that no other entry point imports leave the package (and their types, unless types
// that stay import them).
//
//   node scripts/flat-modules.mjs PKG_DIR
//
// Not a general bundler: it knows the forms these files are written in, one statement a line at
// the start of a line (`import * as x from "…"`, `import a, { b, c as d } from "…"`,
// `export function|async function|class|const|let name`, `export { a, b as c };`, and in an entry
// point `export { a, b } from "…";`), and fails the build, naming the file and the line, on
// anything else. Each inlined module becomes a function run once, in import order, returning its
// exports; `import.meta.url` keeps its meaning because every inlined module that uses it sits in
// PKG_DIR, as the entry does (checked).
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { importClosure } from "./module-imports.mjs";

const dir = resolve(process.argv[2] ?? "pkg");

const IMPORT = /^import\s+(?:(.+?)\s+from\s+)?"(\.{1,2}\/[^"]+)";?\s*$/;
const DECLARED = /^export\s+((?:async\s+)?function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)/;
const LIST = /^export\s*\{([^}]*)\};?\s*$/;
const REEXPORT = /^export\s*\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)";?\s*$/;

function fail(file, line, why) {
  throw new Error(`flat-modules: ${relative(dir, file)}:${line + 1}: ${why}`);
}

/** `import` clause → the statements binding its names to namespace `ns`. */
function bindings(clause, ns, file, line) {
  if (!clause) return "";
  const star = clause.match(/^\*\s+as\s+([\w$]+)$/);
  if (star) return `const ${star[1]} = ${ns};`;
  const parts = clause.match(/^(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?$/);
  if (!parts || (!parts[1] && parts[2] === undefined)) fail(file, line, `an import form this script does not know: ${clause}`);
  const out = [];
  if (parts[1]) out.push(`const ${parts[1]} = ${ns}.default;`);
  const named = names(parts[2] ?? "").map(([name, as]) => (as === name ? name : `${name}: ${as}`));
  if (named.length) out.push(`const { ${named.join(", ")} } = ${ns};`);
  return out.join(" ");
}

/** `a, b as c` → [["a", "a"], ["b", "c"]]. */
function names(list) {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [name, as] = s.split(/\s+as\s+/);
      return [name, as ?? name];
    });
}

/** Writes `entry` as one file, the modules it imports inlined. Returns their paths. */
function flatten(entry) {
  /** Module path → { name, code, exports }, in the order they must run (null while being read). */
  const modules = new Map();
  let count = 0;

  /** Rewrites `file`'s imports and exports; inlines what it imports first. */
  function rewrite(file, isEntry) {
    const lines = readFileSync(file, "utf8").split("\n");
    const exports = [];
    const out = lines.map((text, i) => {
      if (text.includes("import.meta") && dirname(file) !== dirname(entry)) {
        fail(file, i, "import.meta outside the entry point's directory would change meaning");
      }
      // One file is checked as a whole or not at all: the entry's own line says which.
      if (!isEntry && /^\/\/\s*@ts-check\s*$/.test(text)) return "";
      if (/^import\b/.test(text) && !/^import\s*\(/.test(text) && !/^import\.meta/.test(text)) {
        const m = text.match(IMPORT);
        if (!m) fail(file, i, "an import this script cannot read (one a line, a relative path)");
        return bindings(m[1]?.trim(), load(resolve(dirname(file), m[2])), file, i);
      }
      if (/^export\b/.test(text)) {
        const reexport = text.match(REEXPORT);
        if (reexport && isEntry) {
          const ns = load(resolve(dirname(file), reexport[2]));
          const pairs = names(reexport[1]);
          exports.push(...pairs.map(([name, as]) => [as, `${ns}.${name}`]));
          return "";
        }
        if (isEntry) fail(file, i, "an entry point's export this script cannot read (`export { a, b } from \"…\"` only)");
        const declared = text.match(DECLARED);
        if (declared) {
          exports.push([declared[2], declared[2]]);
          return text.replace(/^export\s+/, "");
        }
        const list = text.match(LIST);
        if (!list) fail(file, i, "an export this script cannot read");
        for (const [local, as] of names(list[1])) exports.push([as, local]);
        return "";
      }
      return text;
    });
    return { code: out.join("\n"), exports };
  }

  /** Inlines `file` (once) and returns the name of its namespace. */
  function load(file) {
    const known = modules.get(file);
    if (known === null) throw new Error(`flat-modules: an import cycle through ${relative(dir, file)}`);
    if (known) return known.name;
    modules.set(file, null);
    const { code, exports } = rewrite(file, false);
    const name = `__keel_module_${++count}`;
    modules.delete(file);
    modules.set(file, { name, code, exports });
    return name;
  }

  const main = rewrite(entry, true);
  const name = relative(dir, entry);
  const parts = [
    `// ${name} as one file, written by scripts/flat-modules.mjs from js/${name} and the modules it`,
    "// imports (each inlined below as a function run once, in import order).",
  ];
  for (const [file, { name: ns, code, exports }] of modules) {
    const fields = exports.map(([as, local]) => (as === local ? local : `${JSON.stringify(as)}: ${local}`));
    parts.push(`// ${relative(dir, file)}`, `const ${ns} = (() => {`, code, `return Object.freeze({ ${fields.join(", ")} });`, "})();");
  }
  parts.push(`// ${name}`, main.code);
  if (main.exports.length) {
    // `export { ns.name as name }` is not JavaScript: each export is bound to a constant first.
    const consts = main.exports.map(([as, from]) => `const ${as} = ${from};`);
    parts.push(...consts, `export { ${main.exports.map(([as]) => as).join(", ")} };`);
  }
  writeFileSync(entry, `${parts.join("\n")}\n`);
  return [...modules.keys()];
}

const inlined = new Set();
for (const name of ["worker.js", "index.js"]) {
  const files = flatten(join(dir, name));
  files.forEach((f) => inlined.add(f));
  process.stdout.write(`    flat-modules: ${name} with ${files.map((f) => relative(dir, f)).join(", ")} inlined\n`);
}

// The package's modules that no entry point loads any more (each lives on inlined in an entry)
// leave the package, so that each piece of its code is shipped where it runs: kept are those the
// other entry points import (keel-agent/wllama, keel-agent/dom), and what wasm-pack wrote.
const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
const others = Object.entries(pkg.exports)
  .filter(([key]) => key !== "." && key !== "./worker.js")
  .map(([, target]) => (typeof target === "string" ? target : target.default))
  .filter((target) => target.endsWith(".js"))
  .map((target) => resolve(dir, target));
const needed = importClosure(others);
const unused = (f) => inlined.has(resolve(dir, f)) && !needed.has(resolve(dir, f));
/** Every file under `d` (a `files` entry ending in "/"), relative to the package. */
const under = (d) => readdirSync(join(dir, d), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => relative(dir, join(e.parentPath, e.name)));
// A module's types go with it, unless the entry points' types import them (index.d.ts imports
// codes.js's).
const types = importClosure(
  Object.values(pkg.exports).flatMap((target) => (typeof target === "string" ? [] : [resolve(dir, target.types)])),
  (file) => file.replace(/\.js$/, ".d.ts"),
);
const gone = pkg.files.filter((f) => {
  if (f.endsWith("/")) return under(f).every(unused);
  if (f.endsWith(".d.ts")) return unused(f.replace(/\.d\.ts$/, ".js")) && !types.has(resolve(dir, f));
  return unused(f);
});
for (const f of gone) rmSync(join(dir, f), { recursive: true });
for (const d of new Set(gone.map((f) => dirname(f)).filter((d) => d !== "."))) {
  if (readdirSync(join(dir, d)).length === 0) rmSync(join(dir, d), { recursive: true });
}
pkg.files = pkg.files.filter((f) => !gone.includes(f));
pkg.sideEffects = pkg.sideEffects.filter((f) => !gone.some((g) => f.replace(/^\.\//, "").startsWith(g.replace(/\/$/, ""))));
writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
process.stdout.write(`    flat-modules: ${gone.join(", ")} left the package (inlined, imported by no entry point)\n`);
