// End-to-end: keel-agent/dom against the fixture shop (tests/fixtures/site/) in headless Chromium.
// `domOp`'s source runs in a second tab, as chrome.scripting runs it in an extension, and every
// error is produced by the page for real: a re-render, a cover, a disabled field, a replaced frame,
// a navigation. Then agent runs through the tools: in the other tab and on the agent's own page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CARD_FEE, CHECKOUT_ORDER, DEAL_CODES, PARTS, PROMO, RETURN_DAYS, orderNumber, part } from "../fixtures/site/data.js";
import { exposeTab, runInTab } from "./dom-tab.mjs";
import { useScenarioPage } from "./scenario-page.mjs";

let tab;
const { scenario, pageErrors, opened } = useScenarioPage({
  beforeLoad: async ({ browser, page }) => {
    tab = await browser.newPage();
    await exposeTab(page, () => tab);
  },
});
const site = (path) => `${opened().server.url}/tests/fixtures/site/${path}`;
const op = (name, args) => runInTab(tab, name, args);
/** The text of an op that must succeed. */
async function ok(name, args) {
  const r = await op(name, args);
  assert.equal(r.ok, true, `${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.error)}`);
  return r;
}
/** The error of an op that must fail with `code`. */
async function fails(code, name, args) {
  const r = await op(name, args);
  assert.equal(r.ok, false, `${name} ${JSON.stringify(args)} should fail with ${code}, got: ${r.text}`);
  assert.equal(r.error.code, code, r.error.message);
  assert.ok(r.error.recovery.some((s) => s.includes("`snapshot`")), `the plan names snapshot: ${r.error.recovery}`);
  return r.error;
}
/** The ref of the line matching `pattern` in a snapshot's text. */
function ref(text, pattern) {
  const line = text.split("\n").find((l) => pattern.test(l));
  assert.ok(line, `no line matching ${pattern} in:\n${text}`);
  return line.match(/@e\d+/)[0];
}

test("snapshot: header, roles, names, states, table rows, headings; refs work as e5 and @e5", async () => {
  await tab.goto(site("prices.html"));
  const { text, warnings } = await ok("snapshot");
  const [title, note] = text.split("\n");
  assert.equal(title, `page "Price list" ${site("prices.html")}`);
  // No counts: a small model asked for a number answered with one ("13" for an order number).
  assert.equal(note, "refs stay valid until the page changes");
  assert.match(text, /^@e\d+ heading "Price list" \[level=1\]$/m);
  assert.match(text, /^@e\d+ row "Blue mug \| €8\.50"$/m);
  assert.match(text, /^@e\d+ link "Garden hose"$/m);
  assert.match(text, /^@e\d+ text "Prices include VAT\."$/m);
  assert.equal(warnings, undefined);
  const hose = ref(text, /link "Garden hose"/);
  const same = await ok("snapshot");
  assert.equal(ref(same.text, /link "Garden hose"/), hose, "an unchanged element keeps its ref");

  // A definition list: each term with its definition on one line; the definitions not again apart.
  await tab.goto(site("item.html?sku=GH-311"));
  const item = (await ok("snapshot")).text;
  assert.match(item, /^@e\d+ text "SKU: GH-311"$/m);
  assert.match(item, /^@e\d+ text "In stock: 4"$/m);
  assert.doesNotMatch(item, /^@e\d+ text "(SKU|GH-311|4)"$/m);
  // A definition holding a control, a heading or a row stays apart (its ref kept, nothing listed
  // twice), and so does a paragraph (a long definition is not cut to a line).
  const long = "You may return any item within 30 days of delivery, unused and in its box, for a full refund.";
  await tab.evaluate((long) => {
    document.body.insertAdjacentHTML(
      "beforeend",
      `<dl><dt>Manual</dt><dd><a href="#manual">Download</a></dd>
        <dt>Sizes</dt><dd><table><tr><td>Small</td><td>Large</td></tr></table></dd>
        <dt>Returns</dt><dd>${long}</dd></dl>`,
    );
  }, long);
  const manual = (await ok("snapshot")).text;
  assert.match(manual, /^@e\d+ text "Manual"$/m);
  assert.match(manual, /^@e\d+ link "Download"$/m);
  assert.match(manual, /^@e\d+ text "Sizes"$/m);
  assert.equal(manual.match(/Small \| Large/g)?.length, 1, manual);
  assert.match(manual, new RegExp(`^@e\\d+ text "${long}"$`, "m"));

  await tab.goto(site("form.html"));
  const form = (await ok("snapshot")).text;
  assert.match(form, /@e\d+ textbox "Full name" \[required\]/);
  assert.match(form, /@e\d+ combobox "Size" value="Medium" options="Small\|Medium\|Large"/);
  assert.match(form, /@e\d+ spinbutton "Quantity" value="1"/);
  assert.match(form, /@e\d+ checkbox "Gift wrap" \[unchecked\]/);
  const name = ref(form, /textbox "Full name"/);
  await ok("type", { ref: name.slice(1), text: "Ada" });
  assert.match((await ok("snapshot")).text, /textbox "Full name" value="Ada" \[required\]/);
});

