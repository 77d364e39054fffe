//! The evaluation of `lootbox`: the gold modes' terms plus what a player holds in reserve and
//! what the boxes may give.
//!
//! - Looted pieces in the inventory are placed for free: worth most of a piece.
//! - Items are worth a little (they cost gold to equip and their effect is narrow).
//! - A box is worth its expected contents (about two pawns) to whoever opens it: pieces next
//!   to it, and the hits it already took, count for their side.
//! - The search never sees the game's seed: [`BotVariant::hide_secrets`] gives the position a
//!   stand-in, so boxes opened during the search hold made-up contents.

use core::fmt;

use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::pieces::{MAX_ROLES, PieceKind, Role};
use chessgold_engine::variants::gold::INCOME;
use chessgold_engine::variants::lootbox::LootBox;
use chessgold_engine::{Color, Position};

use super::chess::{ChessEval, kind_value};
use super::gold::{GOLD_CP, gold_value, placement_danger};
use super::{Evaluator, MATE_BOUND};

/// Expected worth of a box's contents, centipawns.
const BOX_VALUE: i32 = 200;
/// Worth of an item in the inventory by item code (crossbow, shell, crown).
const ITEM_VALUE: [i32; 3] = [40, 40, 90];

/// The evaluator of `lootbox`.
pub struct LootEval {
    chess: ChessEval<LootBox>,
}

impl fmt::Debug for LootEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LootEval").finish_non_exhaustive()
    }
}

impl Default for LootEval {
    fn default() -> Self {
        LootEval::new()
    }
}

impl LootEval {
    /// A new evaluator.
    pub fn new() -> LootEval {
        LootEval { chess: ChessEval::new() }
    }
}

impl Evaluator<LootBox> for LootEval {
    fn evaluate(&self, pos: &Position<LootBox>) -> i32 {
        let us = pos.turn();
        let e = pos.ext();
        let extra_phase = ((e.gold[0] + e.gold[1]) / 4) as i32 + 6;
        let mut info = self.chess.breakdown(pos, extra_phase);
        let mut g = [e.gold[0] as i32, e.gold[1] as i32];
        g[us.index()] -= INCOME as i32;
        let mut score = gold_value(g[us.index()]) - gold_value(g[1 - us.index()]);
        let (qm, _) = kind_value(PieceKind::Queen);
        let (pm, _) = kind_value(PieceKind::Pawn);
        let waiting_bonus = qm - pm - 4 * GOLD_CP - 120;
        let pawn = LootBox::PAWN_ROLE;
        for color in Color::ALL {
            let c = color.index();
            let mut extra = 0;
            let inv = &e.inventory[c];
            for (role, n) in inv.pieces.iter().enumerate() {
                let worth = if role == LootBox::KING_ROLE { 150 } else { self.chess.value_mg(role) * 85 / 100 };
                extra += i32::from(*n) * worth;
            }
            for (item, n) in inv.items.iter().enumerate() {
                extra += i32::from(*n) * ITEM_VALUE.get(item).copied().unwrap_or(0);
            }
            let last = if color == Color::White { 0xFF00_0000_0000_0000u64 } else { 0xFF };
            extra += (pos.board().pieces(color, pawn) & last).count() as i32 * waiting_bonus;
            info.mg[c] += extra;
            info.eg[c] += extra;
        }
        for color in Color::ALL {
            let enemy = !color;
            let gold = e.gold[enemy.index()] + if us == enemy { 0 } else { INCOME };
            let d = placement_danger(pos, color, Some(gold), false, &info.attacked);
            info.mg[color.index()] -= d;
            info.eg[color.index()] -= d;
        }
        for sq in e.boxes.squares() {
            let near = self.chess.king_zone(sq);
            let hits = i32::from(e.hits(sq));
            let ours = (near & pos.board().by_color(us)).count() as i32;
            let theirs = (near & pos.board().by_color(!us)).count() as i32;
            // The side with more pieces next to a box is likelier to open it.
            score += (ours - theirs).clamp(-2, 2) * BOX_VALUE * (1 + hits) / 12;
        }
        (score + info.blend(us)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        if role.idx() < MAX_ROLES { self.chess.value_mg(role.idx()) } else { 0 }
    }
}

/// Role indices of the FIDE table used by `lootbox`.
trait FideRoles {
    const PAWN_ROLE: usize;
    const KING_ROLE: usize;
}

impl FideRoles for LootBox {
    const PAWN_ROLE: usize = 0;
    const KING_ROLE: usize = 5;
}
