// The demo's tools: a small account assistant (weather, a page with a newsletter button, invoices).
// Each reads the fault panel when it is called, so a switch flipped before a run makes that tool
// fail the way real tools fail: hang past its timeout, answer 503 or 429, or point at a stale ref.
import { ToolError } from "keel-agent";

/** The faults the panel can switch on (the tools' and, `modelDown`, the scripted model's). */
export const FAULTS = {
  timeout: {
    label: "Time out",
    detail: "get_weather hangs past its 1.5 s timeout once; keel aborts it through its signal and retries.",
  },
  unavailable: {
    label: "503, then recover",
    detail: "list_invoices answers 503 Service Unavailable once; the runtime retries with backoff.",
  },
  rateLimited: {
    label: "429 + Retry-After",
    detail: "get_invoice is rate limited once with Retry-After: 2 s; keel waits it out.",
  },
  stale: {
    label: "Stale reference",
    detail: "The Subscribe button re-rendered: click(e5) fails with STALE_REFERENCE and a recovery plan.",
  },
  wrongArgs: {
    label: "Wrong-type args",
    detail:
      "A model mistake: the scripted model sends { city: 42, days: \"three\" }; real models run " +
      "without constrained decoding, so their slips reach the validator.",
  },
  modelDown: {
    label: "Model goes down",
    detail:
      "The scripted model answers its first step, then every call fails with 503: keel retries it with " +
      "backoff, then stops the run and says so (the answer is the runtime's account, not the agent's).",
  },
};

const RETRY_AFTER_S = 2;

const WEATHER = {
  paris: { c: 18, sky: "light rain" },
  lisbon: { c: 24, sky: "sunny" },
  london: { c: 14, sky: "overcast" },
  tokyo: { c: 21, sky: "clear" },
};

const INVOICES = [
  { id: "INV-1042", date: "2026-05-31", amount: "€49.00", status: "paid" },
  { id: "INV-0977", date: "2026-04-30", amount: "€49.00", status: "paid" },
];

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