test("a form filled, an option chosen, a box checked and sent: the page navigates to the answer", async () => {
  await tab.goto(site("form.html"));
  const form = (await ok("snapshot")).text;
  const size = ref(form, /combobox "Size"/);
  const wrong = await op("select", { ref: size, value: "XL" });
  assert.deepEqual([wrong.error.code, wrong.error.details.options], ["INVALID_ARGS", ["Small", "Medium", "Large"]]);
  assert.match((await ok("select", { ref: size, value: "large" })).text, /Selected "Large"/);
  await ok("type", { ref: ref(form, /textbox "Full name"/), text: "Ada Lovelace" });
  await ok("type", { ref: ref(form, /spinbutton "Quantity"/), text: "2" });
  assert.match((await ok("check", { ref: ref(form, /checkbox "Gift wrap"/) })).text, /it is now checked/);
  const invalid = await ok("type", { ref: ref(form, /textbox "Email"/), text: "not-an-email", submit: true });
  assert.match(invalid.text, /The form was NOT sent: field "Email" is invalid/);
  const sent = await ok("type", { ref: ref(form, /textbox "Email"/), text: "ada@example.com", submit: true });
  assert.match(sent.navigating, /thanks\.html\?name=Ada\+Lovelace&email=ada%40example\.com&size=Large&quantity=2&gift=on$/);
  assert.match(sent.text, /The form was sent/);
  const thanks = await ok("read");
  const number = orderNumber({ name: "Ada Lovelace", email: "ada@example.com", size: "Large", quantity: "2" });
  assert.match(thanks.text, new RegExp(`Your order number: ${number}`));
});

test("STALE_REFERENCE: a re-render removes the element; the error says what it was, a new snapshot retires the ref", async () => {
  await tab.goto(site("deals.html"));
  const first = (await ok("snapshot")).text;
  const lamp = ref(first, /button "Show code for Desk lamp"/);
  const clicked = await ok("click", { ref: lamp });
  assert.match(clicked.text, /After it, some elements of the latest snapshot are gone \(the page re-rendered\)/);
  const stale = await fails("STALE_REFERENCE", "click", { ref: lamp });
  assert.deepEqual(stale.details, { ref: lamp, role: "button", name: "Show code for Desk lamp", tag: "<button>" });
  assert.match(stale.message, /was removed from the page after the latest snapshot/);
  const second = (await ok("snapshot")).text;
  const lamp2 = ref(second, /button "Show code for Desk lamp"/);
  assert.notEqual(lamp2, lamp, "the new button has a new ref");
  const retired = await fails("STALE_REFERENCE", "click", { ref: lamp });
  assert.match(retired.message, /is from an earlier snapshot and is gone/);
  await ok("click", { ref: lamp2 });
  assert.match((await ok("read")).text, new RegExp(`Code for Desk lamp: ${DEAL_CODES["Desk lamp"]}`));
  await tab.evaluate(() => window.rerender());
  await fails("STALE_REFERENCE", "read", { ref: lamp2 });
});

