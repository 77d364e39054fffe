//! `standard`: FIDE chess with lichess's automatic draws.

use crate::bitboard::BitBoard;
use crate::geometry::{Board8x8, Geometry};
use crate::pieces::FIDE_PIECES;
use crate::position::Position;
use crate::variant::{FIDE_CASTLES, Variant, role_mask};

use super::piece_tables;

/// FIDE chess.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Standard;

/// Roles of the FIDE piece table.
pub(crate) mod role {
    pub const PAWN: usize = 0;
    pub const KNIGHT: usize = 1;
    pub const BISHOP: usize = 2;
    pub const ROOK: usize = 3;
    pub const QUEEN: usize = 4;
}

/// Lichess's automatic insufficient-material draw on a FIDE piece table: only kings and
/// bishops all on one square colour, or only kings and at most one minor piece in all.
pub(crate) fn fide_insufficient_material<V: Variant<Geo = Board8x8>>(pos: &Position<V>) -> bool {
    let b = pos.board();
    let heavy = b.by_role(role::PAWN) | b.by_role(role::ROOK) | b.by_role(role::QUEEN);
    if heavy.any() {
        return false;
    }
    let knights = b.by_role(role::KNIGHT);
    let bishops = b.by_role(role::BISHOP);
    if (knights | bishops).count() <= 1 {
        return true;
    }
    if knights.any() {
        return false;
    }
    let dark = bishops.squares().filter(|s| (Board8x8::file_of(*s) + Board8x8::rank_of(*s)) % 2 == 0).count();
    dark == 0 || dark == bishops.count() as usize
}

impl Variant for Standard {
    type Geo = Board8x8;
    type Ext = ();

    const ID: &'static str = "standard";
    const NAME: &'static str = "Standard";
    const SUMMARY: &'static str = "FIDE chess: the classic game, with lichess's automatic draws (threefold repetition, 50 moves, insufficient material).";
    const PIECES: &'static [crate::pieces::PieceDef] = &FIDE_PIECES;
    const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const CASTLES: &'static [crate::variant::CastleDef] = &FIDE_CASTLES;
    const PROMOTION_ROLES: u16 = role_mask(&FIDE_PIECES, &['N', 'B', 'R', 'Q']);

    piece_tables!(u64);

    fn insufficient_material(pos: &Position<Self>) -> bool {
        fide_insufficient_material(pos)
    }
}
