// The README's usage example, type-checked as written: every ```ts block of its "Use it" section is
// compiled with `tsc --strict` against the built package (pkg/, resolved as `keel-agent` through its
// exports map, as an app that installed it would) and Zod, so the example cannot drift from the types.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DIR = join(HERE, ".readme-check");

/** The ```ts blocks of the README section headed `## Use it`. */
export function usageBlocks(readme) {
  const start = readme.indexOf("\n## Use it\n");
  assert.ok(start >= 0, "README.md has a `## Use it` section");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** Runs tsc on `files` (name → source) in a fresh project beside pkg/; resolves to tsc's output, "" when clean. */
function typeCheck(files) {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(join(DIR, "node_modules"), { recursive: true });
  symlinkSync(join(ROOT, "pkg"), join(DIR, "node_modules/keel-agent"), "dir");
  writeFileSync(join(DIR, "package.json"), JSON.stringify({ type: "module", private: true }));
  const compilerOptions = {
    strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext",
    lib: ["es2022", "dom", "dom.iterable"], skipLibCheck: false,
  };
  writeFileSync(join(DIR, "tsconfig.json"), JSON.stringify({ compilerOptions, files: Object.keys(files) }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(DIR, name), text);
  try {
    execFileSync(process.execPath, [join(HERE, "node_modules/typescript/bin/tsc"), "-p", DIR], { encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  }
}

test("the README's usage example type-checks against the built package", () => {
  assert.ok(existsSync(join(ROOT, "pkg/index.d.ts")), "pkg/ is built (./build.sh build)");
  const blocks = usageBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
  assert.ok(blocks.length >= 1, "at least one ```ts block under `## Use it`");
  assert.ok(blocks.some((b) => /from "keel-agent"/.test(b) && /\.run\(/.test(b) && /run\.result/.test(b)), "a block runs an agent");
  const files = Object.fromEntries(blocks.map((b, i) => [`readme-${i + 1}.mts`, b]));
  assert.equal(typeCheck(files), "");
});

test("the check is real: a README block that misuses the package fails it", () => {
  const wrong = 'import { Agent } from "keel-agent";\nawait Agent.create({ model: { openai: { baseUrl: 1 } } });\n';
  assert.match(typeCheck({ "wrong.mts": wrong }), /error TS2322/);
});
