//! The evaluation of `chessception`: the chess terms with hit points, auras and area damage.
//!
//! - A damaged piece is worth less (closer to being killed), up to [`HURT_PERCENT`] of its
//!   value at 0 HP; a damaged king costs much more, rising steeply, since at 0 HP the game is
//!   lost.
//! - Defensive aura: a shielded piece (next to its king) takes half damage: a small bonus.
//! - Offensive aura: a piece next to a friendly knight attacks with doubled damage: a bonus
//!   per such neighbour.
//! - Area damage: bishops, rooks and queens also hit the enemies around their target, so an
//!   attacked enemy piece with enemy neighbours is worth a little to the attacker; an attacked
//!   piece low enough to be killed in one hit is a threat, worth more to the side to move.
//! - [`Evaluator::material_gain`] estimates an attack the way the rule book resolves it:
//!   primary damage doubled per knight stack and halved by a shield, area damage on the
//!   enemy pieces around the target, the pawns' counter-attacks on the attacker. Killing the
//!   king is worth the game.

use core::fmt;

use chessgold_engine::action::MoveKind;
use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::geometry::{Board8x8, Geometry};
use chessgold_engine::pieces::{MAX_ROLES, Role};
use chessgold_engine::variants::chessception::{COUNTER_DAMAGE, Chessception, DAMAGE, MAX_HP};
use chessgold_engine::{Color, Move, Position, Square};

use super::chess::ChessEval;
use super::{Evaluator, MATE_BOUND};

const PAWN: usize = 0;
const KNIGHT: usize = 1;
const BISHOP: usize = 2;
const ROOK: usize = 3;
const QUEEN: usize = 4;
const KING: usize = 5;

/// Share of a piece's value lost at (nearly) 0 HP, percent.
pub const HURT_PERCENT: i32 = 60;
/// The king's penalty by HP lost (0 to 4).
const KING_HURT: [i32; 5] = [0, 120, 320, 700, 2_000];
/// The value used for killing the king (ordering and pruning).
const KING_VALUE: i32 = 5_000;

/// The evaluator of `chessception`.
pub struct ChessceptionEval {
    chess: ChessEval<Chessception>,
}

impl fmt::Debug for ChessceptionEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChessceptionEval").finish_non_exhaustive()
    }
}

impl Default for ChessceptionEval {
    fn default() -> Self {
        ChessceptionEval::new()
    }
}

/// The squares that take area damage from an attack by `role` moving from `from` onto
/// `target` (the rule book's shapes: a bishop's four diagonal neighbours, a rook's two
/// neighbours across its line, a queen's three-square cone beyond the target).
fn area(role: usize, from: Square, target: Square) -> u64 {
    let (tf, tr) = (Board8x8::file_of(target) as i32, Board8x8::rank_of(target) as i32);
    let dx = (tf - Board8x8::file_of(from) as i32).signum();
    let dy = (tr - Board8x8::rank_of(from) as i32).signum();
    let mut out = 0u64;
    let mut add = |f: i32, r: i32| {
        if let Some(s) = Board8x8::square(f, r) {
            out |= u64::from_square(s);
        }
    };
    match role {
        BISHOP => {
            for (a, b) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                add(tf + a, tr + b);
            }
        }
        ROOK => {
            if dx == 0 {
                add(tf + 1, tr);
                add(tf - 1, tr);
            } else {
                add(tf, tr + 1);
                add(tf, tr - 1);
            }
        }
        QUEEN => {
            if dx == 0 || dy == 0 {
                let (bf, br) = (tf + dx, tr + dy);
                add(bf, br);
                add(bf + dy.abs(), br + dx.abs());
                add(bf - dy.abs(), br - dx.abs());
            } else {
                add(tf + dx, tr + dy);
                add(tf + dx, tr);
                add(tf, tr + dy);
            }
        }
        _ => {}
    }
    out
}

impl ChessceptionEval {
    /// A new evaluator.
    pub fn new() -> ChessceptionEval {
        ChessceptionEval { chess: ChessEval::new() }
    }

    fn value(&self, role: usize) -> i32 {
        if role == KING { KING_VALUE } else { self.chess.value_mg(role) }
    }

    fn shielded(pos: &Position<Chessception>, sq: Square) -> bool {
        pos.board().role_at(sq).is_some_and(|r| r.idx() == KING) || pos.ext().shields.contains(sq)
    }

    /// What losing `dmg` HP is worth to the piece of `role` on `sq`: its value if it dies,
    /// otherwise its share of the value lost.
    fn damage_worth(&self, pos: &Position<Chessception>, sq: Square, role: usize, dmg: u32) -> i32 {
        let hp = u32::from(pos.ext().hp[sq.idx()]);
        let max = i32::from(MAX_HP[role.min(KING)]).max(1);
        if dmg >= hp {
            return self.value(role);
        }
        if role == KING {
            let lost = |h: u32| KING_HURT[(max - h as i32).clamp(0, 4) as usize];
            return lost(hp - dmg) - lost(hp);
        }
        self.value(role) * HURT_PERCENT * dmg as i32 / (100 * max)
    }
}

