// Loot boxes (the `lootbox` mode): boxes on the board with their hits, the countdown to the next
// one, what the last action opened, both inventories, the items pieces carry, and equipping
// (click an item, then a lit piece; a crown then asks for the new type).

import { parseAction } from "../notation.js";
import { kindOf, nameOf, pieceElement, roleTable } from "../pieces.js";
import { colorName, formatGold } from "../format.js";

const ITEM_NAMES = { crossbow: "Crossbow", shell: "Turtle Shell", crown: "Crown" };
/**
 * What equipping an item costs, in gold (the rule book, `lootbox` rule 9). The state carries the
 * items but not their prices: these are for display only, the server judges every equip.
 */
const ITEM_COSTS = { crossbow: 2, shell: 2, crown: 3.5 };

/** Small drawings of the items and the box (made for this project). */
export const LOOT_ICONS = {
  crossbow:
    '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20 20 4" stroke="#5b3b12" stroke-width="2.2" stroke-linecap="round"/><path d="M20 4l-4.5 1 3.5 3.5z" fill="#8a8f96" stroke="#3a3f45" stroke-width="1"/><path d="M5 9c3-4 8-6 12-5M9 5c-1 4 .5 9 5 12" fill="none" stroke="#8a5a1c" stroke-width="2.2" stroke-linecap="round"/><path d="M5 9 14 17" stroke="#d9c9a8" stroke-width="1"/></svg>',
  shell:
    '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 16c0-6 4-10 9-10s9 4 9 10z" fill="#4f8a3c" stroke="#23421a" stroke-width="1.4"/><path d="M12 6v10M7 9l2.5 3.5L7 16M17 9l-2.5 3.5L17 16M9.5 12.5h5" fill="none" stroke="#23421a" stroke-width="1.2"/><path d="M2 16h20v2H2z" fill="#8fbf6a" stroke="#23421a" stroke-width="1"/></svg>',
  crown:
    '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 18 4 7l5 5 3-7 3 7 5-5 1 11z" fill="#f1c232" stroke="#7a5700" stroke-width="1.4" stroke-linejoin="round"/><circle cx="12" cy="14" r="1.6" fill="#c0392b"/></svg>',
};

function boxSvg(hits) {
  const pips = [0, 1, 2]
    .map((i) => `<circle cx="${14 + i * 8}" cy="36.5" r="2.6" fill="${i < hits ? "#c0392b" : "#fff6d8"}" stroke="#5a3a0a" stroke-width="1"/>`)
    .join("");
  return `<svg viewBox="0 0 44 44" aria-hidden="true">
    <rect x="7" y="15" width="30" height="17" rx="2" fill="#a0652a" stroke="#4a2a08" stroke-width="1.6"/>
    <path d="M7 15c0-6 4-8 15-8s15 2 15 8z" fill="#b9773a" stroke="#4a2a08" stroke-width="1.6"/>
    <path d="M12 8.6v23.4M32 8.6v23.4" stroke="#e8b923" stroke-width="3"/>
    <path d="M7 17h30" stroke="#4a2a08" stroke-width="1.2"/>
    <rect x="19" y="14" width="6" height="7" rx="1" fill="#e8b923" stroke="#6b4a00" stroke-width="1.2"/>
    <text x="22" y="20" font-size="6" text-anchor="middle" fill="#6b4a00" font-family="sans-serif" font-weight="700">?</text>
    ${pips}</svg>`;
}

function contentsText(contents, roles) {
  const gold = /^gold(\d+)$/.exec(contents);
  if (gold) return `${formatGold(gold[1])} gold`;
  if (ITEM_NAMES[contents]) return ITEM_NAMES[contents];
  return nameOf(roles, contents);
}

