// Hit points (Chessception): an HP bar on every piece, a shield on the pieces whose damage is
// halved (the king's aura), floating damage numbers for what the last action did, both kings' HP
// in the player bars, and a side panel with the last combat and the selected piece's details
// (HP, shield, and the knight aura's damage multiplier read from the position).

import { parseAction, fileOf, rankOf } from "../notation.js";
import { colorName } from "../format.js";
import { nameOf, roleTable } from "../pieces.js";

/** A small shield (drawn for this project). */
const SHIELD =
  '<svg viewBox="0 0 20 22" aria-hidden="true"><path d="M10 1.5 18 4.5v6c0 5-3.4 8.6-8 10-4.6-1.4-8-5-8-10v-6z" fill="#4f86c6" stroke="#173a63" stroke-width="1.6" stroke-linejoin="round"/><path d="M10 4.2v14.2M5 8.6h10" stroke="#dbe9f8" stroke-width="1.6" stroke-linecap="round"/></svg>';

export const hitPoints = {
  id: "hp",
  applies: (state) => Array.isArray(state.hp),
  create() {
    let ctx = null;
    let panel = null;
    let floats = null;
    let shown = null; // the action list of the state whose damage is on the board
    const kings = {};
    return {
      id: "hp",
      mount(c) {
        ctx = c;
        for (const color of ["white", "black"]) {
          const el = document.createElement("span");
          el.className = "cg-king-hp";
          el.dataset.owner = color;
          ctx.playerBar(color).querySelector(".extras").append(el);
          kings[color] = el;
        }
        floats = document.createElement("div");
        floats.className = "cg-floats";
        ctx.board.el.append(floats);
        panel = document.createElement("section");
        panel.className = "cg-combat";
        panel.innerHTML = `<h2>Combat</h2><p class="cg-combat-last" role="status"></p><p class="cg-combat-piece"></p>
          <p class="cg-combat-help">Bars show hit points; <span class="cg-shield-inline">${SHIELD}</span> pieces next to their king take half damage. Each friendly knight next to an attacker doubles its damage.</p>`;
        ctx.sideSlot("shop").append(panel);
        ctx.board.addDecorator((el, piece, boardState) => {
          el.querySelector(".cg-hp")?.remove();
          el.querySelector(".cg-shield")?.remove();
          const info = (boardState.snapshot?.hp ?? []).find((h) => h.square === piece.square);
          if (!info) return;
          const bar = document.createElement("span");
          bar.className = "cg-hp";
          bar.dataset.hp = String(info.hp);
          bar.dataset.max = String(info.max);
          const ratio = info.max ? info.hp / info.max : 0;
          bar.classList.add(ratio > 0.5 ? "high" : ratio > 0.25 ? "mid" : "low");
          for (let i = 0; i < info.max; i++) {
            const seg = document.createElement("span");
            seg.className = i < info.hp ? "seg on" : "seg";
            bar.append(seg);
          }
          el.append(bar);
          if (info.shielded) {
            const shield = document.createElement("span");
            shield.className = "cg-shield";
            shield.innerHTML = SHIELD;
            el.append(shield);
          }
          el.title += ` \u00b7 ${info.hp}/${info.max} HP${info.shielded ? " \u00b7 shielded" : ""}`;
        });
        ctx.board.el.addEventListener("select", () => this.describeSelection());
      },
      update(state, previous) {
        const roles = roleTable(state.roles);
        this.state = state;
        for (const color of ["white", "black"]) {
          const king = state.pieces.find((p) => p.color === color && p.kind === "king");
          const info = king ? state.hp.find((h) => h.square === king.square) : null;
          const el = kings[color];
          el.replaceChildren();
          const label = document.createElement("span");
          label.className = "label";
          label.textContent = "King";
          const bar = document.createElement("span");
          bar.className = "cg-king-bar";
          const fill = document.createElement("span");
          const hp = info?.hp ?? 0;
          const max = info?.max ?? 4;
          fill.style.width = `${(100 * hp) / max}%`;
          fill.className = hp / max > 0.5 ? "high" : hp / max > 0.25 ? "mid" : "low";
          bar.append(fill);
          const value = document.createElement("span");
          value.className = "value";
          value.dataset.kingHp = color;
          value.textContent = `${hp}/${max}`;
          el.append(label, bar, value);
          el.title = `${colorName(color)}'s king: ${hp} of ${max} HP (the game ends at 0)`;
        }

        const key = state.actions.join(",");
        const changed = key !== shown && (previous !== null || state.actions.length > 0);
        if (changed) this.showDamage(state, roles);
        shown = key;
        this.describeLast(state, roles);
        this.describeSelection();
      },
      /** Floating numbers over every square that lost HP in the last action. */
      showDamage(state) {
        floats.replaceChildren();
        for (const d of damageReport(state)) {
          const el = document.createElement("div");
          el.className = "cg-float";
          el.dataset.square = d.square;
          el.dataset.amount = String(d.amount);
          const n = document.createElement("span");
          n.className = `cg-dmg${d.amount >= 4 ? " big" : ""}${d.killed ? " kill" : ""}`;
          n.textContent = `\u2212${d.amount}`;
          el.append(n);
          ctx.board.place(el, d.square);
          floats.append(el);
        }
      },
      describeLast(state, roles) {
        const el = panel.querySelector(".cg-combat-last");
        const report = damageReport(state);
        if (report.length === 0) {
          el.textContent = state.actions.length ? "The last action dealt no damage." : "No combat yet.";
          return;
        }
        el.textContent = `Last action: ${report
          .map((d) => {
            const piece = d.killed ? null : state.pieces.find((p) => p.square === d.square);
            const who = piece ? `${nameOf(roles, piece.piece).toLowerCase()} ${d.square}` : d.square;
            return `${who} \u2212${d.amount}${d.killed ? " (killed)" : ""}`;
          })
          .join(", ")}.`;
      },
      /** Details of the selected piece: HP, shield and the knight aura of its attacks. */
      describeSelection() {
        const el = panel?.querySelector(".cg-combat-piece");
        const state = this.state;
        if (!el || !state) return;
        const square = ctx.board.selected;
        const piece = square ? state.pieces.find((p) => p.square === square) : null;
        const info = piece ? state.hp.find((h) => h.square === square) : null;
        if (!piece || !info) {
          el.textContent = "";
          return;
        }
        const roles = roleTable(state.roles);
        const stacks = knightStacks(state, piece);
        const parts = [`${colorName(piece.color)} ${nameOf(roles, piece.piece).toLowerCase()} ${square}: ${info.hp}/${info.max} HP`];
        if (info.shielded) parts.push("shielded (takes half damage)");
        if (stacks > 0) parts.push(`attacks deal \u00d7${2 ** stacks} (knight aura)`);
        el.textContent = parts.join(" \u00b7 ");
      },
    };
  },
};

