// The board component: draws a position of any size and turns mouse, touch and pen input into
// action strings. It never judges legality: it only offers what the server's legal list contains.
//
//   const board = new Board(element, { onAction: (text) => ... });
//   board.set({ files, ranks, pieces, legal, roles, side, lastAction, checkSquare, interactive });
//   board.beginPlacement("N");          // the shop: light the squares where N@.. is legal
//   board.flip();

import { LegalIndex, fileOf, rankOf, squareName, highlightSquares, parseAction } from "./notation.js";
import { kindOf, nameOf, pieceElement, pieceUrl, roleTable } from "./pieces.js";

const DRAG_THRESHOLD = 4;

export class Board {
  /**
   * @param {HTMLElement} el the element to draw into (it is emptied)
   * @param {{onAction: (text: string) => void, onSelect?: (square: string|null) => void}} options
   */
  constructor(el, { onAction, onSelect = () => {} }) {
    this.el = el;
    this.onAction = onAction;
    // Extras hear about selections through the board's "select" event (detail: square or null).
    this.onSelect = (square) => {
      onSelect(square);
      el.dispatchEvent(new CustomEvent("select", { detail: square }));
    };
    this.orientation = "white";
    this.state = null;
    this.legal = new LegalIndex([]);
    this.roles = new Map();
    this.selected = null;
    this.placing = null; // what is being placed or equipped (a piece letter, an item name)
    this.targets = new Map(); // square -> the actions that put `placing` there
    this.chooser = null; // {el, modal}
    this.drag = null;
    this.pieceEls = new Map(); // square -> element
    this.decorators = [];
    this.choiceNotes = [];
    this.pending = null; // {from, to} of a move waiting for its landing square
    this.layoutKey = "";

    el.classList.add("cg-board");
    el.replaceChildren();
    this.squaresEl = div("cg-squares");
    this.objectsEl = div("cg-objects");
    this.piecesEl = div("cg-pieces");
    this.overlayEl = div("cg-overlay");
    el.append(this.squaresEl, this.objectsEl, this.piecesEl, this.overlayEl);
    this.objects = [];

    el.addEventListener("pointerdown", (e) => this.pointerDown(e));
    el.addEventListener("pointermove", (e) => this.pointerMove(e));
    el.addEventListener("pointerup", (e) => this.pointerUp(e));
    el.addEventListener("pointercancel", () => this.cancelDrag());
    el.addEventListener("contextmenu", (e) => {
      if (this.drag || this.selected || this.placing) {
        e.preventDefault();
        this.cancel();
      }
    });
  }

  /**
   * Adds a function called for every piece element after it is drawn, so variant extras can
   * decorate pieces (HP bars, items, ...): `fn(element, piece, state)`.
   */
  addDecorator(fn) {
    this.decorators.push(fn);
  }

  /** Runs the decorators again on every piece drawn (after an extra adds one). */
  redecorate() {
    if (!this.state) return;
    for (const p of this.state.pieces ?? []) {
      const el = this.pieceEls.get(p.square);
      if (!el) continue;
      el.title = `${p.color} ${nameOf(this.roles, p.piece).toLowerCase()} on ${p.square}`;
      for (const fn of this.decorators) fn(el, p, this.state);
    }
  }

  /**
   * Adds a function that may annotate a chooser's choice, e.g. with its cost:
   * `fn(actionText, state)` returns a short text ("3 XP") or null.
   */
  addChoiceNote(fn) {
    this.choiceNotes.push(fn);
  }

  /** The first note an extra gives for an action, or null. */
  noteOf(text) {
    for (const fn of this.choiceNotes) {
      const note = fn(text, this.state);
      if (note) return note;
    }
    return null;
  }

  /**
   * Shows a state.
   * @param {object} s
   * @param {number} s.files
   * @param {number} s.ranks
   * @param {Array<{square: string, color: string, piece: string, kind: string}>} s.pieces
   * @param {string[]} s.legal
   * @param {Array<{letter: string, kind: string, name: string}>} s.roles
   * @param {string} s.side side to move
   * @param {string|null} s.lastAction
   * @param {string|null} s.checkSquare
   * @param {boolean} s.interactive whether the side to move may act here
   */
  set(s) {
    const previous = this.state;
    this.state = s;
    this.legal = new LegalIndex(s.interactive ? s.legal : []);
    this.roles = roleTable(s.roles);
    this.closeChooser();
    this.selected = null;
    this.placing = null;
    this.targets = new Map();
    this.pending = null;
    this.cancelDrag();
    this.layout();
    this.drawPieces(previous);
    this.drawMarks();
    this.lunge(previous);
  }

