// Page side of start.test.mjs: agents started on a fresh page, each run to a final answer, with
// the page's own wasm compile as it is (`asIs`), failing (`pageCannotCompile`), or giving a
// module that is not keel's engine (`foreignModule`), and one whose model is checked while the
// engine's wasm loads (`loadsWhileTheModelIsChecked`).
import { Agent } from "/pkg/index.js";
import { installFakeLanguageModel } from "/tests/fakes/language-model.js";

import { act, answer, scripted, tool } from "./steps.js";

const memory = { store: "memory" };

/** `count` agents, one after the other, each created, run once and disposed. */
async function agents(count) {
  const answers = [];
  for (let i = 0; i < count; i++) {
    const agent = await Agent.create({
      model: { custom: scripted([act("add", { a: i, b: 1 }), answer(`agent ${i}`)]) },
      config: memory,
      tools: [tool("add", async ({ a, b }) => a + b)],
    });
    try {
      const { answer: text, success } = await agent.run("add").result;
      answers.push([text, success]);
    } finally {
      agent.dispose();
    }
  }
  return answers;
}

/** Replaces the page's WebAssembly compile entry points with `compile`. */
function pageCompiles(compile) {
  WebAssembly.compileStreaming = async () => compile();
  WebAssembly.compile = async () => compile();
}

export const asIs = (count) => agents(count);

export function pageCannotCompile(count) {
  pageCompiles(() => Promise.reject(new WebAssembly.CompileError("refused on this page")));
  return agents(count);
}

export function foreignModule(count) {
  // The smallest valid module: no imports, no exports.
  pageCompiles(async () => new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])));
  return agents(count);
}

/**
 * `model: "prompt-api"` (the spec-following fake): whether the engine's wasm had been asked for
 * when `Agent.create` asked the model's availability, and the run's answer.
 */
export async function loadsWhileTheModelIsChecked() {
  installFakeLanguageModel({ replies: [answer("checked")] });
  let wasmAsked = false;
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    if (String(input instanceof Request ? input.url : input).endsWith(".wasm")) wasmAsked = true;
    return realFetch(input, init);
  };
  let askedBeforeCheck;
  const LanguageModel = /** @type {any} */ (globalThis).LanguageModel;
  const availability = LanguageModel.availability;
  LanguageModel.availability = (options) => {
    askedBeforeCheck ??= wasmAsked;
    return availability.call(LanguageModel, options);
  };
  const agent = await Agent.create({ model: "prompt-api", config: memory });
  try {
    const { answer: text, success } = await agent.run("check").result;
    return { askedBeforeCheck, answer: [text, success] };
  } finally {
    agent.dispose();
  }
}