impl Evaluator<Chessception> for ChessceptionEval {
    fn evaluate(&self, pos: &Position<Chessception>) -> i32 {
        let us = pos.turn();
        let mut info = self.chess.breakdown(pos, 0);
        let board = pos.board();
        let e = pos.ext();
        let knights = [board.pieces(Color::White, KNIGHT), board.pieces(Color::Black, KNIGHT)];
        let mut threat = [0i32; 2];
        for (sq, piece) in board.iter() {
            let c = piece.color.index();
            let role = piece.role.idx().min(KING);
            let max = i32::from(MAX_HP[role]);
            let hp = i32::from(e.hp[sq.idx()]);
            let zone = self.chess.king_zone(sq);
            let mut v = 0;
            if role == KING {
                v -= KING_HURT[(max - hp).clamp(0, 4) as usize];
            } else {
                v -= self.chess.value_mg(role) * HURT_PERCENT * (max - hp) / (100 * max.max(1));
                if e.shields.contains(sq) {
                    v += 8 + self.chess.value_mg(role) / 40;
                }
            }
            // Offensive aura: friendly knights around (a knight counts itself).
            if role != PAWN {
                v += 10 * (zone & knights[c]).count().min(2) as i32;
            }
            info.mg[c] += v;
            info.eg[c] += v;
            // Threats against this piece from the other side.
            if info.attacked[1 - c].contains(sq) {
                let enemy_around = (zone & board.by_color(piece.color)).count() as i32 - 1;
                let mut t = 4 * enemy_around.clamp(0, 3);
                let shield = Self::shielded(pos, sq);
                let weakest_hit = if shield { 1 } else { 2 };
                if hp <= weakest_hit {
                    t += if role == KING { KING_VALUE / 4 } else { self.chess.value_mg(role) / 3 };
                } else if role == KING {
                    t += 60;
                }
                threat[1 - c] += t;
            }
        }
        let mut score = info.blend(us);
        // The side to move strikes first.
        score += threat[us.index()] - threat[(!us).index()] / 3;
        score.clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        if role.idx() < MAX_ROLES { self.value(role.idx()) } else { 0 }
    }

    fn material_gain(&self, pos: &Position<Chessception>, mv: Move) -> i32 {
        let board = pos.board();
        let us = pos.turn();
        let promotion = if mv.kind == MoveKind::Promotion {
            self.chess.value_mg(mv.role.idx()) - self.chess.value_mg(PAWN)
        } else {
            0
        };
        let target = match mv.kind {
            MoveKind::EnPassant => Board8x8::square(Board8x8::file_of(mv.to) as i32, Board8x8::rank_of(mv.from) as i32),
            MoveKind::Normal | MoveKind::Promotion => Some(mv.to),
            _ => None,
        };
        let Some(target) = target else { return promotion };
        let Some(victim) = board.piece_at(target).filter(|p| p.color != us) else { return promotion };
        let Some(attacker) = board.role_at(mv.from).map(|r| r.idx().min(KING)) else { return 0 };
        let stacks = (self.chess.king_zone(mv.from) & board.pieces(us, KNIGHT)).count().min(4);
        let dealt = |sq: Square, base: u8| {
            let d = u32::from(base) << stacks;
            if Self::shielded(pos, sq) { d / 2 } else { d }
        };
        let victim_role = victim.role.idx().min(KING);
        let primary = dealt(target, DAMAGE[attacker]);
        let mut gain = self.damage_worth(pos, target, victim_role, primary);
        let kills_target = primary >= u32::from(pos.ext().hp[target.idx()]);
        let splash = match attacker {
            BISHOP | ROOK => 1,
            QUEEN => 2,
            _ => 0,
        };
        let mut hurt_pawns = u32::from(victim_role == PAWN && !kills_target);
        if splash > 0 {
            for sq in (area(attacker, mv.from, target) & board.by_color(!us)).squares() {
                let Some(r) = board.role_at(sq).map(|r| r.idx().min(KING)) else { continue };
                let d = dealt(sq, splash);
                gain += self.damage_worth(pos, sq, r, d);
                if r == PAWN && d > 0 && d < u32::from(pos.ext().hp[sq.idx()]) {
                    hurt_pawns += 1;
                }
            }
        }
        if hurt_pawns > 0 && gain < KING_VALUE {
            let counter = if Self::shielded(pos, mv.from) { COUNTER_DAMAGE / 2 } else { COUNTER_DAMAGE };
            gain -= self.damage_worth(pos, mv.from, attacker, u32::from(counter) * hurt_pawns);
        }
        gain + if kills_target { promotion } else { 0 }
    }
}
