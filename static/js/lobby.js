// The home page's lobby: quick pairing and open seeks, kept live over the lobby socket.
// The server decides everything (who sees which seek, who gets paired); this only shows it and
// sends the player's clicks (docs/api.md, Lobby).

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A random socket id: 12 base62 characters. */
function newSri() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => ALPHABET[b % 62]).join("");
}

/**
 * POSTs JSON to the lobby API; resolves to the body, rejects with a readable message (and, when
 * the player's running game is what refused it, that game's `url`).
 */
async function post(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (e) {
    throw new Error(`The server cannot be reached (${e.message}).`);
  }
  let json = null;
  try {
    json = await response.json();
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = new Error(json?.error ?? `The server answered ${response.status}.`);
    if (typeof json?.url === "string") error.url = json.url;
    throw error;
  }
  return json;
}

class Lobby {
  constructor(root) {
    this.root = root;
    this.sri = newSri();
    this.seeks = new Map();
    this.pools = new Map();
    this.tbody = root.querySelector("[data-seeks]");
    this.empty = root.querySelector("[data-seeks-empty]");
    this.count = root.querySelector("[data-seek-count]");
    this.status = root.querySelector("[data-lobby-status]");
    this.variantSelect = root.querySelector("[data-pool-variant]");
    this.backoff = 500;
    this.bindTabs();
    this.bindPools();
    this.bindForm();
    this.connect();
  }

  say(text, error = false) {
    this.status.textContent = text;
    this.status.classList.toggle("error", error);
  }

  /** Shows a refusal, with the way back to the player's running game when that is the reason. */
  fail(e) {
    this.say(e.message, true);
    if (e.url) {
      const a = document.createElement("a");
      a.href = e.url;
      a.className = "lobby-continue";
      a.textContent = "Continue your game";
      this.status.append(" ", a);
    }
  }

  /** The tabs as an ARIA tablist: a click or the arrow keys select one (the others leave the
   *  tab order) and show its panel. */
  bindTabs() {
    const tabs = [...this.root.querySelectorAll("[data-tab]")];
    const select = (tab) => {
      for (const t of tabs) {
        t.setAttribute("aria-selected", String(t === tab));
        t.tabIndex = t === tab ? 0 : -1;
      }
      for (const p of this.root.querySelectorAll("[data-panel]")) p.hidden = p.dataset.panel !== tab.dataset.tab;
    };
    for (const [i, tab] of tabs.entries()) {
      tab.addEventListener("click", () => select(tab));
      tab.addEventListener("keydown", (e) => {
        const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
        if (!step) return;
        e.preventDefault();
        const next = tabs[(i + step + tabs.length) % tabs.length];
        select(next);
        next.focus();
      });
    }
  }

  bindPools() {
    for (const button of this.root.querySelectorAll("[data-pool]")) {
      button.addEventListener("click", () => this.togglePool(button));
    }
    this.variantSelect.addEventListener("change", () => this.leaveAllPools());
  }

  async togglePool(button) {
    const body = { sri: this.sri, variant: this.variantSelect.value, time: button.dataset.pool };
    const key = `${body.variant} ${body.time}`;
    try {
      if (this.pools.has(key)) {
        await this.leavePool(key);
      } else {
        await post("/api/lobby/pool/join", body);
        this.pools.set(key, { variant: body.variant, time: body.time });
        button.setAttribute("aria-pressed", "true");
      }
      this.sayPools();
    } catch (e) {
      this.fail(e);
    }
  }

  /** Leaves one pool the page waits in (by the variant and time it was joined with). */
  async leavePool(key) {
    const pool = this.pools.get(key);
    await post("/api/lobby/pool/leave", { sri: this.sri, ...pool });
    this.pools.delete(key);
    const button = this.root.querySelector(`[data-pool="${pool.time}"]`);
    if (button && pool.variant === this.variantSelect.value) button.setAttribute("aria-pressed", "false");
  }

  /** Another variant chosen: the page leaves every pool it waits in, then shows the new grid. */
  async leaveAllPools() {
    for (const b of this.root.querySelectorAll("[data-pool]")) b.setAttribute("aria-pressed", "false");
    try {
      for (const key of [...this.pools.keys()]) await this.leavePool(key);
      this.sayPools();
    } catch (e) {
      this.fail(e);
    }
  }

  sayPools() {
    this.say(this.pools.size ? `Looking for an opponent in ${[...this.pools.keys()].join(", ")}…` : "");
  }

  bindForm() {
    const form = this.root.querySelector("[data-seek-form]");
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const data = new FormData(form);
      const body = { sri: this.sri };
      for (const [k, v] of data) {
        if (v === "") continue;
        body[k] = k.startsWith("rating_") ? Number(v) : v;
      }
      try {
        await post("/api/lobby/seek", body);
        this.say("Your seek is open: it stays while this page is open.");
      } catch (e) {
        this.fail(e);
      }
    });
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/socket/lobby?sri=${this.sri}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.backoff = 500;
      this.root.dataset.connected = "true";
      this.pinger = setInterval(() => ws.send(JSON.stringify({ t: "ping" })), 5000);
    });
    ws.addEventListener("message", (ev) => this.receive(JSON.parse(ev.data)));
    ws.addEventListener("close", () => {
      this.root.dataset.connected = "false";
      clearInterval(this.pinger);
      // The server dropped this socket's seeks and pool places; show that honestly.
      this.pools.clear();
      for (const b of this.root.querySelectorAll("[data-pool]")) b.setAttribute("aria-pressed", "false");
      setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 10000);
    });
  }

  receive(msg) {
    switch (msg.t) {
      case "seeks":
        this.seeks = new Map(msg.d.map((s) => [s.id, s]));
        this.render();
        break;
      case "seek_add":
        this.seeks.set(msg.d.id, msg.d);
        this.render();
        break;
      case "seek_remove":
        for (const id of msg.d) this.seeks.delete(id);
        this.render();
        break;
      case "redirect":
        this.say("Game found! Joining…");
        location.href = msg.d.url;
        break;
      case "error":
        this.say(msg.d.message ?? "The lobby refused a message.", true);
        break;
      default:
        break;
    }
  }

  render() {
    const rows = [...this.seeks.values()];
    this.count.textContent = String(rows.length);
    this.empty.hidden = rows.length > 0;
    this.tbody.replaceChildren(...rows.map((s) => this.row(s)));
  }

  row(s) {
    const tr = document.createElement("tr");
    tr.dataset.seek = s.id;
    tr.classList.toggle("own", s.own);
    const cell = (text) => {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
      return td;
    };
    const who = cell("");
    const dot = document.createElement("span");
    dot.className = `color-dot ${s.color}`;
    dot.title = `plays ${s.color}`;
    who.append(dot, s.name);
    cell(s.rating === null ? "" : `${s.rating}${s.provisional ? "?" : ""}`);
    cell(s.variant_name);
    cell(s.time);
    cell(s.rated ? "Rated" : "Casual");
    const act = cell("");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button small";
    button.textContent = s.own ? "Cancel" : "Play";
    act.append(button);
    const go = async () => {
      try {
        if (s.own) {
          await post(`/api/lobby/seek/${s.id}/cancel`, {});
        } else {
          const r = await post(`/api/lobby/seek/${s.id}/accept`, { sri: this.sri });
          location.href = r.url;
        }
      } catch (e) {
        this.fail(e);
      }
    };
    tr.addEventListener("click", go);
    return tr;
  }
}

const root = document.querySelector("[data-lobby]");
if (root) new Lobby(root);
