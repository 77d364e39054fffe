//! The Chess Gold family's evaluation: the chess terms plus the economy.
//!
//! - Gold in the treasury is worth what it can buy, a little less than the pieces themselves
//!   (a purchase costs a turn and is limited to one's own zone).
//! - The side to move's gold already includes this turn's income; the opponent's will grow by
//!   the same amount before it moves, so the difference is judged after that income.
//! - King safety against placements: squares in the enemy's placement zone from which a piece
//!   the enemy can afford would give check, above all those the king's side does not guard.
//! - Waiting pawns on the last rank are nearly queens (one gold and one turn away).
//! - Conversions (`conqueror`, `conqueror-gold`) double the worth of a capture (in the move
//!   ordering, see [`Evaluator::material_gain`]); a side down to a single piece risks losing at
//!   once.
//! - `sandbox`: placements are free, so the threat of a placement is always there; each free
//!   place under the cap of 15 pieces is worth a little.

use core::fmt;

use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::geometry::{Board8x8, Geometry};
use chessgold_engine::pieces::{MAX_ROLES, PieceKind, Role};
use chessgold_engine::variants::gold::{COST, Family, INCOME, PROMOTION_FEE, SANDBOX_CAP};
use chessgold_engine::{Color, Position, Variant};

use super::chess::{ChessEval, attacks, kind_value};
use super::{Evaluator, MATE_BOUND};

/// Centipawns per half gold, for the first eight gold (a queen's price).
pub(crate) const GOLD_CP: i32 = 38;
/// Centipawns per half gold beyond eight gold.
const GOLD_CP_EXTRA: i32 = 25;

/// Penalty weights for a checking placement of P, N, B, R, Q.
pub(crate) const PLACE_CHECK: [i32; 5] = [12, 30, 24, 34, 55];

/// The evaluator of the Chess Gold family (also used by `conqueror`, which has no economy).
pub struct GoldEval<V: Family> {
    chess: ChessEval<V>,
}

impl<V: Family> fmt::Debug for GoldEval<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GoldEval").field("variant", &V::ID).finish_non_exhaustive()
    }
}

impl<V: Family> Default for GoldEval<V> {
    fn default() -> Self {
        GoldEval::new()
    }
}

/// Rank masks of the family's 8x8 board relative to `color`.
fn ranks(color: Color, from: u32, to: u32) -> u64 {
    let t = Board8x8::tables();
    (from..=to).fold(0, |acc, r| acc | t.rank[if color == Color::White { r } else { 7 - r } as usize])
}

/// Where `color` may place a piece of FIDE `role` (the rule book's zones), before emptiness:
/// its first three ranks (pawns its second and third), or anywhere (pawns ranks 2-7).
pub(crate) fn zone(role: usize, color: Color, anywhere: bool) -> u64 {
    let pawn = role == 0;
    if anywhere {
        if pawn { ranks(color, 1, 6) } else { Board8x8::tables().all }
    } else if pawn {
        ranks(color, 1, 2)
    } else {
        ranks(color, 0, 2)
    }
}

/// The danger to `defender`'s king from pieces the enemy could place with a check: for each
/// FIDE piece the enemy can afford (`enemy_gold` half-gold units at its next turn, `None` for
/// free placements), the squares of its zone from which it would check, above all those the
/// defender does not guard.
pub(crate) fn placement_danger<V: Variant<Geo = Board8x8>>(
    pos: &Position<V>,
    defender: Color,
    enemy_gold: Option<u32>,
    anywhere: bool,
    attacked: &[u64; 2],
) -> i32 {
    let Some(king) = pos.king(defender) else { return 0 };
    let enemy = !defender;
    let to_move = pos.turn() == enemy;
    let occ = pos.occupied();
    let empty = !occ & Board8x8::tables().all;
    let mut danger = 0;
    for role in 0..5usize {
        let affordable_now = enemy_gold.is_none_or(|g| g >= COST[role]);
        let affordable_soon = enemy_gold.is_none_or(|g| g + 2 * INCOME >= COST[role]);
        if !affordable_soon {
            continue;
        }
        // The squares a piece of this role would give check from (pawns reversed).
        let from = attacks::<V>(role, defender, king, occ) & zone(role, enemy, anywhere) & empty;
        if from == 0 {
            continue;
        }
        let safe = from & (!attacked[defender.index()] | attacked[enemy.index()]);
        let w = PLACE_CHECK[role];
        let mut d = w * safe.count().min(3) as i32 + w / 4 * (from & !safe).count().min(3) as i32;
        if !affordable_now {
            d /= 3;
        }
        danger += d;
    }
    if to_move { danger * 3 / 2 } else { danger }
}

