// Live online games: the game page `/{gameId}` for both players and spectators. The page holds
// the game as the server rendered it (`#game-data`, the socket's `full` data at version
// `data-v`); the socket then brings every change as a versioned room event. The board is the
// same GameView as local play: this file turns the game into states for it, and the player's
// actions into socket commands. The server judges everything: the board only offers the
// actions of the state it sent, and only to the player to move.
//
// Page contract (templates/game/live.html):
//   <div id="board-app" data-mode="live" data-game="abcdefgh" data-socket="/socket/game/abcdefgh"
//        data-variant="gold" data-color="white|black|" data-v="7" data-status="started">
//   <script type="application/json" id="game-data">{...the socket's full data...}</script>
//   optional: #invite (with #invite-link), #join-form, #result, .live-players, #chat, #fairness

import { GameView } from "./view.js";
import { LiveSocket } from "./socket.js";
import { LiveClocks } from "./clock.js";
import { ChatPane } from "./chat.js";
import { fetchLocalState } from "./api.js";
import { sounds } from "./sound.js";
import { applyPatch } from "./patch.js";
import { ICONS } from "./icons.js";
import { colorName, reasonText, refusalText, scoreText, serviceText } from "./format.js";

const SOUND_ON = `${ICONS.soundOn}<span class="label">Sound</span>`;
const SOUND_OFF = `${ICONS.soundOff}<span class="label">Muted</span>`;

/** Offers by name, as the notices say them. */
const OFFER_NAMES = { draw: "draw offer", takeback: "takeback request", rematch: "rematch offer" };

/** The opponent counts as gone (and the claim countdown shows) after this long. */
const GONE_AFTER_S = 5;

const other = (color) => (color === "white" ? "black" : "white");
/** Statuses 10 (waiting) and 20 (being played); everything from 25 on is over. */
const isLive = (status) => status.id < 25;

/** The result as the banner and the move list show it, from the server's status and reason. */
export function resultOf(game) {
  const name = game.status.name;
  const winner = game.winner;
  const loser = winner ? other(winner) : null;
  if (name === "aborted" || name === "no_start") {
    return { score: "\u2013", reason: reasonText(name === "no_start" ? "no-start" : "aborted"), winner: "No result: the game does not count" };
  }
  let reason;
  switch (name) {
    case "resign":
      reason = `${colorName(loser)} resigned`;
      break;
    case "outoftime":
      reason = winner
        ? `${colorName(loser)}\u2019s time ran out`
        : `${colorName(game.state.side)}\u2019s time ran out, but ${colorName(other(game.state.side))} could not have won`;
      break;
    case "timeout":
      reason = `${colorName(loser)} left the game`;
      break;
    case "mate":
      reason = "Checkmate";
      break;
    case "stalemate":
      reason = "Stalemate";
      break;
    default:
      reason = reasonText(game.reason, name);
  }
  return { score: scoreText(winner), reason, winner: winner ? `${colorName(winner)} wins` : "Draw" };
}

export class LiveGame {
  /** @param {HTMLElement} root the #board-app element */
  constructor(root) {
    this.root = root;
    this.id = root.dataset.game;
    const data = document.getElementById("game-data");
    /** The game: the socket's `full` data, kept up to date by the events. */
    this.game = JSON.parse(data?.textContent || "null");
    if (!this.game) throw new Error("the page has no game data");
    this.you = this.game.you ?? (root.dataset.color || null);
    this.pending = null; // {text, ply, acked} of the action sent and not yet seen played
    this.browsing = null; // the ply shown while looking back, or null
    this.fetching = null; // the ply whose state is being asked of the server, or null
    this.states = new Map(); // ply -> state, for looking back
    this.states.set(this.game.state.actions.length, this.game.state);
    this.crowd = { white: null, black: null };
    this.goneSince = { white: null, black: null }; // performance.now() when a seat was last seen
    this.confirming = null; // "resign" while its confirmation is shown
    this.panelKey = "";
    this.clocksAt = performance.now();
    this.baseTitle = document.title;
    this.received = {}; // room events received, by type (for the console and the tests)

    this.notice = ""; // the last refusal or answer to the viewer's offer, in words
    this.rematchStatus = null; // {id, status} of the rematch, once asked of the server
    this.view = new GameView(root, {
      onAction: (text, source) => this.play(text, source),
      // The result stays in the move list and the side panel; the dialog opens once, for the
      // players, when the game ends while they watch.
      resultDialog: false,
      controls: [
        { id: "flip", label: `${ICONS.flip}<span class="label">Flip</span>`, title: "Flip the board", key: "f", run: () => this.view.flip() },
        { id: "sound", label: sounds.muted ? SOUND_OFF : SOUND_ON, title: "Sound on or off", key: "m", run: () => this.toggleSound() },
      ],
    });
    this.view.onBrowse = (ply) => this.browse(ply);
    this.view.browsedPly = () => this.askedPly();
    root.classList.add("cg-live");
    root.classList.toggle("spectator", !this.you);
    if (this.you) this.view.board.setOrientation(this.you);
    this.updateSoundButton();
    this.buildBars();
    this.buildPanel();
    this.clocks = new LiveClocks({ white: this.view.playerBar("white"), black: this.view.playerBar("black") });
    this.clocks.onTick = () => this.tick();

    const serverChat = document.getElementById("chat");
    const room = serverChat?.dataset.room || (this.you ? "player" : "spectator");
    this.chat = new ChatPane(root, { room, send: (text) => this.socket.send("chat", { room, text }) });
    this.adoptPage(serverChat);
    // The page above the board changed: let the view measure the room left for the board again.
    window.dispatchEvent(new Event("resize"));

    // The page's data was made when the server answered: charge the running clock since then.
    const nav = performance.getEntriesByType?.("navigation")?.[0];
    this.setClocks(this.game.clocks, nav ? Math.max(0, performance.now() - nav.responseStart) : 0);
    this.render({ sound: false });

    this.socket = new LiveSocket(root.dataset.socket || `/socket/game/${this.id}`, {
      version: Number(root.dataset.v) || 0,
      onEvent: (t, v, d) => this.event(t, v, d),
      onMessage: (msg) => this.message(msg),
      onStatus: (status, info) => this.connection(status, info),
    });
    this.socket.connect();
    setInterval(() => this.tick(), 500);
    // A page restored from the back/forward cache has a closed socket and an old game.
    window.addEventListener("pageshow", (e) => {
      if (e.persisted) location.reload();
    });
  }

