// Types of keel-agent's JS surface. Hand-written here: what the JS wrapper adds (Agent, RunHandle,
// KeelError, ToolError, tool(), the options it reads). The wire types (events, results, records,
// envelopes, end reasons) are generated from the Rust types into wire.d.ts and re-exported below.

import type { ErrorCode, KeelErrorCode } from "./codes.js";
import type { WllamaOptions } from "./wllama.js";
import type {
  AgentEvent,
  ChatMessage,
  FailureHints,
  FailureRecord,
  FailureStats,
  FailureStatsReport,
  Json,
  ModelChoice,
  RawFailure,
  RunRecord,
  RunResult,
  Severity,
  FailureClass,
  StoreExport,
  Exchange,
  Pruned,
  PendingApproval,
  Usage,
} from "./wire.js";

export type {
  Action,
  AgentEvent,
  ChatMessage,
  EndReason,
  Envelope,
  Exchange,
  FailureClass,
  FailureHints,
  FailureRecord,
  FailureStats,
  FailureStatsReport,
  FieldIssue,
  Intent,
  IssueKind,
  Json,
  ModelChoice,
  OnUnknownOutcome,
  Outcome,
  PendingApproval,
  Pruned,
  RawFailure,
  Reply,
  ResponseFormat,
  Role,
  RunCounts,
  RunRecord,
  RunResult,
  RunStatus,
  SessionRecord,
  Severity,
  StoredApproval,
  StoreExport,
  StoreQuery,
  ToolSpec,
  Turn,
  TurnRecord,
  Usage,
} from "./wire.js";
// The wire's failure query (times in ms, as the worker reads them) and its order, under names that
// do not take the page's `FailureQuery` (which also takes a Date).
export type { FailureQuery as WireFailureQuery, Order as FailureOrder } from "./wire.js";

/** A JSON Schema (as Zod's `toJSONSchema` or the Prompt API's tool declarations produce it). */
export type JsonSchema = { [key: string]: Json };

export { ErrorCode, KeelErrorCode } from "./codes.js";

/** The fields of a {@link KeelError} beyond its code and message. */
export interface KeelErrorFields {
  /** The name of the error keel passes on (`NotSupportedError`, `DataCloneError`), when there is one. */
  sourceName?: string;
  status?: number;
  retryAfterMs?: number;
  hints?: FailureHints;
  /** Where a setting is wrong, as the page spells it: `config.maxStep`, `tools[1].timeoutMs`. */
  path?: string;
  /** For an unknown key, the closest known one (`maxSteps`). */
  suggestion?: string;
  /** The run the error ended. */
  runId?: string;
  cause?: unknown;
}

/**
 * Every error keel hands the page (from `Agent.create`, a run, a query, the worker dying): `name`
 * "KeelError" and a `code`, a {@link KeelErrorCode} for keel's own errors (a setting, the worker,
 * a run it cannot resume) or an {@link ErrorCode} for a model's or the store's failure.
 * The one exception: `dispose()` rejects what was waiting with an `AbortError` (a DOMException), as an
 * aborted `fetch` does.
 */
export interface KeelError extends KeelErrorFields {}
export class KeelError extends Error {
  constructor(code: KeelErrorCode | ErrorCode, message: string, fields?: KeelErrorFields);
  readonly name: "KeelError";
  code: KeelErrorCode | ErrorCode;
  /** Whether `error` is a KeelError, also one made by another copy of keel. */
  static isInstance(error: unknown): error is KeelError;
}

/** The recovery fields a `ToolError` carries (and takes as options). */
export interface ToolErrorFields {
  code?: string;
  status?: number;
  causes?: string | string[];
  recovery?: string | string[];
  availableActions?: string[];
  severity?: Severity;
  /** Overrides the class derived from the code. */
  class?: FailureClass;
  /** Seconds, as Vurb spells it. */
  retryAfter?: number;
  retryAfterMs?: number;
  /**
   * Facts for the model and the failure log. With code `INVALID_ARGS`, `{ field, options }` (a
   * top-level argument and the values it takes) narrows that argument to those options for the rest
   * of the run wherever decoding is constrained, so the model cannot send a rejected value again.
   */
  details?: { [key: string]: Json };
  expected?: boolean;
  /** true → transient (the runtime retries), false → persistent (the model gets the plan). */
  retryable?: boolean;
}

export interface ToolErrorOptions extends ToolErrorFields {
  cause?: unknown;
}

/** The error a tool throws to hand the model a full recovery envelope. */
export interface ToolError extends ToolErrorFields {}
export class ToolError extends Error {
  constructor(message: string, options?: ToolErrorOptions);
  readonly name: "ToolError";
}

