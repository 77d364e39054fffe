//! The evaluation of `electrum`: the chess terms on the 9x9 board plus the mobility of the
//! fairy pieces.
//!
//! Most Electrum pieces move differently forwards and backwards (the Goldmitre and the
//! Silverwing slide only forwards, the Nitan and the Caman have extra forward leaps), so a
//! piece's worth depends on where it can still go. Each fairy piece earns a bonus per square
//! it reaches that is neither its own nor guarded by an enemy pawn, around the number such a
//! piece usually has; the weights are larger for the short-range pieces, for which one square
//! more or less matters more. The generic chess evaluator leaves these pieces' mobility out
//! (see `kind_mobility`), so it is counted once.

use core::fmt;

use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::pieces::{MAX_ROLES, PieceKind, Role};
use chessgold_engine::variants::electrum::Electrum;
use chessgold_engine::{Color, Position};

use super::chess::{ChessEval, attacks};
use super::{Evaluator, MATE_BOUND};

/// Safe mobility of a fairy piece: (squares expected, bonus per square middle game, endgame).
const fn fairy_mobility(kind: PieceKind) -> (i32, i32, i32) {
    match kind {
        PieceKind::Goldrook => (7, 2, 4),
        PieceKind::Goldrider => (11, 1, 2),
        PieceKind::Silverrider => (8, 2, 3),
        PieceKind::Silverbishop => (7, 3, 4),
        PieceKind::Nitan => (5, 4, 4),
        PieceKind::Caman => (4, 4, 4),
        PieceKind::Goldmitre => (4, 4, 5),
        PieceKind::Silverwing => (4, 3, 4),
        _ => (0, 0, 0),
    }
}

/// The evaluator of `electrum`.
pub struct ElectrumEval {
    chess: ChessEval<Electrum>,
    mobility: [(i32, i32, i32); MAX_ROLES],
}

impl fmt::Debug for ElectrumEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ElectrumEval").finish_non_exhaustive()
    }
}

impl Default for ElectrumEval {
    fn default() -> Self {
        ElectrumEval::new()
    }
}

impl ElectrumEval {
    /// A new evaluator.
    pub fn new() -> ElectrumEval {
        let chess = ChessEval::new();
        let mut mobility = [(0, 0, 0); MAX_ROLES];
        for (role, m) in mobility.iter_mut().enumerate() {
            if let Some(kind) = chess.kind(role) {
                *m = fairy_mobility(kind);
            }
        }
        ElectrumEval { chess, mobility }
    }
}

impl Evaluator<Electrum> for ElectrumEval {
    fn evaluate(&self, pos: &Position<Electrum>) -> i32 {
        let mut info = self.chess.breakdown(pos, 0);
        let board = pos.board();
        let occ = pos.occupied();
        for color in Color::ALL {
            let c = color.index();
            // Squares neither our own nor guarded by an enemy pawn (complete after breakdown).
            let open = !board.by_color(color) & !info.pawn_attacked[1 - c];
            for (role, &(base, mg, eg)) in self.mobility.iter().enumerate() {
                if mg == 0 && eg == 0 {
                    continue;
                }
                for sq in board.pieces(color, role).squares() {
                    let n = (attacks::<Electrum>(role, color, sq, occ) & open).count() as i32 - base;
                    info.mg[c] += n * mg;
                    info.eg[c] += n * eg;
                }
            }
        }
        info.blend(pos.turn()).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        if role.idx() < MAX_ROLES { self.chess.value_mg(role.idx()) } else { 0 }
    }
}