  // ---------------------------------------------------------------- the page around the board

  /** Takes over the server-rendered parts the live view replaces, and wires the invite link. */
  adoptPage(serverChat) {
    for (const el of [document.querySelector(".live-players"), document.getElementById("result"), serverChat]) el?.remove();
    // The invitation (the link to send, or the join button) sits over the board, like lichess's.
    const invite = document.getElementById("invite");
    if (invite && isLive(this.game.status) && this.game.status.id === 10) {
      const wrap = this.view.q(".cg-board-wrap");
      wrap.append(invite);
      wrap.classList.add("inviting");
    } else {
      invite?.remove();
    }
    const input = document.getElementById("invite-link");
    if (input && !input.parentElement.classList.contains("invite-row")) {
      const row = document.createElement("div");
      row.className = "invite-row";
      input.replaceWith(row);
      const copy = document.createElement("button");
      copy.type = "button";
      copy.className = "invite-copy";
      copy.innerHTML = `${ICONS.copy}<span>Copy link</span>`;
      copy.addEventListener("click", () => this.copyInvite(input, copy));
      row.append(input, copy);
      input.addEventListener("focus", () => input.select());
      input.addEventListener("click", () => input.select());
    }
  }

  async copyInvite(input, button) {
    let ok = false;
    try {
      await navigator.clipboard.writeText(input.value);
      ok = true;
    } catch {
      input.focus();
      input.select();
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
    }
    button.classList.toggle("copied", ok);
    button.innerHTML = ok ? `${ICONS.check}<span>Copied</span>` : `${ICONS.copy}<span>Select and copy</span>`;
    clearTimeout(this.copyTimer);
    this.copyTimer = setTimeout(() => {
      button.classList.remove("copied");
      button.innerHTML = `${ICONS.copy}<span>Copy link</span>`;
    }, 2500);
  }

  /** The waiting card goes once the game has both players. */
  dropInvite() {
    const invite = document.getElementById("invite");
    if (!invite) return;
    invite.remove();
    this.view.q(".cg-board-wrap").classList.remove("inviting");
    window.dispatchEvent(new Event("resize"));
  }

  /** Publishes a finished random game's seed and salt in the fairness card. */
  revealSeed() {
    const card = document.getElementById("fairness");
    if (!card) return;
    for (const [key, label] of [
      ["seed", "Seed"],
      ["salt", "Salt"],
    ]) {
      const value = this.game[key];
      if (value === null || value === undefined || document.getElementById(key)) continue;
      const p = document.createElement("p");
      p.append(`${label}: `);
      const code = document.createElement("code");
      code.id = key;
      code.textContent = String(value);
      p.append(code);
      card.append(p);
    }
  }

  // ---------------------------------------------------------------- player bars and panel

  buildBars() {
    this.barEls = {};
    for (const color of ["white", "black"]) {
      const bar = this.view.playerBar(color);
      const conn = document.createElement("span");
      conn.className = "cg-conn";
      conn.setAttribute("aria-hidden", "true");
      bar.querySelector(".turn-dot").after(conn);
      const rating = document.createElement("span");
      rating.className = "cg-rating";
      const diff = document.createElement("span");
      diff.className = "cg-rating-diff";
      bar.querySelector(".name").after(rating, diff);
      this.barEls[color] = { bar, conn, name: bar.querySelector(".name"), rating, diff };
    }
  }

