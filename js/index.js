// keel-agent: an AI agent engine whose tool failures turn into recoveries. The engine runs in a
// dedicated worker; tools and the custom model run on the page.
export { Agent } from "./agent.js";
export { RunHandle } from "./run-handle.js";
export { ToolError } from "./tool-error.js";
export { ErrorCode, KeelErrorCode } from "./codes.js";
export { toRawFailure, parseRetryAfter } from "./errors.js";
export { fromRawFailure, KeelError } from "./keel-error.js";
export { tool } from "./tool-schema.js";
