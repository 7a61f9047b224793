// The recovery benchmark's scenarios: small tasks whose tools fail in one way each, drawn from the
// seed articles (Verdex, browser-use, Vurb, prompt-chain). Each knows its correct answer.
//
// A scenario: { id, source, fault, mechanism, task, minSteps, tools(ToolError) → Tool[],
//   expect(answer) → boolean, honest?, modelFaults? }
// - expect: whether the answer's content is right; `honest` scenarios cannot be completed, and are
//   correct only with success=false, the others only with success=true (see `correct` below): a
//   run reporting success with a wrong answer is the worst outcome and is counted apart.
// - mechanism: "tool" (the tool fails whatever the model sends), "api" (the tool rejects what a
//   model is likely to send: a rule its schema does not state, as real APIs have), "schema" (keel's
//   validator rejects it; constrained decoding makes it impossible), "model" (the model server
//   fails, through the bench's proxy).
// - minSteps: steps a perfect run takes (tool calls + the final answer).
// - modelFaults: what the proxy does to this scenario's model calls, by 1-based call number.
// - before: earlier tasks run first in the same session (follow-ups); only `task` is judged.
// Plain data and functions only: run.mjs imports this file in Node to read `modelFaults`.

import { conversation } from "./scenarios-conversation.js";
import { invention } from "./scenarios-invention.js";

