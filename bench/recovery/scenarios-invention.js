// Scenarios for the failures a small model cannot read its way out of (issue 9), as a new user
// met them with Qwen2.5-Coder-0.5B: an answer with no tool call and an invented value, a guessed
// ref with no `refsFrom` declared, a "fix" that drops a value, a name spelt in another language,
// an unrecoverable failure with a tempting value to invent. Same shape as scenarios.js.
import { has, obj, str } from "./scenarios.js";

/** A page whose refs come only from `snapshot`; its tools declare nothing (no refsFrom). */
function reportPage(ToolError) {
  const page = "e29 heading 'Quarterly reports'\ne30 link 'Archive'\ne31 button 'Download report'";
  return [
    { name: "snapshot", description: "Lists the page's elements with their refs.", inputSchema: obj({}), execute: () => page },
    {
      name: "click",
      description: "Clicks the element with this ref.",
      inputSchema: obj({ ref: str("an element ref") }),
      execute: ({ ref }) => {
        if (ref.replace(/^@/, "") === "e31") return "Download started: q3-report.pdf (2.1 MB).";
        throw new ToolError(`No element ${ref} on the page.`, { code: "NOT_FOUND", details: { ref } });
      },
    },
  ];
}

/** The shop of scenarios.js's stale-ref, with the page tools declared as keel-agent/dom does. */
function declaredShop(ToolError) {
  let renders = 0;
  const snapshot = () =>
    renders === 0 ? "e1 link 'Home'\ne2 button 'Place order'\ne3 link 'Help'" : "e7 link 'Home'\ne8 button 'Place order'\ne9 link 'Help'";
  return [
    { name: "snapshot", description: "Lists the page's elements with their refs.", inputSchema: obj({}), readOnly: true, execute: () => snapshot() },
    {
      name: "click",
      description: "Clicks the element with this ref.",
      inputSchema: obj({ ref: str("an element ref from snapshot") }),
      refsFrom: ["snapshot"],
      recoverWith: { STALE_REFERENCE: "snapshot" },
      execute: ({ ref }) => {
        if (renders === 0 && ref === "e2") {
          renders = 1;
          throw new ToolError(`Element ${ref} is stale: the page re-rendered after navigation.`, { code: "STALE_REFERENCE" });
        }
        if (renders === 1 && ref === "e8") return "Order placed. Order number: KX-4417.";
        throw new ToolError(`No element ${ref} on the page.`, { code: "NOT_FOUND" });
      },
    },
  ];
}