  /**
   * Shows things on squares that are not pieces (loot boxes, ...), under the pieces.
   * @param {Array<{square: string, className: string, html?: string, title?: string}>} objects
   */
  setObjects(objects) {
    this.objects = objects;
    this.drawObjects();
  }

  drawObjects() {
    this.objectsEl.replaceChildren(
      ...this.objects.map((o) => {
        const el = div(`object ${o.className}`);
        el.dataset.square = o.square;
        if (o.html) el.innerHTML = o.html;
        if (o.title) el.title = o.title;
        this.place(el, o.square);
        return el;
      }),
    );
  }

  /** Turns the board round. */
  flip() {
    this.setOrientation(this.orientation === "white" ? "black" : "white");
  }

  /** Puts `color` at the bottom. */
  setOrientation(color) {
    if (color === this.orientation) return;
    this.orientation = color;
    this.el.classList.add("no-anim");
    this.layout();
    this.drawPieces(null);
    this.drawObjects();
    this.drawMarks();
    requestAnimationFrame(() => this.el.classList.remove("no-anim"));
  }

  /** Drops any selection, placement or open chooser. */
  cancel() {
    this.closeChooser();
    this.cancelDrag();
    this.selected = null;
    this.placing = null;
    this.targets = new Map();
    this.pending = null;
    this.drawMarks();
    this.onSelect(null);
  }

  /** Starts placing a piece from the shop: lights its legal squares; a click on one plays it. */
  beginPlacement(letter) {
    const squares = this.legal.drops.get(letter) ?? [];
    return this.beginTargets(letter, new Map(squares.map((sq) => [sq, [{ text: `${letter}@${sq}` }]])));
  }

  /**
   * Lights the squares of `targets` (square -> actions, e.g. an item's equips); a click on one
   * plays its action, or opens a chooser when there are several (`crown@d4=R`, `crown@d4=Q`).
   * @param {string} key what is being put on the board (shown to extras by the "placing" event)
   * @param {Map<string, Array<{text: string, kind?: string|null, label?: string, caption?: string}>>} targets
   * @param {{from: string, to: string}|null} [pending] a move the targets complete (its squares stay marked)
   */
  beginTargets(key, targets, pending = null) {
    this.closeChooser();
    this.selected = null;
    this.placing = targets.size ? key : null;
    this.targets = targets.size ? targets : new Map();
    this.pending = targets.size ? pending : null;
    this.drawMarks();
    return this.placing !== null;
  }

  /** Plays what the targeting mode puts on `square`, asking first when there is a choice. */
  chooseTarget(square) {
    const options = this.targets.get(square) ?? [];
    this.placing = null;
    this.targets = new Map();
    this.pending = null;
    this.drawMarks();
    if (options.length === 1) this.onAction(options[0].text);
    else if (options.length > 1) {
      this.openChooser(
        square,
        options.map((o) => ({ text: o.text, kind: o.kind ?? null, label: o.label ?? o.text, caption: o.caption })),
        true,
      );
    }
  }

  /**
   * Drags a piece from outside the board (the shop) with the pointer of `event`; dropping it on a
   * lit square plays the placement. A click without movement leaves the placement mode on.
   */
  dragPlacement(letter, event) {
    if (!this.beginPlacement(letter)) return;
    const ghost = pieceElement(kindOf(this.roles, letter), this.state.side, "piece ghost dragging");
    this.startDrag({ kind: "drop", letter, ghost, pointerId: event.pointerId, x: event.clientX, y: event.clientY, external: true });
    const move = (e) => this.pointerMove(e);
    const up = (e) => {
      document.removeEventListener("pointermove", move);
      document.removeEventListener("pointerup", up);
      this.pointerUp(e);
    };
    document.addEventListener("pointermove", move);
    document.addEventListener("pointerup", up);
  }

