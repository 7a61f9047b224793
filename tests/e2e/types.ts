// Compiled with `tsc --noEmit --strict` by `npm test`: the hand-written index.d.ts describes a
// usage a page author would write, with no `any` to lean on.
import {
  Agent,
  KeelError,
  KeelErrorCode,
  ToolError,
  tool,
  type AgentEvent,
  type CustomModel,
  type Exchange,
  type FailureRecord,
  type FailureStatsReport,
  type Pruned,
  type RunResult,
  type StoreExport,
  type OtlpSpan,
  type OtlpTraces,
  type RedactHook,
  type RedactPolicy,
  type Tool,
} from "../../js/index.js";
import { wllamaModel, type WllamaProgress } from "../../js/wllama.js";
import { z } from "zod";
import { domOp, domTools, pageRunner, type DomResult, type DomRunner, type DomTool } from "../../js/dom/index.js";

const weather: Tool<{ city: string }> = {
  name: "get_weather",
  description: "Weather for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  timeoutMs: 2000,
  execute: async ({ city }, { signal, attempt, warn }) => {
    if (attempt > 1) warn("retried");
    const response = await fetch(`/weather?city=${encodeURIComponent(city)}`, { signal });
    if (!response.ok) throw response;
    if (city === "Atlantis") throw new ToolError("No such city.", { code: "NOT_FOUND", recovery: ["Ask the user."] });
    return (await response.json()) as { temp: number };
  },
};

export async function example(signal: AbortSignal): Promise<string> {
  const agent = await Agent.create({
    model: { custom: async (messages, { schema }) => `${messages.length}${schema ? "" : "!"}` },
    tools: [weather],
    session: "chat",
    config: { maxSteps: 6, retry: { baseDelayMs: 100 } },
  });
  const run = agent.run("Weather in Paris?", { signal, onEvent: (e: AgentEvent) => void e.type });
  for await (const event of run) {
    if (event.type === "retryScheduled") console.log(event.delayMs, event.code);
    if (event.type === "failure" && event.envelope) console.log(event.envelope.recovery.join("\n"));
  }
  const result: RunResult = await run.result;
  agent.dispose();
  return result.reason.kind === "fatal" ? result.reason.message : result.answer;
}

// A fallback chain: an OpenAI-compatible server first, the page's own model if it cannot answer.
export async function chain(custom: CustomModel): Promise<AgentEvent[]> {
  const agent = await Agent.create({
    model: [
      { openai: { baseUrl: "http://127.0.0.1:8080/v1", model: "qwen2.5-0.5b-instruct", responseFormat: "jsonObject" } },
      { custom },
    ],
  });
  const events: AgentEvent[] = [];
  for await (const event of agent.run("Hello")) {
    if (event.type === "warning") console.log(event.message);
    events.push(event);
  }
  agent.dispose();
  return events;
}

export async function onDevice(): Promise<number | null> {
  const agent = await Agent.create({ model: "prompt-api", tools: [weather] });
  let downloaded: number | null = null;
  for await (const event of agent.run("Weather in Oslo?")) {
    if (event.type === "modelDownload") downloaded = event.loaded / (event.total ?? 1);
  }
  agent.dispose();
  return downloaded;
}

// Streaming: a custom model that hands its text over with `onText`, a server that must not stream,
// and the events that carry the step's text while it is written.
export async function streaming(): Promise<string> {
  const custom: CustomModel = async (_messages, { onText }) => {
    const step = '{"thought":"t","final_answer":"Hi."}';
    onText?.(step.slice(0, 10));
    onText?.(step.slice(10));
    return step;
  };
  const agent = await Agent.create({
    model: [{ openai: { baseUrl: "http://127.0.0.1:8080/v1", model: "m", stream: false } }, { custom }],
    config: { stream: true },
  });
  let text = "";
  let answer = "";
  for await (const event of agent.run("Hello")) {
    if (event.type === "token") text += event.text;
    if (event.type === "answerDelta") answer += `${event.step}:${event.text}`;
    if (event.type === "tokensDiscarded") text = `dropped (${event.code})`;
  }
  agent.dispose();
  return text + answer;
}

// keel-agent/wllama: a GGUF model in the page, passed as a custom model or as `{ wllama }`.

export async function local(): Promise<Agent[]> {
  const model = wllamaModel({
    modelUrl: "/models/SmolLM2-135M-Instruct.Q4_1.gguf",
    onProgress: ({ loaded, total }: WllamaProgress) => console.log(loaded / total),
  });
  await model.load();
  const threads: number | undefined = model.info()?.threads;
  console.log(threads);
  const a = await Agent.create({ model: { custom: model }, tools: [weather] });
  const b = await Agent.create({ model: { wllama: { modelUrl: "/m.gguf", nCtx: 2048 } }, tools: [weather] });
  return [a, b];
}

