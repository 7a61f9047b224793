// The relative imports of the package's modules and declaration files, as they are written here:
// static `import … from "./x.js"`, `export … from "./x.js"` and `import "./x.js"` at a line's start
// (a declaration's may run over lines), not a runtime `import()` or JSDoc's `import("…")` types.
// A plain scan, not a parser: it would miss a list holding a quote in a comment, which keel's
// package has none of (checked against TypeScript's `preProcessFile`, 2026-11-28). Used by the
// build (flat-modules.mjs: what each entry point still needs) and the browser benchmark
// (sizes.mjs: what a page loads).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const IMPORTS = /^\s*(?:import|export)\b[^"'`;]*?["'](\.{1,2}\/[^"']+\.js)["']/gm;

/**
 * `files` (absolute paths) and every file they import, transitively. `follow(file)` is the file to
 * read for an import of `file` (a module's declarations: `x.js` → `x.d.ts`); a file that cannot be
 * read imports nothing.
 * @param {string[]} files
 * @param {(file: string) => string} [follow]
 * @returns {Set<string>}
 */
export function importClosure(files, follow = (file) => file) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return;
    }
    for (const [, spec] of text.matchAll(IMPORTS)) visit(follow(resolve(dirname(file), spec)));
  };
  files.forEach(visit);
  return seen;
}