/** Reads any thrown value as a RawFailure (what keel does with a tool's error). */
export function toRawFailure(error: unknown, nowMs?: number): RawFailure;
/** A RawFailure as a KeelError with its fields (`fields` adds to them). */
export function fromRawFailure(raw: RawFailure, fields?: KeelErrorFields): KeelError;
/** A Retry-After value (seconds, a header's delta-seconds or HTTP date) in milliseconds. */
export function parseRetryAfter(value: string | number | null | undefined, nowMs?: number): number | undefined;

export interface ModelCallOptions {
  /** The step JSON Schema, for backends that constrain decoding (absent when not constraining). */
  schema?: JsonSchema;
  /** The most tokens the reply may take (the agent's `replyTokens`). */
  maxTokens: number;
  /** Aborted when the call times out or the run is cancelled. */
  signal: AbortSignal;
  runId: string;
  /**
   * Present when keel wants the reply streamed (`config.stream`, the default): call it with each
   * piece of text as the model generates it, in order (one call per chunk your backend gives, not
   * per character); the run shows them as `token` events. The step is still the text the function
   * resolves to. A model that never calls it works the same, without `token` events.
   */
  onText?: (text: string) => void;
}

export interface ModelOutput {
  text: string;
  /** Whole numbers, 0 or more; anything else fails the call, saying what came. */
  usage?: Usage;
}

/** The author's model: returns the text of one step. */
export type CustomModel = (messages: ChatMessage[], options: ModelCallOptions) => Promise<string | ModelOutput>;

/**
 * An OpenAI-compatible chat-completions server, called with `fetch` from the worker. It must allow
 * the page's origin (CORS) and, for Retry-After to be honoured, expose that header.
 *
 * ```js
 * model: { openai: { baseUrl: "http://127.0.0.1:8080/v1", model: "qwen2.5-0.5b-instruct" } }
 * ```
 */
export type OpenaiModel = Omit<Extract<ModelChoice, { kind: "openai" }>, "kind">;

/**
 * A model backend: `custom`, `openai` or `"prompt-api"` (Chrome's built-in Gemini Nano; on its own,
 * `Agent.create` rejects with a NotSupportedError, code MODEL_UNAVAILABLE, where it is unavailable;
 * `wllama`: a GGUF model in the page, after `import "keel-agent/wllama"`, which needs the optional
 * peer dependency `@wllama/wllama`), or an array of them: a fallback chain, first choice first. The chain moves to the
 * next backend when one is unavailable or fails persistently (a `warning` event says so), and stays
 * there for the rest of the run; transient failures are retried on the same backend. At most one
 * custom function per chain.
 */
export type ModelOption =
  | CustomModel
  | {
      custom: CustomModel;
      /**
       * The function decodes greedily (temperature 0: the same messages always get the same
       * text). The run then never asks it a request it already asked: it reuses that reply, with
       * a `warning` event, and saves the call. Default: the function's own `greedy` property, else
       * false (a `keel-agent/wllama` model at temperature 0, its default, has it; so is the
       * `openai` backend).
       */
      greedy?: boolean;
    }
  | "prompt-api"
  | { openai: OpenaiModel }
  | { wllama: WllamaOptions }
  | ModelOption[];

export interface ToolContext {
  /** Aborted when the attempt's timeout fires or the run is cancelled. */
  signal: AbortSignal;
  /** 1 for the first attempt, 2 for the first retry… */
  attempt: number;
  timeoutMs: number;
  runId: string;
  /**
   * The call's idempotency key (`<runId>:<step>`): the same for every attempt of the call, and
   * when the call is made again after a reload cut it off. Pass it to a service that dedupes
   * requests (an `Idempotency-Key` header), so a call that arrives twice is done once.
   */
  idempotencyKey: string;
  /** Reports a caveat of a partial success; the model sees it with the result. */
  warn(message: string): void;
  /**
   * Says that this result lists ids anew, as the output of a tool in `refsFrom` does (a click that
   * opened a page, returning the new page's elements): ids are then taken from it — for every
   * tool whose `refsFrom` names one of this tool's — until a newer listing. Without it, only the
   * tools named in `refsFrom` list.
   */
  listed(): void;
}

/**
 * The Standard Schema properties keel reads (https://standardschema.dev): `types` for the
 * arguments' type, `validate` to parse them, and the Standard JSON Schema converter.
 */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  readonly validate?: (value: unknown) => unknown;
  readonly jsonSchema?: {
    readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  };
}

/**
 * A schema object a tool's `inputSchema` may be instead of JSON Schema: any Standard JSON Schema
 * (`~standard.jsonSchema`: Zod 4.2+, ArkType 2.1.28+, Valibot 1.2+ through `toStandardJsonSchema`)
 * or a Zod schema with its own `toJSONSchema` method. Neither is a dependency of keel: they are recognised
 * by shape. Its input JSON Schema (draft 2020-12) is what the model must produce; when it can
 * validate (`~standard.validate`), `execute` receives its output (defaults applied, transforms run),
 * and arguments it refuses fail the call with `INVALID_ARGS`.
 */
