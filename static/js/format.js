// Display helpers shared by the views.

/** Gold as the rules show it: whole numbers, or with a single `.5`. */
export function formatGold(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) return "0";
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

const REASONS = {
  checkmate: "Checkmate",
  stalemate: "Stalemate",
  repetition: "Threefold repetition",
  "no-progress": "No progress for 50 moves",
  "insufficient-material": "Insufficient material",
  conversion: "All pieces converted",
  "king-killed": "King killed",
  "king-captured": "King captured",
  "no-pawns": "No pawns left",
  "no-move": "No legal move",
  "move-limit": "Move limit reached",
  "ply-limit": "Ply limit reached",
  "kings-only": "Only kings left",
  "king-repeat": "King shuffle",
  resign: "Resignation",
  timeout: "Time out",
  abandoned: "Game abandoned",
  agreement: "Draw by agreement",
  aborted: "Game aborted",
  // Online play (docs/api.md): endings judged by the server rather than the rules.
  abort: "Game aborted",
  no_start: "No first move in time",
  flag: "Time out",
  flag_insufficient_material: "Time out, but the opponent could not have won",
  claim_draw: "Draw: the opponent left",
  threefold_repetition: "Threefold repetition",
};

/** A readable name for a game-end reason code. */
export function reasonText(reason, status) {
  if (reason && REASONS[reason]) return REASONS[reason];
  if (reason) return reason.replace(/[-_]/g, " ").replace(/^./, (c) => c.toUpperCase());
  if (status && status !== "ongoing") return status.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  return "";
}

/** "White" / "Black". */
export function colorName(color) {
  return color === "white" ? "White" : color === "black" ? "Black" : String(color);
}

/** The score text of a finished game: 1-0, 0-1 or ½-½. */
export function scoreText(winner) {
  return winner === "white" ? "1\u20130" : winner === "black" ? "0\u20131" : "\u00bd\u2013\u00bd";
}
