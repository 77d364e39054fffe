// A limit on the pieces a side may have on the board (sandbox): "pieces 3/15" in the player bars.

export const pieceCap = {
  id: "piece-cap",
  applies: (state) => state.piece_cap !== undefined && state.piece_cap !== null,
  create() {
    const els = {};
    return {
      id: "piece-cap",
      mount(ctx) {
        for (const color of ["white", "black"]) {
          const el = document.createElement("span");
          el.className = "cg-count";
          el.dataset.count = color;
          ctx.playerBar(color).querySelector(".extras").append(el);
          els[color] = el;
        }
      },
      update(state) {
        for (const color of ["white", "black"]) {
          const n = state.piece_count?.[color];
          els[color].textContent = n === undefined ? "" : `pieces ${n}/${state.piece_cap}`;
          els[color].classList.toggle("full", n >= state.piece_cap);
        }
      },
    };
  },
};
