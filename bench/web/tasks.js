// The web benchmark's tasks: things a user asks about the fixture shop (tests/fixtures/site/), each
// started on one of its pages, each with an answer checked against the shop's data and, where the
// task changes the page, a check of the page itself afterwards.
//
// A task: { id, start (page path), task, fault (what on the page gets in the way), minSteps (a
//   perfect run: tool calls + the final answer), check(answer) → boolean, pageCheck? (a function
//   run in the tab afterwards, returning true when the page shows the task done) }.
// Plain data and functions only: run.mjs imports this file in Node, page.js in the browser.
import { CARD_FEE, CHECKOUT_ORDER, DEAL_CODES, PROMO, RETURN_DAYS, orderNumber, part } from "../../tests/fixtures/site/data.js";

const has = (text, ...needles) => needles.every((n) => String(text ?? "").toLowerCase().includes(n.toLowerCase()));
const digits = (price) => price.replace("€", "");

// Ordered so that a run cut short has covered each kind of fault first.
export const TASKS = [
  {
    id: "price",
    start: "prices.html",
    task: "What is the price of the Wool blanket? Answer with the price.",
    fault: "none (a table row)",
    minSteps: 2,
    check: (a) => has(a, "56.20"),
  },
  {
    id: "stale-deals",
    start: "deals.html",
    task: "Reveal the code of the Desk lamp deal and answer with the code.",
    fault: "the first click re-renders the list: its refs go stale",
    minSteps: 5,
    check: (a) => has(a, DEAL_CODES["Desk lamp"]),
  },
  {
    id: "covered",
    start: "checkout.html",
    task: "Place the order and answer with the order number.",
    fault: "a cookie dialog covers the button",
    minSteps: 5,
    check: (a) => has(a, CHECKOUT_ORDER),
    pageCheck: () => document.getElementById("status").textContent.includes("Order placed"),
  },
  {
    id: "follow-link",
    start: "prices.html",
    task: "Open the Garden hose's product page and answer with its SKU.",
    fault: "a navigation: the refs of the first page die",
    minSteps: 4,
    check: (a) => has(a, "GH-311"),
  },
  {
    id: "disabled",
    start: "account.html",
    task: "Apply the promo code SPRING and answer with the discount it gives.",
    fault: "the code field is disabled until a box is checked",
    minSteps: 5,
    check: (a) => has(a, PROMO.discount),
  },
  {
    id: "iframe",
    start: "payment.html",
    task: "What card fee does the card payment form show?",
    fault: "the value is in a same-origin iframe (a cross-origin one beside it)",
    minSteps: 2,
    check: (a) => has(a, digits(CARD_FEE)),
  },
  {
    id: "form",
    start: "form.html",
    task: "Use the order form to order a blue mug for Ada Lovelace, email ada@example.com, then answer with the order number.",
    fault: "a form sent by navigation",
    minSteps: 5,
    check: (a) => has(a, orderNumber({ name: "Ada Lovelace", email: "ada@example.com", size: "Medium", quantity: "1" })),
  },
  {
    id: "long-page",
    start: "catalogue.html",
    task: "What is the price of part P-0287 in the catalogue?",
    fault: "the page is cut: the part is far below the snapshot's end",
    minSteps: 3,
    check: (a) => has(a, digits(part(287).price)),
  },
  {
    id: "hidden-faq",
    start: "help.html",
    task: "How many days do customers have to return an item? The help page's questions say.",
    fault: "the answer is inside a closed <details>",
    minSteps: 4,
    check: (a) => has(a, RETURN_DAYS.split(" ")[0]),
  },
  {
    id: "search",
    start: "index.html",
    task: "Search the shop for kettle and answer with the price of what it finds.",
    fault: "a search form sent by Enter (a navigation)",
    minSteps: 4,
    check: (a) => has(a, "31.00") || has(a, "31,00") || /€\s?31\b/.test(String(a)),
  },
  {
    id: "stock",
    start: "prices.html",
    task: "How many Tea kettles are in stock? The product page says.",
    fault: "a navigation",
    minSteps: 4,
    check: (a) => /(^|\D)9(\D|$)/.test(String(a)),
  },
  {
    id: "form-options",
    start: "form.html",
    task: "Order 3 blue mugs in size Large for Alan Turing (alan@example.com) with the order form, then answer with the order number.",
    fault: "a select and a number field",
    minSteps: 7,
    check: (a) => has(a, orderNumber({ name: "Alan Turing", email: "alan@example.com", size: "Large", quantity: "3" })),
  },
  {
    id: "newsletters",
    start: "account.html",
    task: "Subscribe to Weekly deals, unsubscribe from Product news, and save the preferences. Answer with what the page confirms.",
    fault: "two checkboxes in opposite states, then a save",
    minSteps: 6,
    check: (a) => has(a, "weekly deals"),
    pageCheck: () => document.getElementById("saved").textContent === "Saved. Subscribed to: Weekly deals.",
  },
];
