// keel-agent/dom's page side: every DOM operation the tools perform, as ONE self-contained function.
// It is serialised by `chrome.scripting.executeScript({ func: domOp, args: [op, args] })` (and by
// Playwright's `evaluate` in the tests), so nothing here may close over module scope or import:
// every helper is defined inside `domOp`. That is why this file is one long function rather than
// several small modules. Its state (the ref map of the latest snapshot) lives on
// `globalThis.__keelDom`, so it is per document: a navigation or reload starts it afresh.

/**
 * Runs one DOM operation on the page it is called in and returns plain JSON, never throwing:
 * `{ ok: true, text, warnings?, navigating?, did?, first? }` (`navigating`: the URL an action started
 * loading, so the host can wait for it before the next op, and `did` what the action did, without
 * the advice `text` adds and without refs; `first`: a snapshot that is its document's first, so of a page loaded
 * since the last op) or `{ ok: false, error: { code, message, causes?, recovery?, details? } }`.
 *
 * Ops: `snapshot {from?, maxChars?}`, `click {ref}`, `type {ref, text, submit?}`, `select {ref, value}`,
 * `check {ref, checked?}`, `press {key, ref?}`, `scroll {ref?, direction?}`, `read {ref?, offset?, find?, maxChars?}`.
 * Refs are `@e5` in the snapshot text; `e5` is accepted too.
 *
 * ```js
 * const [{ result }] = await chrome.scripting.executeScript({ target: { tabId }, func: domOp, args: ["snapshot", {}] });
 * ```
 */
