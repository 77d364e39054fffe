// Piece images: one SVG per platform-wide piece kind and colour, `static/pieces/{kind}-{color}.svg`.

let base = "/static/pieces";

/** Changes where the piece images are served from (for pages mounted elsewhere). */
export function setPieceBase(url) {
  base = url.replace(/\/$/, "");
}

/**
 * The image URL of a piece kind (`knight`, `goldrook`, ...) in a colour (`white`/`black`): the
 * content-hashed one the page's import map gives for it (cached for a year), else the plain one.
 */
export function pieceUrl(kind, color) {
  const url = `${base}/${kind}-${color}.svg`;
  return import.meta.resolve ? import.meta.resolve(url) : url;
}

/** A role lookup for a snapshot: letter -> {letter, kind, name}. */
export function roleTable(roles) {
  const table = new Map();
  for (const role of roles ?? []) table.set(role.letter, role);
  return table;
}

/** The kind of a piece letter in a role table, falling back to the FIDE names. */
export function kindOf(table, letter) {
  return table.get(letter.toUpperCase())?.kind ?? FIDE[letter.toUpperCase()] ?? "pawn";
}

/** The display name of a piece letter. */
export function nameOf(table, letter) {
  return table.get(letter.toUpperCase())?.name ?? letter.toUpperCase();
}

const FIDE = { P: "pawn", N: "knight", B: "bishop", R: "rook", Q: "queen", K: "king" };

/** Creates an element showing a piece image. */
export function pieceElement(kind, color, className = "piece") {
  const el = document.createElement("div");
  el.className = className;
  el.dataset.kind = kind;
  el.dataset.color = color;
  el.style.backgroundImage = `url("${pieceUrl(kind, color)}")`;
  return el;
}
