// Factories (Class Warfare Chess): each piece type's factory squares marked on the board, green
// while both are occupied (the type moves as in chess) and red when one is empty (the type moves
// like a pawn); the pieces of a stopped type wear a small pawn badge; the proletariat's moves
// left before the move limit; a list of the factories in the side panel.

import { colorName } from "../format.js";
import { kindOf, nameOf, pieceElement, pieceUrl, roleTable } from "../pieces.js";

export const factories = {
  id: "factories",
  applies: (state) => Array.isArray(state.factories),
  create() {
    let ctx = null;
    let panel = null;
    const counters = {};
    return {
      id: "factories",
      mount(c) {
        ctx = c;
        for (const color of ["white", "black"]) {
          const el = document.createElement("span");
          el.className = "cg-moves-left";
          el.dataset.owner = color;
          ctx.playerBar(color).querySelector(".extras").append(el);
          counters[color] = el;
        }
        panel = document.createElement("section");
        panel.className = "cg-factories";
        panel.innerHTML = `<h2>Factories</h2><ul class="cg-factory-list"></ul>
          <p class="cg-factory-help">A type moves as in chess while both of its factory squares are occupied; otherwise its pieces move like pawns.</p>`;
        ctx.sideSlot("shop").append(panel);
        ctx.board.addDecorator((el, piece, boardState) => {
          el.querySelector(".cg-stopped")?.remove();
          const factory = (boardState.snapshot?.factories ?? []).find((f) => f.piece === piece.piece.toUpperCase());
          if (!factory || factory.running) return;
          const badge = document.createElement("span");
          badge.className = "cg-stopped";
          badge.title = "its factory is stopped: moves like a pawn";
          badge.style.backgroundImage = `url("${pieceUrl("pawn", piece.color)}")`;
          el.append(badge);
          el.title += " (moves like a pawn)";
        });
      },
      update(state) {
        const roles = roleTable(state.roles);
        const owner = factoryOwner(state);
        const objects = [];
        for (const f of state.factories) {
          const name = nameOf(roles, f.piece);
          const kind = kindOf(roles, f.piece);
          for (const square of f.squares) {
            const empty = !state.pieces.some((p) => p.square === square);
            objects.push({
              square,
              className: `factory ${f.running ? "running" : "stopped"}${empty ? " empty" : ""}`,
              html: `<span class="factory-frame"></span><span class="factory-badge" data-piece="${f.piece}"><span class="factory-piece"></span><span class="factory-light"></span></span>`,
              title: `${name} factory (${f.squares.join(", ")}): ${f.running ? `running \u2014 ${plural(name)} move as in chess` : `stopped \u2014 ${plural(name)} move like pawns`}${empty ? "; this square is empty" : ""}`,
            });
          }
        }
        ctx.board.setObjects(objects);
        for (const el of ctx.board.objectsEl.querySelectorAll(".object.factory")) {
          const f = state.factories.find((x) => x.squares.includes(el.dataset.square));
          el.dataset.piece = f.piece;
          el.dataset.running = String(f.running);
          // Set through the DOM, not a style attribute: the site's CSP allows no inline styles.
          el.querySelector(".factory-piece").style.backgroundImage = `url('${pieceUrl(kindOf(roles, f.piece), owner)}')`;
        }

        const list = panel.querySelector(".cg-factory-list");
        list.replaceChildren(
          ...state.factories.map((f) => {
            const li = document.createElement("li");
            li.className = f.running ? "running" : "stopped";
            li.dataset.piece = f.piece;
            const name = nameOf(roles, f.piece);
            li.append(pieceElement(kindOf(roles, f.piece), owner, "cg-factory-piece"));
            const label = document.createElement("span");
            label.className = "label";
            label.textContent = `${plural(name)} \u00b7 ${f.squares.join(" ")}`;
            const status = document.createElement("span");
            status.className = "status";
            status.textContent = f.running ? "running" : "stopped";
            status.title = f.running ? "moves as in chess" : "moves like a pawn";
            li.append(label, status);
            return li;
          }),
        );

        // The move limit counts the proletariat's moves: it belongs to the side whose pieces have
        // no factory (the pawns).
        const proletariat = owner === "white" ? "black" : "white";
        for (const color of ["white", "black"]) {
          const el = counters[color];
          if (color === proletariat && state.moves_left !== undefined && state.moves_left !== null) {
            el.textContent = `${state.moves_left} moves left`;
            el.title = `${colorName(color)} (the proletariat) has ${state.moves_left} moves left to capture the king`;
            el.classList.toggle("low", state.moves_left <= 10);
          } else {
            el.textContent = "";
            el.title = "";
          }
        }
      },
    };
  },
};

/** The colour whose pieces the factories make: the side owning pieces of the factory types. */
function factoryOwner(state) {
  const letters = new Set(state.factories.map((f) => f.piece));
  const piece = state.pieces.find((p) => letters.has(p.piece.toUpperCase()));
  return piece?.color ?? "white";
}

function plural(name) {
  return `${name}s`;
}
