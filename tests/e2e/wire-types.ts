// Compiled with `tsc --noEmit --strict` by `npm test` (tsconfig.json, skipLibCheck off): js/wire.d.ts,
// generated from the Rust wire types (src/typescript.rs), type-checks on its own, and index.d.ts
// re-exports exactly its types under the public names rather than a hand-written copy. The JS that
// posts and reads the page↔worker messages is checked against wire.d.ts by tsconfig.js.json.
import type * as Index from "../../js/index.js";
import type * as Wire from "../../js/wire.js";

/** true when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const reExported: { [K in keyof typeof checks]: (typeof checks)[K] } = {
  AgentEvent: true,
  ChatMessage: true,
  ResponseFormat: true,
  Usage: true,
  OpenaiModel: true,
  RunResult: true,
  EndReason: true,
  Turn: true,
  Action: true,
  Outcome: true,
  RunCounts: true,
  FailureStats: true,
  FailureStatsReport: true,
  Envelope: true,
  FieldIssue: true,
  IssueKind: true,
  FailureClass: true,
  Severity: true,
  RawFailure: true,
  FailureHints: true,
  RunStatus: true,
  RunRecord: true,
  TurnRecord: true,
  FailureRecord: true,
  SessionRecord: true,
  StoreExport: true,
  Exchange: true,
  Pruned: true,
  PendingApproval: true,
  StoredApproval: true,
  Json: true,
  Reply: true,
  ToolSpec: true,
  OnUnknownOutcome: true,
  StoreQuery: true,
  WireFailureQuery: true,
  FailureOrder: true,
  ModelChoice: true,
  Role: true,
};

declare const checks: {
  AgentEvent: Same<Index.AgentEvent, Wire.AgentEvent>;
  ChatMessage: Same<Index.ChatMessage, Wire.ChatMessage>;
  ResponseFormat: Same<Index.ResponseFormat, Wire.ResponseFormat>;
  Usage: Same<Index.Usage, Wire.Usage>;
  /** The `openai` model option is the worker's `ModelChoice` of that kind, less its tag. */
  OpenaiModel: Same<Index.OpenaiModel, Omit<Extract<Wire.ModelChoice, { kind: "openai" }>, "kind">>;
  RunResult: Same<Index.RunResult, Wire.RunResult>;
  EndReason: Same<Index.EndReason, Wire.EndReason>;
  Turn: Same<Index.Turn, Wire.Turn>;
  Action: Same<Index.Action, Wire.Action>;
  Outcome: Same<Index.Outcome, Wire.Outcome>;
  RunCounts: Same<Index.RunCounts, Wire.RunCounts>;
  FailureStats: Same<Index.FailureStats, Wire.FailureStats>;
  FailureStatsReport: Same<Index.FailureStatsReport, Wire.FailureStatsReport>;
  Envelope: Same<Index.Envelope, Wire.Envelope>;
  FieldIssue: Same<Index.FieldIssue, Wire.FieldIssue>;
  IssueKind: Same<Index.IssueKind, Wire.IssueKind>;
  FailureClass: Same<Index.FailureClass, Wire.FailureClass>;
  Severity: Same<Index.Severity, Wire.Severity>;
  RawFailure: Same<Index.RawFailure, Wire.RawFailure>;
  FailureHints: Same<Index.FailureHints, Wire.FailureHints>;
  RunStatus: Same<Index.RunStatus, Wire.RunStatus>;
  RunRecord: Same<Index.RunRecord, Wire.RunRecord>;
  TurnRecord: Same<Index.TurnRecord, Wire.TurnRecord>;
  FailureRecord: Same<Index.FailureRecord, Wire.FailureRecord>;
  SessionRecord: Same<Index.SessionRecord, Wire.SessionRecord>;
  StoreExport: Same<Index.StoreExport, Wire.StoreExport>;
  Exchange: Same<Index.Exchange, Wire.Exchange>;
  Pruned: Same<Index.Pruned, Wire.Pruned>;
  PendingApproval: Same<Index.PendingApproval, Wire.PendingApproval>;
  StoredApproval: Same<Index.StoredApproval, Wire.StoredApproval>;
  Json: Same<Index.Json, Wire.Json>;
  Reply: Same<Index.Reply<{ value: Index.Json }>, Wire.Reply<{ value: Wire.Json }>>;
  ToolSpec: Same<Index.ToolSpec, Wire.ToolSpec>;
  OnUnknownOutcome: Same<Index.OnUnknownOutcome, Wire.OnUnknownOutcome>;
  StoreQuery: Same<Index.StoreQuery, Wire.StoreQuery>;
  /** The wire's failure query, beside the page's `FailureQuery` (which also takes a Date). */
  WireFailureQuery: Same<Index.WireFailureQuery, Wire.FailureQuery>;
  FailureOrder: Same<Index.FailureOrder, Wire.Order>;
  ModelChoice: Same<Index.ModelChoice, Wire.ModelChoice>;
  Role: Same<Index.Role, Wire.Role>;
};

// One casing on the wire: an end reason's kind and an issue's kind are camelCase like every field.
export const ended: Index.AgentEvent = {
  type: "runEnded",
  reason: { kind: "maxSteps", steps: 3 },
  success: false,
  stats: { faults: 0, failedAttempts: 0, retried: 0, recovered: 0, recoveryRate: 1 },
};
// @ts-expect-error the snake_case spelling is gone from the types
export const snake: Index.EndReason = { kind: "max_steps", steps: 3 };
export const issue: Index.FieldIssue = { path: "city", kind: "wrongType", expected: "a string" };

// What an app names with the wire types: a tool's spec apart from its code, a reply to the worker,
// a failure-log query as the worker reads it.
export const spec: Index.ToolSpec = { name: "get_weather", description: "Weather.", readOnly: true, onUnknownOutcome: "ask" };
export const reply: Index.Reply<{ value: Index.Json }> = { id: 1, ok: true, value: null };
export const failed: Index.Reply<{ value: Index.Json }> = { id: 2, ok: false, error: { code: "TIMEOUT", message: "slow", hints: {} } };
export const query: Index.StoreQuery = { kind: "failures", order: "oldest", limit: 5 };