test("UNKNOWN_REF: before any snapshot, a ref not listed (did you mean), a name instead of a ref", async () => {
  await tab.goto(site("checkout.html"));
  const none = await fails("UNKNOWN_REF", "click", { ref: "@e3" });
  assert.match(none.message, /^@e3 means nothing on this page: no snapshot of it has been taken yet/);
  const text = (await ok("snapshot")).text;
  const missing = await fails("UNKNOWN_REF", "click", { ref: "@e999" });
  assert.match(missing.message, /^@e999 is not in the latest snapshot \(its refs run from @e\d+ to @e\d+, \d+ items\)\. Did you mean @e\d+ /);
  const named = await fails("UNKNOWN_REF", "click", { ref: "Place order" });
  assert.match(named.message, /"Place order" is not a ref: refs look like @e5 \(or e5\)/);
  assert.deepEqual(named.details.suggestions, [`${ref(text, /button "Place order"/)} button "Place order"`]);
});

test("NOT_INTERACTABLE: covered by a dialog (named, with its buttons), disabled, hidden", async () => {
  await tab.goto(site("checkout.html"));
  const text = (await ok("snapshot")).text;
  const place = ref(text, /button "Place order"/);
  const accept = ref(text, /button "Accept all"/);
  const covered = await fails("NOT_INTERACTABLE", "click", { ref: place });
  assert.equal(covered.details.reason, "covered");
  assert.deepEqual(covered.details.coveredBy, { tag: "<div#consent.overlay>", role: "dialog", name: "Cookie consent" });
  assert.ok(covered.details.closeWith.includes(`${accept} button "Accept all"`), JSON.stringify(covered.details));
  assert.match(covered.message, /is covered by <div#consent\.overlay> \(dialog "Cookie consent"\)/);
  assert.equal(await tab.evaluate(() => document.getElementById("status").textContent), "", "the covered button was not clicked");
  await ok("click", { ref: accept });
  await ok("click", { ref: place });
  assert.match((await ok("read")).text, new RegExp(`Order number: ${CHECKOUT_ORDER}`));

  await tab.goto(site("account.html"));
  const account = (await ok("snapshot")).text;
  const code = ref(account, /textbox "Promo code" \[disabled\]/);
  const disabled = await fails("NOT_INTERACTABLE", "type", { ref: code, text: PROMO.code });
  assert.equal(disabled.details.reason, "disabled");
  await ok("check", { ref: ref(account, /checkbox "I have a promo code"/) });
  await ok("type", { ref: code, text: PROMO.code });
  await ok("click", { ref: ref(account, /button "Apply code"/) });
  assert.match((await ok("read")).text, new RegExp(`Discount: ${PROMO.discount}`));

  await tab.goto(site("help.html"));
  const help = (await ok("snapshot")).text;
  assert.doesNotMatch(help, /Chat with us/, "a display:none button is not listed");
  assert.doesNotMatch((await ok("read")).text, new RegExp(RETURN_DAYS), "a closed <details> hides its text");
  const summary = ref(help, /button "How long can I return items\?" \[collapsed\]/);
  await tab.evaluate(() => (document.querySelector("summary").style.visibility = "hidden"));
  assert.equal((await fails("NOT_INTERACTABLE", "click", { ref: summary })).details.reason, "hidden");
  await tab.evaluate(() => (document.querySelector("summary").style.visibility = ""));
  await ok("click", { ref: summary });
  assert.match((await ok("read")).text, new RegExp(`within ${RETURN_DAYS}`));
});

test("frames: same-origin listed and usable, cross-origin a warning; a replaced frame is FRAME_DETACHED", async () => {
  await tab.goto(site("payment.html"));
  await tab.waitForFunction(() => document.getElementById("card-frame").contentDocument?.getElementById("fee")?.textContent);
  const { text, warnings } = await ok("snapshot");
  assert.match(text, /^@e\d+ frame "Card payment" \(same origin\):$/m);
  assert.match(text, new RegExp(`^  @e\\d+ text "Card fee: ${CARD_FEE}"$`, "m"));
  assert.match(text, /^@e\d+ frame "Partner offers" \[cross-origin: not listed\]$/m);
  assert.doesNotMatch(text, /PARTNER10|Claim offer/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^frame "Partner offers" \(http:\/\/localhost:\d+\/.*partner\.html\) is cross-origin/);
  const card = ref(text, /textbox "Card number"/);
  await ok("type", { ref: card, text: "4111 1111 1111 1234" });
  await ok("click", { ref: ref(text, /button "Verify card"/) });
  assert.match((await ok("read")).text, /\[frame "Card payment"\][\s\S]*Card ending 1234 verified\./);
  const partner = await fails("NOT_INTERACTABLE", "read", { ref: ref(text, /frame "Partner offers"/) });
  assert.equal(partner.details.reason, "cross-origin");
  await ok("click", { ref: ref(text, /button "Switch payment provider"/) });
  const detached = await fails("FRAME_DETACHED", "type", { ref: card, text: "1" });
  assert.equal(detached.details.frame, "Card payment");
  assert.match(detached.message, /was inside frame "Card payment", which was removed or navigated/);
  // The same <iframe> loading another document detaches the old one's elements too.
  const again = (await ok("snapshot")).text;
  const card2 = ref(again, /textbox "Card number"/);
  assert.notEqual(card2, card);
  await tab.evaluate(() => {
    const frame = document.getElementById("card-frame");
    return new Promise((loaded) => {
      frame.addEventListener("load", loaded, { once: true });
      frame.src = "card-frame.html?provider=3";
    });
  });
  assert.equal((await fails("FRAME_DETACHED", "type", { ref: card2, text: "1" })).details.ref, card2);
});

test("a navigation mid-task: the link's click says the page is loading; the old refs mean nothing on the new page", async () => {
  await tab.goto(site("prices.html"));
  const text = (await ok("snapshot")).text;
  const mug = ref(text, /link "Blue mug"/);
  const clicked = await ok("click", { ref: mug });
  assert.match(clicked.text, /The page is loading http:\/\/127\.0\.0\.1:\d+\/tests\/fixtures\/site\/item\.html\?sku=BM-204/);
  assert.match(tab.url(), /item\.html\?sku=BM-204$/);
  const gone = await fails("UNKNOWN_REF", "click", { ref: mug });
  assert.match(gone.message, /no snapshot of it has been taken yet, .*a page that navigated or reloaded needs a new one/);
  assert.match((await ok("snapshot")).text, /text "SKU: BM-204"/);
  // A link to the page itself reloads it: the runner waits for the new document, whose refs are new.
  const item = (await ok("snapshot")).text;
  const self = ref(item, /link "Home"/);
  await tab.goto(site("index.html"));
  const home0 = (await ok("snapshot")).text;
  const started = Date.now();
  assert.match((await ok("click", { ref: ref(home0, /link "Home"/) })).text, /The page is loading .*index\.html/);
  assert.ok(Date.now() - started < 5000, `the reload was waited for, not timed out (${Date.now() - started} ms)`);
  assert.match((await fails("UNKNOWN_REF", "click", { ref: self })).message, /no snapshot of it has been taken yet/);

  await tab.goto(site("index.html"));
  const home = (await ok("snapshot")).text;
  await ok("type", { ref: ref(home, /searchbox "Search the shop"/), text: "kettle" });
  const bad = await op("press", { key: "Entr", ref: ref(home, /searchbox/) });
  assert.deepEqual([bad.error.code, bad.error.details.field], ["INVALID_ARGS", "key"]);
  const pressed = await ok("press", { key: "Enter", ref: ref(home, /searchbox/) });
  assert.match(pressed.navigating, /search\.html\?q=kettle$/);
  assert.match((await ok("snapshot")).text, /link "Tea kettle"/);
});

test("a long page is cut with a note; `from` lists the rest, `read` pages through the text", async () => {
  await tab.goto(site("catalogue.html"));
  const first = (await ok("snapshot")).text;
  assert.ok(first.length <= 1300, `snapshot of ${first.length} chars`);
  const cut = /\[cut: more items after @e\d+; call snapshot with \{"from": "(@e\d+)"\} to list them/.exec(first);
  assert.ok(cut, first.slice(-300));
  const last = part(PARTS);
  assert.doesNotMatch(first, new RegExp(last.id));
  let page = first;
  let from = cut[1];
  for (let i = 0; i < 40 && from; i++) {
    page = (await ok("snapshot", { from })).text;
    from = /"from": "(@e\d+)"/.exec(page)?.[1];
  }
  assert.equal(from, undefined, "the listing reached the end");
  assert.match(page, new RegExp(`text "${last.id} ${last.name} — ${last.price.replace(".", "\\.")}`));
  const text = (await ok("read")).text;
  assert.match(text, /\[cut: \d+ more characters; call read with \{"offset": 1300\} for the next part\]$/);
  const next = (await ok("read", { offset: 1300 })).text;
  assert.match(next, /from character 1300:/);
  const found = (await ok("read", { find: last.id })).text;
  assert.equal(found, `Lines of page "Parts catalogue" ${site("catalogue.html")} containing "${last.id}":\n${last.id} ${last.name} — ${last.price} Add ${last.id}`);
  assert.equal((await ok("scroll", { direction: "bottom" })).text, "Scrolled bottom: now at the bottom of the page.");
});

test("an agent in another tab (as in the extension): navigate, a re-render, a stale ref recovered by the runtime's snapshot, the code read", async () => {
  const r = await scenario("tabDealsRun", site("deals.html"));
  assert.deepEqual(r.toolNames, ["snapshot", "click", "type", "select", "check", "press", "scroll", "read", "navigate", "back"]);
  assert.deepEqual(r.actions, ["navigate", "click", "click", "click", "read"]);
  assert.deepEqual(r.recoveryCalls, [{ tool: "click", code: "STALE_REFERENCE", called: "snapshot", ok: true }]);
  // The failed click's observation holds the fresh snapshot: the third click used a ref from it.
  const [, first, staleSeen] = r.observations;
  const old = first.text.match(/@e\d+(?= \(button "Show code for Desk lamp")/)[0];
  // The click's result shows what the re-render put on the page: the notice and the new buttons.
  assert.match(first.text, /\nThe page now shows:\n(.*\n)*@e\d+ text "Prices were updated/, first.text);
  assert.match(first.text, /@e\d+ button "Show code for Desk lamp"/, first.text);
  assert.match(staleSeen.text, /STALE_REFERENCE/);
  const fresh = staleSeen.text.match(/(@e\d+) button "Show code for Desk lamp"/)?.[1];
  assert.ok(fresh && fresh !== old, `a new ref in the recovery snapshot: ${staleSeen.text}`);
  assert.equal(r.answer, DEAL_CODES["Desk lamp"]);
  assert.equal(r.success, true);
  assert.deepEqual(r.failures, [{ tool: "click", code: "STALE_REFERENCE", recovered: true }]);
  const stale = r.failureEvents[0];
  assert.equal(stale.envelope.details.name, "Show code for Desk lamp");
  assert.ok(stale.envelope.recovery.some((s) => s.includes("`snapshot`")));
  assert.match(r.observations[0].text, /^Opened http.*deals\.html\.\npage "Deals"/);
});

test("an agent's failed navigations: NAVIGATION_FAILED for a 404 and for a non-URL, then a link followed, its page listed", async () => {
  const r = await scenario("tabNavigationRun", site("missing.html"), site("prices.html"));
  assert.deepEqual(r.failures.map((f) => f.code), ["NAVIGATION_FAILED", "NAVIGATION_FAILED"]);
  assert.deepEqual(r.actions, ["navigate", "navigate", "navigate", "click"]);
  // The click opened the item page: its result lists that page (no advice to call snapshot, no
  // ref of the page left), and the refs a click is offered next are that page's.
  const clicked = r.observations.at(-1).text;
  assert.match(clicked, /^Clicked \(link "Garden hose", <a>\)\. It opened this page:\npage "[^"]*" http.*item\.html\?sku=GH-311\n/, clicked);
  assert.doesNotMatch(clicked, /call snapshot/);
  const opened = clicked.split("\n").filter((l) => /@e\d+ (link|button)/.test(l)).map((l) => l.match(/@e\d+/)[0]);
  const offered = r.clickRefs[4];
  assert.ok(Array.isArray(offered) && offered.length > 0 && offered.every((ref) => opened.includes(ref)), `offered ${JSON.stringify(offered)}, opened ${opened}`);
  const before = r.clickRefs[3];
  assert.notDeepEqual(offered, before, "the prices page's refs are no longer offered");
  assert.match(r.failureEvents[0].message, /Could not open .*missing\.html: .*HTTP 404/);
  assert.match(r.failureEvents[1].message, /"prices page" is not a full URL/);
  assert.equal(r.answer, "GH-311");
  assert.equal(r.success, true);
});

test("a copilot on its own page (pageRunner): a covered button, a cross-origin frame as a warning, the form sent", async () => {
  const crossOrigin = site("partner.html").replace("127.0.0.1", "localhost");
  const r = await scenario("samePageRun", crossOrigin);
  assert.deepEqual(r.toolNames, ["snapshot", "click", "type", "read"]);
  assert.equal(r.observations[0].outcome, "warning", "the snapshot succeeded with a warning");
  assert.match(r.observations[0].text, /frame "Ads" \(http:\/\/localhost:.*\) is cross-origin/);
  assert.deepEqual(r.failures, [{ tool: "click", code: "NOT_INTERACTABLE", recovered: true }]);
  assert.match(r.failureEvents[0].message, /is covered by <div#cp-cover> \(dialog "Welcome"\)/);
  assert.equal(r.done, "Subscribed ada@example.com.");
  assert.equal(r.answer, "Subscribed ada@example.com.");
  assert.equal(r.success, true);
  // `type` is offered only the text field's ref (refKinds). `click` the button the task names
  // ("Subscribe to the newsletter": two of its words); after the covered click, the cover's button
  // alone (its failure names it); then that button again; once that worked, every listed control
  // (the text field too).
  const email = r.typeRefs[1];
  assert.equal(email.length, 1, JSON.stringify(r.typeRefs));
  const [, subscribe, close, again] = r.clickRefs;
  assert.ok(subscribe.length === 1 && close.length === 1 && close[0] !== subscribe[0], JSON.stringify(r.clickRefs));
  assert.deepEqual(again, subscribe, JSON.stringify(r.clickRefs));
  assert.ok(r.clickRefs.at(-1).length > 1 && r.clickRefs.at(-1).includes(email[0]), JSON.stringify(r.clickRefs));
  // A text the page shows as clickable (a pointer cursor) is a click's; a plain heading is not.
  const card = /@(e\d+) text "Gift card offers" \[clickable\]/.exec(r.observations[0].text)?.[1];
  const heading = /@(e\d+) heading "Newsletter" \[level=2\]\n/.exec(r.observations[0].text)?.[1];
  assert.ok(card && heading, r.observations[0].text);
  assert.ok(r.clickRefs.at(-1).includes(`@${card}`) && !r.clickRefs.at(-1).includes(`@${heading}`), JSON.stringify(r.clickRefs));
});

test("domTools checks its options; a runner that gives no answer (the frame went away) is FRAME_DETACHED", async () => {
  const r = await scenario("domToolsChecks");
  assert.match(r.noRun, /^TypeError: domTools: `run` must be a function/);
  assert.equal(r.badInclude, 'TypeError: domTools: no tool "navigate" to include; available: snapshot, click, type, select, check, press, scroll, read');
  assert.equal(r.badMax, "TypeError: domTools: `maxChars` must be a whole number of at least 500 (got 100)");
  assert.equal(r.badNavigate, "TypeError: domTools: `navigate` must be a function or absent");
  assert.deepEqual(r.names, ["snapshot", "read"]);
  assert.equal(r.gone.name, "ToolError");
  assert.equal(r.gone.isToolError, true, "a page's `instanceof ToolError` holds for keel-agent/dom's errors");
  assert.equal(r.gone.code, "FRAME_DETACHED");
  assert.match(r.gone.message, /The page gave no answer to `click`/);
  assert.match(r.gone.recovery[0], /`snapshot`/);
});

test("no page errors", () => {
  assert.deepEqual(pageErrors, []);
});