// A hang that only its AbortSignal ends, as a stuck fetch would.
const hang = (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

/**
 * The tools, reading `faults()` (the panel's switches) on every call. `state` is per agent: a
 * fault fires once per run (`reset()` before each run), then the tool recovers.
 */
export function demoTools(faults) {
  const fired = new Set();
  let subscribed = false;
  const once = (name) => faults()[name] && !fired.has(name) && (fired.add(name), true);

  const paid = new Set();
  /** Receipts by idempotency key, as a payment API keeps them. */
  const receipts = new Map();
  const tools = [
    {
      name: "get_weather",
      description: "Current weather and a short forecast for a city.",
      inputSchema: {
        type: "object",
        properties: {
          city: { type: "string", minLength: 1, description: "City name, e.g. Paris" },
          unit: { type: "string", enum: ["c", "f"] },
          days: { type: "integer", minimum: 1, maximum: 7 },
        },
        required: ["city"],
        additionalProperties: false,
      },
      timeoutMs: 1500,
      execute: async ({ city, unit = "c", days = 1 }, { signal }) => {
        if (once("timeout")) await hang(signal);
        await sleep(250, signal);
        const w = WEATHER[city.toLowerCase()];
        if (!w) {
          throw new ToolError(`No weather station for "${city}".`, {
            code: "NOT_FOUND",
            recovery: [`Ask the user for a nearby larger city, or try one of: ${Object.keys(WEATHER).join(", ")}.`],
            details: { city },
          });
        }
        const t = unit === "f" ? Math.round((w.c * 9) / 5 + 32) : w.c;
        return { city, now: `${t}°${unit.toUpperCase()}, ${w.sky}`, days };
      },
    },
    {
      name: "snapshot",
      description: "List the page's interactive elements with their refs.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: async (_args, { signal }) => {
        await sleep(150, signal);
        // The page as loaded, until the stale fault re-renders the newsletter form.
        return fired.has("stale")
          ? 'heading "Acme News" [ref=e6]\nbutton "Subscribe to the newsletter" [ref=e7]\nlink "Invoices" [ref=e8]'
          : 'heading "Acme News" [ref=e4]\nbutton "Subscribe to the newsletter" [ref=e5]\nlink "Invoices" [ref=e3]';
      },
    },
    {
      name: "click",
      description: "Click a page element by its ref (refs come from snapshot).",
      inputSchema: {
        type: "object",
        properties: { ref: { type: "string", pattern: "^e[0-9]+$" } },
        required: ["ref"],
        additionalProperties: false,
      },
      refsFrom: ["snapshot"],
      execute: async ({ ref }, { signal }) => {
        await sleep(150, signal);
        if (ref === "e5" && once("stale")) {
          throw new ToolError("Element e5 is no longer on the page: the newsletter form re-rendered.", {
            code: "STALE_REFERENCE",
            recovery: ["Call `snapshot` to get fresh refs.", "Click the new ref of the Subscribe button."],
            availableActions: ["snapshot"],
            details: { ref },
          });
        }
        if (ref !== "e5" && ref !== "e7") {
          throw new ToolError(`No element ${ref} is clickable.`, { code: "NOT_FOUND", availableActions: ["snapshot"] });
        }
        subscribed = true;
        return 'Clicked "Subscribe to the newsletter": subscribed.';
      },
    },
    {
      name: "list_invoices",
      description: "List the user's invoices, newest first.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: async (_args, { signal, warn }) => {
        await sleep(200, signal);
        if (once("unavailable")) throw new Response("upstream down", { status: 503, statusText: "Service Unavailable" });
        warn("Only the first page of invoices was read.");
        return INVOICES.map(({ id, date }) => ({ id, date }));
      },
    },
    {
      name: "get_invoice",
      description: "Get one invoice by id.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", pattern: "^INV-[0-9]{4}$" } },
        required: ["id"],
        additionalProperties: false,
      },
      execute: async ({ id }, { signal }) => {
        await sleep(200, signal);
        if (once("rateLimited")) {
          throw new Response("slow down", {
            status: 429,
            statusText: "Too Many Requests",
            headers: { "Retry-After": String(RETRY_AFTER_S) },
          });
        }
        const invoice = INVOICES.find((i) => i.id === id);
        if (!invoice) throw new ToolError(`No invoice ${id}.`, { code: "NOT_FOUND", availableActions: ["list_invoices"] });
        return invoice;
      },
    },
    {
      // A side effect the user must approve first: the run pauses with Approve / Reject in the trace.
      name: "pay_invoice",
      description: "Pay an invoice by id (the user approves each payment).",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", pattern: "^INV-[0-9]{4}$" } },
        required: ["id"],
        additionalProperties: false,
      },
      refsFrom: ["list_invoices"],
      needsApproval: true,
      // A payment API dedupes by the idempotency key keel gives each call: the same call made again
      // after a reload (its outcome unknown) charges nothing twice and returns the first receipt.
      execute: async ({ id }, { signal, idempotencyKey }) => {
        await sleep(200, signal);
        const invoice = INVOICES.find((i) => i.id === id);
        if (!invoice) throw new ToolError(`No invoice ${id}.`, { code: "NOT_FOUND", availableActions: ["list_invoices"] });
        const earlier = receipts.get(idempotencyKey);
        if (earlier) return `${earlier} (already paid: same idempotency key, not charged again)`;
        paid.add(id);
        const receipt = `Paid ${id} (${invoice.amount}), payment key ${idempotencyKey}.`;
        receipts.set(idempotencyKey, receipt);
        return receipt;
      },
    },
  ];
  return {
    tools,
    /** Re-arms the faults for a new run. */
    reset() {
      fired.clear();
      subscribed = false;
    },
    get subscribed() {
      return subscribed;
    },
  };
}