/// The worth of `half` half-gold units in the treasury.
pub(crate) fn gold_value(half: i32) -> i32 {
    GOLD_CP * half.min(16) + GOLD_CP_EXTRA * (half - 16).max(0)
}

impl<V: Family> GoldEval<V> {
    /// A new evaluator.
    pub fn new() -> GoldEval<V> {
        GoldEval { chess: ChessEval::new() }
    }

    fn non_king_count(pos: &Position<V>, color: Color) -> u32 {
        (pos.board().by_color(color) & !pos.board().by_role(V::KING)).count()
    }
}

impl<V: Family> Evaluator<V> for GoldEval<V> {
    fn evaluate(&self, pos: &Position<V>) -> i32 {
        let us = pos.turn();
        let e = *pos.ext();
        let mut extra_phase = 0;
        if V::GOLD {
            extra_phase += ((e.gold[0] + e.gold[1]) / 4) as i32 + 6;
        } else if V::PLACEMENT {
            extra_phase += 16;
        }
        let mut info = self.chess.breakdown(pos, extra_phase);
        let mut score = 0;
        if V::GOLD {
            let mut g = [e.gold[0] as i32, e.gold[1] as i32];
            g[us.index()] -= INCOME as i32;
            score += gold_value(g[us.index()]) - gold_value(g[1 - us.index()]);
        }
        if V::WAITING_PAWNS {
            let (qm, _) = kind_value(PieceKind::Queen);
            let (pm, _) = kind_value(PieceKind::Pawn);
            let bonus = qm - pm - 2 * GOLD_CP * PROMOTION_FEE as i32 - 120;
            for color in Color::ALL {
                let waiting = pos.board().pieces(color, V::PAWN) & ranks(color, 7, 7);
                let n = waiting.count() as i32 * bonus;
                info.mg[color.index()] += n;
                info.eg[color.index()] += n;
            }
        }
        if V::PLACEMENT {
            for color in Color::ALL {
                let enemy = !color;
                let banned = V::PLACEMENT_BAN && pos.turn() == enemy && e.placed_last[enemy.index()];
                let capped = V::ANYWHERE && Self::non_king_count(pos, enemy) >= SANDBOX_CAP;
                let d = if banned || capped {
                    0
                } else {
                    let income = if pos.turn() == enemy { 0 } else { INCOME };
                    let gold = V::GOLD.then_some(e.gold[enemy.index()] + income);
                    placement_danger(pos, color, gold, V::ANYWHERE, &info.attacked)
                };
                info.mg[color.index()] -= d;
                info.eg[color.index()] -= d;
            }
        }
        if V::ANYWHERE {
            for color in Color::ALL {
                let free = SANDBOX_CAP.saturating_sub(Self::non_king_count(pos, color)) as i32;
                info.mg[color.index()] += 3 * free;
                info.eg[color.index()] += 3 * free;
            }
        }
        if V::CONVERSION {
            // A single piece besides the king: losing it loses the game.
            for color in Color::ALL {
                let c = color.index();
                let own = pos.board().by_color(color) & !pos.board().by_role(V::KING);
                if own.count() == 1 {
                    let hit = (own & info.attacked[1 - c]).any();
                    let p = if hit { 250 } else { 60 };
                    info.mg[c] -= p;
                    info.eg[c] -= p;
                }
            }
        }
        if V::PLACEMENT_BAN && e.placed_last[us.index()] {
            score -= 15;
        }
        (score + info.blend(us)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        if role.idx() < MAX_ROLES { self.chess.value_mg(role.idx()) } else { 0 }
    }
}

impl<V: Variant> Evaluator<V> for ChessEval<V> {
    fn evaluate(&self, pos: &Position<V>) -> i32 {
        ChessEval::evaluate(self, pos).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        if role.idx() < MAX_ROLES { self.value_mg(role.idx()) } else { 0 }
    }
}