/**
 * What the last action did, square by square: where each damaged piece stands now (an attacker
 * hit by a counter-attack is listed on its origin but may have landed elsewhere), the HP it lost,
 * and whether it died. Area and primary damage only ever hit the mover's enemies.
 */
function damageReport(state) {
  const last = parseAction(state.actions.at(-1) ?? "");
  const move = last?.type === "move" ? last : null;
  const mover = state.side === "white" ? "black" : "white";
  const at = (sq) => state.pieces.find((p) => p.square === sq);
  return (state.damage ?? []).map((d) => {
    if (move && d.square === move.from) {
      // The attacker, struck back by a pawn.
      let square = d.square;
      if (!at(square)?.color || at(square).color !== mover) {
        const landing = move.landing ?? move.to;
        if (at(landing)?.color === mover) square = landing;
      }
      const piece = at(square);
      return { square, amount: d.amount, killed: !piece || piece.color !== mover };
    }
    const piece = at(d.square);
    return { square: d.square, amount: d.amount, killed: !piece || piece.color === mover };
  });
}

/** Friendly knights within one square of a piece, a knight counting itself. */
function knightStacks(state, piece) {
  const f = fileOf(piece.square);
  const r = rankOf(piece.square);
  return state.pieces.filter(
    (p) => p.color === piece.color && p.kind === "knight" && Math.abs(fileOf(p.square) - f) <= 1 && Math.abs(rankOf(p.square) - r) <= 1,
  ).length;
}
