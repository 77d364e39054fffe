// The clocks of a live game: the server's readings, run down locally between its messages.
// Display only: the server keeps the time and ends the game on a flag.

/**
 * A clock reading as players read it: `1:05:09`, `4:59`, `0:42`, and tenths under 10 s (`0:07.3`).
 * @param {number} ms
 */
export function formatClock(ms) {
  const t = Math.max(0, ms);
  if (t < 10000) {
    const tenths = Math.floor(t / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const secs = Math.floor(t / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = String(secs % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

export class LiveClocks {
  /**
   * @param {{white: HTMLElement, black: HTMLElement}} bars the player bars the clocks go into
   */
  constructor(bars) {
    this.els = {};
    for (const color of ["white", "black"]) {
      const el = document.createElement("div");
      el.className = "cg-clock";
      el.dataset.clock = color;
      el.setAttribute("role", "timer");
      el.setAttribute("aria-label", `${color === "white" ? "White" : "Black"}'s clock`);
      el.innerHTML = `<span class="time">-:--</span>`;
      el.hidden = true;
      bars[color].append(el);
      this.els[color] = el;
    }
    this.reading = null; // {white, black, running} in ms at `at`
    this.at = 0;
    this.limit = null;
    this.frame = null;
    this.onTick = null;
  }

  /**
   * Takes the server's clocks.
   * @param {{white: number|null, black: number|null, running: string|null}|null} clocks centiseconds
   * @param {object} [options]
   * @param {number} [options.delayMs] how long the message took to arrive (charged to the running clock)
   * @param {number|null} [options.limit] the time control's limit in centiseconds (for the low-time mark)
   */
  set(clocks, { delayMs = 0, limit = null } = {}) {
    this.limit = limit;
    if (!clocks || clocks.white === null || clocks.white === undefined) {
      this.reading = null;
    } else {
      this.reading = { white: clocks.white * 10, black: clocks.black * 10, running: clocks.running ?? null };
      this.at = performance.now() - delayMs;
    }
    this.render();
    clearInterval(this.frame);
    this.frame = this.reading?.running ? setInterval(() => this.render(), 100) : null;
  }

  /** Stops the running clock where it is (the game ended). */
  stop() {
    if (this.reading?.running) {
      const side = this.reading.running;
      this.reading[side] = this.remaining(side);
      this.reading.running = null;
      this.at = performance.now();
    }
    clearInterval(this.frame);
    this.frame = null;
    this.render();
  }

  /** Milliseconds left on a side's clock now. */
  remaining(color) {
    if (!this.reading) return null;
    const base = this.reading[color];
    return this.reading.running === color ? Math.max(0, base - (performance.now() - this.at)) : base;
  }

  render() {
    for (const color of ["white", "black"]) {
      const el = this.els[color];
      if (!this.reading) {
        el.hidden = true;
        continue;
      }
      el.hidden = false;
      const ms = this.remaining(color);
      const text = formatClock(ms);
      const time = el.firstElementChild;
      if (time.textContent !== text) time.textContent = text;
      const running = this.reading.running === color;
      el.classList.toggle("running", running);
      // Low: under a tenth of the limit (and under a minute); emergency under 10 s.
      const lowAt = Math.min(60000, this.limit ? this.limit : 60000);
      el.classList.toggle("low", ms < lowAt && ms >= 10000);
      el.classList.toggle("emerg", ms < 10000);
      el.classList.toggle("flagged", ms <= 0);
    }
    this.onTick?.();
  }
}