export async function domOp(op, args) {
  const win = globalThis;
  const state = (win.__keelDom ??= { seq: 0, ids: new WeakMap(), refs: new Map(), retired: new Map(), snapshots: 0 });
  const INTERACTIVE = new Set([
    "button", "link", "checkbox", "radio", "textbox", "searchbox", "combobox", "listbox", "option", "menuitem",
    "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem",
  ]);
  // Under the agent's default observationChars (1500), which would cut the middle out of a longer
  // answer blindly (with room left for a warning): the tool cuts where it can say what it cut.
  const SNAPSHOT_CHARS = 1300;
  // The longest definition a definition list's line holds (termLine); a longer one is a paragraph.
  const DEFINITION_CHARS = 80;
  // The most an action's result shows of what it made appear (the rest: a snapshot).
  const APPEARED_LINES = 6;
  const APPEARED_CHARS = 500;
  const READ_CHARS = 1300;

  // A failure crosses as data: thrown inside, caught once at the bottom.
  class Fail {
    constructor(code, message, recovery, details = {}, causes = undefined) {
      this.error = { code, message, recovery, details, ...(causes ? { causes } : {}) };
    }
  }
  const invalid = (message, details = {}) =>
    new Fail("INVALID_ARGS", message, ["Fix the argument named in the message and call the tool again.", "Call `snapshot` if you need to see the element's current state."], details);

  const clean = (text, max = 80) => {
    const t = String(text ?? "").replace(/\s+/g, " ").trim();
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
  };
  const quote = (text) => JSON.stringify(text);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function roleOf(el) {
    const explicit = el.getAttribute("role")?.trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = el.localName;
    if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : null;
    if (tag === "button" || tag === "summary") return "button";
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "iframe" || tag === "frame") return "frame";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "input") {
      const type = el.type;
      if (type === "hidden") return null;
      if (type === "checkbox" || type === "radio") return type;
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      if (type === "search") return "searchbox";
      if (["button", "submit", "reset", "image", "file"].includes(type)) return "button";
      return "textbox";
    }
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return "textbox";
    if (el.hasAttribute("onclick")) return "button";
    return null;
  }

  // The label's text without the control it wraps (a <label> around a <select> would add every option).
  const labelText = (label) => {
    const copy = label.cloneNode(true);
    copy.querySelectorAll("input, select, textarea, button").forEach((c) => c.remove());
    return copy.textContent;
  };

  function nameOf(el, role) {
    const doc = el.ownerDocument;
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const t = clean(by.split(/\s+/).map((id) => doc.getElementById(id)?.textContent ?? "").join(" "));
      if (t) return t;
    }
    const aria = clean(el.getAttribute("aria-label"));
    if (aria) return aria;
    if (el.labels?.length) {
      const t = clean([...el.labels].map(labelText).join(" "));
      if (t) return t;
    }
    const tag = el.localName;
    if (tag === "input" && ["submit", "button", "reset"].includes(el.type)) return clean(el.value || el.type);
    if (tag === "input" && el.type === "image") return clean(el.alt);
    if (tag === "img") return clean(el.alt);
    if (tag === "iframe" || tag === "frame") return clean(el.title || el.name || el.getAttribute("src") || "");
    if (["button", "link", "heading", "tab", "menuitem", "option", "treeitem", "switch"].includes(role) || tag === "summary") {
      const t = clean(el.innerText ?? el.textContent);
      if (t) return t;
      const img = el.querySelector("img[alt]");
      if (img) return clean(img.alt);
    }
    return clean(el.getAttribute("placeholder") || el.getAttribute("title") || "");
  }

  const isChecked = (el) => ("checked" in el ? el.checked : el.getAttribute("aria-checked") === "true");
  const isDisabled = (el) =>
    (typeof el.matches === "function" && el.matches(":disabled")) || el.closest("[aria-disabled=true]") !== null;

  function stateOf(el, role) {
    const out = [];
    const flags = [];
    if (role === "heading") flags.push(`level=${/^h[1-6]$/.test(el.localName) ? el.localName[1] : el.getAttribute("aria-level") ?? 2}`);
    if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role)) flags.push(isChecked(el) ? "checked" : "unchecked");
    if (isDisabled(el)) flags.push("disabled");
    if (el.readOnly || el.getAttribute("aria-readonly") === "true") flags.push("readonly");
    if (el.required || el.getAttribute("aria-required") === "true") flags.push("required");
    const expanded = el.localName === "summary" && el.parentElement?.localName === "details" ? String(el.parentElement.open) : el.getAttribute("aria-expanded");
    if (expanded) flags.push(expanded === "true" ? "expanded" : "collapsed");
    if (el.getAttribute("aria-selected") === "true") flags.push("selected");
    if (el.getAttribute("aria-pressed") === "true") flags.push("pressed");
    if (el.localName === "select") {
      const chosen = [...el.selectedOptions].map((o) => clean(o.label, 30));
      out.push(`value=${quote(chosen.join(", "))}`);
      const labels = [...el.options].map((o) => clean(o.label, 24));
      out.push(`options=${quote(labels.slice(0, 8).join("|") + (labels.length > 8 ? `|+${labels.length - 8} more` : ""))}`);
    } else if (["textbox", "searchbox", "spinbutton", "slider", "combobox"].includes(role)) {
      const value = el.isContentEditable ? el.innerText : el.value;
      if (value) out.push(`value=${quote(el.type === "password" ? "•".repeat(Math.min(8, value.length)) : clean(value, 40))}`);
    }
    if (flags.length) out.push(`[${flags.join(", ")}]`);
    return out.join(" ");
  }

  const shown = (el) =>
    typeof el.checkVisibility === "function"
      ? el.checkVisibility({ visibilityProperty: true })
      : el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";

  const refOf = (el) => {
    let n = state.ids.get(el);
    if (n === undefined) {
      n = ++state.seq;
      state.ids.set(el, n);
    }
    return `e${n}`;
  };
  const tagOf = (el) => {
    const id = el.id ? `#${el.id}` : "";
    const cls = typeof el.className === "string" && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 2).join(".")}` : "";
    return `<${el.localName}${id}${cls}>`;
  };
  const what = (r) => `${r.role} ${quote(r.name)}`;

  // Text of an element's own inline content (inline children are absorbed; blocks speak for
  // themselves). A link's words stay in the sentence around them; other controls are listed apart.
  // Blank when there are only links' words: a bar of links is its links.
  function ownText(el, absorbed, sentence = { words: false }) {
    let text = "";
    for (const node of el.childNodes) {
      if (node.nodeType === 3) {
        text += node.data;
        if (node.data.trim()) sentence.words = true;
      } else if (node.nodeType === 1) {
        const role = roleOf(node);
        if (node.localName === "br") text += " ";
        else if (["script", "style", "template", "noscript"].includes(node.localName)) continue;
        else if (node.localName === "label" && node.control) continue;
        else if (role === "link") text += ` ${node.innerText ?? ""} `;
        else if (role && INTERACTIVE.has(role)) text += " ";
        else if (getComputedStyle(node).display.startsWith("inline")) {
          absorbed.add(node);
          text += ownText(node, absorbed, sentence);
        }
      }
    }
    return sentence.words ? text : "";
  }

  // Everything a snapshot lists, in document order: { ref, el, role, name, tag, kind, depth, frame, line }.
  function collect(doc, depth, frame, items, warnings) {
    const absorbed = new Set();
    // Definitions listed on their term's line (termLine).
    const merged = new Set();
    const visit = (el, textAllowed) => {
      if (el.nodeType !== 1 || merged.has(el)) return;
      const tag = el.localName;
      if (["script", "style", "template", "noscript", "head", "option", "datalist"].includes(tag)) return;
      if (el.hidden || el.getAttribute("aria-hidden") === "true" || !shown(el)) return;
      const role = roleOf(el);
      const push = (kind, name, extra = "", as = role ?? kind) => {
        const rec = { ref: refOf(el), el, role: as, name, tag: tagOf(el), kind, depth, frame };
        rec.line = `${"  ".repeat(depth)}@${rec.ref} ${rec.role} ${quote(name)}${extra ? ` ${extra}` : ""}`;
        items.push(rec);
        return rec;
      };
      if (role === "frame") {
        const name = nameOf(el, role) || "frame";
        let inner = null;
        try {
          inner = el.contentDocument;
        } catch {
          inner = null;
        }
        if (inner?.body) {
          push("frame", name, "(same origin):");
          collect(inner, depth + 1, { iframe: el, doc: inner, name }, items, warnings);
        } else {
          push("frame", name, "[cross-origin: not listed]");
          warnings.push(`frame ${quote(name)} (${el.src || "no src"}) is cross-origin: its content is not in the snapshot and cannot be used from here.`);
        }
        return;
      }
      if (role && (INTERACTIVE.has(role) || role === "heading")) {
        const heading = role === "heading";
        push(heading ? "heading" : "control", nameOf(el, role), [stateOf(el, role), heading ? clickable(el) : ""].filter(Boolean).join(" "));
        if (["select", "textarea", "input"].includes(tag)) return;
        textAllowed = false;
      } else if (tag === "tr" && textAllowed) {
        const cells = [...el.cells].map((c) => clean(c.innerText, 40)).filter(Boolean);
        if (cells.length) push("text", clean(cells.join(" | "), 120), clickable(el), "row");
        textAllowed = false;
      } else if (tag === "dt" && textAllowed && !absorbed.has(el) && termLine(el, absorbed, merged, push)) {
        textAllowed = false;
      } else if (textAllowed && !absorbed.has(el) && !(tag === "label" && el.control)) {
        const t = clean(ownText(el, absorbed), 100);
        if (t) push("text", t, clickable(el));
      }
      for (const child of el.children) visit(child, textAllowed);
      if (el.shadowRoot) for (const child of el.shadowRoot.children) visit(child, textAllowed);
    };
    if (doc.body) visit(doc.body, true);
  }

  // A definition list's term with its definitions, as one line ("SKU: GH-311"), as a table's row is
  // one: listed apart, a label and its value are two lines a small model does not pair (Qwen opened
  // a product page listing `text "SKU"`, `text "GH-311"` and clicked on, web bench follow-link).
  // Only short ones (a value, not a paragraph: each definition within DEFINITION_CHARS) holding
  // nothing listed on its own line (a control, a heading, a row, a frame, a clickable text), so no
  // ref and no text is lost. Returns whether the line was listed; the definitions are then
  // `merged` (skipped when visited) and their contents absorbed.
  function termLine(dt, absorbed, merged, push) {
    const apart = (node) => {
      const role = roleOf(node);
      return INTERACTIVE.has(role ?? "") || role === "heading" || ["tr", "iframe", "frame"].includes(node.localName) || clickable(node) !== "";
    };
    const inner = (el) => [el, ...el.querySelectorAll("*")];
    if (inner(dt).some(apart)) return false;
    const defs = [];
    for (let next = dt.nextElementSibling; next?.localName === "dd"; next = next.nextElementSibling) {
      if (next.hidden || next.getAttribute("aria-hidden") === "true" || !shown(next)) continue;
      if (inner(next).some(apart)) return false;
      defs.push(next);
    }
    const term = clean(dt.innerText, 60).replace(/:$/, "");
    const values = defs.map((dd) => clean(dd.innerText, DEFINITION_CHARS + 1)).filter(Boolean);
    if (!term || !values.length || values.some((v) => v.length > DEFINITION_CHARS)) return false;
    for (const node of inner(dt).slice(1)) absorbed.add(node);
    for (const dd of defs) {
      merged.add(dd);
      for (const node of inner(dd)) absorbed.add(node);
    }
    push("text", clean(`${term}: ${values.join("; ")}`, 120));
    return true;
  }

  // "[clickable]" for a heading, row or text the page shows as clickable (a pointer cursor: a card or
  // list item whose click handler was added by script, which no role or attribute says).
  // Not on a page whose body has it (an iOS click workaround): there it says nothing of an element.
  function clickable(el) {
    const view = el.ownerDocument.defaultView;
    const body = el.ownerDocument.body;
    const pointer = (node) => view.getComputedStyle(node).cursor === "pointer";
    return pointer(el) && !(body && pointer(body)) ? "[clickable]" : "";
  }

  function describe(rec) {
    return `@${rec.ref} (${what(rec)}, ${rec.tag}${rec.frame ? ` in frame ${quote(rec.frame.name)}` : ""})`;
  }

  function snapshot({ from, maxChars = SNAPSHOT_CHARS }) {
    const items = [];
    const warnings = [];
    collect(win.document, 0, null, items, warnings);
    const fresh = new Map(items.map((r) => [r.ref, r]));
    for (const [ref, rec] of state.refs) {
      if (!fresh.has(ref)) state.retired.set(ref, { el: rec.el, role: rec.role, name: rec.name, tag: rec.tag });
    }
    for (const ref of fresh.keys()) state.retired.delete(ref);
    while (state.retired.size > 2000) state.retired.delete(state.retired.keys().next().value);
    state.refs = fresh;
    const first = state.snapshots === 0;
    state.snapshots += 1;
    let start = 0;
    if (from !== undefined && from !== null && from !== "") {
      const ref = String(from).trim().replace(/^@/, "");
      start = items.findIndex((r) => r.ref === ref);
      if (start < 0) throw new Fail("UNKNOWN_REF", `from: @${ref} is not on the page now, so the listing cannot start there.`, ["Call `snapshot` with {} to list the page from the top.", "Use a `from` ref that the latest snapshot's cut note names."], { ref: `@${ref}` });
    }
    const head = [
      `page ${quote(clean(win.document.title, 80))} ${win.location.href}`,
      `refs stay valid until the page changes${start ? `; listing from @${items[start].ref}` : ""}`,
    ];
    const lines = [];
    let used = head.join("\n").length;
    const whole = items.slice(start).reduce((n, r) => n + r.line.length + 1, used);
    // Room for the cut note when the listing will not fit.
    const budget = whole <= maxChars ? maxChars : maxChars - 230;
    let end = start;
    for (; end < items.length; end++) {
      const line = items[end].line;
      if (used + line.length + 1 > budget && end > start) break;
      lines.push(line);
      used += line.length + 1;
    }
    if (end < items.length) {
      lines.push(
        `[cut: more items after @${items[end - 1].ref}; call snapshot with {"from": "@${items[end].ref}"} to list them, or read with {"find": "some text"} to search the page]`,
      );
    }
    return { ok: true, text: [...head, ...lines].join("\n"), first, ...(warnings.length ? { warnings } : {}) };
  }

  // The ref's record, or the failure that says why it cannot be used.
  function resolve(raw) {
    if (raw === undefined || raw === null || raw === "") throw invalid("ref is missing: pass the ref of an element, copied from the latest snapshot.", { field: "ref" });
    const text = String(raw).trim();
    const match = /^@?e(\d+)$/i.exec(text);
    if (!state.snapshots) {
      throw new Fail(
        "UNKNOWN_REF",
        `${text} means nothing on this page: no snapshot of it has been taken yet, and refs come only from \`snapshot\` (a page that navigated or reloaded needs a new one).`,
        ["Call `snapshot` to list this page's elements and their refs.", "Use the ref of the element you want exactly as the snapshot writes it."],
        { ref: text, url: win.location.href },
        ["A ref made up or copied from an example before any snapshot.", "The page navigated or reloaded since the snapshot that listed the ref: refs belong to the page they were listed on."],
      );
    }
    const all = [...state.refs.values()];
    if (!match) {
      const needle = text.toLowerCase().replace(/^@/, "");
      const near = all.filter((r) => r.kind === "control" && r.name.toLowerCase().includes(needle)).slice(0, 3);
      const hint = near.length ? ` Did you mean ${near.map((r) => `@${r.ref} ${what(r)}`).join(", ")}?` : "";
      throw new Fail(
        "UNKNOWN_REF",
        `${quote(text)} is not a ref: refs look like @e5 (or e5), as snapshot lists them.${hint}`,
        [
          near.length ? `Use the ref itself, e.g. @${near[0].ref} for ${what(near[0])}.` : "Find the element in the latest snapshot and use its ref (e.g. @e5).",
          "Call `snapshot` if the element is not in the snapshot you have.",
        ],
        { ref: text, suggestions: near.map((r) => `@${r.ref} ${what(r)}`) },
      );
    }
    const ref = `e${match[1]}`;
    const rec = state.refs.get(ref);
    if (!rec) {
      const old = state.retired.get(ref);
      if (old?.el.isConnected && !shown(old.el)) {
        throw notInteractable({ ...old, ref }, "hidden", `@${ref} (${what(old)}, ${old.tag}) is hidden now, so the latest snapshot does not list it.`, ["It sits in a closed menu, a collapsed section, or a step of the page not shown now."], ["Call `snapshot` to see what the page shows now.", `Open whatever holds the ${what(old)} (its menu, tab or section) by clicking it, then use the ref again.`]);
      }
      if (old) {
        throw new Fail(
          "STALE_REFERENCE",
          `@${ref} (${old.role} ${quote(old.name)}, ${old.tag}) is from an earlier snapshot and is gone: the page re-rendered or changed since, and the latest snapshot no longer lists it.`,
          ["Call `snapshot` for the current refs.", `Find the ${old.role} ${quote(old.name)} in it (it has a new ref if it is still there) and use that ref.`],
          { ref: `@${ref}`, role: old.role, name: old.name, tag: old.tag },
          ["The element was removed or replaced by a re-render after the snapshot that listed it."],
        );
      }
      const nums = all.map((r) => Number(r.ref.slice(1)));
      const near = all
        .filter((r) => r.kind === "control")
        .sort((a, b) => Math.abs(Number(a.ref.slice(1)) - match[1]) - Math.abs(Number(b.ref.slice(1)) - match[1]))
        .slice(0, 2);
      throw new Fail(
        "UNKNOWN_REF",
        `@${ref} is not in the latest snapshot (its refs run from @e${Math.min(...nums)} to @e${Math.max(...nums)}, ${all.length} items).${near.length ? ` Did you mean ${near.map((r) => `@${r.ref} ${what(r)}`).join(" or ")}?` : ""}`,
        ["Look the element up in the latest snapshot and copy its ref exactly (e.g. @e5).", "Call `snapshot` if the element you want is not listed (or was cut: use its `from`)."],
        { ref: `@${ref}`, suggestions: near.map((r) => `@${r.ref} ${what(r)}`) },
        ["A typo in the ref, or a ref made up rather than read from the snapshot."],
      );
    }
    if (rec.frame && (!rec.frame.iframe.isConnected || rec.frame.iframe.contentDocument !== rec.frame.doc)) {
      throw new Fail(
        "FRAME_DETACHED",
        `${describe(rec)} was inside frame ${quote(rec.frame.name)}, which was removed or navigated since the snapshot: its elements are gone.`,
        ["Call `snapshot` to see the page's frames now.", `If the frame is back, use the new ref of the ${what(rec)}; if it is listed as cross-origin, its content cannot be reached from here.`],
        { ref: `@${ref}`, role: rec.role, name: rec.name, tag: rec.tag, frame: rec.frame.name },
        ["The page replaced or removed the frame (a step change, a reload of the widget)."],
      );
    }
    if (!rec.el.isConnected) {
      throw new Fail(
        "STALE_REFERENCE",
        `${describe(rec)} was removed from the page after the latest snapshot (the page re-rendered): this ref no longer points at anything.`,
        ["Call `snapshot` for fresh refs.", `Find the ${what(rec)} in it (it has a new ref if it is still there) and use that ref.`],
        { ref: `@${ref}`, role: rec.role, name: rec.name, tag: rec.tag },
        ["The page re-rendered this part of the DOM (a click, a data refresh, a route change)."],
      );
    }
    return rec;
  }

  function notInteractable(rec, reason, message, causes, recovery, extra = {}) {
    return new Fail("NOT_INTERACTABLE", message, recovery, { ref: `@${rec.ref}`, role: rec.role, name: rec.name, reason, ...extra }, causes);
  }

  // Fails unless a user could act on the element now: shown, enabled, (editable), and not covered.
  function usable(rec, { editable = false } = {}) {
    const el = rec.el;
    if (!shown(el)) {
      throw notInteractable(rec, "hidden", `${describe(rec)} is hidden now (not rendered or invisible): a user could not click or type into it.`, ["It sits in a closed menu, a collapsed section, another tab, or a step of the page not shown yet."], ["Call `snapshot` to see what the page shows now.", `Open whatever holds the ${what(rec)} (its menu, tab or section) by clicking it, then use the ref again.`]);
    }
    if (isDisabled(el)) {
      throw notInteractable(rec, "disabled", `${describe(rec)} is disabled: the page does not accept input there yet.`, ["The page enables it only after another field is filled or an option is chosen (a checkbox, a selection).", "The action it stands for is not available on this page."], ["Call `snapshot` and look at the controls near it (a checkbox or option that enables it).", "Do that first, then use the ref again; do not retry it unchanged."]);
    }
    if (editable && (el.readOnly || el.getAttribute("aria-readonly") === "true")) {
      throw notInteractable(rec, "readonly", `${describe(rec)} is read-only: its value cannot be typed.`, ["The field shows a computed or fixed value."], ["Call `snapshot` to find an editable field for this value.", "If you only need its value, use `read` on it."]);
    }
    el.scrollIntoView({ block: "center", inline: "center" });
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) {
      throw notInteractable(rec, "hidden", `${describe(rec)} has no size on the page (0×0): nothing there can be clicked.`, ["It is collapsed or an empty placeholder."], ["Call `snapshot` to see what the page shows now.", `Open whatever holds the ${what(rec)}, then use the ref again.`]);
    }
    const root = typeof el.getRootNode().elementFromPoint === "function" ? el.getRootNode() : el.ownerDocument;
    const hit = root.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    const ok = !hit || hit === el || el.contains(hit) || hit.contains(el) || (hit.localName === "label" && hit.control === el);
    if (ok) return;
    let cover = hit;
    for (let up = hit; up && up !== el.ownerDocument.body; up = up.parentElement) {
      if (up.localName === "dialog" || ["dialog", "alertdialog"].includes(up.getAttribute("role")) || getComputedStyle(up).position === "fixed") cover = up;
    }
    const coverRole = roleOf(cover) ?? (getComputedStyle(cover).position === "fixed" ? "overlay" : cover.localName);
    const coverName = nameOf(cover, "dialog") || clean(cover.getAttribute("aria-label") || cover.querySelector("h1,h2,h3,h4,strong")?.textContent || "", 40);
    const closers = [...state.refs.values()].filter((r) => r.kind === "control" && cover.contains(r.el) && r.el.isConnected).slice(0, 3);
    const closeHint = closers.length ? ` (for example ${closers.map((r) => `@${r.ref} ${what(r)}`).join(", ")})` : " (call `snapshot` to get the refs of its buttons)";
    throw notInteractable(
      rec,
      "covered",
      `${describe(rec)} is covered by ${tagOf(cover)} (${coverRole}${coverName ? ` ${quote(coverName)}` : ""}): a click there would hit the cover, not the ${rec.role}.`,
      ["A dialog, cookie banner or overlay is open on top of the page.", "A sticky header or popup sits over the element."],
      [`Call \`snapshot\` to see the ${coverRole}${coverName ? ` ${quote(coverName)}` : ""} and its buttons.`, `Close, accept or dismiss it first${closeHint}.`, `Then use @${rec.ref} again (call \`snapshot\` first if the page changed).`],
      { coveredBy: { tag: tagOf(cover), role: coverRole, name: coverName }, closeWith: closers.map((r) => `@${r.ref} ${what(r)}`) },
    );
  }

  // What happened to the latest snapshot's elements during an action (a re-render makes refs stale).
  function aftermath() {
    const gone = [...state.refs.values()].filter((r) => !r.el.isConnected).length;
    return gone ? " After it, some elements of the latest snapshot are gone (the page re-rendered): call snapshot before using their refs." : "";
  }

  // The page's lines as a snapshot lists them now (new elements get their refs as a snapshot gives them).
  function linesNow() {
    const items = [];
    collect(win.document, 0, null, items, []);
    return items;
  }

  // A line without its numbers: what stays of a clock's, a counter's or a price's line as it changes.
  const skeleton = (line) => line.trim().replace(/\S*\d\S*/g, "#");

  // What the tool has listed: the latest snapshot's lines and those earlier actions reported
  // (`state.refs`), each without its numbers, by its element's ref (a line holds its ref).
  function listed() {
    return new Map([...state.refs.values()].map((r) => [r.ref, skeleton(r.line)]));
  }

  // What an action on `el` made the page show that was not listed (`before`, from `listed()`): an
  // answer that appears in place (an order number, an opened question, a revealed code) is in the
  // action's own result. Not the element acted on (a typed value, a checked box: the result says
  // so), nor a listed element whose line changed only in its numbers (a clock, a counter), which
  // would make every result differ. The tool can use their refs at once; where decoding is
  // constrained, the model gets them from the next snapshot.
  function appeared(el, before) {
    const fresh = linesNow().filter((r) => r.el !== el && before.get(r.ref) !== skeleton(r.line));
    if (!fresh.length) return "";
    const lines = [];
    let used = 0;
    for (const rec of fresh) {
      state.refs.set(rec.ref, rec);
      const line = rec.line.trim();
      if (lines.length < APPEARED_LINES && used + line.length <= APPEARED_CHARS) {
        lines.push(line);
        used += line.length + 1;
      }
    }
    const more = fresh.length - lines.length;
    return `\nThe page now shows:\n${lines.join("\n")}${more ? `\n(${more} more: call snapshot)` : ""}`;
  }

  // What an action did, without the refs of the page it left (`Clicked (link "Order form", <a>).`):
  // with the opened page's listing after it, they would read as that page's.
  function withoutRefs(text) {
    return text.replace(/@e[0-9]+ (?=\()/g, "");
  }

  // Runs `act` and reports whether it started a navigation that will replace this page (then there
  // is nothing to wait for: the answer must leave before the document goes).
  async function acting(el, act) {
    const view = el.ownerDocument.defaultView;
    const seen = { submit: null, link: null };
    const onSubmit = (e) => (seen.submit = e.defaultPrevented ? null : e.target);
    const onClick = (e) => {
      const a = e.target.closest?.("a[href]");
      if (a && !e.defaultPrevented && (!a.target || a.target === "_self")) {
        const to = new URL(a.href, view.location.href);
        const here = new URL(view.location.href);
        if (!(to.hash && to.pathname === here.pathname && to.search === here.search && to.origin === here.origin)) seen.link = to.href;
      }
    };
    const before = listed();
    view.addEventListener("submit", onSubmit);
    view.addEventListener("click", onClick);
    let result;
    try {
      result = act();
    } finally {
      view.removeEventListener("submit", onSubmit);
      view.removeEventListener("click", onClick);
    }
    if (seen.link) return { ok: true, text: `${result} The page is loading ${seen.link}: when it has loaded, call snapshot (this page's refs are gone).`, navigating: seen.link, did: withoutRefs(result) };
    if (seen.submit) {
      const form = seen.submit;
      const to = new URL(form.action || view.location.href);
      if (form.method === "get") to.search = new URLSearchParams(new FormData(form)).toString();
      return { ok: true, text: `${result} The form was sent and the page is loading its answer: call snapshot next (this page's refs are gone).`, navigating: to.href, did: withoutRefs(result) };
    }
    await sleep(60);
    return { ok: true, text: `${result}${aftermath()}${appeared(el, before)}` };
  }

  function mouse(el, type) {
    const box = el.getBoundingClientRect();
    const init = { bubbles: true, cancelable: true, composed: true, clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, button: 0, view: el.ownerDocument.defaultView };
    const Ctor = type.startsWith("pointer") ? el.ownerDocument.defaultView.PointerEvent : el.ownerDocument.defaultView.MouseEvent;
    el.dispatchEvent(new Ctor(type, init));
  }

  function click({ ref }) {
    const rec = resolve(ref);
    try {
      usable(rec);
    } catch (e) {
      // The click that fixes a covered element is one on the cover's buttons: `field` and `options`
      // hold the next click to them until one works (where decoding is constrained).
      const details = e?.error?.details;
      const closers = details?.reason === "covered" ? details.closeWith.map((c) => c.split(" ")[0]) : [];
      if (closers.length) Object.assign(details, { field: "ref", options: closers });
      throw e;
    }
    const el = rec.el;
    return acting(el, () => {
      for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup"]) mouse(el, type);
      el.focus?.({ preventScroll: true });
      el.click();
      return `Clicked ${describe(rec)}.`;
    });
  }

  function setValue(el, value) {
    const proto = el.localName === "textarea" ? el.ownerDocument.defaultView.HTMLTextAreaElement.prototype : el.ownerDocument.defaultView.HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, "value").set.call(el, value);
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // Enter in a form field: the browser submits the form (synthetic key events do not, so do it here).
  function submitFrom(el, rec) {
    const form = el.form ?? el.closest?.("form");
    if (!form) {
      key(el, "Enter");
      return "";
    }
    const bad = [...form.elements].find((f) => typeof f.checkValidity === "function" && !f.checkValidity());
    if (bad) {
      const name = nameOf(bad, roleOf(bad) ?? "textbox") || bad.name || bad.localName;
      return ` The form was NOT sent: field ${quote(name)} is invalid (${bad.validationMessage}).`;
    }
    form.requestSubmit();
    return ` Submitted the form${rec ? ` of ${describe(rec)}` : ""}.`;
  }

  function typeText({ ref, text, submit = false }) {
    if (typeof text !== "string") throw invalid("text must be a string: the text to put in the field.", { field: "text" });
    const rec = resolve(ref);
    const el = rec.el;
    const editable = el.isContentEditable || el.localName === "textarea" || (el.localName === "input" && !["checkbox", "radio", "button", "submit", "reset", "image", "file", "hidden", "range", "color"].includes(el.type));
    if (!editable) {
      const use = el.localName === "select" ? "select" : ["checkbox", "radio", "switch"].includes(rec.role) ? "check" : "click";
      throw invalid(`${describe(rec)} is not a text field: use \`${use}\` for it.`, { field: "ref", role: rec.role });
    }
    usable(rec, { editable: true });
    return acting(el, () => {
      el.focus({ preventScroll: true });
      if (el.isContentEditable) {
        el.textContent = text;
        el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, data: text }));
      } else setValue(el, text);
      const shownText = el.type === "password" ? "•".repeat(Math.min(8, text.length)) : text;
      return `Typed ${quote(shownText)} into ${describe(rec)}.${submit ? submitFrom(el, rec) : ""}`;
    });
  }

  function select({ ref, value }) {
    if (typeof value !== "string" || !value.trim()) throw invalid("value must be the label (or value) of one of the options.", { field: "value" });
    const rec = resolve(ref);
    const el = rec.el;
    if (el.localName !== "select") throw invalid(`${describe(rec)} is not a drop-down (select): use \`${["textbox", "searchbox", "combobox"].includes(rec.role) ? "type" : "click"}\` for it.`, { field: "ref", role: rec.role });
    usable(rec);
    const want = value.trim().toLowerCase();
    const options = [...el.options];
    const option = options.find((o) => o.label.trim().toLowerCase() === want) ?? options.find((o) => o.value.toLowerCase() === want) ?? options.find((o) => o.label.trim().toLowerCase().includes(want));
    const labels = options.map((o) => o.label.trim());
    if (!option) throw invalid(`${describe(rec)} has no option ${quote(value)}; its options are ${labels.map(quote).join(", ")}.`, { field: "value", options: labels });
    if (option.disabled) throw notInteractable(rec, "disabled", `Option ${quote(option.label)} of ${describe(rec)} is disabled.`, ["The option is not available now."], ["Choose another option (see the snapshot).", "Call `snapshot` to see which options are available."]);
    return acting(el, () => {
      el.focus({ preventScroll: true });
      el.value = option.value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return `Selected ${quote(option.label)} in ${describe(rec)}.`;
    });
  }

  function check({ ref, checked = true }) {
    if (typeof checked !== "boolean") throw invalid("checked must be true or false.", { field: "checked" });
    const rec = resolve(ref);
    if (!["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(rec.role)) {
      throw invalid(`${describe(rec)} is not a checkbox or radio button: use \`click\` for it.`, { field: "ref", role: rec.role });
    }
    const el = rec.el;
    if (isChecked(el) === checked) return { ok: true, text: `${describe(rec)} was already ${checked ? "checked" : "unchecked"}; nothing changed.` };
    if (rec.role === "radio" && !checked) throw invalid(`${describe(rec)} is a radio button: it cannot be unchecked; check another option of its group instead.`, { field: "checked" });
    usable(rec);
    return acting(el, () => {
      el.click();
      return `${checked ? "Checked" : "Unchecked"} ${describe(rec)}; it is now ${isChecked(el) ? "checked" : "unchecked"}.`;
    });
  }

  const KEYS = {
    enter: "Enter", return: "Enter", escape: "Escape", esc: "Escape", tab: "Tab", backspace: "Backspace", delete: "Delete",
    arrowup: "ArrowUp", arrowdown: "ArrowDown", arrowleft: "ArrowLeft", arrowright: "ArrowRight", up: "ArrowUp",
    down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight", home: "Home", end: "End", pageup: "PageUp",
    pagedown: "PageDown", space: " ",
  };
  const MODIFIERS = { control: "ctrlKey", ctrl: "ctrlKey", shift: "shiftKey", alt: "altKey", meta: "metaKey", cmd: "metaKey" };

  function key(el, name, mods = {}) {
    const init = { key: name, bubbles: true, cancelable: true, composed: true, ...mods };
    const down = el.dispatchEvent(new KeyboardEvent("keydown", init));
    if (down && (name.length === 1 || name === "Enter")) el.dispatchEvent(new KeyboardEvent("keypress", init));
    el.dispatchEvent(new KeyboardEvent("keyup", init));
    return down;
  }

  function press({ key: combo, ref }) {
    if (typeof combo !== "string" || !combo) throw invalid("key is missing: a key name such as Enter, Escape, Tab, ArrowDown, or a character.", { field: "key" });
    const parts = combo.split("+").map((p) => p.trim());
    const base = parts.pop();
    const mods = {};
    for (const m of parts) {
      const flag = MODIFIERS[m.toLowerCase()];
      if (!flag) throw invalid(`${quote(m)} in ${quote(combo)} is not a modifier: use Control, Shift, Alt or Meta.`, { field: "key" });
      mods[flag] = true;
    }
    const name = base.length === 1 ? base : KEYS[base.toLowerCase()] ?? (/^F([1-9]|1[0-2])$/i.test(base) ? base.toUpperCase() : null);
    if (!name) throw invalid(`${quote(base)} is not a key name: use one of Enter, Escape, Tab, Backspace, Delete, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, Space, F1–F12, or a single character.`, { field: "key" });
    const rec = ref === undefined || ref === null || ref === "" ? null : resolve(ref);
    if (rec) usable(rec);
    const el = rec ? rec.el : win.document.activeElement ?? win.document.body;
    const target = rec ? describe(rec) : el === win.document.body ? "the page" : `the focused ${tagOf(el)}`;
    return acting(el, () => {
      if (rec) el.focus?.({ preventScroll: true });
      const proceed = key(el, name, mods);
      let effect = "";
      const field = el.localName === "textarea" || (el.localName === "input" && typeof el.value === "string");
      if (proceed && !mods.ctrlKey && !mods.metaKey && !mods.altKey) {
        if (name === "Enter" && el.localName === "input") effect = submitFrom(el, rec) || "";
        else if ((name === "Enter" || name === " ") && (el.localName === "button" || el.localName === "a" || roleOf(el) === "checkbox")) {
          el.click();
          effect = " It activated the element.";
        } else if (name === "Tab") {
          const focusable = [...win.document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]")].filter((f) => f.tabIndex >= 0 && !isDisabled(f) && shown(f));
          const next = focusable[(focusable.indexOf(el) + (mods.shiftKey ? -1 : 1) + focusable.length) % focusable.length];
          next?.focus();
          if (next) effect = ` Focus moved to ${tagOf(next)} ${quote(nameOf(next, roleOf(next) ?? ""))}.`;
        } else if (field && name.length === 1) setValue(el, el.value + name);
        else if (field && name === "Backspace") setValue(el, el.value.slice(0, -1));
      }
      return `Pressed ${combo} on ${target}.${effect}`;
    });
  }

  function scroll({ ref, direction = "down" }) {
    if (ref !== undefined && ref !== null && ref !== "") {
      const rec = resolve(ref);
      rec.el.scrollIntoView({ block: "center" });
      return { ok: true, text: `Scrolled ${describe(rec)} into view.` };
    }
    const dirs = ["down", "up", "top", "bottom"];
    if (!dirs.includes(direction)) throw invalid(`direction ${quote(direction)} is not one of ${dirs.join(", ")}.`, { field: "direction", options: dirs });
    const page = win.document.scrollingElement ?? win.document.documentElement;
    const step = Math.round(win.innerHeight * 0.8);
    const to = { down: page.scrollTop + step, up: page.scrollTop - step, top: 0, bottom: page.scrollHeight }[direction];
    win.scrollTo(0, to);
    // Where, in words: a small model copies numbers it is shown into its answer.
    const max = Math.max(1, page.scrollHeight - win.innerHeight);
    const where = page.scrollTop <= 0 ? "at the top of the page" : page.scrollTop >= max - 1 ? "at the bottom of the page" : "part way down the page";
    return { ok: true, text: `Scrolled ${direction}: now ${where}.` };
  }

  function read({ ref, offset = 0, find, maxChars = READ_CHARS }) {
    if (!Number.isInteger(offset) || offset < 0) throw invalid("offset must be a whole number of characters, 0 or more.", { field: "offset" });
    if (find !== undefined && (typeof find !== "string" || !find.trim())) throw invalid("find must be the text to look for.", { field: "find" });
    const warnings = [];
    let title;
    let body;
    if (ref !== undefined && ref !== null && ref !== "") {
      const rec = resolve(ref);
      title = describe(rec);
      if (rec.role === "frame") {
        let inner = null;
        try {
          inner = rec.el.contentDocument;
        } catch {
          inner = null;
        }
        if (!inner?.body) {
          throw notInteractable(rec, "cross-origin", `${describe(rec)} is a cross-origin frame: its text cannot be read from this page.`, ["The frame comes from another site; the browser keeps it apart."], ["Call `snapshot` and use what the page around the frame shows, or `read` with no ref for the page's text.", "If the task needs the frame's content, answer that it cannot be reached from here."]);
        }
        body = inner.body.innerText;
      } else body = "value" in rec.el && typeof rec.el.value === "string" && rec.el.localName !== "button" ? rec.el.value : rec.el.innerText;
    } else {
      title = `page ${quote(clean(win.document.title))} ${win.location.href}`;
      const parts = [win.document.body?.innerText ?? ""];
      for (const frame of win.document.querySelectorAll("iframe, frame")) {
        const name = nameOf(frame, "frame") || "frame";
        let inner = null;
        try {
          inner = frame.contentDocument;
        } catch {
          inner = null;
        }
        if (inner?.body) parts.push(`[frame ${quote(name)}]\n${inner.body.innerText}`);
        else warnings.push(`frame ${quote(name)} (${frame.src || "no src"}) is cross-origin: its text is not included.`);
      }
      body = parts.join("\n\n");
    }
    body = body.replace(/\n{3,}/g, "\n\n").trim();
    if (find !== undefined) {
      const needle = find.trim().toLowerCase();
      const lines = body.split("\n").filter((l) => l.toLowerCase().includes(needle));
      const shownLines = lines.slice(0, 20).map((l) => clean(l, 200));
      const more = lines.length > 20 ? `\n[${lines.length - 20} more lines contain it]` : "";
      const text = lines.length ? `Lines of ${title} containing ${quote(find)}:\n${shownLines.join("\n")}${more}` : `No line of ${title} contains ${quote(find)}.`;
      return { ok: true, text, ...(warnings.length ? { warnings } : {}) };
    }
    const part = body.slice(offset, offset + maxChars);
    const rest = body.length - offset - part.length;
    const tail = rest > 0 ? `\n[cut: ${rest} more characters; call read with {"offset": ${offset + part.length}${ref ? `, "ref": "${String(ref).replace(/^@?/, "@")}"` : ""}} for the next part]` : "";
    const from = offset ? ` from character ${offset}` : "";
    return { ok: true, text: `${title}${from}:\n${part || "(no text)"}${tail}`, ...(warnings.length ? { warnings } : {}) };
  }

  const OPS = { snapshot, click, type: typeText, select, check, press, scroll, read };
  try {
    const fn = Object.hasOwn(OPS, op) ? OPS[op] : null;
    if (!fn) throw invalid(`unknown op ${quote(op)}: one of ${Object.keys(OPS).join(", ")}.`, { field: "op" });
    if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) throw invalid("args must be an object.", { field: "args" });
    const out = await fn(args ?? {});
    return typeof out === "string" ? { ok: true, text: out } : out;
  } catch (e) {
    if (e instanceof Fail) return { ok: false, error: e.error };
    return { ok: false, error: { code: "INTERNAL_ERROR", message: `${op} failed on the page: ${e?.name ?? "Error"}: ${e?.message ?? String(e)}`, details: { op } } };
  }
}
