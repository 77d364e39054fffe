// A game screen: the board with a player bar above and below, and a side panel with the status,
// the per-variant extras (shop, ...), the move list, the typed-action box and the controls.
// It knows nothing about where states come from: local play, and later online play, drive it
// with `show(state)` and receive the player's actions through `onAction`.

import { Board } from "./board.js";
import { extrasFor, EXTRAS } from "./extras/index.js";
import { colorName, reasonText, scoreText } from "./format.js";
import { sounds } from "./sound.js";
import { parseAction } from "./notation.js";

export class GameView {
  /**
   * @param {HTMLElement} root the element to build into
   * @param {object} options
   * @param {(text: string, source: "board"|"typed") => void} options.onAction
   * @param {Array<{id: string, label: string, title: string, key?: string, run: () => void}>} [options.controls]
   * @param {boolean} [options.resultDialog] open the result dialog over the board whenever a
   *   finished game is shown (local play); online play opens it itself, once (`openResult`)
   */
  constructor(root, { onAction, controls = [], resultDialog = true }) {
    this.root = root;
    this.onAction = onAction;
    this.resultDialog = resultDialog;
    this.state = null;
    this.extras = [];
    this.mountedExtras = new Set();

    root.classList.add("cg-app");
    root.innerHTML = `
      <div class="cg-main">
        <div class="cg-player" data-color="black"><span class="turn-dot" aria-hidden="true"></span><span class="name">Black</span><span class="extras"></span></div>
        <div class="cg-board-wrap">
          <div class="cg-board-el"></div>
          <div class="cg-banner" hidden>
            <div class="cg-banner-card" role="dialog" aria-label="Game over" aria-live="assertive">
              <button type="button" class="cg-banner-close" aria-label="Close">\u00d7</button>
              <div class="cg-banner-score"></div>
              <div class="cg-banner-reason"></div>
              <div class="cg-banner-winner"></div>
              <div class="cg-banner-actions"></div>
            </div>
          </div>
        </div>
        <div class="cg-player" data-color="white"><span class="turn-dot" aria-hidden="true"></span><span class="name">White</span><span class="extras"></span></div>
      </div>
      <aside class="cg-side">
        <header class="cg-head"><h2 class="cg-variant"></h2><p class="cg-mode"></p></header>
        <div class="cg-status" role="status" aria-live="polite"></div>
        <p class="cg-hint" aria-live="polite"></p>
        <div class="cg-result" hidden></div>
        <div class="cg-slot-shop"></div>
        <div class="cg-moves-wrap" tabindex="0" role="region" aria-label="Move list"><ol class="cg-moves" aria-label="Moves"></ol></div>
        <form class="cg-typed" autocomplete="off">
          <label for="cg-typed-input" class="cg-typed-label">Type an action</label>
          <div class="cg-typed-row">
            <input id="cg-typed-input" name="action" spellcheck="false" autocapitalize="off" placeholder="e2e4, N@c3, e8=Q" aria-describedby="cg-typed-error">
            <button type="submit">Play</button>
          </div>
          <p id="cg-typed-error" class="cg-error" role="alert"></p>
        </form>
        <div class="cg-controls"></div>
      </aside>`;
    this.q = (sel) => root.querySelector(sel);

    this.board = new Board(this.q(".cg-board-el"), { onAction: (text) => this.onAction(text, "board") });
    // A move waiting for its landing square (Chessception) says so beside the board.
    this.board.el.addEventListener("placing", (e) => {
      this.q(".cg-hint").textContent = e.detail === "landing" ? "Choose where the attacker lands: click a lit square (Esc cancels)." : "";
    });
    this.bars = { white: this.q('.cg-player[data-color="white"]'), black: this.q('.cg-player[data-color="black"]') };

    const form = this.q(".cg-typed");
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const input = form.elements.namedItem("action");
      const text = input.value.trim();
      if (!text) {
        this.showError("Type an action first, for example e2e4 or N@c3.");
        return;
      }
      this.onAction(text, "typed");
    });

    this.q(".cg-banner-close").addEventListener("click", () => {
      this.q(".cg-banner").hidden = true;
    });

    this.controls = controls;
    const bar = this.q(".cg-controls");
    for (const control of controls) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `cg-control cg-${control.id}`;
      button.dataset.control = control.id;
      button.title = control.title + (control.key ? ` (${control.key})` : "");
      button.innerHTML = control.label;
      button.addEventListener("click", () => control.run());
      bar.append(button);
    }

    document.addEventListener("keydown", (e) => this.keydown(e));
    // The board fits the window below whatever the page puts above it.
    const measure = () => root.style.setProperty("--cg-offset", `${Math.max(0, root.getBoundingClientRect().top + window.scrollY)}px`);
    measure();
    window.addEventListener("resize", measure);
    // The side panel is as tall as the board column (the move list takes what is left).
    const main = this.q(".cg-main");
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        root.style.setProperty("--cg-main-h", `${main.offsetHeight}px`);
        this.scrollMoves();
      }).observe(main);
      // Panels above the move list grow and shrink (a selection's promotions): keep the shown
      // move in view.
      new ResizeObserver(() => this.scrollMoves()).observe(this.q(".cg-moves-wrap"));
    }
    this.drawPlayers();
  }

  /** A control button by id (to update its label or state). */
  control(id) {
    return this.q(`.cg-controls [data-control="${id}"]`);
  }

  /**
   * Shows a state from the server.
   * @param {object} state the snapshot
   * @param {object} [options]
   * @param {boolean} [options.interactive] whether the player here may act (default: the game is on)
   * @param {boolean} [options.sound] play the sound of the last action (default true)
   * @param {string[]} [options.line] the whole game when `state` is an earlier position being
   *   looked at (the move list shows all of it, with the shown position marked)
   * @param {string|null} [options.status] the status line instead of "White to move" (online
   *   play: "Your turn", "Waiting for an opponent")
   * @param {{score: string, reason: string, winner: string}|null} [options.result] the result to
   *   show instead of the one the engine's state implies (online play: resignation, time, abort)
   */
  show(state, { interactive = state.status === "ongoing", sound = true, line = state.actions, status = null, result = null } = {}) {
    const previous = this.state;
    this.state = { ...state, interactive };
    this.line = line;
    this.statusText = status;
    this.resultText = result;
    const browsing = line.length !== state.actions.length;
    this.root.classList.toggle("browsing", browsing);
    this.board.set({
      files: state.files,
      ranks: state.ranks,
      pieces: state.pieces,
      legal: state.legal,
      roles: state.roles,
      side: state.side,
      lastAction: state.actions.at(-1) ?? null,
      checkSquare: state.check ? state.check_square : null,
      waiting: state.waiting_pawns ?? [],
      interactive,
      snapshot: state,
    });
    this.root.dataset.variant = state.variant;
    // The board column's width follows the board's shape (9x9, 8x4, ...).
    this.root.style.setProperty("--files", state.files);
    this.root.style.setProperty("--ranks", state.ranks);
    this.root.dataset.status = state.status;
    this.root.dataset.side = state.side;
    this.q(".cg-variant").textContent = state.name;
    this.drawPlayers();
    this.drawStatus();
    this.drawMoves();
    this.drawExtras(previous);
    if (browsing) {
      const status = this.q(".cg-status");
      status.textContent = `Viewing move ${state.actions.length} of ${line.length} \u00b7 \u2192 or End to return`;
      status.classList.remove("check");
      status.classList.add("viewing");
    } else {
      this.q(".cg-status").classList.remove("viewing");
    }
    if (sound && previous && previous !== state && state.actions.length > 0) this.playSound(previous, state);
  }

  /** Shows a message about a refused action (or a lost connection) under the typed box. */
  showError(message) {
    const el = this.q(".cg-error");
    el.textContent = message;
    el.classList.toggle("shown", !!message);
  }

  /** Clears the typed box and its error (after an accepted action). */
  clearTyped() {
    const input = this.q(".cg-typed input");
    input.value = "";
    this.showError("");
  }

  setMode(text) {
    this.q(".cg-mode").textContent = text;
  }

  flip() {
    this.board.flip();
    this.drawPlayers();
  }

  // ---------------------------------------------------------------- drawing

  /** The bar of a colour (each colour keeps its bar; flipping moves the bars). */
  playerBar(color) {
    return this.bars[color];
  }

  drawPlayers() {
    const bottom = this.board.orientation;
    const top = bottom === "white" ? "black" : "white";
    const wrap = this.q(".cg-board-wrap");
    wrap.before(this.bars[top]);
    wrap.after(this.bars[bottom]);
    this.bars[top].classList.replace("bottom", "top") || this.bars[top].classList.add("top");
    this.bars[bottom].classList.replace("top", "bottom") || this.bars[bottom].classList.add("bottom");
    for (const color of ["white", "black"]) {
      this.bars[color].classList.toggle("to-move", this.state?.status === "ongoing" && this.state.side === color);
    }
  }

  drawStatus() {
    const s = this.state;
    const status = this.q(".cg-status");
    const result = this.q(".cg-result");
    const banner = this.q(".cg-banner");
    // The dialog is for the end itself: looking at an earlier position, or a new game, closes it.
    if (s.status === "ongoing") {
      status.textContent = this.statusText ?? `${colorName(s.side)} to move${s.check ? " \u00b7 check" : ""}`;
      status.classList.toggle("check", !!s.check);
      result.hidden = true;
      result.textContent = "";
      banner.hidden = true;
      return;
    }
    status.textContent = this.statusText ?? "Game over";
    status.classList.remove("check");
    const given = this.resultText;
    const score = given?.score ?? scoreText(s.winner);
    const reason = given?.reason ?? reasonText(s.reason, s.status);
    const winner = given?.winner ?? (s.winner ? `${colorName(s.winner)} wins` : "Draw");
    result.hidden = false;
    result.dataset.winner = s.winner ?? "draw";
    result.innerHTML = "";
    result.append(textEl("strong", "cg-result-score", score), textEl("span", "cg-result-reason", reason), textEl("span", "cg-result-winner", winner));
    this.q(".cg-banner-score").textContent = score;
    this.q(".cg-banner-reason").textContent = reason;
    this.q(".cg-banner-winner").textContent = given ? winner : s.winner ? `${winner}!` : "The game is drawn.";
    const actions = this.q(".cg-banner-actions");
    actions.replaceChildren();
    for (const control of this.controls.filter((c) => c.onBanner)) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = control.onBanner;
      button.addEventListener("click", () => control.run());
      actions.append(button);
    }
    if (this.resultDialog) banner.hidden = false;
  }

  /** Opens the result dialog over the board (online play: once, when the game ends live). */
  openResult() {
    if (this.state && this.state.status !== "ongoing") this.q(".cg-banner").hidden = false;
  }

  /** Keeps the shown move in view in the move list: the last one, or the one looked at. */
  scrollMoves() {
    const wrap = this.q(".cg-moves-wrap");
    const current = this.root.classList.contains("browsing") ? wrap.querySelector(".move.current") : null;
    if (!current) {
      wrap.scrollTop = wrap.scrollHeight;
      return;
    }
    const box = wrap.getBoundingClientRect();
    const cell = current.getBoundingClientRect();
    if (cell.top < box.top) wrap.scrollTop -= box.top - cell.top + cell.height;
    else if (cell.bottom > box.bottom) wrap.scrollTop += cell.bottom - box.bottom + cell.height;
  }

  drawMoves() {
    const s = { ...this.state, actions: this.line ?? this.state.actions };
    const shownPly = this.state.actions.length;
    const list = this.q(".cg-moves");
    const other = (c) => (c === "white" ? "black" : "white");
    // Equips (lootbox) do not pass the turn: they are shown with the action that follows them.
    const isEquip = (text) => parseAction(text)?.type === "equip";
    // Who made the first action: the side to move in the shown position, stepped back once per
    // turn played up to it.
    const turnCount = this.state.actions.filter((t) => !isEquip(t)).length;
    let color = turnCount % 2 === 0 ? s.side : other(s.side);
    const turns = [];
    let parts = [];
    s.actions.forEach((text, i) => {
      parts.push({ text, ply: i + 1 });
      if (!isEquip(text)) {
        turns.push({ color, parts });
        parts = [];
        color = other(color);
      }
    });
    if (parts.length) turns.push({ color, parts });
    const rows = [];
    let row = null;
    turns.forEach((turn, i) => {
      if (!row || turn.color === "white" || i === 0) {
        row = document.createElement("li");
        row.className = "cg-move-row";
        row.append(textEl("span", "n", `${rows.length + 1}.`));
        if (turn.color === "black") row.append(textEl("span", "move empty", "\u2026"));
        rows.push(row);
      }
      const cell = document.createElement("span");
      cell.className = "move";
      cell.dataset.color = turn.color;
      turn.parts.forEach((part, j) => {
        if (j > 0) cell.append(" ");
        const el = textEl("span", isEquip(part.text) ? "act equip" : "act", part.text);
        el.dataset.ply = String(part.ply);
        cell.append(el);
      });
      const ply = turn.parts.at(-1).ply;
      cell.dataset.ply = String(ply);
      if (turn.parts.some((p) => p.ply === shownPly)) {
        cell.classList.add("current");
        cell.setAttribute("aria-current", "step");
      }
      cell.addEventListener("click", () => this.onBrowse?.(ply));
      row.append(cell);
    });
    list.replaceChildren(...rows);
    if (s.status !== "ongoing" && shownPly === s.actions.length) {
      // As lichess ends its move list: the score, then the reason and the winner.
      const end = document.createElement("li");
      end.className = "cg-move-result";
      const given = this.resultText;
      const winner = given?.winner ?? (s.winner ? `${colorName(s.winner)} wins` : "Draw");
      end.append(
        textEl("strong", "cg-move-score", given?.score ?? scoreText(s.winner)),
        textEl("span", "cg-move-reason", `${given?.reason ?? reasonText(s.reason, s.status)} \u00b7 ${winner}`),
      );
      list.append(end);
    }
    if (rows.length === 0) {
      const empty = document.createElement("li");
      empty.className = "cg-moves-empty";
      empty.textContent = "No moves yet.";
      list.append(empty);
    }
    this.scrollMoves();
    requestAnimationFrame(() => this.scrollMoves());
  }

  drawExtras(previous) {
    let mounted = false;
    for (const extra of EXTRAS) {
      if (this.mountedExtras.has(extra.id) || !extra.applies(this.state)) continue;
      const [instance] = extrasFor(this.state).filter((x) => x.id === extra.id);
      if (!instance) continue;
      instance.mount(this.extraContext());
      this.extras.push(instance);
      this.mountedExtras.add(extra.id);
      mounted = true;
    }
    // The pieces were drawn before a new extra could decorate them.
    if (mounted) this.board.redecorate();
    for (const extra of this.extras) extra.update(this.state, previous);
    this.drawPlayers();
  }

  /** What an extra may use: the board, the player bars and the side-panel slots. */
  extraContext() {
    return {
      board: this.board,
      view: this,
      playerBar: (color) => this.playerBar(color),
      sideSlot: (name) => this.q(`.cg-slot-${name}`),
      play: (text) => this.onAction(text, "board"),
    };
  }

  playSound(previous, state) {
    const last = state.actions.at(-1);
    if (state.actions.length !== previous.actions.length + 1) return; // undo or a new game
    if (state.status !== "ongoing") sounds.play("end");
    else if (state.check) sounds.play("check");
    else if (/^[A-Za-z]+@/.test(last) || state.opened?.length) sounds.play("place");
    else if (isCapture(previous, state)) sounds.play("capture");
    else sounds.play("move");
  }

  keydown(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      if (e.key === "Escape") target.blur();
      return;
    }
    if (e.key === "Escape") {
      this.board.cancel();
      return;
    }
    if (e.key === "/" || e.key === "Enter") {
      e.preventDefault();
      this.q(".cg-typed input").focus();
      return;
    }
    if (this.onBrowse && ["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) {
      e.preventDefault();
      // The controller may know a position asked for and still on its way (online replays).
      const shown = this.browsedPly?.() ?? this.state?.actions.length ?? 0;
      const last = this.line?.length ?? shown;
      const target = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 0, End: last }[e.key];
      this.onBrowse(Math.max(0, Math.min(last, target)));
      return;
    }
    const control = this.controls.find((c) => c.key && c.key === e.key);
    if (control) {
      e.preventDefault();
      control.run();
    }
  }
}

/** Whether the last action removed or converted an enemy piece. */
function isCapture(previous, state) {
  const mover = previous.side;
  const count = (s, color) => s.pieces.filter((p) => p.color === color).length;
  const enemy = mover === "white" ? "black" : "white";
  if (count(state, enemy) < count(previous, enemy)) return true;
  const before = new Map(previous.pieces.map((p) => [p.square, p.color]));
  return state.pieces.some((p) => p.color === mover && before.get(p.square) === enemy);
}

function textEl(tag, className, text) {
  const el = document.createElement(tag);
  el.className = className;
  el.textContent = text;
  return el;
}
