// A conversation over two runs of one session, on its own database (deleted first): the follow-up
// is understood only if its prompt holds the first question and answer. The page side of the
// conversation test in agent.test.mjs.
import { Agent } from "/pkg/index.js";

import { act, answer, idbRequest, tool } from "./steps.js";

const DB = "keel-e2e-conversation";

/**
 * A model that reads its prompt as a person would: "And in Oslo?" is a weather question only when
 * the prompt shows the earlier question about the weather in Paris. `prompts` gets each first user
 * message.
 */
function reader(prompts) {
  return async (messages) => {
    const first = messages[1].content;
    prompts.push(first);
    // The request for the answer alone, after a result that leaves nothing to do: the question, the
    // conversation's earlier questions and the results.
    if (messages[0].content.startsWith("Answer the user's question")) {
      if (first.includes("Question: What is the weather in Paris?")) return answer("It is 18°C in Paris.");
      const follows = first.includes("What is the weather in Paris?") && first.includes("Question: And in Oslo?");
      return answer(follows ? "It is 4°C in Oslo." : "I do not know what you are asking about.");
    }
    const observed = messages.length > 2;
    if (first.includes("Task: What is the weather in Paris?")) {
      return observed ? answer("It is 18°C in Paris.") : act("get_weather", { city: "Paris" });
    }
    const remembers = first.includes("User asked: What is the weather in Paris?") && first.includes("You answered: It is 18°C in Paris.");
    if (!remembers) return answer("I do not know what you are asking about.");
    return observed ? answer("It is 4°C in Oslo.") : act("get_weather", { city: "Oslo" });
  };
}

/** Two runs in one session, its history, then the session cleared and the follow-up asked again. */
export async function conversation() {
  await idbRequest(indexedDB.deleteDatabase(DB));
  const prompts = [];
  const agent = await Agent.create({
    model: { custom: reader(prompts) },
    session: "trip",
    // The follow-up after the clear answers at once: a tool-free step that toolChoice "required" refuses.
    config: { store: { name: DB }, toolChoice: "auto" },
    tools: [tool("get_weather", async ({ city }) => ({ city, temp: city === "Paris" ? "18°C" : "4°C" }))],
  });
  const first = await agent.run("What is the weather in Paris?").result;
  const second = await agent.run("And in Oslo?").result;
  const followUpPrompt = prompts[2];
  const history = await agent.history();
  const otherSession = await agent.history("elsewhere");
  const cleared = await agent.clearSession();
  const afterClear = await agent.history("trip");
  const forgotten = await agent.run("And in Oslo?").result;
  const afterForgotten = await agent.history();
  agent.dispose();
  return {
    answers: [first.answer, second.answer, forgotten.answer],
    followUpPrompt,
    history: history.map(({ runId, task, answer: a, status, steps, startedMs, endedMs }) => ({
      runId,
      task,
      answer: a,
      status,
      steps,
      timed: typeof startedMs === "number" && endedMs >= startedMs,
    })),
    runIds: [first.runId, second.runId],
    otherSession,
    cleared,
    afterClear,
    afterForgotten: afterForgotten.map((e) => e.task),
  };
}