  // ---------------------------------------------------------------- geometry

  get files() {
    return this.state?.files ?? 8;
  }

  get ranks() {
    return this.state?.ranks ?? 8;
  }

  /** Display column and row (0 = left/top) of a square. */
  cell(square) {
    const f = fileOf(square);
    const r = rankOf(square);
    return this.orientation === "white" ? [f, this.ranks - 1 - r] : [this.files - 1 - f, r];
  }

  /** The square under a viewport point, or null off the board. */
  squareAt(x, y) {
    const box = this.el.getBoundingClientRect();
    const col = Math.floor(((x - box.left) / box.width) * this.files);
    const row = Math.floor(((y - box.top) / box.height) * this.ranks);
    if (col < 0 || row < 0 || col >= this.files || row >= this.ranks) return null;
    return this.orientation === "white"
      ? squareName(col, this.ranks - 1 - row)
      : squareName(this.files - 1 - col, row);
  }

  place(el, square) {
    const [c, r] = this.cell(square);
    el.style.transform = `translate(${c * 100}%, ${r * 100}%)`;
  }

  // ---------------------------------------------------------------- drawing

  layout() {
    const key = `${this.files}x${this.ranks}:${this.orientation}`;
    if (key === this.layoutKey) return;
    this.layoutKey = key;
    this.el.style.setProperty("--files", this.files);
    this.el.style.setProperty("--ranks", this.ranks);
    this.el.dataset.orientation = this.orientation;
    const cells = [];
    for (let row = 0; row < this.ranks; row++) {
      for (let col = 0; col < this.files; col++) {
        const file = this.orientation === "white" ? col : this.files - 1 - col;
        const rank = this.orientation === "white" ? this.ranks - 1 - row : row;
        const sq = div(`sq ${(file + rank) % 2 === 0 ? "dark" : "light"}`);
        sq.dataset.square = squareName(file, rank);
        if (row === this.ranks - 1) sq.append(span("coord file", String.fromCharCode(97 + file)));
        if (col === 0) sq.append(span("coord rank", String(rank + 1)));
        cells.push(sq);
      }
    }
    this.squaresEl.replaceChildren(...cells);
    this.squareEls = new Map(cells.map((c) => [c.dataset.square, c]));
  }

  drawPieces(previous) {
    const pieces = this.state?.pieces ?? [];
    const old = new Map(this.pieceEls);
    const next = new Map();
    const unmatched = [];
    for (const p of pieces) {
      const el = old.get(p.square);
      if (el && el.dataset.color === p.color && el.dataset.kind === p.kind) {
        old.delete(p.square);
        next.set(p.square, el);
      } else {
        unmatched.push(p);
      }
    }
    // Pieces that moved: reuse their element so they glide to the new square.
    const last = previous ? moveOf(this.state.lastAction) : null;
    for (const p of unmatched) {
      let el = null;
      let from = null;
      if (last && last.to === p.square && old.get(last.from)?.dataset.color === p.color) {
        from = last.from;
      } else {
        from = nearest(old, p);
      }
      if (from) {
        el = old.get(from);
        old.delete(from);
        if (el.dataset.kind !== p.kind) {
          el.dataset.kind = p.kind;
          el.style.backgroundImage = `url("${pieceUrl(p.kind, p.color)}")`;
        }
      } else {
        el = pieceElement(p.kind, p.color);
        if (previous) el.classList.add("appear");
        this.piecesEl.append(el);
      }
      next.set(p.square, el);
    }
    for (const el of old.values()) el.remove();
    for (const p of pieces) {
      const el = next.get(p.square);
      el.dataset.square = p.square;
      el.dataset.piece = p.piece;
      el.title = `${p.color} ${nameOf(this.roles, p.piece).toLowerCase()} on ${p.square}`;
      el.classList.toggle("waiting", (this.state.waiting ?? []).includes(p.square));
      el.classList.remove("dragging");
      this.place(el, p.square);
      for (const fn of this.decorators) fn(el, p, this.state);
    }
    this.pieceEls = next;
  }

