// Redaction scenarios: a page tool that takes a `password`, with `config.store.redact` as a policy
// (IndexedDB) and as a function on the page (memory store, one answer kept, one throw). Each returns
// what the tool received, what the run returned and what the page reads back from the store.
import { Agent, ToolError } from "/pkg/index.js";
import { answer, scripted as script } from "./steps.js";

const login = (password) => JSON.stringify({ thought: "log in", action: { tool: "login", args: { user: "bob", password } } });

/** A login tool that refuses its first password (echoing it, as careless tools do), then lets in. */
function loginTool(received) {
  return {
    name: "login",
    description: "Log in.",
    inputSchema: { type: "object", properties: { user: { type: "string" }, password: { type: "string" } } },
    execute: async ({ password }) => {
      received.push(password);
      if (received.length === 1) throw new ToolError(`wrong password ${password}`, { code: "DENIED" });
      return "welcome";
    },
  };
}

/** Runs two logins and an answer; returns what the page saw and read back. */
async function runLogins(config, passwords) {
  const received = [];
  const agent = await Agent.create({
    model: { custom: script([...passwords.map(login), answer("Logged in.")]) },
    tools: [loginTool(received)],
    config,
  });
  const run = agent.run("Log in as bob.", { session: `redact-${Date.now()}` });
  const events = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  const stored = {
    failures: await agent.failures({ runId: result.runId }),
    exported: await agent.exportRun(result.runId),
    otlp: await agent.exportRunOtlp(result.runId),
  };
  agent.dispose();
  return {
    received,
    resultPasswords: result.turns.filter((t) => t.action).map((t) => t.action.args.password),
    storedArgs: stored.exported.turns.map((t) => t.turn.action?.args ?? null),
    failureMessages: stored.failures.map((f) => f.message),
    storedText: JSON.stringify(stored),
    warnings: events.filter((e) => e.type === "warning").map((e) => e.message),
  };
}

/** `redact: { keys: ["password"] }` over IndexedDB. */
export function redactPolicy(passwords) {
  const name = `keel-e2e-redact-${Date.now()}`;
  return runLogins({ store: { name, redact: { keys: ["password"] } } }, passwords);
}

/** `redact: ({ tool, args }) => …` over the memory store: masks the first call, throws on the second. */
export async function redactHook(passwords) {
  const asked = [];
  const redact = ({ tool, args }) => {
    asked.push({ tool, password: args.password });
    if (asked.length === 1) return { ...args, password: "***" };
    throw new Error("the hook broke");
  };
  const out = await runLogins({ store: { kind: "memory", redact } }, passwords);
  return { ...out, asked };
}

/** A malformed policy: `Agent.create` rejects, naming the setting. */
export async function badRedaction() {
  try {
    await Agent.create({ model: { custom: script([]) }, config: { store: { redact: { keys: ["password", ""] } } } });
    return { rejected: false };
  } catch (e) {
    return { rejected: true, name: e.name, code: e.code, message: e.message };
  }
}
