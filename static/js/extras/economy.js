// Gold: both players' treasuries with the income, shown in the player bars.

import { formatGold } from "../format.js";

export const economy = {
  id: "economy",
  applies: (state) => state.gold !== undefined && state.gold !== null,
  create() {
    const els = {};
    return {
      id: "economy",
      mount(ctx) {
        for (const color of ["white", "black"]) {
          const box = document.createElement("span");
          box.className = "cg-gold";
          box.innerHTML = `<span class="coin" aria-hidden="true"></span><span class="amount" data-gold="${color}"></span><span class="income"></span><span class="delta"></span>`;
          box.title = `${color === "white" ? "White" : "Black"}'s gold`;
          ctx.playerBar(color).querySelector(".extras").append(box);
          els[color] = box;
        }
      },
      update(state, previous) {
        for (const color of ["white", "black"]) {
          const box = els[color];
          const value = state.gold?.[color] ?? 0;
          box.querySelector(".amount").textContent = formatGold(value);
          box.querySelector(".income").textContent = state.income ? `+${formatGold(state.income)}/turn` : "";
          const before = previous?.gold?.[color];
          const delta = box.querySelector(".delta");
          if (before !== undefined && before !== value) {
            const d = value - before;
            delta.textContent = d > 0 ? `+${formatGold(d)}` : `\u2212${formatGold(-d)}`;
            delta.className = `delta ${d > 0 ? "up" : "down"}`;
            void delta.offsetWidth; // restart the fade
            delta.classList.add("show");
          } else {
            delta.className = "delta";
            delta.textContent = "";
          }
        }
      },
    };
  },
};
