// Experience points (Grunt Chess): both players' XP in the player bars (with the komi while it is
// all a player has), the costs of promotions in place and of musters, the chooser notes that put
// a cost on each in-place promotion, and the "muster" control that lights the squares next to the
// king where the server allows a new piece.
//
// The state carries the XP but not the prices, so the price list of the rule book is here, for
// display only: what can be played always comes from the legal list.

import { LegalIndex, parseAction } from "../notation.js";
import { colorName } from "../format.js";
import { kindOf, nameOf, pieceElement, roleTable } from "../pieces.js";

/** XP prices of the rule book (display only), by the piece's kind and the new kind. */
const PROMOTION_XP = {
  "pawn>grunt": 3,
  "grunt>bishop": 6,
  "grunt>knight": 6,
  "bishop>rook": 6,
  "knight>rook": 6,
  "rook>queen": 9,
};
const MUSTER_XP = 5;

/** A star for the XP counters (drawn for this project). */
const STAR =
  '<svg viewBox="0 0 20 20" aria-hidden="true"><path d="M10 1.6l2.5 5.3 5.8.7-4.3 4 1.1 5.8L10 14.6l-5.1 2.8 1.1-5.8-4.3-4 5.8-.7z" fill="#7fb3e8" stroke="#1f4e79" stroke-width="1.3" stroke-linejoin="round"/></svg>';

