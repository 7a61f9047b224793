// The panel's model card: the choice and its fields (kept in the panel's localStorage), the Prompt
// API's state, and Gemini Nano's download, which Chrome starts only from a user gesture: the host
// never has one, so the panel starts it from the Run click.
import { MODELS } from "./models.js";
import { h } from "./trace.js";

const PREFS = "keel-ext:prefs";
const DEFAULTS = { model: "auto", openaiUrl: "http://127.0.0.1:8000/v1", openaiModel: "local", ggufUrl: "", delayMs: 300 };
const TEXT = [{ type: "text", languages: ["en"] }];

function readPrefs() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(PREFS) ?? "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

/** `LanguageModel.availability()` here, or "missing" where the Prompt API is not exposed. */
export async function promptApiState() {
  const api = globalThis.LanguageModel;
  if (typeof api?.availability !== "function") return "missing";
  return api.availability({ expectedInputs: TEXT, expectedOutputs: TEXT }).catch(() => "unavailable");
}

/** The model card bound to its element. */
export class ModelPicker {
  #card;
  #prefs = readPrefs();

  constructor(card) {
    this.#card = card;
    const field = (id, key, read = (v) => v.trim()) =>
      this.#el(id).addEventListener("change", (e) => this.#save({ [key]: read(e.target.value) }));
    field("openai-url", "openaiUrl");
    field("openai-model", "openaiModel");
    field("gguf-url", "ggufUrl");
    field("scripted-delay", "delayMs", Number);
    this.#render();
  }

  #el(id) {
    return this.#card.querySelector(`#${id}`);
  }

  #save(change) {
    Object.assign(this.#prefs, change);
    localStorage.setItem(PREFS, JSON.stringify(this.#prefs));
    this.#render();
  }

  #render() {
    const p = this.#prefs;
    this.#el("models").replaceChildren(
      ...Object.entries(MODELS).map(([key, m]) => {
        const input = h("input", { type: "radio", name: "model", value: key, checked: key === p.model });
        input.addEventListener("change", () => this.#save({ model: key }));
        return h("label.option", { "data-model": key }, input,
          h("span.option-text", {}, h("strong", { text: m.title }), h("span", { text: m.sub })));
      }),
    );
    this.#el("openai-fields").hidden = !["auto", "openai"].includes(p.model);
    this.#el("gguf-fields").hidden = !["auto", "gguf"].includes(p.model);
    this.#el("scripted-fields").hidden = p.model !== "scripted";
    this.#el("openai-url").value = p.openaiUrl;
    this.#el("openai-model").value = p.openaiModel;
    this.#el("gguf-url").value = p.ggufUrl;
    this.#el("scripted-delay").value = String(p.delayMs);
  }

  /** The chosen model's key in MODELS. */
  get kind() {
    return MODELS[this.#prefs.model] ? this.#prefs.model : DEFAULTS.model;
  }

  /** The choice sent to the host (models.js checks it there). */
  choice() {
    const p = this.#prefs;
    const openai = { baseUrl: p.openaiUrl, model: p.openaiModel };
    const gguf = { modelUrl: p.ggufUrl };
    switch (this.kind) {
      case "auto":
        return { kind: "auto", ...(p.openaiUrl ? { openai } : {}), ...(p.ggufUrl ? { gguf } : {}) };
      case "openai":
        return { kind: "openai", openai };
      case "gguf":
        return { kind: "gguf", gguf };
      case "scripted":
        return { kind: "scripted", delayMs: p.delayMs };
      default:
        return { kind: this.kind };
    }
  }

  /** Shows the Prompt API's availability in the card's head. */
  async showPromptApiState() {
    const state = await promptApiState();
    const el = this.#el("prompt-api-state");
    el.textContent = `Prompt API: ${state}`;
    el.dataset.state = state;
  }

  /** The loading bar: `what` at `fraction` (hidden once complete). */
  showProgress(what, fraction) {
    this.#el("progress").hidden = fraction >= 1;
    this.#el("progress-fill").style.width = `${Math.round(100 * fraction)}%`;
    this.#el("progress-text").textContent = `Loading ${what} · ${Math.round(100 * fraction)}%`;
  }

  /** Downloads Gemini Nano when the choice uses it and Chrome has it as "downloadable". */
  async downloadIfNeeded() {
    if (!["auto", "prompt-api"].includes(this.kind) || (await promptApiState()) !== "downloadable") return;
    this.showProgress("Gemini Nano", 0);
    const monitor = (m) => m.addEventListener("downloadprogress", (e) => this.showProgress("Gemini Nano", e.loaded));
    try {
      const session = await LanguageModel.create({ expectedInputs: TEXT, expectedOutputs: TEXT, monitor });
      session.destroy();
    } finally {
      this.#el("progress").hidden = true;
    }
  }
}
