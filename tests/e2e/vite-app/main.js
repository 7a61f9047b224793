// What a Vite app's author writes: the package imported by name, a custom model, one tool. The
// test reads `window.viteResult`.
import { Agent } from "keel-agent";

const steps = [
  JSON.stringify({ thought: "Ask the tool.", action: { tool: "add", args: { a: 2, b: 3 } } }),
  JSON.stringify({ thought: "The tool said 5.", final_answer: "2 + 3 = 5" }),
];
const calls = [];

async function main() {
  const agent = await Agent.create({
    model: { custom: async () => steps[Math.min(calls.length, 1)] },
    tools: [
      {
        name: "add",
        description: "Adds two numbers.",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
        execute: async ({ a, b }) => {
          calls.push({ a, b });
          return { sum: a + b };
        },
      },
    ],
  });
  const run = agent.run("What is 2 + 3?");
  const events = [];
  for await (const event of run) events.push(event.type);
  const result = await run.result;
  agent.dispose();
  document.getElementById("answer").textContent = result.answer;
  return { answer: result.answer, success: result.success, calls, events };
}

main().then(
  (result) => (window.viteResult = result),
  (e) => (window.viteResult = { error: `${e.name}: ${e.message}` }),
);
