//! `electrum`: Electrum Chess (Charles Gilman) on the 9x9 board, with eight fairy pieces,
//! Goldrook-only castling and promotion that depends on the square reached.

use crate::action::{Move, MoveKind};
use crate::bitboard::BitBoard;
use crate::geometry::{Board9x9, Dir, Geometry};
use crate::pieces::{KING, Leap, PAWN, PieceDef, PieceKind, Role, Slide, leap, slide};
use crate::position::{Position, castle_square};
use crate::square::{Color, Square};
use crate::variant::{CastleDef, Promotions, Variant, role_mask};

use super::piece_tables;

const fn forward_diagonal_steps() -> [Leap; 2] {
    [leap(1, 1), leap(-1, 1)]
}

const WAZIR: [Leap; 4] = [leap(0, 1), leap(0, -1), leap(1, 0), leap(-1, 0)];
const FERZ: [Leap; 4] = [leap(1, 1), leap(-1, 1), leap(1, -1), leap(-1, -1)];
const ROOK_SLIDES: [Slide; 4] = [slide(Dir::N), slide(Dir::S), slide(Dir::E), slide(Dir::W)];
const BISHOP_SLIDES: [Slide; 4] = [slide(Dir::NE), slide(Dir::NW), slide(Dir::SE), slide(Dir::SW)];

/// Goldrook (RfF): a rook, or one step to either forward diagonal.
pub const GOLDROOK: PieceDef = PieceDef {
    kind: PieceKind::Goldrook,
    letter: 'R',
    leaps: &forward_diagonal_steps(),
    slides: &ROOK_SLIDES,
    royal: false,
    pawn: false,
};

/// Nitan (NffC): knight leaps, or the two (1,3) leaps straight ahead on neighbouring files.
pub const NITAN: PieceDef = PieceDef {
    kind: PieceKind::Nitan,
    letter: 'N',
    leaps: &[
        leap(1, 2),
        leap(2, 1),
        leap(2, -1),
        leap(1, -2),
        leap(-1, -2),
        leap(-2, -1),
        leap(-2, 1),
        leap(-1, 2),
        leap(1, 3),
        leap(-1, 3),
    ],
    slides: &[],
    royal: false,
    pawn: false,
};

/// Goldmitre (fBW): slides along the two forward diagonals, or one orthogonal step.
pub const GOLDMITRE: PieceDef = PieceDef {
    kind: PieceKind::Goldmitre,
    letter: 'M',
    leaps: &WAZIR,
    slides: &[slide(Dir::NE), slide(Dir::NW)],
    royal: false,
    pawn: false,
};

/// Goldrider (RfB): slides along the four orthogonals and the two forward diagonals.
pub const GOLDRIDER: PieceDef = PieceDef {
    kind: PieceKind::Goldrider,
    letter: 'G',
    leaps: &[],
    slides: &[slide(Dir::N), slide(Dir::S), slide(Dir::E), slide(Dir::W), slide(Dir::NE), slide(Dir::NW)],
    royal: false,
    pawn: false,
};

/// Silverrider (BfR): slides along the four diagonals and straight forward.
pub const SILVERRIDER: PieceDef = PieceDef {
    kind: PieceKind::Silverrider,
    letter: 'S',
    leaps: &[],
    slides: &[slide(Dir::NE), slide(Dir::NW), slide(Dir::SE), slide(Dir::SW), slide(Dir::N)],
    royal: false,
    pawn: false,
};

/// Silverbishop (BfW): slides along the four diagonals, or one step straight forward.
pub const SILVERBISHOP: PieceDef = PieceDef {
    kind: PieceKind::Silverbishop,
    letter: 'B',
    leaps: &[leap(0, 1)],
    slides: &BISHOP_SLIDES,
    royal: false,
    pawn: false,
};

/// Caman (CffN): camel (3,1) leaps, or the two (1,2) leaps straight ahead on neighbouring files.
pub const CAMAN: PieceDef = PieceDef {
    kind: PieceKind::Caman,
    letter: 'C',
    leaps: &[
        leap(1, 3),
        leap(3, 1),
        leap(3, -1),
        leap(1, -3),
        leap(-1, -3),
        leap(-3, -1),
        leap(-3, 1),
        leap(-1, 3),
        leap(1, 2),
        leap(-1, 2),
    ],
    slides: &[],
    royal: false,
    pawn: false,
};

/// Silverwing (fRF): slides straight forward, or one step to any diagonal.
pub const SILVERWING: PieceDef = PieceDef {
    kind: PieceKind::Silverwing,
    letter: 'W',
    leaps: &FERZ,
    slides: &[slide(Dir::N)],
    royal: false,
    pawn: false,
};

/// Electrum's pieces in role order.
pub const ELECTRUM_PIECES: [PieceDef; 10] =
    [PAWN, GOLDROOK, NITAN, GOLDMITRE, GOLDRIDER, SILVERRIDER, SILVERBISHOP, CAMAN, SILVERWING, KING];

