// The "Scripted model": a keel custom model that plays one scenario on the fixture shop
// (tests/fixtures/site/): from the home page, open Deals, reveal the Blue mug's code, read it, go
// back. It behaves like a small model that trusts what it saw first: the first "Show code" click
// re-renders the list, and it clicks the button's ref from before the re-render again, which is
// stale by then; only the failure makes it use a fresh ref. Each reply is decided from the
// transcript alone (the steps and observations in `messages`), so a run resumed from the store
// after its worker died goes on exactly where it stopped.

const DEALS = 'link "Deals"';
const SHOW = 'button "Show code for Blue mug"';
const DOM_ERRORS = /\b(STALE_REFERENCE|UNKNOWN_REF|NOT_INTERACTABLE|FRAME_DETACHED|NAVIGATION_FAILED)\b/;
// The header line of a snapshot: `page "Deals" http://…`.
const SNAPSHOT_HEAD = /^page "[^"]*" \S+$/m;

const act = (thought, tool, args = {}) => JSON.stringify({ thought, action: { tool, args } });
const answer = (thought, text) => JSON.stringify({ thought, final_answer: text });

/** Every ref on the lines of `text` naming `name` (`@e5 link "Deals"`), in order. */
export function refsOf(text, name) {
  const refs = [];
  for (const line of String(text ?? "").split("\n")) {
    if (!line.includes(name)) continue;
    const m = /(?:^|[\s[(=])@?(e\d+)\b/.exec(line);
    if (m) refs.push(m[1]);
  }
  return refs;
}

/** The last snapshot inside `text` (from its header line on), if it holds one. */
function lastSnapshot(text) {
  const heads = [...String(text ?? "").matchAll(new RegExp(SNAPSHOT_HEAD, "gm"))];
  return heads.length ? text.slice(heads.at(-1).index) : undefined;
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
const OPEN = "Open the Deals page";
const REVEAL = "Show the Blue mug's code";

/** The next reply for a transcript (pure: same transcript, same reply). */
export function nextReply(messages) {
  const steps = stepsOf(messages);
  const ok = (s) => !DOM_ERRORS.test(s.observation);
  const latest = steps.at(-1)?.observation;
  if (!steps.length) return act("I need the page's elements and their refs first.", "snapshot");
  if (!steps.some((s) => s.thought.startsWith(OPEN))) {
    return act(`${OPEN}: its link is in the navigation bar.`, "click", { ref: refsOf(latest, DEALS)[0] });
  }
  const dealsSnapshots = steps.filter((s) => s.tool === "snapshot" && ok(s) && s.observation.includes('page "Deals"'));
  if (!dealsSnapshots.length) return act("The Deals page has loaded; list its elements.", "snapshot");
  const reveals = steps.filter((s) => s.thought.startsWith(REVEAL));
  // The first two clicks use the ref from the first snapshot of the page; the second is stale.
  if (reveals.length < 2 && reveals.every(ok)) {
    const thought = reveals.length ? `${REVEAL} again: the list was refreshed, choose again.` : `${REVEAL}.`;
    return act(thought, "click", { ref: refsOf(dealsSnapshots[0].observation, SHOW)[0] });
  }
  const last = reveals.at(-1);
  if (!ok(last)) {
    // The runtime's fresh snapshot may follow the failure in its observation; else take one.
    const fresh = steps.at(-1) === last ? lastSnapshot(latest) : latest;
    const ref = refsOf(fresh, SHOW).at(-1);
    if (ref) return act(`${REVEAL} with the ref from the fresh snapshot.`, "click", { ref });
    return act("That ref was stale; take a fresh snapshot.", "snapshot");
  }
  const reads = steps.filter((s) => s.tool === "read");
  if (!reads.length) return act("The code is on the page now; read it.", "read");
  if (!steps.some((s) => s.tool === "back")) return act("Go back to the page I started from.", "back");
  const code = /Code for Blue mug: ([A-Z]+-\d+)/.exec(reads.at(-1).observation)?.[1];
  return answer("I have the code and I am back home.", code ? `The deal code for the Blue mug is ${code}.` : "I could not read the code.");
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
