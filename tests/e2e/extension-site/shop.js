// The shop's state and its re-render: every render replaces the list's elements.
const PRODUCTS = [
  { name: "Blue mug", usd: 12 },
  { name: "Red mug", usd: 10 },
];
const RATE = { USD: 1, EUR: 0.92 };
const SIGN = { USD: "$", EUR: "€" };
const state = { currency: "USD", cart: [] };
window.shop = state;

const price = (usd) => `${SIGN[state.currency]}${(usd * RATE[state.currency]).toFixed(2)}`;

function button(text, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.addEventListener("click", onclick);
  return b;
}

function render() {
  const other = state.currency === "USD" ? "EUR" : "USD";
  const currency = document.getElementById("currency");
  const note = document.createElement("p");
  note.textContent = state.currency === "EUR" ? "Prices converted from USD at 0.92. " : "Prices in USD.";
  if (state.currency === "EUR") {
    // One more element above the list in EUR: refs numbered in page order shift too.
    const link = document.createElement("a");
    link.href = "#rates";
    link.textContent = "How we convert";
    note.append(link);
  }
  currency.replaceChildren(note, button(`Show prices in ${other}`, () => ((state.currency = other), render())));
  document.getElementById("products").replaceChildren(
    ...PRODUCTS.map((p) => {
      const li = document.createElement("li");
      li.append(`${p.name} — ${price(p.usd)} `, button(`Add ${p.name} to cart`, () => (state.cart.push(p.name), render())));
      return li;
    }),
  );
  const total = state.cart.reduce((sum, name) => sum + PRODUCTS.find((p) => p.name === name).usd, 0);
  const items = state.cart.length;
  document.getElementById("cart-line").textContent =
    `Cart: ${items} item${items === 1 ? "" : "s"}, total ${price(total)}`;
}

render();