  /**
   * A move whose piece is still on its origin afterwards was an attack that did not take the
   * square (Chessception): the piece lunges toward its target and back.
   */
  lunge(previous) {
    const last = previous ? moveOf(this.state.lastAction) : null;
    if (!last || last.from === last.target || !previous.pieces) return;
    const played = this.state.snapshot?.actions?.length ?? 0;
    if (played !== (previous.snapshot?.actions?.length ?? 0) + 1) return;
    const before = previous.pieces.find((p) => p.square === last.from);
    const now = (this.state.pieces ?? []).find((p) => p.square === last.from);
    if (!before || !now || before.color !== now.color || before.kind !== now.kind) return;
    const el = this.pieceEls.get(last.from);
    if (!el || !el.animate || window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return;
    const [c1, r1] = this.cell(last.from);
    const [c2, r2] = this.cell(last.target);
    const at = (t) => `translate(${(c1 + (c2 - c1) * t) * 100}%, ${(r1 + (r2 - r1) * t) * 100}%)`;
    const reach = Math.min(0.6, 0.7 / Math.max(Math.abs(c2 - c1), Math.abs(r2 - r1)));
    el.animate(
      [{ transform: at(0) }, { transform: at(reach), offset: 0.45 }, { transform: at(0) }],
      { duration: 380, easing: "ease-in-out" },
    );
  }

  drawMarks() {
    if (!this.squareEls) return;
    const last = new Set(highlightSquares(this.state?.lastAction));
    const dests = new Set(this.selected ? this.legal.destinations(this.selected) : []);
    const drops = new Set(this.placing ? this.targets.keys() : []);
    const movable = this.legal;
    for (const [sq, el] of this.squareEls) {
      const occupied = this.pieceEls.has(sq);
      el.classList.toggle("last", last.has(sq));
      el.classList.toggle("check", sq === this.state?.checkSquare);
      el.classList.toggle("selected", sq === this.selected);
      el.classList.toggle("dest", dests.has(sq) || drops.has(sq));
      el.classList.toggle("drop", drops.has(sq));
      el.classList.toggle("occupied", occupied);
      el.classList.toggle("movable", movable.canAct(sq));
      el.classList.toggle("pending", this.pending !== null && (sq === this.pending.from || sq === this.pending.to));
    }
    this.el.classList.toggle("placing", this.placing !== null);
    const placing = this.placing ?? "";
    if (this.el.dataset.placing !== placing) {
      this.el.dataset.placing = placing;
      this.el.dispatchEvent(new CustomEvent("placing", { detail: this.placing }));
    }
  }

  // ---------------------------------------------------------------- input

  pointerDown(e) {
    if (e.button !== 0 && e.pointerType === "mouse") return;
    if (e.target.closest(".cg-chooser")) return;
    const sq = this.squareAt(e.clientX, e.clientY);
    if (this.chooser) {
      const modal = this.chooser.modal;
      this.closeChooser();
      if (modal) {
        this.cancel();
        return;
      }
    }
    if (!sq) return;
    e.preventDefault();

    if (this.placing) {
      if (this.targets.has(sq)) {
        this.chooseTarget(sq);
        return;
      }
      this.placing = null;
      this.targets = new Map();
      this.pending = null;
      this.drawMarks();
    }

    if (this.selected && this.selected !== sq && this.legal.destinations(this.selected).includes(sq)) {
      this.completeMove(this.selected, sq);
      return;
    }

    if (this.legal.canAct(sq)) {
      const wasSelected = this.selected === sq;
      this.select(sq);
      const el = this.pieceEls.get(sq);
      if (el && this.legal.moves.has(sq)) {
        this.startDrag({ kind: "move", from: sq, ghost: el, pointerId: e.pointerId, x: e.clientX, y: e.clientY, wasSelected });
      } else if (wasSelected) {
        this.cancel();
      }
      return;
    }
    this.cancel();
  }

  startDrag(drag) {
    this.drag = { ...drag, started: false };
    try {
      if (!drag.external) this.el.setPointerCapture(drag.pointerId);
    } catch {
      // Synthetic pointers may not be capturable; dragging still works inside the board.
    }
  }

  pointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointerId) return;
    if (!d.started) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < DRAG_THRESHOLD) return;
      d.started = true;
      d.ghost.classList.add("dragging");
      if (d.external) this.el.append(d.ghost);
    }
    const box = this.el.getBoundingClientRect();
    const w = box.width / this.files;
    const h = box.height / this.ranks;
    d.ghost.style.width = `${w}px`;
    d.ghost.style.height = `${h}px`;
    d.ghost.style.transform = `translate(${e.clientX - box.left - w / 2}px, ${e.clientY - box.top - h / 2}px)`;
    const over = this.squareAt(e.clientX, e.clientY);
    if (over !== d.over) {
      if (d.over) this.squareEls.get(d.over)?.classList.remove("hover");
      d.over = over;
      if (over) this.squareEls.get(over)?.classList.add("hover");
    }
  }

  pointerUp(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointerId) return;
    this.drag = null;
    if (d.over) this.squareEls.get(d.over)?.classList.remove("hover");
    const sq = this.squareAt(e.clientX, e.clientY);
    if (!d.started) {
      // A click: a second click on the selected piece puts it down again.
      if (d.kind === "move" && d.wasSelected && sq === d.from) this.cancel();
      return;
    }
    if (d.kind === "drop") {
      d.ghost.remove();
      if (sq && this.targets.has(sq)) {
        this.chooseTarget(sq);
      } else {
        this.cancel();
      }
      return;
    }
    d.ghost.classList.remove("dragging");
    d.ghost.style.width = "";
    d.ghost.style.height = "";
    if (sq && sq !== d.from && this.legal.destinations(d.from).includes(sq)) {
      this.el.classList.add("no-anim");
      this.place(d.ghost, sq);
      requestAnimationFrame(() => this.el.classList.remove("no-anim"));
      this.completeMove(d.from, sq);
    } else {
      this.el.classList.add("no-anim");
      this.place(d.ghost, d.from);
      requestAnimationFrame(() => this.el.classList.remove("no-anim"));
      if (sq !== d.from) this.cancel();
    }
  }

  cancelDrag() {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    if (d.over) this.squareEls?.get(d.over)?.classList.remove("hover");
    if (d.kind === "drop") d.ghost.remove();
    else {
      d.ghost.classList.remove("dragging");
      d.ghost.style.width = "";
      d.ghost.style.height = "";
      this.place(d.ghost, d.from);
    }
  }

  select(sq) {
    this.selected = sq;
    this.drawMarks();
    this.onSelect(sq);
    const promotions = this.legal.promotions.get(sq);
    if (promotions) {
      this.openChooser(
        sq,
        this.byValue(promotions, (p) => p.letter).map((p) => this.promotionChoice(p.text, p.letter)),
        false,
        // A piece that can also move keeps its destinations clickable: the choices fit in its
        // own square.
        this.legal.moves.has(sq) && promotions.length <= 4,
      );
    }
  }

  /** A chooser entry for a promotion to `letter`: the piece, its name and any note (cost). */
  promotionChoice(text, letter) {
    const name = nameOf(this.roles, letter);
    const note = this.noteOf(text);
    return {
      text,
      kind: kindOf(this.roles, letter),
      name,
      note,
      label: `promote to ${name.toLowerCase()}${note ? ` (${note})` : ""}`,
    };
  }

  /** Sorts choices the way the variant's role table lists pieces, strongest (last) first. */
  byValue(list, letterOf) {
    const order = [...this.roles.keys()];
    return [...list].sort((a, b) => order.indexOf(letterOf(b)) - order.indexOf(letterOf(a)));
  }

  /** Plays the move from `from` to `to`, asking first when there is a choice (promotion, landing). */
  completeMove(from, to) {
    const options = this.legal.movesBetween(from, to);
    if (options.length === 0) return;
    const landings = options.filter((o) => o.landing);
    if (landings.length > 1) {
      // The attacker may land on any of several squares: light them; a click on one plays it.
      const targets = new Map(landings.map((o) => [o.landing, [{ text: o.text, label: `land on ${o.landing}` }]]));
      this.beginTargets("landing", targets, { from, to });
      return;
    }
    const promos = this.byValue(options.filter((o) => o.promo), (o) => o.promo.toUpperCase());
    if (promos.length === 0) {
      this.selected = null;
      this.drawMarks();
      this.onAction(options[0].text);
      return;
    }
    const choices = promos.map((o) => this.promotionChoice(o.text, o.promo));
    const stay = options.find((o) => !o.promo && !o.landing);
    if (stay) {
      choices.push({ text: stay.text, kind: this.pieceEls.get(from)?.dataset.kind ?? "pawn", label: "stay and wait: promote later", caption: "wait", stay: true });
    }
    this.openChooser(to, choices, true);
  }

  /**
   * Opens a column of choices on `square`'s file, running from the square toward the middle. In a
   * column each choice carries its name (and note, like a cost) on a tag toward the board's middle.
   * @param {string} square
   * @param {Array<{text: string, kind: string|null, label: string, name?: string, note?: string|null, caption?: string, stay?: boolean}>} choices
   * @param {boolean} modal a click elsewhere cancels (for a move); otherwise it just closes
   * @param {boolean} [inSquare] up to four small choices inside the square itself
   */
  openChooser(square, choices, modal, inSquare = false) {
    this.closeChooser();
    const el = div("cg-chooser");
    el.classList.toggle("modal", modal);
    el.classList.toggle("in-square", inSquare);
    const [col, row] = this.cell(square);
    const down = row < this.ranks / 2;
    // Name tags point toward the middle so they stay on the board.
    el.classList.add(col < this.files / 2 ? "tags-right" : "tags-left");
    el.dataset.square = square;
    const color = this.state.side;
    const w = 100 / this.files;
    const h = 100 / this.ranks;
    choices.forEach((choice, i) => {
      const r = down ? row + i : row - i;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      if (choice.stay) button.classList.add("stay");
      button.dataset.action = choice.text;
      button.title = choice.label;
      button.setAttribute("aria-label", choice.label);
      if (inSquare) {
        // Up to four quarter-size choices in a 2x2 grid on the square itself.
        button.style.left = `${col * w + (i % 2) * (w / 2)}%`;
        button.style.top = `${row * h + Math.floor(i / 2) * (h / 2)}%`;
        button.style.width = `${w / 2}%`;
        button.style.height = `${h / 2}%`;
      } else {
        button.style.left = `${col * w}%`;
        button.style.top = `${Math.min(Math.max(r, 0), this.ranks - 1) * h}%`;
        button.style.width = `${w}%`;
        button.style.height = `${h}%`;
      }
      if (choice.kind) button.append(pieceElement(choice.kind, color, "choice-piece"));
      if (choice.caption) button.append(span("caption", choice.caption));
      if (choice.note && (inSquare || !choice.name)) button.append(span("note", choice.note));
      if (choice.name && !inSquare) {
        const tag = span("name", choice.name);
        if (choice.note) tag.append(span("tag-note", choice.note));
        button.append(tag);
      }
      button.addEventListener("click", (e) => {
        e.stopPropagation();
        this.closeChooser();
        this.selected = null;
        this.drawMarks();
        this.onAction(choice.text);
      });
      el.append(button);
    });
    this.overlayEl.append(el);
    this.chooser = { el, modal };
  }

  closeChooser() {
    if (!this.chooser) return;
    this.chooser.el.remove();
    this.chooser = null;
  }
}

/** Where the last action's piece came from and where it ended (its landing square, if any). */
function moveOf(text) {
  const a = text ? parseAction(text) : null;
  return a?.type === "move" ? { from: a.from, to: a.landing ?? a.to, target: a.to } : null;
}

/** The nearest old element of the same colour and kind (castling rooks, undo), if any. */
function nearest(old, piece) {
  let best = null;
  let bestDistance = Infinity;
  for (const [sq, el] of old) {
    if (el.dataset.color !== piece.color || el.dataset.kind !== piece.kind) continue;
    const d = Math.abs(fileOf(sq) - fileOf(piece.square)) + Math.abs(rankOf(sq) - rankOf(piece.square));
    if (d < bestDistance && d <= 3) {
      best = sq;
      bestDistance = d;
    }
  }
  return best;
}

function div(className) {
  const el = document.createElement("div");
  el.className = className;
  return el;
}

function span(className, text) {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  return el;
}
