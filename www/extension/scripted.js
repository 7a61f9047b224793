// The "Scripted model": a keel custom model that plays one scenario on the shop fixture
// (tests/e2e/extension-site/): switch the prices to EUR, add the blue mug to the cart, read the
// cart. It behaves like a small model that trusts what it saw first: after the currency switch
// re-renders the product list it clicks the button's ref from its first snapshot, which is stale
// by then, and only the failure makes it use a fresh one. Each reply is decided from the
// transcript alone (the steps and observations in `messages`), so a run resumed from the store
// after its worker died goes on exactly where it stopped.

const EUR = "Show prices in EUR";
const ADD = "Add Blue mug to cart";
const DOM_ERRORS = /\b(STALE_REFERENCE|UNKNOWN_REF|NOT_INTERACTABLE|FRAME_DETACHED|NAVIGATION_FAILED)\b/;

const act = (thought, tool, args = {}) => JSON.stringify({ thought, action: { tool, args } });
const answer = (thought, text) => JSON.stringify({ thought, final_answer: text });

/** Every ref on the lines of `text` naming `name` (`@e5`, or `e5` as in `[ref=e5]`), in order. */
export function refsOf(text, name) {
  const wanted = name.toLowerCase();
  const refs = [];
  for (const line of String(text ?? "").split("\n")) {
    if (!line.toLowerCase().includes(wanted)) continue;
    const m = /(?:^|[\s[(=])@?(e\d+)\b/.exec(line);
    if (m) refs.push(m[1]);
  }
  return refs;
}

/** The steps taken so far: `{ thought, tool, args, observation }` from the assistant/user pairs. */
export function stepsOf(messages) {
  const steps = [];
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    let step;
    try {
      step = JSON.parse(m.content);
    } catch {
      return;
    }
    const next = messages[i + 1];
    const observation = next?.role === "user" ? next.content : "";
    if (step?.action) steps.push({ thought: step.thought ?? "", tool: step.action.tool, args: step.action.args ?? {}, observation });
  });
  return steps;
}

// The thoughts say which button a click was for.
const SWITCH = "Switch the prices to EUR";
const ADDING = "Add the blue mug";

/** The next reply for a transcript (pure: same transcript, same reply). */
export function nextReply(messages) {
  const steps = stepsOf(messages);
  const ok = (s) => !DOM_ERRORS.test(s.observation);
  const snapshots = steps.filter((s) => s.tool === "snapshot" && ok(s));
  if (!snapshots.length) return act("I need the page's elements and their refs first.", "snapshot");
  const latest = steps.at(-1).observation;
  const clicked = (what) => steps.filter((s) => s.tool === "click" && s.thought.startsWith(what));
  if (!clicked(SWITCH).length) {
    return act(`${SWITCH} first.`, "click", { ref: refsOf(latest, EUR)[0] });
  }
  const adds = clicked(ADDING);
  if (!adds.length) {
    // The list re-rendered after the switch: this ref, from the first snapshot, is stale by now.
    return act(`${ADDING}: its button was in my first snapshot.`, "click", { ref: refsOf(snapshots[0].observation, ADD)[0] });
  }
  const last = adds.at(-1);
  if (!ok(last)) {
    // The failure's observation may name the stale ref too; the fresh snapshot comes after it.
    const stale = String(last.args.ref).replace(/^@/, "");
    const fresh = refsOf(latest, ADD).filter((r) => r !== stale || steps.at(-1) !== last).at(-1);
    if (fresh) return act(`${ADDING} with the ref from the fresh snapshot.`, "click", { ref: fresh });
    return act("That ref was stale; take a fresh snapshot.", "snapshot");
  }
  const reads = steps.filter((s) => s.tool === "read");
  if (!reads.length) return act("The mug is added; read the page for the cart.", "read");
  const cart = /Cart: [^\n"<]*/.exec(reads.at(-1).observation)?.[0]?.trim();
  return answer("The cart says what was added.", cart ? `The Blue mug is in the cart. ${cart}` : "I could not read the cart.");
}

/**
 * The scripted model. `delayMs` paces each reply like a model thinking (the end-to-end test
 * closes the panel during one).
 */
export function shopScript({ delayMs = 300 } = {}) {
  return async (messages, { signal }) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, delayMs);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
    return nextReply(messages);
  };
}