export interface ToolSchema<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** The arguments `execute` receives for an `inputSchema`: a schema's output type, else JSON. */
export type InferArgs<S> = S extends { readonly "~standard": { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : { [key: string]: Json }
  : { [key: string]: Json };

/**
 * Declares a tool whose `execute` arguments are typed from its `inputSchema` (a Zod or other
 * Standard Schema's output type). It returns the tool as it is.
 * @example
 * const weather = tool({
 *   name: "get_weather",
 *   description: "Weather for a city.",
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `sunny in ${city}`, // city: string
 * });
 */
export function tool<S extends ToolSchema | JsonSchema>(
  definition: Omit<Tool<InferArgs<S>>, "inputSchema"> & { inputSchema: S },
): Tool<InferArgs<S>>;

/**
 * A tool. Every field but `execute` goes to the worker, which refuses an unknown one
 * (`INVALID_TOOLS`, with the closest known field) and these past their limits: a name of 1–64
 * letters, digits, `_`, `-` or `.`; a description of at most 10 000 characters; an `inputSchema`
 * nesting at most 64 levels and at most 100 000 bytes as JSON (plain JSON: no cycles, BigInts or
 * functions); at most 256 tools per agent.
 */
export interface Tool<Args = { [key: string]: Json }> {
  name: string;
  description: string;
  /**
   * The arguments' schema: JSON Schema, or a schema object that gives it (see {@link ToolSchema}),
   * converted on the page before the tools reach the worker. One that gives none fails
   * `Agent.create` with `INVALID_TOOLS` naming the tool.
   */
  inputSchema?: JsonSchema | ToolSchema;
  execute(args: Args, context: ToolContext): unknown | Promise<unknown>;
  /** One attempt's timeout, 1 to 86 400 000 ms (a day); the agent's `toolTimeoutMs` when absent. */
  timeoutMs?: number;
  /** Attempts on transient failures, the first included: 1 to 100. */
  maxAttempts?: number;
  /**
   * Tools whose output supplies this tool's ids or refs: recovery plans name them, and an id this
   * tool is sent that no earlier result (nor the task) holds is refused before the tool runs
   * (`UNSEEN_ID`); the one of them that answered last gives the ids a constrained step may send.
   * Each must be one of the agent's tools (`INVALID_TOOLS` otherwise).
   */
  refsFrom?: string[];
  /**
   * Of the ids `refsFrom`'s tools list, the kinds of thing this tool acts on, as their output names
   * them (`["textbox", "searchbox"]` for a typing tool): where decoding is constrained
   * (`idProvenance`), the tool's id argument is narrowed to the ids on the lines of the latest
   * listing that name one of these words outside quoted text, and the tool is left out of a step
   * while that listing names none. Each is one word of letters and digits; needs `refsFrom`
   * (`INVALID_TOOLS` otherwise). Absent: every listed id.
   */
  refKinds?: string[];
  /** The tool only reads: no side effect. Only read-only tools may be called by the runtime itself. Default false. */
  readOnly?: boolean;
  /**
   * Recovery the runtime runs itself: when this tool fails with one of these codes (e.g.
   * `{ STALE_REFERENCE: "snapshot" }`), the runtime calls the named tool with `{}` and the model sees
   * the failure's envelope and that tool's fresh output together. The named tool must exist, be
   * `readOnly` and accept `{}` (`INVALID_TOOLS` at `Agent.create` otherwise).
   */
  recoverWith?: { [code: string]: string };
  /**
   * Whether a call waits for the user's approval before it runs: `true` for every call, or a
   * function of the call's arguments (parsed as `execute` gets them) deciding per call. A waiting
   * run emits `approvalRequested` (the pause already stored); `run.approve(callId)` runs the call,
   * `run.reject(callId, reason)` tells the model it was rejected (code `APPROVAL_REJECTED`, never
   * retried). A function that throws or returns something other than a boolean means the call
   * waits. Default false.
   *
   * ```ts
   * needsApproval: ({ amount }) => amount > 100,
   * ```
   */
  needsApproval?: boolean | ApprovalCheck<Args>;
  /**
   * Running a call twice does no more than running it once (a lookup, a `PUT`, a service that
   * dedupes by `idempotencyKey`): a call cut off by a reload is simply made again. A tool that is
   * neither `idempotent` nor `readOnly` has its intent stored before each call, and a run resumed
   * after a reload cut such a call off never makes it again silently (see `onUnknownOutcome`).
   * Default false.
   */
  idempotent?: boolean;
  /**
   * What a resumed run does with a call of this tool that was cut off after it began and before
   * its result was stored: `"report"` (the default) tells the model, as an `OUTCOME_UNKNOWN`
   * failure, that it may or may not have happened and how to find out; `"ask"` waits for the
   * user (`approvalRequested` with `outcomeUnknown: true`): approved, the call is made again with
   * the same `idempotencyKey`; rejected, the model is told as for `"report"`. Only for tools that
   * are neither `idempotent` nor `readOnly` (`INVALID_TOOLS` otherwise).
   */
  onUnknownOutcome?: "ask" | "report";
}

/**
 * A tool's `needsApproval` function: whether this call waits for the user's approval. Declared as
 * a method type so that a tool typed from its schema (`tool({...})`) still fits `Tool[]`, as
 * `execute` does.
 */
export type ApprovalCheck<Args> = {
  check(args: Args, context: { runId: string }): boolean | Promise<boolean>;
}["check"];

/**
 * How transient failures are retried. Out-of-range values fail `Agent.create` (`INVALID_CONFIG`)
 * rather than being clamped: a changed setting would be an ignored one. A Retry-After a tool or a
 * server reports is clamped instead (to a year; anything past `maxRetryAfterMs` goes to the model).
 */
export interface RetryPolicy {
  /** 1 (never retry) to 100; default 3. */
  maxAttempts: number;
  /** At most `maxDelayMs`; default 500. */
  baseDelayMs: number;
  /** At most 86 400 000 (a day); default 8000. */
  maxDelayMs: number;
  /** 0 to 1; default 0.5. */
  jitter: number;
  /** At most 86 400 000 (a day); default 30 000. */
  maxRetryAfterMs: number;
}

/**
 * The agent's settings. Every key is checked: an unknown or misspelt one, at any depth, fails
 * `Agent.create` with `INVALID_CONFIG` naming it and the closest known key; so does a value of the
 * wrong kind (NaN, a negative count, an array for an object) or out of its range.
 */
export interface AgentConfig {
  /** 1 to 1000; default 12. */
  maxSteps: number;
  /** 1 to 1000; default 5. */
  maxConsecutiveFailures: number;
  /** 1 to 86 400 000 ms (a day); default 15 000. */
  toolTimeoutMs: number;
  /** 1 to 86 400 000 ms (a day); default 120 000. */
  modelTimeoutMs: number;
  retry: Partial<RetryPolicy>;
  format: "xml" | "text" | "plain";
  /** 200 to 1 000 000; default 1500. */
  observationChars: number;
  /** 512 to 10 000 000; default 8000. */
  contextTokens: number;
  /**
   * The most tokens one reply may take (64 to 1 000 000, default 1024), sent as `max_tokens` to OpenAI-compatible
   * servers: without a schema a small model can otherwise generate until its window is full.
   */
  replyTokens: number;
  constrainOutput: boolean;
  instructions: string | null;
  /**
   * Whether the model must call a tool before it answers (the AI SDK's names): `"auto"` (the model
   * decides), `"required"` (the first step must be a tool call), `"none"` (no tools), or
   * `{ tool }` (the first call must be to that tool). Enforced through the step schema where decoding
   * is constrained and by refusing the step where it is not; only the steps before the first call
   * are bound. Default (`null`): `"required"` for an agent with tools, `"auto"` without.
   */
  toolChoice: "auto" | "required" | "none" | { tool: string } | null;
  /**
   * Whether a final answer's facts (numbers, amounts, ids, codes, e-mail addresses, file names,
   * quoted values) must be found in the task, a tool result or an argument of a call that worked, or
   * follow from those numbers by one arithmetic step: otherwise the model gets an `UNGROUNDED_ANSWER`
   * envelope and one more step, and if it persists the run ends `success: false` with the values in
   * `result.ungrounded`. An answer that is no answer (a placeholder, keel's own words, or words about
   * none of the task and results) is refused the same way. Default true.
   */
  grounding: boolean;
  /**
   * Whether, after a final answer refused as no answer while a tool has already answered, the next
   * model call asks for the answer alone: the question, the conversation's earlier questions and the
   * tools' results, with a one-field reply (`{"final_answer": …}`), instead of the whole step prompt
   * with an envelope. That answer is checked like any other. Default true.
   */
  focusedAnswer: boolean;
  /**
   * Whether, after a reply calling a tool with an argument copied from the reply format's example
   * (`"city": "<city>"`), the next model call asks for that call's arguments alone: the task, the
   * conversation's earlier questions, the tools' results and the tool's arguments described in
   * words, with the tool's input schema as the reply. The call is then checked and run like any
   * other. Default true.
   */
  focusedCall: boolean;
  /**
   * Whether an id or ref argument (a `pattern`/`format` in its schema, a name saying id/ref/key, or
   * the only required string of a tool with `refsFrom`) must appear in the task or an earlier
   * observation before the call runs (`UNSEEN_ID` otherwise), and, under constrained decoding, is
   * narrowed to the ids in the output of whichever producer answered last — for a tool whose one
   * required argument it is (a click), to those on the lines whose labels share the most words (two
   * at least) with the task, then the next most once those were acted on. Default true.
   */
  idProvenance: boolean;
  /**
   * Whether a call whose argument contradicts a time or a count the task states ("four people at
   * 19:30" and `people: 1`, `time: "20:30"`; a count is matched to an argument by its name or
   * description) is refused once before it runs (`CONTRADICTS_TASK`), with a plan naming the task's
   * values. The same for a number argument found in no question and no result while a number the
   * user's questions state is in no argument (`amount: 1` for "And to GBP?" after "Convert 250 USD
   * to EUR."; and 250 sent with `from: "EUR"` there), and for an id of a listed item other than the latest (earliest) one by the dates the
   * same result lists, when the task asks for the most recent (oldest). Sent again unchanged, the
   * call runs, and the run is reported unsuccessful. Default true.
   */
  taskValues: boolean;
  /**
   * Which of the model's earlier thoughts later prompts replay: `"none"` (default) replays every
   * earlier thought empty — a small model copies its earlier thoughts forward word for word,
   * invented values included, and repeats the call that followed them; `"grounded"` replays each
   * except those stating values (numbers, amounts, ids, e-mail addresses) that no tool returned and
   * the task does not give; `"all"` replays them as written (for larger models). The run's turns,
   * events and store keep every thought.
   */
  replayThoughts: "grounded" | "none" | "all";
  /**
   * Whether, after a failed call another call can fix (bad arguments, an id or name the tool does not
   * know, a stale ref, a permission another tool grants), the next steps must be calls — to the tools
   * its envelope offers — until a call to that tool succeeds, for at most 3 steps from its latest call
   * with new arguments; a result that holds the fix says so under it (the stale ref's new ref, the closest spelling of a name not found).
   * Small models otherwise answer straight after the failure with a made-up value. Default true.
   */
  recoverBeforeAnswer: boolean;
  /**
   * How the prompt shows the run's earlier steps: `"messages"` (default), each step as the
   * assistant message the model wrote, then its observation as a user message; `"log"`, a numbered
   * log in the user message (`3. You called get_order {"id":"A-1"}` and its observation). A small
   * model copies its own earlier messages: shown its last call as its own message, it often sends
   * that call again after it worked; shown a log, it answers sooner (sometimes too soon).
   */
  pastSteps: "log" | "messages";
  /**
   * Many tools: an agent with at least `minTools` tools (default 20) offers each step only the
   * tools ranked most relevant to the task, the session's previous task and the latest two steps
   * (BM25 over tool names, descriptions and argument names, split at snake_case and camelCase), in
   * the prompt's tool list and in the step schema: at most `maxTools` (default 8), each scoring at
   * least `minRelevance` (default 0.5) of the best tool's score. Always offered besides:
   * `alwaysInclude`, the `toolChoice` tool, tools the run has called, a tool whose failed call
   * awaits its fix and the tools its recovery plan names, tools the task names, and the `refsFrom`
   * producers of any offered tool. A call to a known tool that was not offered still runs (calls
   * are checked against every tool); under constrained decoding the schema lists only the offered
   * ones. `enabled: false` offers every tool. A name in `alwaysInclude` that is no tool fails
   * `Agent.create` with `INVALID_CONFIG`.
   */
  toolSelection: Partial<ToolSelection>;
  /**
   * Whether the tools' schemas assert `format`: `"annotation"` (default, as draft 2020-12 says) only
   * annotates it; `"assertion"` checks the formats Zod emits (`email`, `uri`, `uuid`, `date`,
   * `date-time`, `time`, `ipv4`, `ipv6`), a mismatch failing the call with `INVALID_ARGS` like any
   * other argument; other format names stay annotations.
   */
  formats: "annotation" | "assertion";
  /**
   * Whether backends that can stream (the Prompt API's `promptStreaming`, an OpenAI-compatible
   * server's `stream: true`, wllama, a custom model that calls `onText`) hand the step's text over as
   * it is generated: `token` and `answerDelta` events. Default true; false asks every step whole.
   */
  stream: boolean;
  /** Where runs, turns and failures are kept: IndexedDB (database `keel`) by default. */
  store: "indexeddb" | "memory" | StoreOptions | MemoryStoreOptions;
}

/** `config.toolSelection` (every field optional; a misspelt one fails `Agent.create`). */
export interface ToolSelection {
  /** Default true; false offers every tool at every step. */
  enabled: boolean;
  /** Selection starts at this many tools (1 to 256; default 20). */
  minTools: number;
  /** Tools offered by rank at each step, at most (1 to 256; default 8); the always-offered ones come on top. */
  maxTools: number;
  /**
   * The relevance cut (0 to 1; default 0.5): a tool is offered by rank only when its score is at
   * least this fraction of the best-ranked tool's, so a task matching one tool strongly is offered
   * that tool and few others. 0 turns the cut off; 1 keeps the best and its ties. When no tool
   * shares a word with the task, the first `maxTools` are offered. Outside 0 to 1 fails
   * `Agent.create` with `INVALID_CONFIG`.
   */
  minRelevance: number;
  /** Names of tools offered at every step. */
  alwaysInclude: string[];
}

/** IndexedDB settings (every field optional; a misspelt one fails `Agent.create`). */
export interface StoreOptions {
  kind?: "indexeddb";
  /** The database's name (default `keel`). */
  name?: string;
  /**
   * How much history to keep: whole ended runs, oldest first (a run still `running` is never
   * dropped). Defaults: 1000 runs, 90 days, every 200 writes. When the storage is full
   * (QuotaExceededError), the oldest ended runs are dropped, more each round, until the write
   * fits, and the run is told with a `warning` event.
   */
  retention?: { maxRuns?: number | null; maxAgeMs?: number | null; everyWrites?: number };
  /** How long to wait for other tabs holding an older version open before failing (default 3000, at most 86 400 000). */
  blockedTimeoutMs?: number;
  /** What the store keeps of each tool call's arguments: see {@link Redaction}. */
  redact?: Redaction;
}

/** The memory store (nothing outlives the worker), with a redaction if wanted. */
export interface MemoryStoreOptions {
  kind: "memory";
  /** What the store keeps of each tool call's arguments: see {@link Redaction}. */
  redact?: Redaction;
}

/**
 * Keeps secrets the model passes to tools (passwords, card numbers, tokens) out of the store: a
 * declarative {@link RedactPolicy}, applied in the worker, or a {@link RedactHook} the worker asks
 * before each step with a tool call is stored.
 *
 * The store then gets the redacted arguments, and every value removed (strings and numbers of 4
 * chars or more) is replaced by the mask wherever the run's stored text holds it: thoughts,
 * observations, the model's unreadable replies, failure messages, the run's answer. Failure
 * records' `argsDigest` is that of the redacted arguments. The run's `task` is stored as given.
 *
 * The run itself is not redacted: the model and the tools see the real arguments, and so do the
 * run's events and its `RunResult`. What is read back from the store is the redacted form: the
 * session's memory in later runs, a resumed run's earlier steps, `failures()`, `failureStats()`,
 * the exports and `exportRunOtlp()`.
 *
 * ```ts
 * const redact: RedactPolicy = { keys: ["password", "token"], tools: { pay: "drop" } };
 * const agent = await Agent.create({ model, tools: [login, pay], config: { store: { redact } } });
 * // Or decided on the page, here with the memory store:
 * const hook: RedactHook = ({ tool, args }) => (tool === "pay" ? null : args);
 * const other = await Agent.create({ model, tools: [login, pay], config: { store: { kind: "memory", redact: hook } } });
 * ```
 */
export type Redaction = RedactPolicy | RedactHook;

/** Which arguments to mask and which calls to drop; a malformed policy fails `Agent.create` (`INVALID_CONFIG`). */
export interface RedactPolicy {
  /** Argument names masked in every call, matched case-insensitively at any depth, inside arrays too. */
  keys?: string[];
  /** Per tool (one of the agent's): `"drop"` stores none of its arguments; names mask more of its arguments. */
  tools?: { [tool: string]: "drop" | string[] };
  /** What replaces a masked value, dropped arguments and scrubbed text (default `"[redacted]"`). */
  mask?: string;
}

/**
 * Decides on the page what the store keeps of a call: the arguments to store, or `null` (or
 * `undefined`) to drop them. If it throws, returns what JSON cannot carry, or takes over 5 s, the
 * arguments are stored dropped and the run gets a `warning` event: it never lets them through.
 * Scrubbing and digests are as for a {@link RedactPolicy}, with the mask `"[redacted]"`.
 */
export type RedactHook = (call: { tool: string; args: Json }) => Json | null | undefined | Promise<Json | null | undefined>;

export interface AgentOptions {
  model: ModelOption;
  /** Tools typed with their own args (`Tool<{ city: string }>`) fit too. */
  tools?: Tool[];
  /** The default session of runs; runs of one session queue and share history. */
  session?: string;
  config?: Partial<AgentConfig>;
  /** The worker to use, or the URL of `worker.js` (for bundlers that relocate it). */
  worker?: Worker | URL | string;
  /** Protocol errors the worker reports (a bug, never a tool failure). */
  onError?: (error: KeelError) => void;
  /**
   * How long the worker may leave the page's liveness ping unanswered, while anything waits on it,
   * before it is declared dead (`WORKER_UNRESPONSIVE`) and everything waiting rejects: 100 to
   * 3 600 000 ms, default 30 000. Pings go out only while something waits; a worker still loading
   * its wasm answers them.
   */
  workerTimeoutMs?: number;
}

/** What `Agent.preload` takes; an unknown key throws (`INVALID_CONFIG`). */
export interface PreloadOptions {
  /**
   * The URL of `worker.js`, as `Agent.create`'s `worker` option gives it (for bundlers that
   * relocate it). An agent adopts the spare only when its own `worker` option points to the same
   * script; an agent given a `Worker` never does.
   */
  worker?: URL | string;
}

/** The spare worker `Agent.preload` started. */
export interface Preloaded {
  /**
   * Resolves once the spare is warm (the wasm compiled and loaded, the engine's `init` work run
   * once). Rejects with a KeelError when the spare failed (`WORKER_FAILED` for a script that did not
   * load, `WASM_LOAD_FAILED`, `WORKER_UNRESPONSIVE`): the next `Agent.create` then starts its own
   * worker. Rejects with an `AbortError` after `terminate()`.
   */
  readonly ready: Promise<void>;
  /** Terminates the spare if no agent has taken it (an agent's worker ends with `dispose()`). */
  terminate(): void;
}

/** What `run` takes besides the task; an unknown key fails the call (`INVALID_CONFIG`). */
export interface RunOptions {
  /** Cancels the run, aborting the call under way. Must be an AbortSignal. */
  signal?: AbortSignal;
  session?: string;
  /** Called with every event, as well as the iterator. */
  onEvent?: (event: AgentEvent) => void;
}

/**
 * One run: iterate it for its events (once), await `result` for how it ended. `result` rejects only
 * when the run could not start or the agent was disposed; a cancelled run resolves with
 * `reason.kind === "cancelled"`.
 */
export class RunHandle implements AsyncIterable<AgentEvent> {
  private constructor();
  readonly runId: string;
  readonly result: Promise<RunResult>;
  cancel(): void;
  /**
   * Approves a call this run waits on (an `approvalRequested` event's `callId`): it runs and the
   * run goes on. Rejects with a KeelError, code `APPROVAL_NOT_PENDING`, if the run does not wait on it.
   */
  approve(callId: string): Promise<void>;
  /**
   * Rejects a call this run waits on: it does not run; the model sees `reason` and the tools it
   * may use instead. Rejects like `approve` if the run does not wait on it.
   */
  reject(callId: string, reason?: string): Promise<void>;
  [Symbol.asyncIterator](): AsyncIterator<AgentEvent>;
}

/** Which failures to list (`agent.failures`) or count (`agent.failureStats`); every field narrows. An unknown key rejects (`INVALID_CONFIG`). */
export interface FailureQuery {
  session?: string;
  runId?: string;
  /** A tool's name (failures of the model's reply have no tool). */
  tool?: string;
  code?: ErrorCode;
  /** At or after this time (a Date or ms since the epoch). */
  since?: Date | number;
  /** Before this time. */
  until?: Date | number;
  /** At most this many (ignored by `failureStats`). */
  limit?: number;
  /** Newest first (the default) or oldest first. */
  order?: "newest" | "oldest";
}

/** An OTLP attribute value, as OTLP/JSON writes it (64-bit integers as strings). */
export type OtlpValue = { stringValue: string } | { intValue: string } | { boolValue: boolean };

/** A key and its value, on a resource, a span or an event. */
export interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

/** One span: the run (no parent), a step (parent: the run) or a tool call (parent: its step). */
export interface OtlpSpan {
  /** 32 hex characters, derived from the run id. */
  traceId: string;
  /** 16 hex characters, derived from the run id and the step. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal (run, step), 3 client (tool call). */
  kind: number;
  /** Nanoseconds since the epoch, as a decimal string. */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  /** Failures, named `failure`, with `keel.failure.class`/`code`/`attempt`/`retried`/`recovered`. */
  events: { timeUnixNano: string; name: string; attributes: OtlpAttribute[] }[];
  /** 0 unset, 1 ok, 2 error (with a message). */
  status: { code: 0 | 1 | 2; message?: string };
}

/** A run as an OTLP/JSON `TracesData` document (empty `resourceSpans` for an unknown run). */
export interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string; version?: string }; spans: OtlpSpan[] }[];
  }[];
}

