// Piece images: one SVG per platform-wide piece kind and colour, `static/pieces/{kind}-{color}.svg`.
// The server also serves them together as one sprite, `static/pieces.svg`, with a view per image
// (`pieces.svg#king-white`): a board loads all its pieces with one request.

let base = null;

/** Changes where the piece images are served from (for pages mounted elsewhere): one file each. */
export function setPieceBase(url) {
  base = url.replace(/\/$/, "");
}

/** A static URL as the page's import map gives it: content-hashed, cached for a year. */
function hashed(url) {
  return import.meta.resolve ? import.meta.resolve(url) : url;
}

/** The image URL of a piece kind (`knight`, `goldrook`, ...) in a colour (`white`/`black`). */
export function pieceUrl(kind, color) {
  if (base !== null) return `${base}/${kind}-${color}.svg`;
  return `${hashed("/static/pieces.svg")}#${kind}-${color}`;
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
