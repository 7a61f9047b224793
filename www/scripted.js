// The "Scripted model" backend: a keel custom model that replays a canned scenario, so the demo is
// deterministic and testable without a real model. It plans from the task's keywords and the fault
// switches at the first step of a run, then writes one step per call, as a small model would:
// JSON with a thought and an action, or the final answer (with "Model goes down" on, every call
// after the first fails instead). It never reads the observations; the
// runtime's recoveries (retries, waits) are invisible to it, and the failures it must handle
// (wrong-type args, stale ref) are in its plan because the panel said they would happen.

const step = (thought, tool, args) => JSON.stringify({ thought, action: { tool, args } });
const final = (thought, text) => JSON.stringify({ thought, final_answer: text });

function cityOf(task) {
  const m = /\b(?:in|for|at)\s+([A-Z][a-zà-ÿ]+)/.exec(task);
  return m ? m[1] : "Paris";
}

/** The steps for `task` with the faults `on`; each part of the task adds its calls. */
export function plan(task, on) {
  const t = task.toLowerCase();
  const wantsWeather = /weather|forecast|temperature|rain/.test(t);
  const wantsNewsletter = /newsletter|subscribe/.test(t);
  const wantsPay = /\bpay\b/.test(t);
  const wantsInvoice = /invoice|bill/.test(t) && !wantsPay;
  const all = !wantsWeather && !wantsNewsletter && !wantsInvoice && !wantsPay;
  const steps = [];
  const answer = [];
  if (wantsWeather || all) {
    const city = cityOf(task);
    const days = /(\d)\s*days?/.exec(t)?.[1];
    if (on.wrongArgs) {
      steps.push(step(`The user wants the weather in ${city}. I'll ask for three days in kelvin.`, "get_weather", {
        city: 42,
        unit: "kelvin",
        days: "three",
        cty: city,
      }));
    }
    const args = { city, unit: "c", ...(days ? { days: Number(days) } : {}) };
    steps.push(step(on.wrongArgs ? "The city must be a string and the unit c or f; fixing the call." : `Get the weather in ${city}.`, "get_weather", args));
    answer.push(`the weather in ${city} is whatever get_weather reported above`);
  }
  if (wantsNewsletter || all) {
    // A ref must come from an observation (keel refuses one never seen): a snapshot first.
    steps.push(step("Find the Subscribe button's ref on the page.", "snapshot", {}));
    steps.push(step("The Subscribe button is e5.", "click", { ref: "e5" }));
    if (on.stale) {
      steps.push(step("e5 is stale; the recovery plan says to take a fresh snapshot.", "snapshot", {}));
      steps.push(step("The Subscribe button is now e7.", "click", { ref: "e7" }));
    }
    answer.push("you are subscribed to the newsletter");
  }
  if (wantsInvoice || all) {
    steps.push(step("List the invoices to find the latest one.", "list_invoices", {}));
    steps.push(step("INV-1042 is the newest; get its details.", "get_invoice", { id: "INV-1042" }));
    answer.push("your latest invoice is INV-1042 (€49.00, paid on 2026-05-31)");
  }
  if (wantsPay) {
    steps.push(step("List the invoices to find the latest one.", "list_invoices", {}));
    steps.push(step("Pay INV-1042, the newest; the user approves payments.", "pay_invoice", { id: "INV-1042" }));
    answer.push(PAYMENT);
  }
  return { steps, answer };
}

// The answer's part about the payment, decided by what the user did with the approval.
const PAYMENT = "the payment";

function paymentFrom(messages) {
  const rejected = messages.some((m) => m.content.includes("APPROVAL_REJECTED"));
  return rejected ? "you rejected the payment of INV-1042, so it was not made" : "INV-1042 is paid (€49.00)";
}

function sentence(parts, weather, payment) {
  const text = parts.map((p) => (p.startsWith("the weather") ? weather : p === PAYMENT ? payment : p)).join("; ");
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}

// The weather as the last get_weather observation told it, so the answer quotes what happened.
function weatherFrom(messages) {
  for (const m of [...messages].reverse()) {
    const hit = /"now":\s*"([^"]+)"/.exec(m.content) ?? /now[^\w]+([0-9]+°[CF][^"\n<]*)/.exec(m.content);
    const city = /"city":\s*"([^"]+)"/.exec(m.content);
    if (hit) return `it is ${hit[1]} in ${city ? city[1] : "the city"}`;
  }
  return "I could not read the weather";
}

/**
 * A scripted model: `faults()` is read at the first step of each run. `delayMs` paces the steps
 * like a model thinking (0 in tests that want speed); while keel streams (`onText`), the step is
 * handed over in pieces across that time, as a real model's tokens arrive.
 */
export function scriptedModel(faults, { delayMs = 300 } = {}) {
  const runs = new Map();
  return async (messages, { signal, runId, onText }) => {
    if (!runs.has(runId)) {
      const prompt = messages.filter((m) => m.role === "user")[0]?.content ?? "";
      const on = faults();
      runs.set(runId, { ...plan(followUp(taskOf(prompt), askedBefore(prompt)), on), next: 0, down: on.modelDown });
    }
    const run = runs.get(runId);
    // "Model goes down": a failed model call, as a backend reports one (an error with a status).
    if (run.down && run.next >= 1) {
      await pause(delayMs, signal);
      throw Object.assign(new Error("The scripted model is down (HTTP 503, a fault switched on)."), { status: 503 });
    }
    let text;
    if (run.next < run.steps.length) text = run.steps[run.next++];
    else {
      runs.delete(runId);
      text = final("I have everything the user asked for.", sentence(run.answer, weatherFrom(messages), paymentFrom(messages)));
    }
    if (!onText) {
      await pause(delayMs, signal);
      return text;
    }
    const pieces = text.match(/[\s\S]{1,12}/g) ?? [];
    for (const piece of pieces) {
      await pause(delayMs / pieces.length, signal);
      onText(piece);
    }
    return text;
  };
}

// Waits `ms`, or rejects with the signal's reason when the run is cancelled meanwhile.
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

// The tasks the user asked earlier in the session, as keel's prompt recalls them ("- User asked:").
function askedBefore(prompt) {
  return [...prompt.matchAll(/^- User asked: (.+)$/gm)].map((m) => m[1].trim());
}

const TOPICAL = /weather|forecast|temperature|rain|newsletter|subscribe|\bpay\b|invoice|bill/i;

// A follow-up that names no topic of its own ("And in Oslo?") takes an earlier task's topics, with
// its own place first (cityOf reads the first one): the latest earlier task about the weather when
// it names a place, else the latest earlier task.
function followUp(task, earlier) {
  if (TOPICAL.test(task) || !earlier.length) return task;
  const place = /\b(?:in|for|at)\s+[A-Z]/.test(task);
  const about = (place && earlier.findLast((t) => /weather|forecast|temperature|rain/i.test(t))) || earlier.at(-1);
  return `${task} ${about}`;
}

// keel's prompt wraps the task; the scripted model only needs the user's words.
function taskOf(prompt) {
  const all = [...prompt.matchAll(/^Task: (.+)$/gm)];
  return (all.length ? all[all.length - 1][1] : prompt).trim();
}
