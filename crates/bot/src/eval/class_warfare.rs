//! The evaluation of `class-warfare`: two sides with different goals on 8 files and 4 ranks.
//!
//! The proletariat (Black, pawns only) wins by capturing the king; the bourgeoisie (White)
//! by taking every pawn or by surviving until the proletariat's 50 moves are used up. So:
//!
//! - Pawns are worth more the nearer they are to rank 1 (where they run sideways along the
//!   king's rank), and more still close to the king; a proletariat down to its last pawns is
//!   near losing.
//! - A piece type runs as in chess only while both of its factory squares (rank 4) are
//!   occupied: a stalled piece crawls like a pawn and is worth a good deal less, as long as
//!   the proletariat has the pawns to exploit it.
//! - Pieces next to their king guard it.
//! - Time is on the bourgeoisie's side: the proletariat's attacking terms shrink over its last
//!   moves, and the bourgeoisie gains a little with each move played.
//! - Capturing the king ends the game: the king's value is large, so that the ordering and the
//!   quiescence search never prune that capture. A pawn taken by a piece comes back to its
//!   file's factory square if that square is empty: such a capture wins little.

use core::fmt;

use chessgold_engine::action::MoveKind;
use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::geometry::{Board8x4, Geometry};
use chessgold_engine::pieces::Role;
use chessgold_engine::variants::class_warfare::{ClassWarfare, FACTORIES, MOVE_LIMIT, factory_running};
use chessgold_engine::{Color, Move, Position, Square};

use super::{Evaluator, MATE_BOUND};

const PAWN: usize = 0;
const KNIGHT: usize = 1;
const BISHOP: usize = 2;
const ROOK: usize = 3;
const QUEEN: usize = 4;
const KING: usize = 5;

/// Piece values (P N B R Q K); the king's is the game.
const VALUE: [i32; 6] = [100, 300, 330, 480, 900, 5_000];
/// What a piece loses while its factory is stopped, percent (in full with four pawns or more
/// left, in proportion below).
const STALLED_PERCENT: i32 = 45;
/// Penalty per pawn below three: the proletariat loses with its last pawn.
const LAST_PAWNS: i32 = 150;
/// A pawn's bonus by rank (rank 1, the king's rank, first).
const PAWN_RANK: [i32; 4] = [70, 35, 15, 0];
/// A pawn's bonus by its distance to the king (king moves).
const PAWN_NEAR_KING: [i32; 5] = [0, 45, 22, 8, 0];
/// Bonus per piece next to its king.
const GUARD: i32 = 12;
/// The proletariat's attack terms fade over its last this many moves.
const LAST_MOVES: i32 = 12;
/// What the proletariat's eight pawns are worth beyond their material (the factories they
/// hold, the threat of reaching rank 1): without it the start position, searched to depth 13,
/// scores about -1200 for the proletariat; with it scores read as chances, about level at
/// the start. A constant: it changes no choice of the search, only the scores shown (and
/// so which random openings the match code judges level).
const PROLETARIAT_BASE: i32 = 1_200;

/// The evaluator of `class-warfare`.
#[derive(Default)]
pub struct ClassWarfareEval;

impl fmt::Debug for ClassWarfareEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassWarfareEval").finish_non_exhaustive()
    }
}

impl ClassWarfareEval {
    /// A new evaluator.
    pub fn new() -> ClassWarfareEval {
        ClassWarfareEval
    }

    /// The proletariat's moves still to play before the move limit.
    pub fn moves_left(pos: &Position<ClassWarfare>) -> i32 {
        (MOVE_LIMIT as i32 + 1 - pos.fullmoves() as i32).max(0)
    }

    /// The score for White (the bourgeoisie).
    fn white_score(pos: &Position<ClassWarfare>) -> i32 {
        let board = pos.board();
        let pawns = board.pieces(Color::Black, PAWN);
        let mut white = 0;
        for role in [KNIGHT, BISHOP, ROOK, QUEEN] {
            let n = board.pieces(Color::White, role).count() as i32;
            if n == 0 {
                continue;
            }
            white += n * VALUE[role];
            if !factory_running(pos, role) {
                // A stopped factory matters while the proletariat has pawns to exploit it.
                white -= n * VALUE[role] * STALLED_PERCENT * pawns.count().min(4) as i32 / 400;
            }
        }
        let king = board.pieces(Color::White, KING).first();
        if let Some(k) = king {
            let near = Board8x4::tables().all & zone(k);
            white += GUARD * (near & board.by_color(Color::White)).count() as i32;
        }
        let n = pawns.count() as i32;
        let mut black = PROLETARIAT_BASE + n * VALUE[PAWN] - LAST_PAWNS * (3 - n).max(0);
        let mut attack = 0;
        for sq in pawns.squares() {
            attack += PAWN_RANK[Board8x4::rank_of(sq) as usize];
            if let Some(k) = king {
                attack += PAWN_NEAR_KING[distance(sq, k).min(4) as usize];
            }
        }
        let left = Self::moves_left(pos);
        black += attack * left.min(LAST_MOVES) / LAST_MOVES;
        white += 3 * (MOVE_LIMIT as i32 - left);
        // A stopped factory is the proletariat's doing: count it for them as well.
        for (role, _) in FACTORIES {
            if board.pieces(Color::White, role).any() && !factory_running(pos, role) {
                black += 10;
            }
        }
        white - black
    }
}

/// The king-move distance between two squares.
fn distance(a: Square, b: Square) -> u32 {
    let df = Board8x4::file_of(a).abs_diff(Board8x4::file_of(b));
    let dr = Board8x4::rank_of(a).abs_diff(Board8x4::rank_of(b));
    df.max(dr)
}

/// The squares next to `sq`.
fn zone(sq: Square) -> u32 {
    let (f, r) = (Board8x4::file_of(sq) as i32, Board8x4::rank_of(sq) as i32);
    let mut z = 0u32;
    for df in -1..=1 {
        for dr in -1..=1 {
            if (df, dr) != (0, 0)
                && let Some(s) = Board8x4::square(f + df, r + dr)
            {
                z |= u32::from_square(s);
            }
        }
    }
    z
}

impl Evaluator<ClassWarfare> for ClassWarfareEval {
    fn evaluate(&self, pos: &Position<ClassWarfare>) -> i32 {
        let s = Self::white_score(pos);
        let s = if pos.turn() == Color::White { s } else { -s };
        s.clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    fn role_value(&self, role: Role) -> i32 {
        VALUE.get(role.idx()).copied().unwrap_or(0)
    }

    fn material_gain(&self, pos: &Position<ClassWarfare>, mv: Move) -> i32 {
        if mv.kind != MoveKind::Normal {
            return 0;
        }
        let Some(victim) = pos.board().piece_at(mv.to).filter(|p| p.color != pos.turn()) else { return 0 };
        let v = victim.role.idx();
        if v == PAWN {
            // The pawn comes back to its factory square if that is empty after the capture.
            let Some(home) = Board8x4::square(Board8x4::file_of(mv.to) as i32, 3) else { return VALUE[PAWN] };
            let empty_after = home == mv.from || (home != mv.to && pos.board().piece_at(home).is_none());
            return if empty_after { PAWN_RANK[Board8x4::rank_of(mv.to) as usize] / 2 } else { VALUE[PAWN] };
        }
        VALUE.get(v).copied().unwrap_or(0)
    }
}
