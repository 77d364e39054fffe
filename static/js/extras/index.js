// Per-variant extras: everything a variant shows beyond the board, the move list and the status.
//
// An extra is an object with
//   id                      a stable name
//   applies(state)          true when the extra has something to show for this state
//   mount(ctx)              builds its elements once (ctx: see GameView.extraContext)
//   update(state, previous) redraws from a new state (previous is null on the first draw)
// Extras are chosen from what the server's snapshot carries (gold, shop, placements, ...), never
// from a hard-coded list of variant ids, so a new variant with the same features needs no code.

import { economy } from "./economy.js";
import { placement } from "./placement.js";
import { pieceCap } from "./piece-cap.js";
import { lootbox } from "./lootbox.js";
import { xp } from "./xp.js";
import { factories } from "./factories.js";
import { hitPoints } from "./hp.js";

/** Every extra, in display order. */
export const EXTRAS = [economy, xp, placement, lootbox, pieceCap, factories, hitPoints];

/** Makes fresh instances of the extras that apply to a state. */
export function extrasFor(state) {
  return EXTRAS.filter((extra) => extra.applies(state)).map((extra) => extra.create());
}