  drawBars() {
    const g = this.game;
    for (const color of ["white", "black"]) {
      const els = this.barEls[color];
      const p = g.players?.[color] ?? null;
      if (p?.user) {
        // A registered player's name links to their profile.
        if (els.name.querySelector("a")?.textContent !== p.name) {
          const link = document.createElement("a");
          link.href = `/@/${encodeURIComponent(p.name)}`;
          link.textContent = p.name;
          // A title (BOT for a program on the BOT API) stands before the name, as on lichess.
          if (p.title) {
            const title = document.createElement("span");
            title.className = "title";
            title.title = "A program playing through the BOT API";
            title.textContent = p.title;
            els.name.replaceChildren(title, " ", link);
          } else {
            els.name.replaceChildren(link);
          }
        }
      } else {
        els.name.textContent = p ? p.name : "Waiting for an opponent\u2026";
      }
      els.name.classList.toggle("empty", !p);
      els.rating.textContent = p && p.rating !== null && p.rating !== undefined ? `${p.rating}${p.provisional ? "?" : ""}` : "";
      const d = g.ratings?.[color]?.diff ?? p?.rating_diff ?? null;
      els.diff.textContent = d === null ? "" : d > 0 ? `+${d}` : d < 0 ? `\u2212${-d}` : "\u00b10";
      els.diff.className = `cg-rating-diff${d > 0 ? " up" : d < 0 ? " down" : ""}`;
      els.bar.classList.toggle("you", this.you === color);
      const on = this.crowd[color];
      els.conn.hidden = !p || on === null;
      els.conn.classList.toggle("on", !!on);
      els.conn.title = on ? "Connected" : "Not connected";
      els.bar.dataset.connected = on === null ? "" : String(!!on);
    }
  }

  buildPanel() {
    const panel = document.createElement("div");
    panel.className = "cg-live-panel";
    panel.innerHTML = `
      <p class="cg-live-conn" role="status" hidden></p>
      <p class="cg-live-note" aria-live="polite"></p>
      <p class="cg-live-notice" role="status" aria-live="polite"></p>
      <div class="cg-live-prompts"></div>
      <div class="cg-live-actions"></div>
      <p class="cg-live-error" role="alert"></p>`;
    this.view.q(".cg-moves-wrap").after(panel);
    this.panel = panel;
    // Flip and sound become small buttons in the panel's head, like lichess's board tools.
    this.view.q(".cg-head").append(this.view.q(".cg-controls"));
    if (!this.you) this.view.q(".cg-typed").hidden = true;
  }

  /** What the panel offers now: prompts (offers, claims, confirmations) and buttons. */
  panelModel() {
    const g = this.game;
    const you = this.you;
    const prompts = [];
    const buttons = [];
    const b = (id, label, icon, title, extra = {}) => ({ id, label, icon, title, ...extra });
    if (!you) {
      for (const [what, text] of [
        ["draw", "offers a draw"],
        ["takeback", "asks for a takeback"],
        ["rematch", "offers a rematch"],
      ]) {
        if (g.offers?.[what]) prompts.push({ id: `${what}-info`, text: `${colorName(g.offers[what])} ${text}.`, buttons: [] });
      }
      const rematch = this.rematchKnown();
      if (rematch) {
        prompts.push(
          rematch.aborted
            ? { id: "rematch-aborted", text: "The players\u2019 rematch was aborted.", buttons: [{ id: "rematch-go", label: "See it", href: `/${g.rematch}` }] }
            : { id: "rematch-ready", text: rematch.live ? "The players started a rematch." : "The players played a rematch.", buttons: [{ id: "rematch-go", label: rematch.live ? "Watch it" : "See it", href: `/${g.rematch}` }] },
        );
      }
      return { prompts, buttons };
    }
    const them = other(you);
    const offers = g.offers ?? {};
    if (g.status.id === 10) {
      buttons.push(b("abort", "Cancel the game", ICONS.cross, "Cancel this game"));
      return { prompts, buttons };
    }
    if (isLive(g.status)) {
      if (this.confirming === "resign") {
        prompts.push({ id: "resign-confirm", text: "Resign this game?", buttons: [{ id: "resign-yes", label: "Resign", danger: true }, { id: "resign-no", label: "Cancel" }] });
      }
      if (offers.draw === them) prompts.push({ id: "draw-offer", text: "Your opponent offers a draw.", buttons: [{ id: "draw_yes", label: "Accept" }, { id: "draw_no", label: "Decline" }] });
      if (offers.draw === you) prompts.push({ id: "draw-sent", text: "You offered a draw.", buttons: [{ id: "draw_no", label: "Cancel" }] });
      if (offers.takeback === them) {
        prompts.push({ id: "takeback-offer", text: "Your opponent asks to take back their last move.", buttons: [{ id: "takeback_yes", label: "Accept" }, { id: "takeback_no", label: "Decline" }] });
      }
      if (offers.takeback === you) prompts.push({ id: "takeback-sent", text: "Takeback request sent.", buttons: [{ id: "takeback_no", label: "Cancel" }] });
      const gone = this.goneFor(them);
      if (gone !== null && gone >= GONE_AFTER_S) {
        // The server's claim delay (`claim_after`, seconds; docs/api.md).
        const claimAfter = g.claim_after;
        if (gone >= claimAfter) {
          prompts.push({ id: "claim", text: "Your opponent left the game.", buttons: [{ id: "claim_victory", label: "Claim victory" }, { id: "claim_draw", label: "Call it a draw" }] });
        } else {
          prompts.push({ id: "gone", text: `Your opponent left the game. You can claim victory in ${claimAfter - gone} s.`, buttons: [] });
        }
      }
      const abortable = !!g.clocks?.first_move;
      if (abortable) {
        buttons.push(b("abort", "Abort", ICONS.cross, "Abort the game (before both sides have moved)"));
      } else {
        if (!g.rated) buttons.push(b("takeback_yes", "Takeback", ICONS.undo, "Ask to take back your last move", { disabled: offers.takeback === you || g.state.actions.length === 0 }));
        buttons.push(b("draw_yes", "Draw", ICONS.half, "Offer a draw", { disabled: offers.draw === you }));
        buttons.push(b("resign", "Resign", ICONS.flag, "Resign the game", { disabled: this.confirming === "resign" }));
      }
      return { prompts, buttons };
    }
    // The game is over.
    const rematch = this.rematchKnown();
    if (rematch?.aborted) {
      prompts.push({ id: "rematch-aborted", text: "The rematch was aborted.", buttons: [{ id: "rematch-go", label: "See it", href: `/${g.rematch}` }] });
    } else if (rematch) {
      prompts.push({ id: "rematch-ready", text: "The rematch is ready.", buttons: [{ id: "rematch-go", label: "Go to the rematch", href: `/${g.rematch}` }] });
    } else if (g.rematch) {
      // Its status is on its way.
    } else if (offers.rematch === them) {
      prompts.push({ id: "rematch-offer", text: "Your opponent wants a rematch.", buttons: [{ id: "rematch_yes", label: "Accept" }, { id: "rematch_no", label: "Decline" }] });
    } else if (offers.rematch === you) {
      prompts.push({ id: "rematch-sent", text: "Rematch offer sent.", buttons: [{ id: "rematch_no", label: "Cancel" }] });
    }
    if (g.players?.white && g.players?.black && !g.rematch) {
      buttons.push(b("rematch_yes", "Rematch", ICONS.rematch, "Play again with the colours swapped", { disabled: offers.rematch === you }));
    }
    buttons.push(b("new", "New game", ICONS.plus, "Create another game", { href: `/game/new?variant=${encodeURIComponent(g.variant)}` }));
    return { prompts, buttons };
  }

