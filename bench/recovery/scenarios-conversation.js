// Follow-up scenarios (issue 13's conversations): a task that makes sense only after an earlier one
// in the same session ("And in Oslo?"). `before` lists the earlier tasks; page.js runs them first,
// on the same agent and session, and judges only the follow-up (`task`). No fault is injected: what
// is measured is whether the model reads the earlier exchange the session's history gives it.
// Same shape as scenarios.js.
import { has, obj, str } from "./scenarios.js";

/** A weather tool that knows a few cities, by their English names. */
function weather(ToolError) {
  const known = { paris: "Paris: 18°C, cloudy.", oslo: "Oslo: 7°C, light rain.", madrid: "Madrid: 29°C, sunny." };
  return [
    {
      name: "get_weather",
      description: "Current weather for a city.",
      inputSchema: obj({ city: str("city name") }),
      execute: ({ city }) => {
        const found = known[city.trim().toLowerCase()];
        if (found) return found;
        throw new ToolError(`No city named '${city}'.`, { code: "NOT_FOUND", details: { city } });
      },
    },
  ];
}

/** The follow-up scenarios. */
export function conversation(ToolError) {
  return [
    {
      id: "follow-up-city",
      source: "issue 13",
      fault: "none: a follow-up that names only the new city ('And in Oslo?')",
      mechanism: "conversation",
      before: ["What's the weather in Paris?"],
      task: "And in Oslo?",
      minSteps: 2,
      tools: () => weather(ToolError),
      expect: (a) => has(a, "7") && !has(a, "18"),
    },
    {
      id: "follow-up-amount",
      source: "issue 13",
      fault: "none: a follow-up that keeps the earlier amount and changes the currency ('And to GBP?')",
      mechanism: "conversation",
      before: ["Convert 250 USD to EUR."],
      task: "And to GBP?",
      minSteps: 2,
      tools: () => [
        {
          name: "convert_currency",
          description: "Converts an amount from one currency to another at today's rate.",
          inputSchema: obj({
            amount: { type: "number", description: "the amount to convert" },
            from: str("ISO code of the currency converted from, e.g. USD"),
            to: str("ISO code of the currency converted to, e.g. EUR"),
          }),
          execute: ({ amount, from, to }) => {
            const perUsd = { USD: 1, EUR: 0.92, GBP: 0.79 };
            const [f, t] = [from.trim().toUpperCase(), to.trim().toUpperCase()];
            if (!(f in perUsd) || !(t in perUsd)) {
              throw new ToolError(`Unknown currency '${f in perUsd ? to : from}'.`, { code: "NOT_FOUND" });
            }
            return `${amount} ${f} = ${((amount / perUsd[f]) * perUsd[t]).toFixed(2)} ${t}`;
          },
        },
      ],
      expect: (a) => has(a, "197.5"),
    },
    {
      id: "follow-up-subject",
      source: "issue 13",
      fault: "none: a follow-up about the thing the earlier answer named ('When does it close?')",
      mechanism: "conversation",
      before: ["Which library branch is nearest to Elm Street?"],
      task: "When does it close today?",
      minSteps: 2,
      tools: () => [
        {
          name: "find_branch",
          description: "The library branch nearest to a street.",
          inputSchema: obj({ street: str("a street name") }),
          execute: () => "Northgate Library, 12 Birch Road (0.4 km).",
        },
        {
          name: "opening_hours",
          description: "Today's opening hours of a library branch, by its name.",
          // No example name in the description: Qwen copied one ("Central Library", then a real
          // branch) instead of the branch the conversation named, which measured the example.
          inputSchema: obj({ branch: str("the branch's name") }),
          execute: ({ branch }) => {
            if (/northgate/i.test(branch)) return "Northgate Library: open 09:00–17:30 today.";
            throw new ToolError(`No branch named '${branch}'.`, { code: "NOT_FOUND", details: { branch } });
          },
        },
      ],
      expect: (a) => has(a, "17:30") || has(a, "5:30"),
    },
  ];
}