export const xp = {
  id: "xp",
  applies: (state) => state.xp !== undefined && state.xp !== null,
  create() {
    let ctx = null;
    let panel = null;
    let start = null; // each side's XP in the first state seen at ply 0 (the komi)
    const bars = {};
    return {
      id: "xp",
      mount(c) {
        ctx = c;
        for (const color of ["white", "black"]) {
          const box = document.createElement("span");
          box.className = "cg-xp";
          box.dataset.owner = color;
          box.innerHTML = `<span class="star">${STAR}</span><span class="amount" data-xp="${color}"></span><span class="unit">XP</span><span class="komi"></span><span class="delta"></span>`;
          ctx.playerBar(color).querySelector(".extras").append(box);
          bars[color] = box;
        }
        panel = document.createElement("section");
        panel.className = "cg-xp-panel";
        panel.innerHTML = `<h2>Experience</h2>
          <div class="cg-muster"></div>
          <div class="cg-promote-now" aria-live="polite"></div>
          <p class="cg-xp-help">Click a piece with a gold arrow to promote it in place, one rung per turn.</p>
          <details class="cg-xp-prices-box"><summary>XP prices</summary><ul class="cg-xp-prices" aria-label="XP prices"></ul></details>`;
        ctx.sideSlot("shop").append(panel);
        // A cost on every in-place promotion offered by the board's chooser.
        ctx.board.addChoiceNote((text, boardState) => {
          const a = parseAction(text);
          if (a?.type !== "promote") return null;
          const piece = (boardState?.pieces ?? []).find((p) => p.square === a.square);
          const cost = piece ? PROMOTION_XP[`${piece.kind}>${kindOf(roleTable(boardState.roles), a.letter)}`] : undefined;
          return cost === undefined ? null : `${cost} XP`;
        });
        // Pieces the side to move may promote in place now wear a small arrow.
        ctx.board.addDecorator((el, piece, boardState) => {
          el.querySelector(".cg-rung")?.remove();
          if (!boardState.interactive) return;
          const promotable = (boardState.legal ?? []).some((t) => t.startsWith(`${piece.square}=`));
          if (!promotable) return;
          const mark = document.createElement("span");
          mark.className = "cg-rung";
          mark.title = "can be promoted in place";
          el.append(mark);
        });
        ctx.board.el.addEventListener("select", (e) => this.drawPromoteNow(e.detail));
        ctx.board.el.addEventListener("placing", (e) => {
          for (const b of panel.querySelectorAll(".cg-muster button")) b.classList.toggle("active", b.dataset.piece === e.detail);
        });
      },
      update(state, previous) {
        const roles = roleTable(state.roles);
        if (start === null && state.actions.length === 0) start = { ...state.xp };
        for (const color of ["white", "black"]) {
          const box = bars[color];
          const value = state.xp?.[color] ?? 0;
          box.querySelector(".amount").textContent = String(value);
          box.title = `${colorName(color)}'s experience points`;
          const komi = box.querySelector(".komi");
          const bonus = start?.[color] ?? 0;
          komi.textContent = state.actions.length === 0 && bonus > 0 ? `komi +${bonus}` : "";
          komi.title = komi.textContent ? `${colorName(color)} starts with ${bonus} XP to make up for moving second` : "";
          const before = previous?.xp?.[color];
          const delta = box.querySelector(".delta");
          if (before !== undefined && before !== value) {
            const d = value - before;
            delta.textContent = d > 0 ? `+${d}` : `\u2212${-d}`;
            delta.className = `delta ${d > 0 ? "up" : "down"}`;
            void delta.offsetWidth; // restart the fade
            delta.classList.add("show");
          } else {
            delta.className = "delta";
            delta.textContent = "";
          }
        }
        this.state = state;
        this.drawMuster(state, roles);
        this.drawPrices(state, roles);
        this.drawPromoteNow(null);
      },
      /** The in-place promotions of the selected piece, as buttons with their costs. */
      drawPromoteNow(square) {
        const box = panel.querySelector(".cg-promote-now");
        box.replaceChildren();
        const state = this.state;
        if (!square || !state || state.interactive === false) return;
        const actions = state.legal.filter((t) => t.startsWith(`${square}=`));
        if (actions.length === 0) return;
        const roles = roleTable(state.roles);
        const piece = state.pieces.find((p) => p.square === square);
        const title = document.createElement("p");
        title.className = "cg-promote-title";
        title.textContent = `Promote the ${nameOf(roles, piece?.piece ?? "P").toLowerCase()} on ${square}:`;
        box.append(title);
        for (const text of actions) {
          const a = parseAction(text);
          const cost = ctx.board.noteOf(text);
          const button = document.createElement("button");
          button.type = "button";
          button.className = "cg-promote-button";
          button.dataset.action = text;
          button.append(pieceElement(kindOf(roles, a.letter), state.side, "cg-muster-piece"));
          const label = document.createElement("span");
          label.className = "label";
          label.textContent = nameOf(roles, a.letter);
          button.append(label);
          if (cost) {
            const price = document.createElement("span");
            price.className = "cost";
            price.textContent = cost;
            button.append(price);
          }
          button.title = `${text}: promote to ${nameOf(roles, a.letter).toLowerCase()}${cost ? ` for ${cost}` : ""}`;
          button.addEventListener("click", () => ctx.play(text));
          box.append(button);
        }
      },
      drawMuster(state, roles) {
        const box = panel.querySelector(".cg-muster");
        box.replaceChildren();
        const legal = new LegalIndex(state.interactive === false ? [] : state.legal);
        const letters = legal.drops.size ? [...legal.drops.keys()] : ["G"];
        const over = state.status !== "ongoing";
        for (const letter of letters) {
          const squares = legal.drops.get(letter) ?? [];
          const name = nameOf(roles, letter).toLowerCase();
          const button = document.createElement("button");
          button.type = "button";
          button.className = "cg-muster-button";
          button.dataset.piece = letter;
          button.disabled = over || squares.length === 0;
          button.append(pieceElement(kindOf(roles, letter), state.side, "cg-muster-piece"));
          const label = document.createElement("span");
          label.className = "label";
          label.textContent = `Muster a ${name}`;
          const cost = document.createElement("span");
          cost.className = "cost";
          cost.textContent = `${MUSTER_XP} XP`;
          button.append(label, cost);
          button.title = squares.length
            ? `Place a new ${name} next to your king for ${MUSTER_XP} XP: click, then a lit square`
            : `Mustering needs ${MUSTER_XP} XP, fewer than 10 pieces and a free square next to the king`;
          button.addEventListener("click", () => {
            if (ctx.board.placing === letter) ctx.board.cancel();
            else ctx.board.beginPlacement(letter);
          });
          box.append(button);
        }
      },
      drawPrices(state, roles) {
        const list = panel.querySelector(".cg-xp-prices");
        const name = (kind) => {
          const role = [...roles.values()].find((r) => r.kind === kind);
          return role ? role.name : kind;
        };
        const rungs = [
          [["pawn"], ["grunt"], 3],
          [["grunt"], ["bishop", "knight"], 6],
          [["bishop", "knight"], ["rook"], 6],
          [["rook"], ["queen"], 9],
        ];
        const items = rungs.map(([from, to, cost]) => {
          const li = document.createElement("li");
          const text = document.createElement("span");
          text.textContent = `${from.map(name).join(" / ")} \u2192 ${to.map(name).join(" / ")}`;
          const price = document.createElement("b");
          price.textContent = `${cost} XP`;
          li.append(text, price);
          return li;
        });
        const muster = document.createElement("li");
        const text = document.createElement("span");
        text.textContent = `Muster a ${name("grunt")} next to the king`;
        const price = document.createElement("b");
        price.textContent = `${MUSTER_XP} XP`;
        muster.append(text, price);
        items.push(muster);
        list.replaceChildren(...items);
        list.dataset.side = state.side;
      },
    };
  },
};
