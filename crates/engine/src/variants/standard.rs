//! `standard`: FIDE chess with lichess's automatic draws.

use crate::bitboard::BitBoard;
use crate::geometry::{Board8x8, Geometry};
use crate::pieces::FIDE_PIECES;
use crate::position::Position;
use crate::square::{Color, Square};
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

/// Lichess's insufficient-winning-material rule on a FIDE piece table, for the flag rule: whether
/// `color` could still mate. Nothing but the king cannot; a lone knight mates only with a blocker
/// of the opponent's (anything but a queen); bishops all on one square colour mate only with the
/// opponent's knight, pawn or bishop of the other square colour. A pawn can become anything.
pub(crate) fn fide_can_mate<V: Variant<Geo = Board8x8>>(pos: &Position<V>, color: Color) -> bool {
    let b = pos.board();
    let kings = b.by_role(V::KING);
    let own = b.by_color(color) & !kings;
    let theirs = b.by_color(!color) & !kings;
    let Some(first) = own.first() else {
        return false;
    };
    if own.count() == 1 && (own & b.by_role(role::KNIGHT)).any() {
        return (theirs & !b.by_role(role::QUEEN)).any();
    }
    let dark = |s: Square| (Board8x8::file_of(s) + Board8x8::rank_of(s)) % 2 == 0;
    let shade = dark(first);
    if own == own & b.by_role(role::BISHOP) && own.squares().all(|s| dark(s) == shade) {
        return (theirs & (b.by_role(role::KNIGHT) | b.by_role(role::PAWN))).any()
            || (theirs & b.by_role(role::BISHOP)).squares().any(|s| dark(s) != shade);
    }
    true
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

    /// Lichess's rule: `fide_can_mate`.
    fn can_win(pos: &Position<Self>, color: Color) -> bool {
        fide_can_mate(pos, color)
    }
}