  /**
   * The rematch as the server last told: `{live, aborted}`, or null while there is none or its
   * status is not known yet (it is asked once: a rematch may have been aborted since).
   */
  rematchKnown() {
    const id = this.game.rematch;
    if (!id) return null;
    if (this.rematchStatus?.id === id) return this.rematchStatus.status;
    if (this.rematchAsked !== id) {
      this.rematchAsked = id;
      fetch(`/api/game/${encodeURIComponent(id)}`, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`the server answered ${r.status}`))))
        .then((record) => {
          const status = record.status?.id ?? 20;
          // 25 aborted, 37 no first move: the rematch never got going.
          this.rematchStatus = { id, status: { live: status < 25, aborted: status === 25 || status === 37 } };
        })
        .catch(() => {
          this.rematchStatus = { id, status: { live: true, aborted: false } };
        })
        .finally(() => {
          this.drawPanel();
          if (!isLive(this.game.status)) this.decorateBanner();
        });
    }
    return null;
  }

  /**
   * Tells the viewer, in words, what became of an offer that ended unaccepted (the `closed` list
   * of an `offers` event): declined, withdrawn, or left unanswered by a move.
   */
  announceClosed(closed) {
    const g = this.game;
    const you = this.you;
    for (const c of closed ?? []) {
      const who = g.players?.[c.by];
      const bot = who?.bot !== null && who?.bot !== undefined;
      let text = null;
      if (!you) {
        if (c.how === "declined") text = `${colorName(c.by)} declined the ${OFFER_NAMES[c.offer] ?? c.offer}.`;
      } else if (c.by === you) {
        continue;
      } else if (c.how === "declined") {
        text = {
          draw: bot ? "The computer declined your draw offer: it plays every game to its end." : "Your opponent declined your draw offer.",
          takeback: "Your opponent declined your takeback request.",
          rematch: "Your opponent declined the rematch.",
        }[c.offer];
      } else if (c.how === "withdrawn") {
        text = `Your opponent withdrew their ${OFFER_NAMES[c.offer] ?? c.offer}.`;
      } else if (c.how === "lapsed") {
        text = `Your opponent played on: your ${OFFER_NAMES[c.offer] ?? c.offer} lapsed.`;
      }
      if (text) this.tell(text);
    }
  }

  /** Shows a notice in the panel (until the viewer's next action or the next notice) and in the chat. */
  tell(text) {
    this.notice = text;
    this.panel.querySelector(".cg-live-notice").textContent = text;
    this.chat.system(text);
  }

  clearNotice() {
    this.notice = "";
    this.panel.querySelector(".cg-live-notice").textContent = "";
  }

  /** Seconds a seat has been gone, or null while it is connected (or unknown). */
  goneFor(color) {
    const since = this.goneSince[color];
    if (this.crowd[color] !== false || since === null) return null;
    return Math.max(0, Math.floor((performance.now() - since) / 1000));
  }

  drawPanel() {
    const model = this.panelModel();
    const key = JSON.stringify(model);
    if (key === this.panelKey) return;
    this.panelKey = key;
    const prompts = this.panel.querySelector(".cg-live-prompts");
    prompts.replaceChildren(
      ...model.prompts.map((p) => {
        const box = document.createElement("div");
        box.className = "cg-live-prompt";
        box.dataset.prompt = p.id;
        const text = document.createElement("p");
        text.textContent = p.text;
        const row = document.createElement("div");
        row.className = "cg-live-prompt-buttons";
        row.append(...p.buttons.map((x) => this.button(x, "cg-prompt-button")));
        box.append(text);
        if (p.buttons.length) box.append(row);
        return box;
      }),
    );
    const actions = this.panel.querySelector(".cg-live-actions");
    actions.replaceChildren(...model.buttons.map((x) => this.button(x, "cg-live-button")));
    actions.hidden = model.buttons.length === 0;
  }

  button(spec, className) {
    const el = document.createElement(spec.href ? "a" : "button");
    el.className = `${className}${spec.danger ? " danger" : ""}`;
    el.dataset.live = spec.id;
    if (spec.href) el.href = spec.href;
    else el.type = "button";
    if (spec.title) el.title = spec.title;
    el.innerHTML = spec.icon ?? "";
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = spec.label;
    el.append(label);
    if (spec.disabled) el.disabled = true;
    if (!spec.href) el.addEventListener("click", () => this.press(spec.id));
    return el;
  }

  /** A panel button. */
  press(id) {
    this.panelError("");
    if (id === "resign") {
      this.confirming = "resign";
      this.drawPanel();
      this.panel.querySelector('[data-live="resign-no"]')?.focus();
      return;
    }
    if (id === "resign-no") {
      this.confirming = null;
      this.drawPanel();
      return;
    }
    if (id === "resign-yes") {
      this.confirming = null;
      this.drawPanel();
      id = "resign";
    }
    this.command(id);
  }

  /** Sends a game command (resign, draw_yes, ...) and shows a refusal. */
  command(t) {
    return this.socket.send(t).catch((e) => {
      this.panelError(refusalText(e.code, e.message));
      sounds.play("error");
    });
  }

  panelError(text) {
    this.panel.querySelector(".cg-live-error").textContent = text;
  }

  // ---------------------------------------------------------------- states for the view

  /** The board's state: the engine's, with the server's result once the game is over. */
  viewState() {
    const g = this.game;
    const s = g.state;
    if (!isLive(g.status) && s.status === "ongoing") {
      return { ...s, status: g.status.name, winner: g.winner, reason: g.reason, legal: [] };
    }
    return s;
  }

  canAct() {
    const g = this.game;
    return !!this.you && g.status.id === 20 && g.state.status === "ongoing" && g.state.side === this.you && !this.pending;
  }

  statusText() {
    const g = this.game;
    const s = g.state;
    if (g.status.id === 10) return this.you ? "Waiting for your opponent to join" : "Waiting for a second player";
    if (!isLive(g.status) || s.status !== "ongoing") return null;
    const check = s.check ? " \u00b7 check" : "";
    if (!this.you) return null;
    return s.side === this.you ? `Your turn${check}` : `Your opponent\u2019s turn${check}`;
  }

  render({ sound = false } = {}) {
    const g = this.game;
    const over = !isLive(g.status);
    const result = over ? resultOf(g) : null;
    this.root.dataset.ply = String(g.state.actions.length);
    this.root.dataset.live = g.status.name;
    this.view.setMode(`${this.clockText()} \u00b7 ${g.rated ? "Rated" : "Casual"} \u00b7 ${this.you ? `you play ${colorName(this.you)}` : "spectating"}`);
    if (this.browsing !== null && this.browsing < g.state.actions.length) {
      const state = this.states.get(this.browsing);
      if (state) {
        this.view.show(state, { interactive: false, sound: false, line: g.state.actions });
        const then = this.clocksAtPly(this.browsing);
        if (then) this.clocks.set(then, { limit: g.clock?.limit ?? null });
        this.afterShow();
        return;
      }
    }
    this.browsing = null;
    const state = this.viewState();
    this.view.show(state, { interactive: this.canAct(), sound, status: this.statusText(), result });
    // Back at the end of a finished game: its final clocks again.
    const final = this.clocksAtPly(g.state.actions.length);
    if (final) this.clocks.set({ ...final, running: null }, { limit: g.clock?.limit ?? null });
    // A player whose tab is in the background sees in its title that the turn came back.
    const yourTurn = !!this.you && g.status.id === 20 && g.state.status === "ongoing" && g.state.side === this.you;
    document.title = `${yourTurn ? "\u25cf Your turn \u00b7 " : ""}${this.baseTitle}`;
    this.afterShow();
    if (over) this.decorateBanner();
  }

  afterShow() {
    this.drawBars();
    this.drawPanel();
    this.drawReplay();
    this.tick();
  }

  /** The replay buttons of a finished game: first, previous, next and last position. */
  drawReplay() {
    const g = this.game;
    const last = g.state.actions.length;
    const shown = this.browsing ?? last;
    this.root.dataset.shown = String(shown);
    if (!this.replayBar) {
      const bar = document.createElement("nav");
      bar.className = "cg-replay";
      bar.setAttribute("aria-label", "Replay");
      const buttons = [
        ["first", "First position (Home)", () => 0],
        ["prev", "Previous action (\u2190)", (at) => at - 1],
        ["next", "Next action (\u2192)", (at) => at + 1],
        ["last", "Last position (End)", (_, end) => end],
      ];
      for (const [id, title, target] of buttons) {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.replay = id;
        button.title = title;
        button.setAttribute("aria-label", title);
        button.innerHTML = ICONS[id];
        button.addEventListener("click", () => {
          const end = this.game.state.actions.length;
          this.browse(Math.max(0, Math.min(end, target(this.askedPly(), end))));
        });
        bar.append(button);
      }
      this.view.q(".cg-moves-wrap").before(bar);
      this.replayBar = bar;
    }
    // Live play keeps its own controls; the replay bar is for finished games.
    this.replayBar.hidden = isLive(g.status);
    for (const button of this.replayBar.querySelectorAll("button")) {
      const back = button.dataset.replay === "first" || button.dataset.replay === "prev";
      button.disabled = back ? shown === 0 : shown >= last;
    }
  }

  clockText() {
    const c = this.game.clock;
    if (!c) return "Unlimited";
    const minutes = c.limit / 6000;
    const m = Number.isInteger(minutes) ? String(minutes) : minutes < 1 ? ["\u00bc", "\u00bd", "\u00be"][Math.round(minutes * 4) - 1] ?? minutes.toFixed(1) : minutes.toFixed(1);
    return `${m}+${Math.round(c.increment / 100)}`;
  }

  /** The banner of a finished game: the rating changes and the rematch. */
  decorateBanner() {
    const card = this.view.q(".cg-banner-card");
    let extra = card.querySelector(".cg-banner-ratings");
    if (!extra) {
      extra = document.createElement("div");
      extra.className = "cg-banner-ratings";
      card.querySelector(".cg-banner-actions").before(extra);
    }
    extra.replaceChildren();
    const ratings = this.game.ratings;
    if (ratings) {
      for (const color of ["white", "black"]) {
        const r = ratings[color];
        if (!r) continue;
        const line = document.createElement("p");
        line.dataset.color = color;
        const who = this.game.players?.[color]?.name ?? colorName(color);
        const sign = r.diff > 0 ? `+${r.diff}` : r.diff < 0 ? `\u2212${-r.diff}` : "\u00b10";
        line.textContent = `${who}: ${r.before} \u2192 ${r.after}${r.provisional ? "?" : ""} (${sign})`;
        line.className = r.diff > 0 ? "up" : r.diff < 0 ? "down" : "";
        extra.append(line);
      }
    }
    const actions = card.querySelector(".cg-banner-actions");
    actions.replaceChildren();
    if (this.you && this.game.players?.white && this.game.players?.black) {
      if (this.game.rematch) {
        const a = document.createElement("a");
        a.href = `/${this.game.rematch}`;
        a.textContent = "Go to the rematch";
        a.dataset.live = "rematch-go";
        actions.append(a);
      } else {
        const rematch = document.createElement("button");
        rematch.type = "button";
        rematch.dataset.live = "rematch_yes";
        rematch.textContent = this.game.offers?.rematch === other(this.you) ? "Accept the rematch" : "Rematch";
        rematch.disabled = this.game.offers?.rematch === this.you;
        rematch.addEventListener("click", () => {
          this.command("rematch_yes");
          rematch.disabled = true;
        });
        actions.append(rematch);
      }
    }
    const again = document.createElement("a");
    again.href = `/game/new?variant=${encodeURIComponent(this.game.variant)}`;
    again.textContent = "New game";
    actions.append(again);
  }

  /** The game ended while the page watched: the players get the result dialog, once. */
  endedLive() {
    if (!this.you || this.browsing !== null) return;
    this.view.openResult();
  }

  /**
   * The clocks as they were after `ply` actions of a finished game (the record keeps both clocks
   * after every action); the last position shows the final clocks.
   */
  clocksAtPly(ply) {
    const g = this.game;
    if (isLive(g.status) || !g.clock) return null;
    if (ply >= g.state.actions.length) return g.clocks;
    const c = ply === 0 ? [g.clock.limit, g.clock.limit] : g.clock_history?.[ply - 1];
    return c ? { white: c[0], black: c[1], running: null } : null;
  }

  // ---------------------------------------------------------------- clocks and timers

  setClocks(clocks, delayMs = this.socket?.oneWayMs() ?? 0) {
    this.game.clocks = clocks;
    this.root.classList.toggle("clocked", clocks?.white !== null && clocks?.white !== undefined);
    this.clocksAt = performance.now() - delayMs;
    const running = isLive(this.game.status) ? clocks : clocks && { ...clocks, running: null };
    this.clocks.set(running, { delayMs, limit: this.game.clock?.limit ?? null });
  }

  /** Runs every half second and with the clocks: the first-move countdown and the claim timer. */
  tick() {
    const g = this.game;
    const note = this.panel.querySelector(".cg-live-note");
    let text = "";
    const first = g.clocks?.first_move;
    if (g.status.id === 20 && first && (first.cs === null || first.cs === undefined)) {
      // No first move is due (a game against the computer): nothing ends the game meanwhile.
      if (first.color === this.you) text = g.clock ? "Your first move: take your time, the clocks start after both first moves." : "Your first move: take your time.";
    } else if (g.status.id === 20 && first) {
      const left = Math.max(0, Math.ceil((first.cs * 10 - (performance.now() - this.clocksAt)) / 1000));
      text =
        first.color === this.you
          ? `Make your first move: ${left} s left, or the game is aborted.`
          : `${colorName(first.color)} has ${left} s to make the first move.`;
    } else if (g.status.id === 10 && this.you) {
      text = "The game starts when your opponent joins with the link.";
    }
    if (note.textContent !== text) note.textContent = text;
    this.drawPanel();
  }

  // ---------------------------------------------------------------- the socket

  connection(status, info) {
    this.root.dataset.connection = status;
    const line = this.panel.querySelector(".cg-live-conn");
    if (status === "open") {
      line.hidden = true;
      this.root.classList.remove("offline");
      return;
    }
    // Say so only when it lasts (the first connection takes a moment).
    const wasOpen = (this.socket?.connections ?? 0) > 0;
    if (!wasOpen && info.attempt < 2) return;
    this.root.classList.add("offline");
    line.hidden = false;
    line.textContent = status === "connecting" ? "Reconnecting\u2026" : `Connection lost. Reconnecting in ${Math.ceil((info.delay ?? 0) / 1000)} s\u2026`;
  }

  /**
   * The state a `move` or `takeback` leads to: sent whole, or as a patch of the state held. A
   * patch that does not apply asks the server for the whole game (`null` until it comes).
   */
  nextState(d) {
    if (d.state) return d.state;
    try {
      return applyPatch(this.game.state, d.patch ?? []);
    } catch (e) {
      console.warn("a state patch did not apply; resyncing", e);
      this.socket.resync();
      return null;
    }
  }

  /** A room event, in version order. */
  event(t, v, d) {
    const g = this.game;
    this.root.dataset.v = String(v);
    this.received[t] = (this.received[t] ?? 0) + 1;
    switch (t) {
      case "full": {
        const before = g.state.actions;
        const grew = d.state.actions.length === before.length + 1 && before.every((a, i) => d.state.actions[i] === a);
        this.game = d;
        if (this.you === null && d.you) this.you = d.you;
        this.states = new Map([[d.state.actions.length, d.state]]);
        if (this.pending && d.state.actions.length > this.pending.ply) this.pending = null;
        if (d.status.id !== 10) this.dropInvite();
        const ended = isLive(g.status) && !isLive(d.status);
        this.setClocks(d.clocks);
        this.revealSeed();
        this.render({ sound: grew });
        if (ended) this.endedLive();
        return;
      }
      case "start":
        g.status = d.status;
        g.players = d.players;
        this.dropInvite();
        this.setClocks(d.clocks);
        sounds.play("notify");
        this.chat.system("The game has started.");
        this.render();
        return;
      case "move": {
        const state = this.nextState(d);
        if (!state) return;
        if (d.by === this.you) this.clearNotice();
        g.state = state;
        if (g.clock && d.clocks) {
          g.clock_history = (g.clock_history ?? []).slice(0, state.actions.length - 1);
          g.clock_history.push([d.clocks.white, d.clocks.black]);
        }
        this.states.set(state.actions.length, state);
        if (this.pending && state.actions.length > this.pending.ply) {
          if (this.pending.source === "typed") this.view.clearTyped();
          this.pending = null;
        }
        this.confirming = this.confirming === "resign" && state.status !== "ongoing" ? null : this.confirming;
        this.setClocks(d.clocks);
        this.render({ sound: true });
        return;
      }
      case "offers": {
        const before = g.offers ?? {};
        g.offers = { draw: d.draw, takeback: d.takeback, rematch: d.rematch };
        const them = this.you && other(this.you);
        if (them && ["draw", "takeback", "rematch"].some((k) => d[k] === them && before[k] !== them)) sounds.play("notify");
        this.announceClosed(d.closed);
        this.drawPanel();
        if (!isLive(g.status)) this.decorateBanner();
        return;
      }
      case "takeback": {
        const state = this.nextState(d);
        if (!state) return;
        // A takeback the viewer asked for was granted: say so (the bot grants them at once).
        if (this.you && g.offers?.takeback === this.you) this.tell("Your takeback request was accepted.");
        else this.chat.system("A move was taken back.");
        g.state = state;
        if (g.clock_history) g.clock_history = g.clock_history.slice(0, state.actions.length);
        for (const ply of [...this.states.keys()]) if (ply > state.actions.length) this.states.delete(ply);
        this.states.set(state.actions.length, state);
        this.pending = null;
        this.setClocks(d.clocks);
        this.render();
        return;
      }
      case "end": {
        const quiet = g.state.status !== "ongoing"; // a mate: the move already sounded the end
        g.status = d.status;
        g.winner = d.winner;
        g.reason = d.reason;
        g.ratings = d.ratings ?? null;
        if (d.seed !== undefined) g.seed = d.seed;
        if (d.salt !== undefined) g.salt = d.salt;
        g.offers = { draw: null, takeback: null, rematch: null };
        this.pending = null;
        this.confirming = null;
        this.dropInvite();
        this.setClocks(d.clocks);
        this.clocks.stop();
        this.revealSeed();
        if (!quiet) sounds.play("end");
        this.render();
        this.endedLive();
        return;
      }
      case "rematch":
        g.rematch = d.id;
        // Just made: it is being played.
        this.rematchStatus = { id: d.id, status: { live: true, aborted: false } };
        if (this.you) {
          location.assign(`/${d.id}`);
          return;
        }
        this.drawPanel();
        return;
      default:
        // An event this page does not know changes nothing it shows.
        return;
    }
  }

  /** Messages outside the room's versions. */
  message({ t, d }) {
    switch (t) {
      case "crowd": {
        const away = d.away ?? {};
        for (const color of ["white", "black"]) {
          const on = !!d[color];
          this.crowd[color] = on;
          this.goneSince[color] = on ? null : typeof away[color] === "number" ? performance.now() - away[color] * 1000 : (this.goneSince[color] ?? performance.now());
        }
        this.drawBars();
        this.drawPanel();
        return;
      }
      case "clocks":
        // Sent after the missed events of a reconnection: the clocks as they are now.
        this.setClocks(d);
        return;
      case "chat_history":
        this.chat.history(d.lines ?? []);
        return;
      case "service": {
        // The server could not save moves (its database is unavailable), or can again.
        const line = this.panel.querySelector(".cg-live-conn");
        this.root.dataset.service = d.available ? "available" : "unavailable";
        line.hidden = false;
        line.textContent = serviceText(!!d.available, d.since);
        if (d.available) {
          this.setClocks(d.clocks);
          setTimeout(() => {
            if (this.root.dataset.service === "available" && this.root.dataset.connection === "open") line.hidden = true;
          }, 5000);
        } else if (this.game.clocks) {
          // Nobody is charged meanwhile: the clocks stand still until play resumes.
          this.setClocks({ ...this.game.clocks, running: null });
        }
        return;
      }
      case "chat":
        if (d.line) this.chat.add(d.line);
        return;
      case "error":
        if (d.code === "not_found") this.socket.stop();
        this.panelError(refusalText(d.code, d.message));
        return;
      default:
    }
  }

  // ---------------------------------------------------------------- the player's actions

  /** An action from the board or the typed box: sent with the number of actions it follows. */
  play(text, source) {
    const g = this.game;
    if (!this.you) {
      this.view.showError("You are watching this game.");
      return;
    }
    if (this.pending) return;
    const ply = g.state.actions.length;
    const lag = this.socket.lagCs();
    this.pending = { text, ply, source };
    this.render();
    const data = lag === null ? { action: text, ply } : { action: text, ply, lag };
    this.socket
      .send("action", data)
      .then(() => {
        // The move event usually follows the acknowledgement at once.
        if (this.pending && this.game.state.actions.length <= ply) {
          const mine = this.pending;
          setTimeout(() => {
            if (this.pending === mine) {
              this.pending = null;
              this.render();
            }
          }, 3000);
        }
        if (source === "typed") this.view.clearTyped();
      })
      .catch((e) => {
        if (this.pending?.ply === ply) this.pending = null;
        this.view.showError(refusalText(e.code, e.message, "The server refused the action."));
        sounds.play("error");
        this.render();
        // The page's game was behind the server's: catch up, unless the server already sent
        // the current game with the refusal.
        if (e.code === "stale") {
          const held = this.socket.version;
          setTimeout(() => {
            if (this.socket.version === held) this.socket.reconnectNow();
          }, 600);
        }
      });
  }

  /**
   * The position the viewer is at: the one asked for while its state is on its way, so that quick
   * clicks and key presses step on from it.
   */
  askedPly() {
    return this.fetching ?? this.browsing ?? this.game.state.actions.length;
  }

  /** Shows the position after `ply` actions without changing the game. */
  async browse(ply) {
    const g = this.game;
    const actions = g.state.actions;
    // Only the last position asked for is shown (answers may come back out of order).
    this.browseTarget = ply;
    this.fetching = null;
    if (ply >= actions.length) {
      this.browsing = null;
      this.render();
      return;
    }
    let state = this.states.get(ply);
    if (!state) {
      if (g.seed_commitment && (g.seed === null || g.seed === undefined)) {
        this.view.showError("Earlier positions of a game with loot boxes can be looked at once it is over.");
        return;
      }
      this.fetching = ply;
      try {
        state = await fetchLocalState("/api/local", g.variant, actions.slice(0, ply), g.seed ?? null, g.initial_fen ?? null);
      } catch (e) {
        this.view.showError(e.message);
        return;
      } finally {
        if (this.fetching === ply) this.fetching = null;
      }
      if (this.game.state.actions.slice(0, ply).join(",") !== actions.slice(0, ply).join(",")) return;
      this.states.set(ply, state);
      if (this.browseTarget !== ply) return;
    }
    this.browsing = ply;
    this.render();
  }

  toggleSound() {
    sounds.setMuted(!sounds.muted);
    this.updateSoundButton();
    if (!sounds.muted) sounds.play("move");
  }

  updateSoundButton() {
    const button = this.view.control("sound");
    if (!button) return;
    button.innerHTML = sounds.muted ? SOUND_OFF : SOUND_ON;
    button.setAttribute("aria-pressed", String(sounds.muted));
    button.classList.toggle("muted", sounds.muted);
  }
}

/** Loads live.css when the page did not link it (the board is built once it applies). */
function liveStyles() {
  // The hashed URL the import map gives for it, as the page links it.
  const href = import.meta.resolve ? import.meta.resolve("/static/css/live.css") : "/static/css/live.css";
  const linked = [...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === new URL(href, location.href).href);
  if (linked) return Promise.resolve();
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  return new Promise((resolve) => {
    link.onload = resolve;
    link.onerror = resolve;
    document.head.append(link);
  });
}

const root = document.getElementById("board-app");
if (root && root.dataset.mode === "live") {
  liveStyles().then(() => {
    const game = new LiveGame(root);
    window.chessgold = game; // for the console and the browser tests
  });
}
