//! The interface every variant implements.
//!
//! A variant is a zero-sized type: its board, its piece table, its start position and a few
//! hooks. The shared move generator, move application, position text and game logic are generic
//! over it and compiled once per variant, so a hook that a variant does not override costs nothing.

use core::fmt::Debug;

use crate::action::{Move, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::Geometry;
use crate::outcome::Outcome;
use crate::pieces::{MAX_ROLES, Piece, PieceDef, PieceTables, Role, RoleInfo, find_role};
use crate::position::{Position, PositionError};
use crate::square::{Color, Square};
use crate::state::VariantState;

/// The bitboard type of a variant's board.
pub type Bb<V> = <<V as Variant>::Geo as Geometry>::Bb;

/// One castling option: king and rook squares before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastleDef {
    /// Who castles.
    pub color: Color,
    /// Letter in the position text's castling field (`K`, `Q`, `k`, `q`).
    pub letter: char,
    /// King's square before, as `(file, rank)` from 0.
    pub king_from: (u8, u8),
    /// King's square after.
    pub king_to: (u8, u8),
    /// Rook's square before.
    pub rook_from: (u8, u8),
    /// Rook's square after.
    pub rook_to: (u8, u8),
}

/// The four FIDE castling options, in position-text order `KQkq`.
pub const FIDE_CASTLES: [CastleDef; 4] = [
    CastleDef {
        color: Color::White,
        letter: 'K',
        king_from: (4, 0),
        king_to: (6, 0),
        rook_from: (7, 0),
        rook_to: (5, 0),
    },
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
        king_from: (4, 7),
        king_to: (6, 7),
        rook_from: (7, 7),
        rook_to: (5, 7),
    },
    CastleDef {
        color: Color::Black,
        letter: 'q',
        king_from: (4, 7),
        king_to: (2, 7),
        rook_from: (0, 7),
        rook_to: (3, 7),
    },
];

/// What a pawn reaching the last rank may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Promotions {
    /// Bit per role it may become.
    pub roles: u16,
    /// Whether it may also stay a pawn (and wait there).
    pub stay: bool,
}

/// What an action did, for the variant's economy hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// The action.
    pub mv: Move,
    /// Who acted.
    pub mover: Color,
    /// The moving piece's role before the action (for placements: the placed role).
    pub role: Role,
    /// The piece captured (or converted), and the square it stood on.
    pub captured: Option<(Piece, Square)>,
}

/// Facts about the side to move that the generator computed and extra actions may need.
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo<B> {
    /// The side to move's king square, if it has exactly one king.
    pub king: Option<Square>,
    /// Enemy pieces giving check.
    pub checkers: B,
    /// Squares where putting a piece resolves the check: everything when not in check, the
    /// squares between king and a lone sliding checker, nothing in double or leaper check.
    pub block: B,
}

