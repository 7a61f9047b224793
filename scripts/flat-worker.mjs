// Writes the package's worker as one file: pkg/worker.js with every module it imports (the
// wasm-bindgen glue keel.js, its snippets, codes.js, errors.js) inlined. A module worker fetches
// its imports level by level before it runs a line (worker.js, then keel.js, then the snippets),
// and each level costs the worker's start a round trip; one file costs one.
//
//   node scripts/flat-worker.mjs PKG_DIR
//
// Not a general bundler: it knows the forms these files are written in, one statement a line at
// the start of a line (`import * as x from "…"`, `import a, { b, c as d } from "…"`,
// `export function|async function|class|const|let name`, `export { a, b as c };`), and fails the
// build, naming the file and the line, on anything else. Each imported module becomes a function
// run once, in import order, returning its exports; `import.meta.url` keeps its meaning because
// every module that uses it sits in PKG_DIR, as worker.js does (checked).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const dir = resolve(process.argv[2] ?? "pkg");
const entry = join(dir, "worker.js");

const IMPORT = /^import\s+(?:(.+?)\s+from\s+)?"(\.{1,2}\/[^"]+)";?\s*$/;
const DECLARED = /^export\s+((?:async\s+)?function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)/;
const LIST = /^export\s*\{([^}]*)\};?\s*$/;

/** Module path → { name, code, exports }, in the order they must run (null while being read). */
const modules = new Map();
let count = 0;

function fail(file, line, why) {
  throw new Error(`flat-worker: ${relative(dir, file)}:${line + 1}: ${why}`);
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
  const named = (parts[2] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [name, as] = s.split(/\s+as\s+/);
      return as ? `${name}: ${as}` : name;
    });
  if (named.length) out.push(`const { ${named.join(", ")} } = ${ns};`);
  return out.join(" ");
}

/** Rewrites `file`'s imports and exports; inlines what it imports first. Returns its code. */
function rewrite(file, isEntry) {
  const lines = readFileSync(file, "utf8").split("\n");
  const exports = [];
  const out = lines.map((text, i) => {
    if (/^import\b/.test(text) && !/^import\s*\(/.test(text) && !/^import\.meta/.test(text)) {
      const m = text.match(IMPORT);
      if (!m) fail(file, i, "an import this script cannot read (one a line, a relative path)");
      const ns = load(resolve(dirname(file), m[2]));
      return bindings(m[1]?.trim(), ns, file, i);
    }
    if (/^export\b/.test(text)) {
      if (isEntry) fail(file, i, "the worker exports nothing");
      const declared = text.match(DECLARED);
      if (declared) {
        exports.push([declared[2], declared[2]]);
        return text.replace(/^export\s+/, "");
      }
      const list = text.match(LIST);
      if (!list) fail(file, i, "an export this script cannot read");
      for (const item of list[1].split(",").map((s) => s.trim()).filter(Boolean)) {
        const [local, as] = item.split(/\s+as\s+/);
        exports.push([as ?? local, local]);
      }
      return "";
    }
    if (text.includes("import.meta") && dirname(file) !== dir) fail(file, i, "import.meta outside the worker's directory would change meaning");
    return text;
  });
  return { code: out.join("\n"), exports };
}

/** Inlines `file` (once) and returns the name of its namespace. */
function load(file) {
  const known = modules.get(file);
  if (known === null) throw new Error(`flat-worker: an import cycle through ${relative(dir, file)}`);
  if (known) return known.name;
  modules.set(file, null);
  const { code, exports } = rewrite(file, false);
  const name = `__keel_module_${++count}`;
  modules.delete(file);
  modules.set(file, { name, code, exports });
  return name;
}

const main = rewrite(entry, true);
const parts = [
  "// keel's worker as one file, written by scripts/flat-worker.mjs from js/worker.js and the modules it",
  "// imports (each inlined below as a function run once, in import order).",
];
for (const [file, { name, code, exports }] of modules) {
  const fields = exports.map(([as, local]) => (as === local ? local : `${JSON.stringify(as)}: ${local}`));
  parts.push(`// ${relative(dir, file)}`, `const ${name} = (() => {`, code, `return Object.freeze({ ${fields.join(", ")} });`, "})();");
}
parts.push("// worker.js", main.code);
writeFileSync(entry, parts.join("\n"));
process.stdout.write(`    flat-worker: worker.js with ${[...modules.keys()].map((f) => relative(dir, f)).join(", ")} inlined\n`);
