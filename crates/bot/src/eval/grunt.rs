//! The evaluation of `grunt`: the chess terms plus the XP economy.
//!
//! - XP is worth what it buys: a rung of the promotion ladder or a mustered grunt gains about
//!   20 to 60 centipawns per XP, so an XP counts [`XP_CP`] (a little less than the cheapest
//!   purchase gains, so the bot spends it when a purchase is available), less beyond
//!   [`XP_RICH`] (one cannot spend it all at once).
//! - A capture earns XP by the victim's type and gives the loser one: [`Evaluator::material_gain`]
//!   counts both, and a promotion in place gains the rung less its price.
//! - A pawn waiting on the last rank becomes a grunt for 3 XP: worth part of that rung.
//! - Mustering needs fewer than 10 pieces: XP of a side that can neither muster nor promote
//!   anything is worth less.

use core::fmt;

use chessgold_engine::action::MoveKind;
use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::geometry::{Board8x8, Geometry};
use chessgold_engine::pieces::{MAX_ROLES, Role};
use chessgold_engine::variants::grunt::{CAPTURE_XP, CONSOLATION_XP, Grunt, LADDER, MUSTER_LIMIT};
use chessgold_engine::{Color, Move, Position};

use super::chess::ChessEval;
use super::{Evaluator, MATE_BOUND};

/// Centipawns per XP, up to [`XP_RICH`].
pub const XP_CP: i32 = 20;
/// XP beyond which each point counts only half.
const XP_RICH: i32 = 12;
/// Role indices of Grunt Chess (P N B R Q K G).
const PAWN: usize = 0;
const GRUNT: usize = 6;

/// The worth of `xp` experience points.
pub(crate) fn xp_value(xp: u32) -> i32 {
    let xp = xp.min(1000) as i32;
    XP_CP * xp.min(XP_RICH) + XP_CP / 2 * (xp - XP_RICH).max(0)
}

/// The evaluator of `grunt`.
pub struct GruntEval {
    chess: ChessEval<Grunt>,
}

impl fmt::Debug for GruntEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GruntEval").finish_non_exhaustive()
    }
}

impl Default for GruntEval {
    fn default() -> Self {
        GruntEval::new()
    }
}

impl GruntEval {
    /// A new evaluator.
    pub fn new() -> GruntEval {
        GruntEval { chess: ChessEval::new() }
    }

    fn value(&self, role: usize) -> i32 {
        self.chess.value_mg(role)
    }
}

impl Evaluator<Grunt> for GruntEval {
    fn evaluate(&self, pos: &Position<Grunt>) -> i32 {
        let e = pos.ext();
        // XP still to be spent on pieces keeps the game a middle game for longer.
        let extra_phase = 8 + ((e.xp[0] + e.xp[1]) / 4).min(8) as i32;
        let mut info = self.chess.breakdown(pos, extra_phase);
        let board = pos.board();
        let t = Board8x8::tables();
        for color in Color::ALL {
            let c = color.index();
            let xp = e.xp[c];
            let own = board.by_color(color);
            // XP that can buy nothing (no piece on the ladder, no room to muster) is worth less.
            let can_muster = own.count() < MUSTER_LIMIT;
            let can_promote = LADDER.iter().any(|(from, _, _)| board.pieces(color, *from).any());
            let mut worth = xp_value(xp);
            if !can_muster && !can_promote {
                worth /= 3;
            }
            let last = t.rank[if color == Color::White { 7 } else { 0 }];
            let waiting = (board.pieces(color, PAWN) & last).count() as i32;
            let rung = (self.value(GRUNT) - self.value(PAWN)) * if xp >= 3 { 2 } else { 1 } / 3;
            info.mg[c] += worth + waiting * rung;
            info.eg[c] += worth + waiting * rung;
        }
        info.blend(pos.turn()).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        if role.idx() < MAX_ROLES { self.value(role.idx()) } else { 0 }
    }

    fn material_gain(&self, pos: &Position<Grunt>, mv: Move) -> i32 {
        match mv.kind {
            MoveKind::Normal | MoveKind::EnPassant => {
                let victim = if mv.kind == MoveKind::EnPassant {
                    Some(PAWN)
                } else {
                    pos.board().piece_at(mv.to).filter(|p| p.color != pos.turn()).map(|p| p.role.idx())
                };
                victim.map_or(0, |v| {
                    let earned = CAPTURE_XP.get(v).copied().unwrap_or(0);
                    self.value(v) + XP_CP * (earned as i32 - CONSOLATION_XP as i32)
                })
            }
            MoveKind::PromoteInPlace => {
                let from = pos.board().role_at(mv.to).map_or(PAWN, |r| r.idx());
                let cost = LADDER
                    .iter()
                    .find(|(f, t, _)| *f == from && *t == mv.role.idx())
                    .map_or(0, |(_, _, xp)| *xp as i32);
                self.value(mv.role.idx()) - self.value(from) - XP_CP * cost
            }
            _ => 0,
        }
    }
}