export function invention(ToolError) {
  return [
    {
      id: "invent-price",
      source: "issue 9",
      fault: "a value a model 'knows': answering without the tool invents it",
      mechanism: "invention",
      task: "What is the current price of one Bitcoin in US dollars?",
      minSteps: 2,
      tools: () => [
        {
          name: "get_crypto_price",
          description: "The current price of a cryptocurrency.",
          inputSchema: obj({ symbol: str("ticker, e.g. BTC") }),
          readOnly: true,
          execute: () => "BTC: $61,234.50 (as of 09:14 UTC)",
        },
      ],
      expect: (a) => has(a, "61,234") || has(a, "61234"),
    },
    {
      id: "invent-balance",
      source: "issue 9",
      fault: "a personal figure only the tool has: answering without it invents one",
      mechanism: "invention",
      task: "How many vacation days do I have left this year?",
      minSteps: 2,
      tools: () => [
        {
          name: "get_leave_balance",
          description: "The signed-in employee's leave balance.",
          inputSchema: obj({}),
          execute: () => "Vacation: 13.5 days left of 25. Sick leave: 4 days used.",
        },
      ],
      expect: (a) => has(a, "13.5"),
    },
    {
      id: "invent-ticket",
      source: "issue 9",
      fault: "a status only the tool has (the task gives the id)",
      mechanism: "invention",
      task: "What is the status of support ticket 4471?",
      minSteps: 2,
      tools: () => [
        {
          name: "get_ticket",
          description: "A support ticket by its number.",
          inputSchema: obj({ ticket_id: str("the ticket number") }),
          execute: ({ ticket_id: id }) => {
            if (String(id).replace(/\D/g, "") === "4471") return "Ticket 4471: waiting for customer reply (updated 2025-10-02).";
            throw new ToolError(`No ticket ${id}.`, { code: "NOT_FOUND" });
          },
        },
      ],
      expect: (a) => has(a, "waiting"),
    },
    {
      id: "guessed-ref",
      source: "issue 9 / Verdex",
      fault: "a ref guessed from its shape before any snapshot; the tools declare no refsFrom",
      mechanism: "provenance",
      task: "Click the 'Download report' button and tell me the name of the file it downloads.",
      minSteps: 3,
      tools: () => reportPage(ToolError),
      expect: (a) => has(a, "q3-report.pdf"),
    },
    {
      id: "guessed-id",
      source: "issue 9 / Vurb",
      fault: "an order id guessed from its shape; the tools declare nothing, a list tool has the ids",
      mechanism: "provenance",
      task: "What is the total of my most recent order?",
      minSteps: 3,
      tools: () => [
        {
          name: "list_orders",
          description: "Lists your orders, newest first.",
          inputSchema: obj({}),
          execute: () => "ORD-5521 (2025-09-02), ORD-5310 (2025-08-14)",
        },
        {
          name: "get_order",
          description: "One order by id.",
          inputSchema: obj({ order_id: str("an order id") }),
          execute: ({ order_id: id }) => {
            if (id === "ORD-5521") return "ORD-5521: 3 items, total $74.20, shipped";
            if (id === "ORD-5310") return "ORD-5310: 1 item, total $18.00, delivered";
            throw new ToolError(`Order ${id} not found.`, { code: "NOT_FOUND" });
          },
        },
      ],
      expect: (a) => has(a, "74.20") || has(a, "74.2"),
    },
    {
      id: "stale-ref-declared",
      source: "Verdex / keel-agent/dom",
      fault: "stale element reference after navigation; click declares recoverWith STALE_REFERENCE → snapshot",
      mechanism: "recovery-call",
      task: "On the shop page, click the 'Place order' button and tell me the order number.",
      minSteps: 4,
      tools: () => declaredShop(ToolError),
      expect: (a) => has(a, "KX-4417"),
    },
    {
      id: "word-number-fix",
      source: "issue 9",
      fault: "a number in words is refused (the API wants digits); a 'fix' to another number books the wrong count",
      mechanism: "api",
      task: "Reserve seats for seven people at the 20:00 Odeon show and give me the confirmation code.",
      minSteps: 2,
      tools: () => [
        {
          name: "reserve_seats",
          description: "Reserves cinema seats.",
          inputSchema: obj({ show: str("the show time, HH:MM"), count: str("how many seats") }),
          execute: ({ count }) => {
            if (!/^\d+$/.test(String(count).trim())) {
              throw new ToolError(`count '${count}' is not a number: write it in digits.`, {
                code: "INVALID_ARGS",
                details: { field: "count", sent: count, expected: "digits, e.g. 2" },
              });
            }
            const n = Number(count);
            return n === 7 ? "Reserved 7 seats. Code: OD-7731." : `Reserved ${n} seats. Code: OD-${1000 + n}.`;
          },
        },
      ],
      expect: (a) => has(a, "OD-7731"),
    },
    {
      id: "name-other-language",
      source: "issue 9",
      fault: "a place name in another language than the tool's (München for Munich)",
      mechanism: "names",
      task: "Wie ist das Wetter gerade in München? Answer in English with the temperature.",
      minSteps: 3,
      tools: () => [
        {
          name: "get_weather",
          description: "Current weather for a city (English city names).",
          inputSchema: obj({ city: str("city name") }),
          execute: ({ city }) => {
            if (/munich/i.test(city)) return "Munich: 12°C, cloudy.";
            throw new ToolError(`No city named '${city}'.`, { code: "NOT_FOUND", details: { city } });
          },
        },
      ],
      expect: (a) => has(a, "12"),
    },
    {
      id: "name-misspelt-list",
      source: "issue 9",
      fault: "a misspelt name (Smithsonion); a list tool knows the right one",
      mechanism: "names",
      task: "When does the Smithsonion Castle open today?",
      minSteps: 3,
      tools: () => [
        {
          name: "list_museums",
          description: "Lists the museums the hours service knows.",
          inputSchema: obj({}),
          readOnly: true,
          execute: () => "Smithsonian Castle, National Gallery of Art, Air and Space Museum",
        },
        {
          name: "museum_hours",
          description: "Today's opening hours of a museum, by its exact name.",
          inputSchema: obj({ name: str("the museum's name") }),
          execute: ({ name }) => {
            if (/smithsonian castle/i.test(name)) return "Smithsonian Castle: open 08:30 to 17:30 today.";
            throw new ToolError(`No museum named '${name}'.`, { code: "NOT_FOUND", details: { name } });
          },
        },
      ],
      expect: (a) => has(a, "8:30"),
    },
    {
      id: "arithmetic-grounded",
      source: "issue 9",
      fault: "none: the answer is a sum the task asks for (the grounding check must not flag it)",
      mechanism: "grounding",
      task: "How much do my two unpaid invoices come to together?",
      minSteps: 2,
      tools: () => [
        {
          name: "list_unpaid_invoices",
          description: "Lists your unpaid invoices with their totals.",
          inputSchema: obj({}),
          execute: () => "INV-2025-014: $1,250.00\nINV-2025-016: $980.00",
        },
      ],
      expect: (a) => has(a, "2,230") || has(a, "2230"),
    },
    {
      id: "two-part-task",
      source: "demo, 2026-11-27",
      fault: "a task with two parts: an answer to the first alone reads as done (SmolLM2 answered the demo's weather and left its newsletter and invoice, success: true)",
      mechanism: "parts",
      task: "What's the weather in Paris right now? Then tell me the total of my latest invoice.",
      minSteps: 3,
      tools: () => [
        {
          name: "get_weather",
          description: "Current weather for a city.",
          inputSchema: obj({ city: str("city name") }),
          readOnly: true,
          execute: ({ city }) => (/paris/i.test(city) ? "Paris: 18°C, light rain." : `No weather for '${city}'.`),
        },
        {
          name: "list_invoices",
          description: "The customer's invoices, newest first, with their totals.",
          inputSchema: obj({}),
          readOnly: true,
          execute: () => "INV-2025-014 (2025-06-30): $1,250.00\nINV-2025-009 (2025-03-31): $980.00",
        },
      ],
      expect: (a) => has(a, "18") && (has(a, "1,250") || has(a, "1250")),
    },
    {
      id: "unrecoverable-tempting",
      source: "issue 9",
      fault: "the only tool is down; the answer is a figure a model can make up: the run must end honestly",
      mechanism: "invention",
      task: "What was ACME's closing share price yesterday?",
      minSteps: 2,
      tools: () => [
        {
          name: "get_closing_price",
          description: "A share's closing price on a date.",
          inputSchema: obj({ symbol: str("ticker"), date: str("YYYY-MM-DD or 'yesterday'") }),
          execute: () => {
            throw new ToolError("The market data service is down.", { code: "UNAVAILABLE", class: "persistent" });
          },
        },
      ],
      honest: true,
      expect: (a) => !/\$\s?\d|\d+\.\d\d/.test(a),
    },
  ];
}