// The failure log: list, stats, export, clear.
export async function failureLog(agent: Agent): Promise<string> {
  const timeouts: FailureRecord[] = await agent.failures({ session: "chat", code: "TIMEOUT", since: new Date(0), limit: 20 });
  const { totals, byTool }: FailureStatsReport = await agent.failureStats({ tool: "get_weather" });
  const run: StoreExport = await agent.exportRun(timeouts[0]?.runId ?? "");
  const trace: OtlpTraces = await agent.exportRunOtlp(run.runs[0]?.id ?? "");
  const failed: OtlpSpan[] = trace.resourceSpans[0]?.scopeSpans[0]?.spans.filter((s) => s.status.code === 2) ?? [];
  const chat: Exchange[] = await agent.history("chat");
  const lines = chat.map(({ task, answer, status, steps }) => `${task} → ${answer ?? "…"} (${status}, ${steps})`);
  const cleared: Pruned = await agent.clearSession("chat");
  await agent.applyRetention();
  const turns = run.turns.map((t) => t.turn.step).join(",");
  return `${totals.recoveryRate} ${byTool["get_weather"]?.faults ?? 0} ${turns} ${failed.length} ${lines.join("\n")} ${cleared.runs} ${(await agent.exportSession()).runs.length}`;
}

// A ToolError carries its recovery fields (declared once, shared with its options).
export function toolErrorFields(): [string | undefined, number | undefined, boolean | undefined] {
  const error = new ToolError("Busy.", { code: "SERVER_BUSY", retryAfter: 2, retryable: true });
  return [error.code, error.retryAfter, error.retryable];
}

// Redaction: a declarative policy applied in the worker, or a function kept on the page.
export async function redacted(custom: CustomModel): Promise<Agent[]> {
  const policy: RedactPolicy = { keys: ["password"], tools: { get_weather: ["city"] }, mask: "***" };
  const a = await Agent.create({ model: { custom }, tools: [weather], config: { store: { name: "db", redact: policy } } });
  const hook: RedactHook = async ({ tool, args }) => (tool === "get_weather" ? args : null);
  const b = await Agent.create({ model: { custom }, config: { store: { kind: "memory", redact: hook } } });
  // @ts-expect-error: a tool's rule is "drop" or a list of argument names
  const wrong: RedactPolicy = { tools: { get_weather: "hide" } };
  // @ts-expect-error: the memory store has no IndexedDB settings
  await Agent.create({ model: { custom }, config: { store: { kind: "memory", name: "db" } } });
  return wrong.keys ? [] : [a, b];
}

// keel-agent/dom: the tools on this page, or on a tab through a runner of the host's.
export async function dom(custom: CustomModel): Promise<string> {
  const here: DomTool[] = domTools({ run: pageRunner(), include: ["snapshot", "click", "read"], maxChars: 2000 });
  const tab: DomRunner = async (op, args) => domOp(op, args);
  const there = domTools({ run: tab, navigate: async (url) => url, back: async () => undefined });
  const agent = await Agent.create({ model: { custom }, tools: [...here, ...there.filter((t) => t.name === "navigate")] });
  const result: DomResult = await domOp("snapshot", { maxChars: 1000 });
  // @ts-expect-error: domOp has no "hover" op
  await domOp("hover", {});
  // @ts-expect-error: `include` takes tool names only
  domTools({ run: tab, include: ["hover"] });
  agent.dispose();
  return result.ok ? result.text : `${result.error.code}: ${result.error.recovery?.join(" ") ?? ""} ${there[0]?.recoverWith?.STALE_REFERENCE ?? ""}`;
}

// Every error keel hands the page is a KeelError, its code one of the generated enum's.
export async function recover(custom: CustomModel): Promise<string> {
  try {
    await Agent.create({ model: { custom }, config: { maxStep: 3 } as never });
    return "built";
  } catch (e) {
    if (!KeelError.isInstance(e)) throw e;
    if (e.code === KeelErrorCode.INVALID_CONFIG) return `${e.path ?? ""} → ${e.suggestion ?? ""}`;
    // @ts-expect-error: not a code of keel's
    const wrong: KeelErrorCode = "INVALID_CONFIGG";
    return `${e.name}: ${e.code} ${e.runId ?? ""} ${wrong}`;
  }
}
// A tool declared with a Zod schema: `execute`'s arguments are the schema's output type.
const forecast = tool({
  name: "get_forecast",
  description: "The forecast for a city.",
  inputSchema: z.object({ city: z.string(), days: z.number().int().default(1), unit: z.enum(["C", "F"]).optional() }),
  execute: async ({ city, days, unit }) => {
    const n: number = days; // the default applied: a number, not `number | undefined`
    const u: "C" | "F" | undefined = unit;
    // @ts-expect-error `city` is a string
    const wrong: number = city;
    return `${city} ${n} ${u} ${wrong}`;
  },
});
// A plain JSON Schema still types the arguments as JSON; any tool fits `tools`.
const plain = tool({ name: "ping", description: "", inputSchema: { type: "object" }, execute: (args) => Object.keys(args) });
export const zodTools = () => Agent.create({ model: async () => "", tools: [forecast, plain, weather] });
// @ts-expect-error a schema object without `~standard` is neither JSON Schema nor a Standard Schema
tool({ name: "bad", description: "", inputSchema: new Map<string, number>(), execute: () => 1 });
