// Action notation (see docs/notation.md and the rule books): parsing only, never legality.
//
//   e2e4, e7e8q, e1g1    move (optional lower-case promotion letter)
//   e7e8                 move to the last rank without promoting (gold modes: the pawn waits)
//   d1d5/c6              move with a chosen landing square (chessception)
//   N@c3                 place a piece (bought, looted or mustered)
//   e8=Q                 promote a piece in place
//   crossbow@d4          equip an item (lootbox), crown@d4=R

const SQ = "([a-z][1-9][0-9]?)";
const MOVE = new RegExp(`^${SQ}${SQ}([a-z])?(?:/${SQ})?$`);
const DROP = new RegExp(`^([A-Z])@${SQ}$`);
const IN_PLACE = new RegExp(`^${SQ}=([A-Z])$`);
const EQUIP = new RegExp(`^([a-z]{2,})@${SQ}(?:=([A-Z]))?$`);

/**
 * Parses an action string into a plain object, or returns null for text that is no action.
 * @param {string} text
 * @returns {null | {type: "move", from: string, to: string, promo: string|null, landing: string|null, text: string}
 *   | {type: "drop", letter: string, square: string, text: string}
 *   | {type: "promote", square: string, letter: string, text: string}
 *   | {type: "equip", item: string, square: string, letter: string|null, text: string}}
 */
export function parseAction(text) {
  let m = MOVE.exec(text);
  if (m) return { type: "move", from: m[1], to: m[2], promo: m[3] ?? null, landing: m[4] ?? null, text };
  m = DROP.exec(text);
  if (m) return { type: "drop", letter: m[1], square: m[2], text };
  m = IN_PLACE.exec(text);
  if (m) return { type: "promote", square: m[1], letter: m[2], text };
  m = EQUIP.exec(text);
  if (m) return { type: "equip", item: m[1], square: m[2], letter: m[3] ?? null, text };
  return null;
}

/** The squares to highlight for the last action: where it came from and where it went. */
export function highlightSquares(text) {
  const a = text ? parseAction(text) : null;
  if (!a) return [];
  switch (a.type) {
    case "move":
      return a.landing && a.landing !== a.to ? [a.from, a.to, a.landing] : [a.from, a.to];
    case "drop":
    case "promote":
    case "equip":
      return [a.square];
  }
  return [];
}

/** File index (0-based) of a square name. */
export function fileOf(square) {
  return square.charCodeAt(0) - 97;
}

/** Rank index (0-based) of a square name. */
export function rankOf(square) {
  return Number(square.slice(1)) - 1;
}

/** The square name of a 0-based file and rank. */
export function squareName(file, rank) {
  return String.fromCharCode(97 + file) + String(rank + 1);
}

/**
 * Indexes a legal-action list for the board: moves by origin, placements by letter,
 * in-place promotions by square, equips by item. Only what the server listed is ever offered.
 */
export class LegalIndex {
  /** @param {string[]} legal */
  constructor(legal) {
    /** @type {Map<string, Array<ReturnType<typeof parseAction>>>} origin square -> moves */
    this.moves = new Map();
    /** @type {Map<string, string[]>} piece letter -> squares */
    this.drops = new Map();
    /** @type {Map<string, Array<{letter: string, text: string}>>} square -> in-place promotions */
    this.promotions = new Map();
    /** @type {Array<ReturnType<typeof parseAction>>} */
    this.equips = [];
    /** @type {string[]} text the client does not understand (still playable by typing) */
    this.unknown = [];
    this.all = new Set(legal);
    for (const text of legal) {
      const a = parseAction(text);
      if (!a) {
        this.unknown.push(text);
      } else if (a.type === "move") {
        push(this.moves, a.from, a);
      } else if (a.type === "drop") {
        push(this.drops, a.letter, a.square);
      } else if (a.type === "promote") {
        push(this.promotions, a.square, { letter: a.letter, text });
      } else {
        this.equips.push(a);
      }
    }
  }

  /** Destination squares of the piece on `from` (each once). */
  destinations(from) {
    return [...new Set((this.moves.get(from) ?? []).map((m) => m.to))];
  }

  /** Every legal move text from `from` to `to` (promotion choices, landing choices). */
  movesBetween(from, to) {
    return (this.moves.get(from) ?? []).filter((m) => m.to === to);
  }

  /** Whether the piece on `square` can do anything (move or promote in place). */
  canAct(square) {
    return this.moves.has(square) || this.promotions.has(square);
  }
}

function push(map, key, value) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