export const lootbox = {
  id: "lootbox",
  applies: (state) => Array.isArray(state.boxes) || (state.inventory !== undefined && state.inventory !== null),
  create() {
    let ctx = null;
    const bars = {};
    let panel = null;
    return {
      id: "lootbox",
      mount(c) {
        ctx = c;
        for (const color of ["white", "black"]) {
          const el = document.createElement("span");
          el.className = "cg-inventory";
          el.dataset.owner = color;
          ctx.playerBar(color).querySelector(".extras").prepend(el);
          bars[color] = el;
        }
        panel = document.createElement("section");
        panel.className = "cg-loot";
        panel.innerHTML = `<h2>Loot boxes</h2><p class="cg-loot-next"></p><p class="cg-loot-opened" role="status"></p><div class="cg-equip"></div>`;
        ctx.sideSlot("shop").append(panel);
        ctx.board.addDecorator((el, piece, boardState) => {
          el.querySelector(".cg-items")?.remove();
          const carried = (boardState.snapshot?.items ?? []).find((i) => i.square === piece.square)?.items ?? [];
          if (carried.length === 0) return;
          const badges = document.createElement("span");
          badges.className = "cg-items";
          badges.innerHTML = carried.map((item) => `<span class="cg-item-badge" data-item="${item}" title="${ITEM_NAMES[item] ?? item}">${LOOT_ICONS[item] ?? ""}</span>`).join("");
          el.append(badges);
        });
        ctx.board.el.addEventListener("placing", (e) => {
          for (const b of panel.querySelectorAll(".cg-equip button")) b.classList.toggle("active", b.dataset.item === e.detail);
        });
      },
      update(state) {
        const roles = roleTable(state.roles);
        ctx.board.setObjects(
          (state.boxes ?? []).map((b) => ({
            square: b.square,
            className: "loot-box",
            html: boxSvg(b.hits),
            title: `Loot box on ${b.square}: ${b.hits} of 3 hits (a queen opens it at once)`,
          })),
        );
        for (const color of ["white", "black"]) {
          const inv = state.inventory?.[color] ?? { pieces: [], items: [] };
          const el = bars[color];
          el.replaceChildren();
          for (const [letter, count] of inv.pieces ?? []) {
            const chip = document.createElement("span");
            chip.className = "cg-inv-chip";
            chip.title = `${count} ${nameOf(roles, letter).toLowerCase()} to place for free`;
            chip.append(pieceElement(kindOf(roles, letter), color, "cg-inv-piece"), text("span", "n", `\u00d7${count}`));
            el.append(chip);
          }
          for (const [item, count] of inv.items ?? []) {
            const chip = document.createElement("span");
            chip.className = "cg-inv-chip";
            chip.title = `${count} ${ITEM_NAMES[item] ?? item}`;
            chip.innerHTML = `<span class="cg-inv-item">${LOOT_ICONS[item] ?? ""}</span>`;
            chip.append(text("span", "n", `\u00d7${count}`));
            el.append(chip);
          }
        }
        const next = panel.querySelector(".cg-loot-next");
        next.textContent =
          state.countdown === undefined || state.countdown === null
            ? ""
            : `Next box in ${state.countdown} round${state.countdown === 1 ? "" : "s"} (ranks 4\u20135).`;
        const opened = panel.querySelector(".cg-loot-opened");
        opened.textContent = (state.opened ?? [])
          .map((o) => `${colorName(o.by)} opened the box on ${o.square}: ${contentsText(o.contents, roles)}!`)
          .join(" ");
        this.drawEquips(state, roles);
      },
      drawEquips(state, roles) {
        const box = panel.querySelector(".cg-equip");
        box.replaceChildren();
        // What the side to move owns, each item with its equip cost; the ones it may equip now
        // are buttons (click, then a lit piece).
        const owned = state.inventory?.[state.side]?.items ?? [];
        if (state.status !== "ongoing" || owned.length === 0) return;
        const live = state.interactive !== false;
        const byItem = new Map();
        for (const text of live ? (state.equips ?? []) : []) {
          const a = parseAction(text);
          if (!a || a.type !== "equip") continue;
          const targets = byItem.get(a.item) ?? new Map();
          const options = targets.get(a.square) ?? [];
          options.push({
            text,
            kind: a.letter ? kindOf(roles, a.letter) : null,
            label: a.letter ? `${ITEM_NAMES[a.item] ?? a.item}: becomes a ${nameOf(roles, a.letter).toLowerCase()}` : text,
          });
          targets.set(a.square, options);
          byItem.set(a.item, targets);
        }
        const gold = Number(state.gold?.[state.side] ?? 0);
        box.append(text("p", "cg-equip-title", byItem.size ? `${colorName(state.side)} may equip before moving:` : `${colorName(state.side)}\u2019s items:`));
        for (const [item, count] of owned) {
          const name = ITEM_NAMES[item] ?? item;
          const cost = ITEM_COSTS[item];
          const targets = byItem.get(item);
          const button = document.createElement("button");
          button.type = "button";
          button.dataset.item = item;
          button.innerHTML = `<span class="cg-inv-item">${LOOT_ICONS[item] ?? ""}</span>`;
          button.append(text("span", "cg-equip-name", count > 1 ? `${name} \u00d7${count}` : name));
          if (cost !== undefined) button.append(text("span", "cost", formatGold(cost)));
          const price = cost === undefined ? "" : ` for ${formatGold(cost)} gold`;
          if (targets) {
            button.title = `Equip a ${name}${price}: click it, then a lit piece`;
            button.addEventListener("click", () => {
              if (ctx.board.placing === item) ctx.board.cancel();
              else ctx.board.beginTargets(item, targets);
            });
          } else {
            button.disabled = true;
            const why = !live ? "" : cost !== undefined && gold < cost ? `: ${formatGold(gold)} gold is not enough` : ": no piece can take it now";
            button.title = `${name}${price}${why}`;
          }
          button.setAttribute("aria-label", button.title);
          box.append(button);
        }
      },
    };
  },
};

function text(tag, className, content) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  el.textContent = content;
  return el;
}