/**
 * An agent whose engine runs in a dedicated worker. The failure-log methods read the store the
 * agent writes to (IndexedDB by default; with `store: "memory"`, what this agent wrote) and reject
 * with a KeelError (`code` UNAVAILABLE, QUOTA_EXCEEDED or INTERNAL_ERROR) when the store fails.
 */
export class Agent {
  private constructor();
  static create(options: AgentOptions): Promise<Agent>;
  /**
   * Starts keel's engine ahead of `Agent.create`, for a page that will create an agent soon: fetches
   * and compiles the wasm and starts one spare worker, which loads the engine and runs its `init`
   * work once (no store, no tools, no config yet). The next `Agent.create` for the same worker
   * script adopts the spare, warm, instead of starting a worker: `create` → ready then costs the
   * `init` alone. One spare at most, taken by one agent; a second agent starts its own worker (or
   * call `preload()` again for a new spare). Calling it while a spare waits returns that spare.
   * Without it, nothing changes.
   *
   * ```ts
   * Agent.preload(); // at page load
   * // … later, when the user opens the assistant:
   * const agent = await Agent.create({ model, tools });
   * ```
   */
  static preload(options?: PreloadOptions): Preloaded;
  run(task: string, options?: RunOptions): RunHandle;
  /**
   * Failures the store kept, newest first.
   *
   * ```ts
   * const timeouts = await agent.failures({ session: "support", code: "TIMEOUT", limit: 50 });
   * ```
   */
  failures(query?: FailureQuery): Promise<FailureRecord[]>;
  /**
   * Faults, retried, recovered and the recovery rate over the failures a query selects.
   *
   * ```ts
   * const { totals, byTool } = await agent.failureStats({ since: Date.now() - 86_400_000 });
   * ```
   */
  failureStats(query?: FailureQuery): Promise<FailureStatsReport>;
  /** One run with its turns and failures: `JSON.stringify(await agent.exportRun(run.runId))`. */
  exportRun(runId: string): Promise<StoreExport>;
  /**
   * One run as OpenTelemetry spans (OTLP/JSON `TracesData`: run → step → tool call, failures as
   * span events with class/code/attempt/recovered), for a collector's `/v1/traces` or a trace viewer.
   */
  exportRunOtlp(runId: string): Promise<OtlpTraces>;
  /** A whole session (the agent's default session when omitted). */
  exportSession(session?: string): Promise<StoreExport>;
  /**
   * A session's conversation, oldest first (the default session when omitted): each run's task,
   * answer, status, times and steps. The next run in the session sees these exchanges in its
   * prompt, so a follow-up ("and in Oslo?") is understood; `clearSession` forgets them.
   *
   * ```ts
   * for (const { task, answer, status } of await agent.history("support")) chat.add(task, answer, status);
   * ```
   */
  history(session?: string): Promise<Exchange[]>;
  /** Deletes a session's runs, turns and failures (the default session when omitted): its history too. */
  clearSession(session?: string): Promise<Pruned>;
  /** Applies the retention policy now (`config.store.retention`). */
  applyRetention(): Promise<Pruned>;
  /**
   * Runs left `running` in the store and live nowhere (cut off by a terminated worker, a reload, a
   * crash). A run still under way is left out: this agent's own, and with IndexedDB one in any tab or
   * worker, which holds its Web Lock `keel:run:<id>` (a memory store is this worker's alone).
   */
  unfinishedRuns(): Promise<RunRecord[]>;
  /**
   * Continues a cut-off run from its last committed step, under the same id. A run still live
   * somewhere fails at once with a KeelError, code `RUN_LIVE`; one that has ended
   * meanwhile with `RUN_FINISHED`.
   */
  resume(runId: string, options?: Omit<RunOptions, "session">): RunHandle;
  /**
   * The calls waiting for approval: those a run of this agent waits on now (`live`) and those
   * stored on runs cut off while they waited (after a reload), oldest run first.
   *
   * ```ts
   * for (const { callId, tool, args } of await agent.pendingApprovals()) showApproval(callId, tool, args);
   * ```
   */
  pendingApprovals(): Promise<PendingApproval[]>;
  /**
   * Approves a waiting call and returns its run: the live run that waits on it, or (after a
   * reload) the stored run resumed with the decision, which runs the call without asking the model
   * again. A call nothing waits on fails the handle's `result`: `APPROVAL_NOT_PENDING`,
   * `RUN_NOT_FOUND` or `RUN_FINISHED`.
   *
   * ```ts
   * const [waiting] = await agent.pendingApprovals();
   * const { answer } = await agent.approve(waiting.callId).result;
   * ```
   */
  approve(callId: string, options?: Omit<RunOptions, "session">): RunHandle;
  /** Rejects a waiting call like `approve`: the model is told `reason` and goes on without it. */
  reject(callId: string, reason?: string, options?: Omit<RunOptions, "session">): RunHandle;
  /** Ends a cut-off run as `interrupted`, keeping its committed steps (refused like `resume` for a live run). */
  abandon(runId: string): Promise<RunResult>;
  dispose(): void;
}
