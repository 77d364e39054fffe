// The game socket of a live game page (docs/api.md, WebSocket): one connection that keeps
// itself alive with pings, reconnects with backoff, tracks the room version, and delivers the
// client's commands exactly once as far as the client can tell: each command carries an ack id
// and stays queued until the server acknowledges it (or refuses it); after a reconnect the
// unacknowledged ones are sent again, unchanged (the server recognises an action it already
// committed by its ply and acknowledges it again).
//
//   const socket = new LiveSocket("/socket/game/abcdefgh", { version: 7, onEvent, onMessage, onStatus });
//   socket.connect();
//   socket.send("action", { action: "e2e4", ply: 0 }).then(ack, error);

/** How often the client pings (the server closes a socket that says nothing for 20 s). */
const PING_EVERY_MS = 2500;
/** A connection that has answered nothing for this long is taken for dead and replaced. */
const SILENT_MS = 9000;
/** Reconnect delays: the first try is quick, then they double up to the cap. */
const BACKOFF_FIRST_MS = 400;
const BACKOFF_MAX_MS = 10000;

/** A command the server refused: its stable code and its sentence. */
export class SocketError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "SocketError";
    this.code = code;
  }
}

export class LiveSocket {
  /**
   * @param {string} path the socket's path on this site, e.g. "/socket/game/abcdefgh"
   * @param {object} options
   * @param {number} [options.version] the room version the page holds (0: none)
   * @param {(t: string, v: number, d: any) => void} options.onEvent a room event, in order
   * @param {(msg: {t: string, d?: any}) => void} options.onMessage anything else (crowd, chat, ...)
   * @param {(status: "connecting"|"open"|"closed", info: {attempt: number, delay?: number}) => void} [options.onStatus]
   */
  constructor(path, { version = 0, onEvent, onMessage, onStatus = () => {} }) {
    this.path = path;
    this.version = version;
    this.onEvent = onEvent;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.status = "closed";
    this.attempt = 0;
    this.nextAck = 0;
    /** @type {Map<number, {t: string, d: object, resolve: Function, reject: Function, sent: number}>} */
    this.unacked = new Map();
    this.rtt = null; // smoothed round trip of pings, ms
    this.pingSentAt = 0;
    this.lastHeard = 0;
    this.timer = null;
    this.retry = null;
    this.stopped = false;
    this.connections = 0; // sockets opened so far (for the tests and the console)
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("pagehide", () => this.stop());
  }

  /** The socket's URL with the version the page holds. */
  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.version > 0 ? `?v=${this.version}` : "";
    return `${proto}//${location.host}${this.path}${query}`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = null;
    this.setStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.connections += 1;
      this.attempt = 0;
      this.lastHeard = performance.now();
      this.setStatus("open");
      // Commands the server has not acknowledged yet go again, in the order they were made.
      for (const [, cmd] of [...this.unacked].sort((a, b) => a[0] - b[0])) this.transmit(cmd.t, cmd.d);
      this.ping();
      clearInterval(this.timer);
      this.timer = setInterval(() => this.heartbeat(), PING_EVERY_MS);
    };
    ws.onmessage = (e) => {
      if (ws !== this.ws) return;
      this.lastHeard = performance.now();
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg && typeof msg.t === "string") this.receive(msg);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      this.ws = null;
      clearInterval(this.timer);
      this.timer = null;
      if (this.stopped) this.setStatus("closed");
      else this.scheduleReconnect();
    };
    ws.onerror = () => {
      // onclose follows and reconnects.
    };
  }

  /** Closes for good (the page goes away). */
  stop() {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }

  /** Forgets the version held and reconnects: the server sends the whole game (`full`). */
  resync() {
    this.version = 0;
    this.reconnectNow();
  }

  /** Drops the current connection and opens a new one at once (a gap in the versions, going online). */
  reconnectNow() {
    if (this.stopped) return;
    const ws = this.ws;
    this.ws = null;
    clearInterval(this.timer);
    if (ws) ws.close();
    this.attempt = 0;
    this.connect();
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempt) + Math.floor(Math.random() * 250);
    this.attempt += 1;
    this.setStatus("closed", { delay });
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), delay);
  }

  setStatus(status, extra = {}) {
    this.status = status;
    this.onStatus(status, { attempt: this.attempt, ...extra });
  }

  heartbeat() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    if (performance.now() - this.lastHeard > SILENT_MS) {
      this.reconnectNow();
      return;
    }
    this.ping();
  }

  ping() {
    this.pingSentAt = performance.now();
    this.transmit("ping");
  }

  /** The estimated one-way delay in centiseconds (what an action's `lag` claims). */
  lagCs() {
    return this.rtt === null ? null : Math.max(0, Math.round(this.rtt / 20));
  }

  /** Half the round trip in ms (0 before the first pong). */
  oneWayMs() {
    return this.rtt === null ? 0 : this.rtt / 2;
  }

  receive(msg) {
    const { t, d } = msg;
    if (t === "pong") {
      if (this.pingSentAt) {
        const rtt = performance.now() - this.pingSentAt;
        this.rtt = this.rtt === null ? rtt : this.rtt * 0.7 + rtt * 0.3;
        this.pingSentAt = 0;
      }
      return;
    }
    if (t === "ack") {
      const cmd = this.unacked.get(d);
      if (cmd) {
        this.unacked.delete(d);
        cmd.resolve(d);
      }
      return;
    }
    if (t === "error" && d && d.code === "rate_limited" && this.unacked.has(d.ack)) {
      // Refused unread: the command stays queued and goes again once the rate allows.
      const cmd = this.unacked.get(d.ack);
      setTimeout(() => {
        if (this.unacked.get(d.ack) === cmd) this.transmit(cmd.t, cmd.d);
      }, 1000);
      return;
    }
    if (t === "error" && d && typeof d.ack === "number" && this.unacked.has(d.ack)) {
      const cmd = this.unacked.get(d.ack);
      this.unacked.delete(d.ack);
      cmd.reject(new SocketError(d.code, d.message));
      return;
    }
    if (typeof msg.v === "number") {
      if (t === "full") {
        this.version = msg.v;
        this.onEvent(t, msg.v, d);
      } else if (msg.v === this.version + 1) {
        this.version = msg.v;
        this.onEvent(t, msg.v, d);
      } else if (msg.v > this.version + 1) {
        // A gap: ask again from the version held; the server sends what was missed.
        this.reconnectNow();
      }
      // An event already held (sent twice around a reconnect) is dropped.
      return;
    }
    this.onMessage(msg);
  }

  transmit(t, d) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(d === undefined ? { t } : { t, d }));
    return true;
  }

  /**
   * Sends a command with an ack id. It is kept until the server acknowledges or refuses it,
   * and sent again after a reconnect.
   * @returns {Promise<number>} resolves with the ack id; rejects with a SocketError
   */
  send(t, d = {}) {
    const ack = ++this.nextAck;
    const data = { ...d, ack };
    return new Promise((resolve, reject) => {
      this.unacked.set(ack, { t, d: data, resolve, reject, sent: Date.now() });
      this.transmit(t, data);
    });
  }

  /** Commands waiting for the server's answer. */
  get waiting() {
    return this.unacked.size;
  }
}
