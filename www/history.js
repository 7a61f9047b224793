// The history panel: the demo session's past runs (task, status, steps, faults, recovered, time)
// with their exports, its failure log, and the failure stats by tool and by code, as keel stored
// them in IndexedDB. It reads through an agent of its own that runs nothing: the failure-log
// methods are an agent's, and the run agent comes and goes with the backend picked. The page hands
// it the Agent class: the demo imports "keel-agent" through its import map, the extension (whose
// CSP allows no inline import map) imports the package by its path. Given a viewer page (the demo's
// viewer.html), each run gets a "View" link that opens it there.
import { h, plural } from "./trace.js";

const RUNS_SHOWN = 20;
const FAILURES_SHOWN = 50;

const percent = (s) => (s.faults ? `${Math.round(100 * s.recoveryRate)}%` : "–");
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });

function table(columns, rows, empty) {
  return h("table.table", {},
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { text: c })))),
    h("tbody", {}, rows.length ? rows : h("tr.empty", {}, h("td", { colSpan: columns.length, text: empty }))));
}

/** Rows of faults, retried, recovered and rate, one per key of a breakdown (by tool or by code). */
function breakdown(title, name, stats) {
  const rows = Object.entries(stats).map(([key, s]) =>
    h("tr", { "data-key": key }, h("td", {}, h("code", { text: key })),
      [s.faults, s.retried, s.recovered, percent(s)].map((v) => h("td.num", { text: String(v) }))));
  return [h("h3", { text: title }), table([name, "Faults", "Retried", "Recovered", "Rate"], rows, "No failures.")];
}

/** The panel bound to its card; `refresh()` re-reads the store. */
export class History {
  #card;
  #session;
  #onRefresh;
  #Agent;
  #reader;
  #viewer;

  /**
   * `Agent` is keel-agent's Agent class, which the panel's reader agent is made with; `viewer`, the
   * URL of a trace viewer page that opens `?run=<id>&session=<session>` from the same store;
   * `onRefresh(exchanges)`, called with the session's conversation (`agent.history`) after each read.
   */
  constructor(card, session, Agent, { viewer, onRefresh } = {}) {
    this.#card = card;
    this.#session = session;
    this.#Agent = Agent;
    this.#viewer = viewer;
    this.#onRefresh = onRefresh;
    card.querySelector("[data-action=clear]").addEventListener("click", () => this.clear());
  }

  #agent() {
    this.#reader ??= this.#Agent.create({
      model: { custom: async () => Promise.reject(new Error("the history panel's agent only reads the store")) },
      session: this.#session,
    }).catch((e) => {
      this.#reader = undefined;
      throw e;
    });
    return this.#reader;
  }

  /** Reads the session's runs, failures and stats again and redraws the panel. */
  async refresh() {
    try {
      const agent = await this.#agent();
      const session = this.#session;
      const [exported, stats, failures] = await Promise.all([
        agent.exportSession(session),
        agent.failureStats({ session }),
        agent.failures({ session, limit: FAILURES_SHOWN }),
      ]);
      const runs = exported.runs.slice(-RUNS_SHOWN).reverse();
      const perRun = await Promise.all(runs.map((r) => agent.failureStats({ session, runId: r.id })));
      this.#render(runs, perRun.map((s) => s.totals), stats, failures);
      this.#onRefresh?.(await agent.history(session));
    } catch (e) {
      this.#part("note").textContent = `Could not read the history: ${e.message}`;
    }
  }

  /** Deletes the session's runs, turns and failures, then redraws. */
  async clear() {
    const agent = await this.#agent();
    const gone = await agent.clearSession(this.#session);
    await this.refresh();
    const what = [plural(gone.runs, "run"), plural(gone.turns, "step"), plural(gone.failures, "failure")];
    this.#part("note").textContent = `Cleared ${what[0]}, ${what[1]} and ${what[2]}.`;
  }

  #part(name) {
    return this.#card.querySelector(`[data-part=${name}]`);
  }

  #render(runs, runStats, stats, failures) {
    const t = stats.totals;
    this.#part("note").textContent = runs.length ? `The last ${plural(runs.length, "run")} of session “${this.#session}”` : "";
    const totals = { runs: runs.length, faults: t.faults, attempts: t.failedAttempts, retried: t.retried, recovered: t.recovered, rate: percent(t) };
    for (const [key, value] of Object.entries(totals)) {
      this.#card.querySelector(`[data-total=${key}]`).textContent = String(value);
    }
    const runRows = runs.map((r, i) => {
      const s = runStats[i];
      const time = r.endedMs ? `${clock(r.startedMs)} · ${seconds(r.endedMs - r.startedMs)}` : clock(r.startedMs);
      return h("tr", { "data-run-id": r.id, "data-status": r.status },
        h("td.task", { text: r.task, title: r.answer ?? "" }),
        h("td", {}, h(`span.run-status.${r.status}`, { text: r.status })),
        [r.counts.steps, s.faults, s.recovered].map((v) => h("td.num", { text: String(v) })),
        h("td.time", { text: time }),
        h("td.exports", {}, this.#exportLink(r.id, "json", "JSON"), " ", this.#exportLink(r.id, "otlp", "OTLP")),
        this.#viewer ? h("td.view", {}, this.#viewLink(r.id)) : undefined);
    });
    const columns = ["Task", "Status", "Steps", "Faults", "Recovered", "Time", "Export"];
    this.#part("runs").replaceChildren(table(this.#viewer ? [...columns, "Trace"] : columns, runRows, "No runs yet: run a task."));
    const failureRows = failures.map((f) =>
      h("tr", { "data-tool": f.tool ?? "", "data-code": f.code, "data-class": f.class, "data-recovered": String(f.recovered),
        "data-idempotency-key": f.idempotencyKey },
        h("td", { title: f.idempotencyKey ? `idempotency key ${f.idempotencyKey}` : undefined },
          f.tool ? h("code", { text: f.tool }) : h("span.muted", { text: "(model)" })),
        h("td", {}, h("code.code", { text: f.code })),
        h("td", {}, h(`span.badge.${f.class}`, { text: f.class })),
        h("td.num", { text: String(f.attempt) }),
        h("td", { text: f.recovered ? "yes" : "no" }),
        h("td.message", { text: f.message })));
    this.#part("failures").replaceChildren(
      table(["Tool", "Code", "Class", "Attempt", "Recovered", "Message"], failureRows, "No failures yet."));
    this.#part("by-tool").replaceChildren(...breakdown("By tool", "Tool", stats.byTool));
    this.#part("by-code").replaceChildren(...breakdown("By code", "Code", stats.byCode));
  }

  #viewLink(runId) {
    const url = new URL(this.#viewer, location.href);
    url.search = new URLSearchParams({ run: runId, session: this.#session }).toString();
    return h("a.view", { href: url.href, text: "View", title: "Open the run in the trace viewer", "data-view": runId });
  }

  #exportLink(runId, kind, text) {
    const title = kind === "otlp" ? "Export the run as OpenTelemetry spans (OTLP/JSON)" : "Export the run as JSON";
    return h("a.export", { href: "#", text, title, "data-export": kind, onclick: (e) => (e.preventDefault(), this.#download(runId, kind)) });
  }

  // The export, fetched from the store on click and saved as a file.
  async #download(runId, kind) {
    const agent = await this.#agent();
    const data = kind === "otlp" ? await agent.exportRunOtlp(runId) : await agent.exportRun(runId);
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
    const link = h("a", { href: url, download: `keel-${runId}${kind === "otlp" ? ".otlp" : ""}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}