const GOLD_PIECES: u16 = role_mask(&ELECTRUM_PIECES, &['R', 'N', 'M', 'G']);
const SILVER_PIECES: u16 = role_mask(&ELECTRUM_PIECES, &['S', 'B', 'C', 'W']);

/// Goldrook-only castling: White Ke1-c1 with Ra1-d1 (`Q`), Black Ke9-g9 with Ri9-f9 (`k`).
pub const ELECTRUM_CASTLES: [CastleDef; 2] = [
    CastleDef {
        color: Color::White,
        letter: 'Q',
        king_from: (4, 0),
        king_to: (2, 0),
        rook_from: (0, 0),
        rook_to: (3, 0),
    },
    CastleDef {
        color: Color::Black,
        letter: 'k',
        king_from: (4, 8),
        king_to: (6, 8),
        rook_from: (8, 8),
        rook_to: (5, 8),
    },
];

/// Electrum Chess.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Electrum;

impl Variant for Electrum {
    type Geo = Board9x9;
    type Ext = ();

    const ID: &'static str = "electrum";
    const NAME: &'static str = "Electrum Chess";
    const SUMMARY: &'static str = "Charles Gilman's chess on a 9x9 board with eight fairy pieces: four Gold pieces on one wing and four Silver on the other. A pawn promotes to a Gold or Silver piece depending on where it arrives.";
    const PIECES: &'static [PieceDef] = &ELECTRUM_PIECES;
    const START_FEN: &'static str = "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1";
    const CASTLES: &'static [CastleDef] = &ELECTRUM_CASTLES;
    const PROMOTION_ROLES: u16 = GOLD_PIECES | SILVER_PIECES;

    piece_tables!(u128);

    /// A lone king cannot win; any other piece can, by the rule book's decision that bare kings
    /// are the only insufficient material (no other rule for fairy pieces).
    fn can_win(pos: &Position<Self>, color: Color) -> bool {
        (pos.board().by_color(color) & !pos.board().by_role(Self::KING)).any()
    }

    fn promotions(pos: &Position<Self>, to: Square, _captured: Option<Role>) -> Promotions {
        // The square reached decides, by the enemy piece that starts there: its Gold pieces'
        // squares give the Gold pieces, its Silver pieces' the Silver ones, the king's file all.
        let file = Board9x9::file_of(to);
        let white = pos.turn() == Color::White;
        let roles = match file {
            4 => GOLD_PIECES | SILVER_PIECES,
            0..=3 => {
                if white {
                    SILVER_PIECES
                } else {
                    GOLD_PIECES
                }
            }
            _ => {
                if white {
                    GOLD_PIECES
                } else {
                    SILVER_PIECES
                }
            }
        };
        Promotions { roles, stay: false }
    }

    fn insufficient_material(pos: &Position<Self>) -> bool {
        pos.board().occupied().count() == 2
    }

    fn explain_move(pos: &Position<Self>, from: Square, to: Square) -> Option<String> {
        let piece = pos.board().piece_at(from)?;
        let start = if piece.color == Color::White { (4, 0) } else { (4, 8) };
        let king_start = Board9x9::square(start.0, start.1) == Some(from);
        let sideways_two = Board9x9::rank_of(from) == Board9x9::rank_of(to)
            && Board9x9::file_of(from).abs_diff(Board9x9::file_of(to)) == 2;
        if piece.role.idx() != Self::KING || !king_start || !sideways_two {
            return None;
        }
        let def = ELECTRUM_CASTLES.iter().find(|c| c.color == piece.color)?;
        if castle_square::<Board9x9>(def.king_to) == to {
            return Some(format!("{} (rule 2)", crate::explain::castling(pos, def)));
        }
        Some(
            "castling is only with the Goldrook, White's king e1 to c1 with the rook a1 to d1, Black's king e9 to g9 \
             with the rook i9 to f9 (rule 2)"
                .to_string(),
        )
    }

    fn explain_promotion_letter(
        pos: &Position<Self>,
        from: Square,
        to: Square,
        letter: Option<char>,
        forms: &[Move],
    ) -> Option<String> {
        let pawn = pos.board().role_at(from).is_some_and(|r| r.idx() == Self::PAWN);
        let promoting: Vec<Move> = forms.iter().copied().filter(|m| m.kind == MoveKind::Promotion).collect();
        if !pawn || promoting.is_empty() {
            return None;
        }
        let list = crate::explain::texts::<Self>(&promoting);
        Some(match letter {
            None => format!("promotion on the last rank is compulsory: {list} (rule 3)"),
            Some(_) => format!(
                "on {} a pawn promotes to the pieces of the enemy piece that starts there: {list} (rule 3)",
                Board9x9::name(to)
            ),
        })
    }
}
