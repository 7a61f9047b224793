// @ts-check
// The page's liveness check of its worker: while something waits on the worker, a ping goes out
// when it has been quiet for a while, and a worker silent for `timeoutMs` is declared dead. A page
// whose own thread was blocked (its timers late) does not count that time against the worker.

export class Liveness {
  #timeoutMs;
  #waiting;
  #ping;
  #dead;
  #timer;
  #lastHeard = 0;
  #lastTick = 0;
  #nextPing = 1;

  /**
   * `waiting()` says whether anything waits on the worker, `ping(message)` posts to it, and
   * `dead(quietMs)` is called once it has been silent past `timeoutMs`.
   * @param {number} timeoutMs
   * @param {{
   *   waiting: () => boolean,
   *   ping: (message: Extract<import("./wire.js").PageMessage, { type: "ping" }>) => void,
   *   dead: (quietMs: number) => void,
   * }} hooks
   */
  constructor(timeoutMs, { waiting, ping, dead }) {
    this.#timeoutMs = timeoutMs;
    this.#waiting = waiting;
    this.#ping = ping;
    this.#dead = dead;
  }

  /** The worker said something. */
  heard() {
    this.#lastHeard = Date.now();
  }

  /** Starts watching, if not already: call it whenever something starts waiting. */
  watch() {
    if (this.#timer !== undefined) return;
    const period = Math.max(25, Math.min(5_000, Math.floor(this.#timeoutMs / 4)));
    this.#lastHeard = this.#lastTick = Date.now();
    this.#timer = setInterval(() => {
      const now = Date.now();
      if (!this.#waiting()) return this.stop();
      if (now - this.#lastTick > 2 * period) this.#lastHeard = now;
      this.#lastTick = now;
      const quiet = now - this.#lastHeard;
      if (quiet > this.#timeoutMs) {
        this.stop();
        this.#dead(quiet);
      } else if (quiet >= period) {
        this.#ping({ type: "ping", id: this.#nextPing++ });
      }
    }, period);
  }

  stop() {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