/// A game variant. See the module documentation.
pub trait Variant: 'static + Sized + Copy + Debug + Default + Send + Sync + PartialEq + Eq {
    /// The board.
    type Geo: Geometry;
    /// The variant's own part of the position (gold, XP, HP, ...).
    type Ext: Clone + Debug + Default + PartialEq + Eq + Send + Sync;

    /// Identifier used in URLs, the CLI, the database and the protocol.
    const ID: &'static str;
    /// Display name.
    const NAME: &'static str;
    /// One-paragraph description for the site.
    const SUMMARY: &'static str;
    /// The piece table; a role is an index into it.
    const PIECES: &'static [PieceDef];
    /// The start position's text.
    const START_FEN: &'static str;
    /// Castling options.
    const CASTLES: &'static [CastleDef] = &[];
    /// Roles a FIDE pawn may promote to, by default (bit per role).
    const PROMOTION_ROLES: u16 = 0;
    /// Whether the game has an economy (gold) shown in the shop.
    const ECONOMY: bool = false;
    /// Whether a seed is part of the game (random events).
    const SEEDED: bool = false;
    /// Whether the variant has equips (items put on pieces without ending the turn).
    const HAS_EQUIPS: bool = false;
    /// Legality judged with pins and check masks (FIDE-like capture). When false, every
    /// pseudo-legal move is played and the mover's king tested.
    const PIN_LEGALITY: bool = true;
    /// The side not to move may be in check in a valid position: in Loot Boxes a crown may create
    /// an attack on a lone king before the turn's action, and the text written then must read back.
    const SIDE_NOT_TO_MOVE_MAY_BE_IN_CHECK: bool = false;
    /// An attack may offer a choice of landing squares, written after a `/` (Chessception).
    const LANDINGS: bool = false;
    /// Castling needs the squares the king crosses and lands on to be unattacked.
    const CASTLE_SAFE_PATH: bool = true;
    /// Captures convert (Conqueror): the captured piece changes sides onto the capturer's origin.
    const CONVERSION: bool = false;

    /// Most kings a side may have on the board (more than one only where kings can be won).
    const MAX_KINGS: u32 = 1;
    /// Check rules apply: an action may not leave the mover's king attacked. Without them
    /// (Class Warfare, Chessception) kings can be taken and every generated move is legal.
    const CHECK: bool = true;
    /// The variant generates its moves itself ([`Variant::gen_custom`]) instead of the shared
    /// generator.
    const CUSTOM_MOVEGEN: bool = false;
    /// Threefold repetition draws.
    const REPETITION: bool = true;
    /// Plies without progress that draw (`None`: no such rule).
    const NO_PROGRESS_PLIES: Option<u32> = Some(100);

    /// Movement summary of each role (derived).
    const ROLE_INFO: [RoleInfo; MAX_ROLES] = RoleInfo::table(Self::PIECES);
    /// Index of the royal role (derived).
    const KING: usize = find_role(Self::PIECES, true, false);
    /// Index of the FIDE pawn role, or `MAX_ROLES` (derived).
    const PAWN: usize = find_role(Self::PIECES, false, true);

    /// The variant's precomputed piece tables (one static per variant).
    fn piece_tables() -> &'static PieceTables<Bb<Self>>;

    /// The turn actions of a variant with its own generator (see [`Variant::CUSTOM_MOVEGEN`]).
    fn gen_custom(_pos: &Position<Self>, _out: &mut MoveList) {}

    /// The result when the side to move has no legal action (and no equip): checkmate when in
    /// check, stalemate otherwise, unless the variant says else.
    fn no_moves_outcome(pos: &Position<Self>) -> Outcome {
        if pos.is_check() {
            Outcome::checkmate(!pos.turn())
        } else {
            Outcome::draw(crate::outcome::EndReason::Stalemate)
        }
    }

    /// How many kings `color` must have: at least one, at most [`Variant::MAX_KINGS`].
    fn king_range(_color: Color) -> (u32, u32) {
        (1, Self::MAX_KINGS)
    }

    /// Squares held by neutral blockers (loot boxes): nothing moves onto, through or into them.
    #[inline(always)]
    fn blockers(_pos: &Position<Self>) -> Bb<Self> {
        Bb::<Self>::ZERO
    }

    /// Enemy pieces that may not be captured now (a lone king where kings can be captured).
    #[inline(always)]
    fn uncapturable(_pos: &Position<Self>) -> Bb<Self> {
        Bb::<Self>::ZERO
    }

    /// Plays a generated turn action. The default applies the action's board changes and the
    /// variant's effects, then ends the turn; variants with richer actions override it and use
    /// [`Position::apply_action`] and [`Position::end_turn`].
    #[inline(always)]
    fn play(pos: &mut Position<Self>, mv: Move) {
        let (fx, double_push) = pos.apply_action(mv);
        pos.end_turn(&fx, double_push);
    }

    /// Plays a turn action as far as judging its legality needs: the mover's king after all of
    /// the action's own effects. The default plays it whole.
    #[inline(always)]
    fn play_for_legality(pos: &mut Position<Self>, mv: Move) {
        Self::play(pos, mv);
    }

    /// Adds the equips (actions that do not end the turn) available now.
    fn gen_equips(_pos: &Position<Self>, _out: &mut MoveList) {}

    /// Applies an equip generated by [`Variant::gen_equips`].
    fn apply_equip(_pos: &mut Position<Self>, _mv: Move) {}

    /// Why the equip of `item` onto `sq` (a crown with its new type `crown`) is not legal now.
    fn explain_equip(_pos: &Position<Self>, item: &str, _sq: Square, _crown: Option<char>) -> String {
        format!("{} has no items ('{item}')", Self::NAME)
    }

    /// The variant's own reason why the side to move's piece on `from` cannot go to `to` (not
    /// legal in any form), before the shared reasons of [`crate::explain`]: how its pieces
    /// move where that differs from chess, what its rules forbid (castling, waiting pawns, ...).
    fn explain_move(_pos: &Position<Self>, _from: Square, _to: Square) -> Option<String> {
        None
    }

    /// The variant's own reason why a move legal as `forms` is refused as written with the
    /// promotion letter `letter` (or without one, when every form promotes).
    fn explain_promotion_letter(
        _pos: &Position<Self>,
        _from: Square,
        _to: Square,
        _letter: Option<char>,
        _forms: &[Move],
    ) -> Option<String> {
        None
    }

    /// Text of an equip (`crossbow@d4`, `crown@d4=R`).
    fn equip_text(_mv: Move) -> String {
        String::new()
    }

    /// What a pawn may become on reaching `to`; `captured` is what it takes there.
    #[inline(always)]
    fn promotions(_pos: &Position<Self>, _to: Square, _captured: Option<Role>) -> Promotions {
        Promotions { roles: Self::PROMOTION_ROLES, stay: false }
    }

    /// Adds the variant's other turn actions (placements, promotions in place, ...).
    #[inline(always)]
    fn gen_extra(_pos: &Position<Self>, _info: &CheckInfo<Bb<Self>>, _out: &mut MoveList) {}

    /// The role a converted piece takes on its new square (Conqueror's pawn on the last rank).
    #[inline(always)]
    fn converted_role(_piece: Piece, _sq: Square) -> Role {
        _piece.role
    }

    /// Applies the variant's effects of an action after the board has changed and before the
    /// turn passes (gold paid and earned, ...).
    #[inline(always)]
    fn after_action(_pos: &mut Position<Self>, _fx: &Effects) {}

    /// Applies what happens at the start of a turn (income), after the side to move changed.
    #[inline(always)]
    fn start_turn(_pos: &mut Position<Self>) {}

    /// Whether the action restarts the no-progress counter.
    #[inline(always)]
    fn resets_progress(fx: &Effects) -> bool {
        fx.captured.is_some() || (fx.mv.is_board_move() && fx.role.idx() == Self::PAWN)
    }

    /// A result that the last action produced, other than checkmate (a conversion win, ...).
    #[inline(always)]
    fn variant_outcome(_pos: &Position<Self>) -> Option<Outcome> {
        None
    }

    /// Hash of the variant's own state (part of the repetition key).
    #[inline(always)]
    fn ext_hash(_ext: &Self::Ext) -> u64 {
        0
    }

    /// Reads the variant's own fields of the position text (after the six FEN fields).
    ///
    /// # Errors
    /// A [`PositionError`] naming the wrong field.
    fn parse_ext(_pos: &mut Position<Self>, fields: &[&str]) -> Result<(), PositionError> {
        match fields.first() {
            None => Ok(()),
            Some(f) => {
                Err(PositionError::new(format!("unexpected field '{f}': {} positions have six fields", Self::NAME)))
            }
        }
    }

    /// Writes the variant's own fields of the position text, each preceded by a space.
    fn write_ext(_pos: &Position<Self>, _out: &mut String) {}

    /// Whether a pawn of `color` may stand on `sq` in a valid position.
    fn pawn_square_ok(color: Color, sq: Square) -> bool {
        let rank = <Self::Geo as Geometry>::relative_rank(sq, color == Color::White);
        rank != 0 && rank != <Self::Geo as Geometry>::RANKS - 1
    }

    /// Extra validation of a parsed position.
    ///
    /// # Errors
    /// A [`PositionError`] saying what is impossible.
    fn validate(_pos: &Position<Self>) -> Result<(), PositionError> {
        Ok(())
    }

    /// Whether the position is a draw for lack of mating material.
    #[inline(always)]
    fn insufficient_material(_pos: &Position<Self>) -> bool {
        false
    }

    /// The flag rule: whether `color` could still win from this position by some sequence of
    /// legal actions (the opponent helping), whoever is to move. A player whose clock runs out
    /// loses when the opponent could still win, and draws otherwise. Every variant states its own
    /// answer from its rule book's ends of the game; when unsure it answers `true` (a loss on time).
    fn can_win(pos: &Position<Self>, color: Color) -> bool;

    /// Gives a position of a seeded variant its seed (kept in memory, never in position text).
    fn set_seed(_pos: &mut Position<Self>, _seed: u64) {}

    /// Whether the variant has placement actions (`N@c3`).
    fn has_placements() -> bool {
        false
    }

    /// Why placing `letter` on the empty square `to` is not legal now.
    fn explain_placement(_pos: &Position<Self>, _letter: char, _to: Square) -> String {
        format!("{} has no placements", Self::NAME)
    }

    /// Why promoting the piece of `role` on `sq` in place to `letter` is not legal now.
    fn explain_promotion(_pos: &Position<Self>, _role: Role, _letter: char, _sq: Square) -> String {
        format!("{} has no promotion in place", Self::NAME)
    }

    /// The variant's own state for display (`chessgold state`, the board UI).
    fn state(_pos: &Position<Self>) -> VariantState {
        VariantState::default()
    }
}

/// Helper for variants: bit mask of roles by letters present in the piece table.
pub const fn role_mask(defs: &[PieceDef], letters: &[char]) -> u16 {
    let mut mask = 0u16;
    let mut i = 0;
    while i < defs.len() {
        let mut j = 0;
        while j < letters.len() {
            if defs[i].letter == letters[j] {
                mask |= 1 << i;
            }
            j += 1;
        }
        i += 1;
    }
    mask
}

/// Whether a bitboard of `B` covers `n` squares (compile-time sanity for geometry choices).
pub const fn fits<B: BitBoard>(n: u32) -> bool {
    n <= B::BITS
}
