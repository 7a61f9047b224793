// Replays model calls recorded by `run.mjs --dump DIR` against the same local model, each as
// recorded and through prompt variants, and prints what the model replies to each: the quick way
// to see whether a prompt change moves the steps it targets (seconds per prompt instead of a whole
// bench run). A variant that moves them is then measured on the whole bench; this decides nothing.
//
//   node bench/recovery/replay.mjs --python P --model M.gguf --dump DIR --variants FILE.mjs
//                                  [--select repeats|all] [--only scenario,scenario]
//
// FILE.mjs exports `variants`: `{ name: (request) => request }`, each returning the changed
// request body (the recorded one is `structuredClone`d for it). `--select repeats` (the default)
// keeps the calls whose recorded reply repeats the call just before it.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startLlama } from "./llama.mjs";

const { values: opts } = parseArgs({
  options: {
    python: { type: "string" },
    model: { type: "string" },
    dump: { type: "string" },
    variants: { type: "string" },
    select: { type: "string", default: "repeats" },
    only: { type: "string", default: "" },
  },
});
for (const required of ["python", "model", "dump", "variants"]) {
  if (!opts[required]) throw new Error(`--${required} is required`);
}
if (!["repeats", "all"].includes(opts.select)) throw new Error(`--select must be repeats or all, not '${opts.select}'`);
const { variants } = await import(resolve(opts.variants));
const only = opts.only.split(",").filter(Boolean);

/** The step a reply's text holds: `call tool {args}`, `answer: …`, or the raw text cut short. */
function kind(text) {
  try {
    const step = JSON.parse(text);
    if (step.action) return `call ${step.action.tool} ${JSON.stringify(step.action.args ?? {})}`;
    if ("final_answer" in step) return `answer: ${String(step.final_answer).slice(0, 90)}`;
  } catch {
    // Not JSON: shown raw.
  }
  return `raw: ${String(text).slice(0, 90)}`;
}

const replyText = (reply) => {
  try {
    return JSON.parse(reply.text).choices[0].message.content;
  } catch {
    return null;
  }
};

const calls = [];
for (const file of readdirSync(opts.dump).sort()) {
  const [mode, scenario] = file.split("--");
  if (only.length && !only.includes(scenario)) continue;
  const { request, reply } = JSON.parse(readFileSync(join(opts.dump, file), "utf8"));
  const text = reply?.text ? replyText(reply) : null;
  if (text == null || !Array.isArray(request?.messages)) continue;
  const previous = [...request.messages].reverse().find((m) => m.role === "assistant");
  const repeats = previous != null && kind(previous.content) === kind(text) && kind(text).startsWith("call ");
  if (opts.select === "repeats" && !repeats) continue;
  calls.push({ name: file.replace(/\.json$/, ""), mode, request, recorded: kind(text) });
}
process.stdout.write(`${calls.length} calls selected from ${opts.dump}\n`);

const llama = await startLlama({ python: opts.python, model: opts.model, log: "/tmp/keel-replay-llama.log" });
const ask = async (body) => {
  const r = await fetch(`${llama.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  return json.choices?.[0]?.message?.content ?? `HTTP ${r.status}`;
};
const tally = {};
try {
  for (const call of calls) {
    process.stdout.write(`\n${call.name}\n  recorded           ${call.recorded}\n`);
    for (const [name, change] of Object.entries(variants)) {
      const got = kind(await ask(change(structuredClone(call.request))));
      const same = got === call.recorded;
      tally[name] = (tally[name] ?? 0) + (same ? 0 : 1);
      process.stdout.write(`  ${name.padEnd(18)} ${same ? "=" : "≠"} ${got}\n`);
    }
  }
} finally {
  await llama.close();
}
process.stdout.write(`\nreplies that differ from the recorded one, per variant: ${JSON.stringify(tally)}\n`);
