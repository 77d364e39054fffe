// Display helpers shared by the views.

/** Gold as the rules show it: whole numbers, or with a single `.5`. */
export function formatGold(value) {
  const n = Number(value);
  if (!Number.isFinite(n)) return "0";
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

// Words for every reason a game ends with (docs/api.md, "End reasons"; src/game/reason.rs): the
// rule book's names, hyphenated. A test of the server fails when a reason lacks words here.
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
  "timeout-draw": "Time out, but the opponent could not have won",
  abandoned: "Game abandoned",
  "abandoned-draw": "Draw: the opponent left",
  agreement: "Draw by agreement",
  aborted: "Game aborted",
  "no-start": "No first move in time",
};

/** A readable name for a game-end reason code. */
export function reasonText(reason, status) {
  if (reason && REASONS[reason]) return REASONS[reason];
  if (reason) return reason.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase());
  if (status && status !== "ongoing") return status.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  return "";
}

// Words for every refusal code of a game (docs/api.md, "Refusal codes"; src/game/refusal.rs).
// The server's own sentence names the particulars and is shown when there is one; these words
// stand in when a refusal comes without one. A test of the server fails when a code lacks words here.
const REFUSALS = {
  malformed: "The message could not be read.",
  unknown_type: "The server does not know this message.",
  too_large: "The message is too large.",
  rate_limited: "Too many messages: wait a moment.",
  not_found: "There is no such game.",
  unavailable: "The server is busy: try again.",
  not_a_player: "Only the players can do that.",
  not_started: "The game waits for an opponent.",
  not_your_turn: "It is your opponent\u2019s turn.",
  stale: "The game changed meanwhile.",
  malformed_action: "That is not an action.",
  illegal_action: "That action is not legal now.",
  game_over: "The game is over.",
  abort_too_late: "Both sides have moved: resign instead.",
  no_offer: "There is no offer to answer.",
  rated_no_takeback: "Rated games have no takebacks.",
  nothing_to_take_back: "There is nothing to take back.",
  rematch_too_early: "The game is not over yet.",
  rematch_exists: "The rematch exists already.",
  no_opponent: "The game had no opponent.",
  claim_too_early: "Your opponent has not been away long enough.",
  not_waiting: "The game is not waiting for an opponent.",
  seats_taken: "Both seats are taken.",
  already_seated: "You already play in this game.",
  wrong_chat_room: "You cannot write in this chat.",
  chat_empty: "Type something first.",
  chat_too_long: "The line is too long.",
  chat_flood: "Slow down: too many lines.",
  chat_timed_out: "You are timed out of the chat for now.",
  play_banned: "You left or did not start too many games lately: you cannot play for a while.",
};

/** What to show for a refusal: the server's sentence, else the words of its code. */
export function refusalText(code, message, fallback = "The server refused.") {
  if (message) return message;
  return REFUSALS[code] ?? fallback;
}

/**
 * What the game page says about the server's `service` message (docs/api.md): while the database
 * is unavailable, moves cannot be saved and no clock is charged; once it is back, play resumes.
 * `since` is the server's RFC 3339 time of the outage's start.
 */
export function serviceText(available, since) {
  if (available) return "The server is back: play resumes.";
  const at = since ? new Date(since) : null;
  const when = at && !Number.isNaN(at.getTime()) ? ` since ${at.toLocaleTimeString()}` : "";
  return `The server cannot save moves${when}. The clocks are stopped; play resumes as soon as it is back.`;
}

/** "White" / "Black". */
export function colorName(color) {
  return color === "white" ? "White" : color === "black" ? "Black" : String(color);
}

/** The score text of a finished game: 1-0, 0-1 or ½-½. */
export function scoreText(winner) {
  return winner === "white" ? "1\u20130" : winner === "black" ? "0\u20131" : "\u00bd\u2013\u00bd";
}
