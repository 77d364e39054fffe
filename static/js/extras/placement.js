// The shop: pieces the side to move may place, with their prices (pieces it owns, looted in
// Loot Boxes, with their count: they are placed free). Click a piece then a lit square, or drag
// it onto one. Without a `shop` in the state (free placements) the same panel
// lists the letters the legal actions allow, without prices. Musters paid with XP are the XP
// extra's.

import { formatGold } from "../format.js";
import { kindOf, nameOf, pieceElement, roleTable } from "../pieces.js";
import { LegalIndex } from "../notation.js";

export const placement = {
  id: "placement",
  // Placements paid with XP (musters) are offered by the XP extra instead.
  applies: (state) => (state.xp === undefined || state.xp === null) && (Array.isArray(state.shop) || state.legal.some((a) => /^[A-Z]@/.test(a))),
  create() {
    let ctx = null;
    let section = null;
    let list = null;
    let note = null;
    let title = null;
    let armed = null; // the letter that was active when the pointer went down
    return {
      id: "placement",
      mount(c) {
        ctx = c;
        section = document.createElement("section");
        section.className = "cg-shop";
        section.innerHTML = `<h2 class="cg-shop-title"></h2><div class="cg-shop-items" role="toolbar"></div><p class="cg-shop-note"></p>`;
        title = section.querySelector(".cg-shop-title");
        list = section.querySelector(".cg-shop-items");
        note = section.querySelector(".cg-shop-note");
        ctx.sideSlot("shop").append(section);
        ctx.board.el.addEventListener("placing", (e) => {
          for (const item of list.children) item.classList.toggle("active", item.dataset.piece === e.detail);
        });
      },
      update(state) {
        const roles = roleTable(state.roles);
        const legal = new LegalIndex(state.interactive === false ? [] : state.legal);
        const over = state.status !== "ongoing";
        // The shop invites only the player who may act now: not on a finished game, not on an
        // earlier position looked at, not a spectator.
        const inviting = !over && state.interactive !== false;
        const side = state.side;
        // Pieces the side owns (looted) are placed for free: they show their count, not a price.
        const owned = new Map(state.inventory?.[side]?.pieces ?? []);
        // Prices only where placing costs something (the sandbox lists its free shop too).
        const priced = Array.isArray(state.shop) && (state.economy || state.shop.some((i) => Number(i.cost) > 0));
        const items = Array.isArray(state.shop)
          ? state.shop.map((item) => (priced ? item : { ...item, cost: null }))
          : [...legal.drops.keys()].map((piece) => ({ piece, cost: null, affordable: true }));
        // An owned piece the shop does not sell (a looted king) is offered beside the others.
        for (const letter of owned.keys()) {
          if (!items.some((item) => item.piece === letter)) items.push({ piece: letter, cost: null, affordable: true });
        }
        const sideName = side === "white" ? "White" : "Black";
        title.textContent = !priced ? "Place a piece" : inviting ? `Shop \u00b7 ${sideName} buys` : "Shop";
        section.classList.toggle("over", over);
        section.classList.toggle("inactive", !inviting);
        list.replaceChildren(
          ...items.map((item) => {
            const squares = legal.drops.get(item.piece) ?? [];
            const free = owned.get(item.piece) ?? 0;
            const button = document.createElement("button");
            button.type = "button";
            button.className = "shop-item";
            button.dataset.piece = item.piece;
            button.classList.toggle("owned", free > 0);
            button.classList.toggle("unaffordable", free === 0 && !item.affordable);
            button.classList.toggle("unavailable", squares.length === 0);
            button.classList.toggle("active", ctx.board.placing === item.piece);
            button.disabled = over || squares.length === 0;
            const name = nameOf(roles, item.piece);
            const price = free > 0 ? ` from the inventory, free (${free} owned)` : item.cost === null ? "" : ` for ${formatGold(item.cost)} gold`;
            button.title = squares.length ? `Place a ${name.toLowerCase()}${price}` : `${name}${price}: cannot be placed now`;
            button.setAttribute("aria-label", button.title);
            button.append(pieceElement(kindOf(roles, item.piece), side, "shop-piece"));
            if (free > 0) {
              const count = document.createElement("span");
              count.className = "owned-count";
              count.textContent = `free \u00d7${free}`;
              button.append(count);
            } else if (item.cost !== null) {
              const cost = document.createElement("span");
              cost.className = "cost";
              cost.textContent = formatGold(item.cost);
              button.append(cost);
            }
            button.addEventListener("pointerdown", (e) => {
              if (button.disabled || (e.button !== 0 && e.pointerType === "mouse")) return;
              e.preventDefault();
              armed = ctx.board.placing;
              ctx.board.dragPlacement(item.piece, e);
            });
            button.addEventListener("click", (e) => {
              if (e.detail === 0) {
                // Keyboard (Enter or Space): toggle the placement; the square can then be typed.
                if (ctx.board.placing === item.piece) ctx.board.cancel();
                else ctx.board.beginPlacement(item.piece);
              } else if (armed === item.piece && ctx.board.placing === item.piece && !ctx.board.drag) {
                ctx.board.cancel();
              }
              armed = null;
            });
            return button;
          }),
        );
        const banned = state.placed_last_turn?.[side];
        let hint = "";
        if (over) hint = "The game is over.";
        else if (inviting && banned) hint = "You placed a piece last turn: no placement this turn.";
        else if (inviting && items.length) hint = "Click a piece, then a lit square \u2014 or drag it onto the board.";
        note.textContent = hint;
      },
    };
  },
};