export const obj = (properties, required = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
export const str = (description) => ({ type: "string", description });
export const has = (text, ...needles) => needles.every((n) => text.toLowerCase().includes(n.toLowerCase()));

/** A browser page whose refs change after the first click re-renders it (Verdex). */
function shop(ToolError) {
  let renders = 0;
  const snapshot = () =>
    renders === 0
      ? "e1 link 'Home'\ne2 button 'Place order'\ne3 link 'Help'"
      : "e7 link 'Home'\ne8 button 'Place order'\ne9 link 'Help'";
  return [
    {
      name: "snapshot",
      description: "Lists the page's elements with their refs.",
      inputSchema: obj({}),
      execute: () => snapshot(),
    },
    {
      name: "click",
      description: "Clicks the element with this ref.",
      inputSchema: obj({ ref: str("an element ref from snapshot, e.g. e2") }),
      refsFrom: ["snapshot"],
      execute: ({ ref }) => {
        if (renders === 0 && ref === "e2") {
          renders = 1;
          throw new ToolError(`Element ${ref} is stale: the page re-rendered after navigation.`, {
            code: "STALE_REFERENCE",
            details: { ref },
          });
        }
        if (renders === 1 && ref === "e8") return "Order placed. Order number: KX-4417.";
        throw new ToolError(`No element ${ref} on the page.`, { code: "NOT_FOUND", details: { ref, page: snapshot() } });
      },
    },
  ];
}

/** A page whose 'Subscribe' button is e21, not the e12 the task names (Verdex: a ref typo). */
function newsletter(ToolError) {
  const page = "e19 heading 'Newsletter'\ne20 textbox 'Email'\ne21 button 'Subscribe'";
  return [
    { name: "snapshot", description: "Lists the page's elements with their refs.", inputSchema: obj({}), execute: () => page },
    {
      name: "click",
      description: "Clicks the element with this ref.",
      inputSchema: obj({ ref: str("an element ref from snapshot") }),
      refsFrom: ["snapshot"],
      execute: ({ ref }) => {
        if (ref === "e21") return "Subscribed. Confirmation code: SUB-88.";
        throw new ToolError(`No element ${ref} on the page.`, {
          code: "NOT_FOUND",
          details: { ref, closest: "e21 button 'Subscribe'" },
        });
      },
    },
  ];
}

/** Whether a run did the scenario: the answer's content and the success flag both right. */
export function correct(scenario, result) {
  return result.success === !scenario.honest && scenario.expect(result.answer ?? "");
}

/** Issue 9's scenarios first: on a shared machine a run may be stopped before its end. */
export function scenarios(ToolError) {
  return [...invention(ToolError), ...original(ToolError), ...conversation(ToolError)];
}

function original(ToolError) {
  return [
    {
      id: "stale-ref",
      source: "Verdex",
      fault: "stale element reference after navigation",
      mechanism: "tool",
      task: "On the shop page, click the 'Place order' button and tell me the order number.",
      minSteps: 5,
      tools: () => shop(ToolError),
      expect: (a) => has(a, "KX-4417"),
    },
    {
      id: "ref-typo",
      source: "Verdex",
      fault: "unknown reference (typo in the task)",
      mechanism: "tool",
      task: "Click the Subscribe button (ref e12) and give me the confirmation code.",
      minSteps: 3,
      tools: () => newsletter(ToolError),
      expect: (a) => has(a, "SUB-88"),
    },
    {
      id: "wrong-type",
      source: "browser-use",
      fault: "wrong-type argument (a number word for an integer)",
      mechanism: "schema",
      task: "Book a table at Luigi's for four people at 19:30 and tell me the booking reference.",
      minSteps: 2,
      tools: () => [
        {
          name: "book_table",
          description: "Books a restaurant table.",
          inputSchema: obj({
            restaurant: str("restaurant name"),
            people: { type: "integer", minimum: 1, maximum: 12 },
            time: str("HH:MM, 24-hour"),
          }),
          execute: ({ people, time }) =>
            people === 4 && time === "19:30" ? "Booked for 4 at 19:30. Reference: BT-2093." : `Booked for ${people} at ${time}. Reference: BT-1111.`,
        },
      ],
      expect: (a) => has(a, "BT-2093"),
    },
    {
      id: "time-format",
      source: "Vurb",
      fault: "an argument in the wrong format (the API wants 24-hour HH:MM)",
      mechanism: "api",
      task: "Set an alarm for 7:30 pm called 'gym' and tell me the alarm id.",
      minSteps: 2,
      tools: () => [
        {
          name: "set_alarm",
          description: "Sets an alarm.",
          inputSchema: obj({ time: str("the alarm time"), label: str("a name for the alarm") }),
          execute: ({ time }) => {
            if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time)) {
              throw new ToolError(`time '${time}' is not in HH:MM 24-hour format.`, {
                code: "INVALID_ARGS",
                expected: true,
                details: { field: "time", sent: time, expected: "HH:MM, 24-hour, e.g. 07:05 or 19:30" },
              });
            }
            return time === "19:30" ? "Alarm set for 19:30. Id: AL-305." : `Alarm set for ${time}. Id: AL-100.`;
          },
        },
      ],
      expect: (a) => has(a, "AL-305"),
    },
    {
      id: "out-of-enum",
      source: "Vurb",
      fault: "a value outside the API's options ('coach' for a cabin)",
      mechanism: "api",
      task: "Find the cheapest coach flight from Boston to Denver and give me its flight number.",
      minSteps: 2,
      tools: () => [
        {
          name: "search_flights",
          description: "Finds flights. cabin is the travel class.",
          inputSchema: obj({ from: str("departure city"), to: str("arrival city"), cabin: str("travel class") }),
          execute: ({ cabin }) => {
            const options = ["economy", "premium_economy", "business", "first"];
            if (!options.includes(cabin)) {
              throw new ToolError(`cabin '${cabin}' is not one of ${options.join(", ")}.`, {
                code: "INVALID_ARGS",
                details: { field: "cabin", sent: cabin, options },
              });
            }
            return cabin === "economy" ? "Cheapest economy: flight UA 512, $189." : `Cheapest ${cabin}: flight UA 900, $640.`;
          },
        },
      ],
      expect: (a) => has(a, "512"),
    },
    {
      id: "unknown-key",
      source: "browser-use",
      fault: "an argument name the tool does not take ('unit' for 'units')",
      mechanism: "schema",
      task: "What's the temperature in Austin in Fahrenheit? Use unit F.",
      minSteps: 2,
      tools: () => [
        {
          name: "get_weather",
          description: "Current weather for a city.",
          inputSchema: obj({ city: str("city name"), units: { type: "string", enum: ["metric", "imperial"] } }),
          execute: ({ units }) => (units === "imperial" ? "Austin: 88°F, sunny." : "Austin: 31°C, sunny."),
        },
      ],
      expect: (a) => has(a, "88"),
    },
    {
      id: "hallucinated-tool",
      source: "prompt-chain",
      fault: "a tool name that does not exist (the task names another)",
      mechanism: "schema",
      task: "Use the get_stock_price tool to find the price of ACME shares.",
      minSteps: 2,
      tools: () => [
        {
          name: "lookup_quote",
          description: "The latest share price for a ticker symbol.",
          inputSchema: obj({ symbol: str("ticker, e.g. ACME") }),
          execute: ({ symbol }) =>
            /acme/i.test(symbol) ? "ACME: $42.17" : (() => { throw new ToolError(`No ticker ${symbol}.`, { code: "NOT_FOUND" }); })(),
        },
      ],
      expect: (a) => has(a, "42.17"),
    },
    {
      id: "misspelled-tool",
      source: "prompt-chain",
      fault: "a misspelled tool name (search_contact for search_contacts)",
      mechanism: "schema",
      task: "Call search_contact with the name 'Dana' and tell me Dana's phone number.",
      minSteps: 2,
      tools: () => [
        {
          name: "search_contacts",
          description: "Finds contacts by name.",
          inputSchema: obj({ name: str("a name") }),
          execute: ({ name }) => (/dana/i.test(name) ? "Dana Reyes, phone 555-0142" : "No contacts found."),
        },
      ],
      expect: (a) => has(a, "555-0142"),
    },
    {
      id: "not-found-list-first",
      source: "Vurb",
      fault: "not found: the id in the task is wrong, a list call finds the right one",
      mechanism: "tool",
      task: "What is the total of ACME Corp's latest invoice? I think it is INV-2024-001.",
      minSteps: 4,
      tools: () => [
        {
          name: "list_invoices",
          description: "Lists a customer's invoices, newest first.",
          inputSchema: obj({ customer: str("customer name") }),
          execute: () => "INV-2025-014 (2025-06-30), INV-2025-009 (2025-03-31)",
        },
        {
          name: "get_invoice",
          description: "One invoice by id.",
          inputSchema: obj({ invoice_id: str("an invoice id from list_invoices") }),
          refsFrom: ["list_invoices"],
          execute: ({ invoice_id: id }) => {
            if (id === "INV-2025-014") return "INV-2025-014: ACME Corp, total $1,250.00, due 2025-07-30";
            if (id === "INV-2025-009") return "INV-2025-009: ACME Corp, total $980.00, paid";
            throw new ToolError(`Invoice ${id} not found.`, { code: "NOT_FOUND", details: { invoice_id: id } });
          },
        },
      ],
      expect: (a) => has(a, "1,250") || has(a, "1250"),
    },
    {
      id: "503-then-ok",
      source: "Vurb",
      fault: "503 Service Unavailable twice, then success",
      mechanism: "tool",
      task: "What is the EUR to USD exchange rate?",
      minSteps: 2,
      tools: () => {
        let calls = 0;
        return [
          {
            name: "get_rate",
            description: "The exchange rate between two currencies.",
            inputSchema: obj({ from: str("currency code"), to: str("currency code") }),
            execute: () => {
              calls += 1;
              if (calls <= 2) throw { status: 503, statusText: "Service Unavailable", headers: {} };
              return "1 EUR = 1.0842 USD";
            },
          },
        ];
      },
      expect: (a) => has(a, "1.08"),
    },
    {
      id: "429-retry-after",
      source: "Vurb",
      fault: "429 Too Many Requests with Retry-After: 1, then success",
      mechanism: "tool",
      task: "Translate 'good morning' into French.",
      minSteps: 2,
      tools: () => {
        let calls = 0;
        return [
          {
            name: "translate",
            description: "Translates text.",
            inputSchema: obj({ text: str("the text"), target: str("target language") }),
            execute: () => {
              calls += 1;
              if (calls === 1) throw { status: 429, statusText: "Too Many Requests", headers: { "Retry-After": "1" } };
              return "Bonjour";
            },
          },
        ];
      },
      expect: (a) => has(a, "bonjour"),
    },
    {
      id: "hang-timeout",
      source: "prompt-chain",
      fault: "the first call hangs past its 1.5 s timeout, then the tool works",
      mechanism: "tool",
      task: "What is today's top technology headline?",
      minSteps: 2,
      tools: () => {
        let calls = 0;
        return [
          {
            name: "get_headlines",
            description: "Today's headlines for a topic.",
            inputSchema: obj({ topic: str("a topic") }),
            timeoutMs: 1500,
            execute: (_args, { signal }) => {
              calls += 1;
              if (calls === 1) return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
              return "Top technology headline: 'Quantum chip passes 1,000 qubits'.";
            },
          },
        ];
      },
      expect: (a) => has(a, "quantum"),
    },
    {
      id: "permission-denied",
      source: "Vurb",
      fault: "permission denied until another tool grants access",
      mechanism: "tool",
      task: "Read the file /reports/q3.txt and tell me the Q3 revenue.",
      minSteps: 4,
      tools: () => {
        let granted = false;
        return [
          {
            name: "read_file",
            description: "Reads a text file.",
            inputSchema: obj({ path: str("file path") }),
            execute: ({ path }) => {
              if (!granted) {
                throw new ToolError(`Access to ${path} is denied.`, {
                  code: "PERMISSION_DENIED",
                  recovery: ["Call request_access with the same path.", "Then call read_file again."],
                  availableActions: ["request_access"],
                });
              }
              return path.includes("q3") ? "Q3 revenue: $4.2M (up 8%)." : "empty file";
            },
          },
          {
            name: "request_access",
            description: "Asks for read access to a file.",
            inputSchema: obj({ path: str("file path") }),
            execute: ({ path }) => {
              granted = true;
              return `Read access to ${path} granted.`;
            },
          },
        ];
      },
      expect: (a) => has(a, "4.2"),
    },
    {
      id: "partial-warnings",
      source: "Vurb",
      fault: "partial success: the result comes with a warning that a source timed out",
      mechanism: "tool",
      task: "How many red chairs are in stock?",
      minSteps: 2,
      tools: () => [
        {
          name: "check_stock",
          description: "Stock for a product.",
          inputSchema: obj({ product: str("product name") }),
          execute: (_args, { warn }) => {
            warn("1 of 3 warehouses did not answer in time; the count covers the other 2.");
            return "red chair: 14 in stock";
          },
        },
      ],
      expect: (a) => has(a, "14"),
    },
    {
      id: "garbage-output",
      source: "prompt-chain",
      fault: "the model's first reply is garbage (injected by the proxy)",
      mechanism: "model",
      task: "What time is it in Tokyo?",
      minSteps: 2,
      modelFaults: { 1: "garbage" },
      tools: () => [
        {
          name: "get_time",
          description: "The current time in a city.",
          inputSchema: obj({ city: str("city name") }),
          execute: () => "Tokyo: 14:05",
        },
      ],
      expect: (a) => has(a, "14:05"),
    },
    {
      id: "model-503",
      source: "WebLLM / prompt-chain",
      fault: "the model server answers 503 once",
      mechanism: "model",
      task: "What is the population of Lyon?",
      minSteps: 2,
      modelFaults: { 1: "503" },
      tools: () => [
        {
          name: "city_facts",
          description: "Facts about a city.",
          inputSchema: obj({ city: str("city name") }),
          execute: () => "Lyon: population 522,000 (2021).",
        },
      ],
      expect: (a) => has(a, "522"),
    },
    {
      id: "unrecoverable",
      source: "prompt-chain",
      fault: "the only tool is down for the whole run: the run must end honestly, success=false",
      mechanism: "tool",
      task: "What is the balance of account 7731?",
      minSteps: 2,
      tools: () => [
        {
          name: "get_balance",
          description: "An account's balance.",
          inputSchema: obj({ account: str("account number") }),
          execute: () => {
            throw new ToolError("The banking service is down for maintenance until tomorrow.", { code: "UNAVAILABLE", class: "persistent" });
          },
        },
      ],
      // Honest: reported as failed (success=false), and no invented balance.
      honest: true,
      expect: (a) => !/\$\s?\d|\d+\.\d\d/.test(a),
    },
  ];
}
