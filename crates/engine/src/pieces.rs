//! Pieces as data: leaps and slides with direction and capture limits.
//!
//! A piece is a [`PieceDef`]: a list of leaps (fixed vectors) and slides (directions a piece
//! rides along until blocked), each usable to move, to capture, or both. Vectors and directions
//! are written for White; Black uses them mirrored top to bottom, so "forward" is always towards
//! the opponent. From the definitions, [`PieceTables`] precomputes per colour and square what a
//! piece reaches and, for attack detection, from where it could be attacked.

use crate::bitboard::BitBoard;
use crate::geometry::{Dir, GeoTables, Geometry};
use crate::square::{Color, Square};

/// Most roles a variant may define.
pub const MAX_ROLES: usize = 10;

/// What a leap or slide may be used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Moving to an empty square and capturing.
    Both,
    /// Only moving to an empty square.
    MoveOnly,
    /// Only capturing.
    CaptureOnly,
}

impl Reach {
    /// Whether it may end on an empty square.
    pub const fn moves(self) -> bool {
        !matches!(self, Reach::CaptureOnly)
    }
    /// Whether it may capture.
    pub const fn captures(self) -> bool {
        !matches!(self, Reach::MoveOnly)
    }
}

/// A fixed jump by `(dx, dy)` (files, ranks), written for White.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leap {
    /// File step.
    pub dx: i8,
    /// Rank step; positive is forward.
    pub dy: i8,
    /// What the leap may do.
    pub reach: Reach,
}

/// A leap that moves and captures.
pub const fn leap(dx: i8, dy: i8) -> Leap {
    Leap { dx, dy, reach: Reach::Both }
}

/// A leap that only moves to empty squares.
pub const fn leap_move(dx: i8, dy: i8) -> Leap {
    Leap { dx, dy, reach: Reach::MoveOnly }
}

/// A leap that only captures.
pub const fn leap_capture(dx: i8, dy: i8) -> Leap {
    Leap { dx, dy, reach: Reach::CaptureOnly }
}

/// A ride along one direction until the first occupied square, written for White.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slide {
    /// The direction.
    pub dir: Dir,
    /// What the slide may do.
    pub reach: Reach,
}

/// A slide that moves and captures.
pub const fn slide(dir: Dir) -> Slide {
    Slide { dir, reach: Reach::Both }
}

/// The platform-wide identity of a piece, for names, images and sounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    /// FIDE pawn.
    Pawn,
    /// FIDE knight.
    Knight,
    /// FIDE bishop.
    Bishop,
    /// FIDE rook.
    Rook,
    /// FIDE queen.
    Queen,
    /// FIDE king.
    King,
    /// Grunt Chess's grunt.
    Grunt,
    /// Electrum's goldrook (RfF).
    Goldrook,
    /// Electrum's nitan (NffC).
    Nitan,
    /// Electrum's goldmitre (fBW).
    Goldmitre,
    /// Electrum's goldrider (RfB).
    Goldrider,
    /// Electrum's silverrider (BfR).
    Silverrider,
    /// Electrum's silverbishop (BfW).
    Silverbishop,
    /// Electrum's caman (CffN).
    Caman,
    /// Electrum's silverwing (fRF).
    Silverwing,
}

impl PieceKind {
    /// Lower-case identifier, used for piece images (`/static/pieces/{slug}-{white|black}.svg`).
    pub const fn slug(self) -> &'static str {
        match self {
            PieceKind::Pawn => "pawn",
            PieceKind::Knight => "knight",
            PieceKind::Bishop => "bishop",
            PieceKind::Rook => "rook",
            PieceKind::Queen => "queen",
            PieceKind::King => "king",
            PieceKind::Grunt => "grunt",
            PieceKind::Goldrook => "goldrook",
            PieceKind::Nitan => "nitan",
            PieceKind::Goldmitre => "goldmitre",
            PieceKind::Goldrider => "goldrider",
            PieceKind::Silverrider => "silverrider",
            PieceKind::Silverbishop => "silverbishop",
            PieceKind::Caman => "caman",
            PieceKind::Silverwing => "silverwing",
        }
    }

    /// Display name.
    pub const fn name(self) -> &'static str {
        match self {
            PieceKind::Pawn => "Pawn",
            PieceKind::Knight => "Knight",
            PieceKind::Bishop => "Bishop",
            PieceKind::Rook => "Rook",
            PieceKind::Queen => "Queen",
            PieceKind::King => "King",
            PieceKind::Grunt => "Grunt",
            PieceKind::Goldrook => "Goldrook",
            PieceKind::Nitan => "Nitan",
            PieceKind::Goldmitre => "Goldmitre",
            PieceKind::Goldrider => "Goldrider",
            PieceKind::Silverrider => "Silverrider",
            PieceKind::Silverbishop => "Silverbishop",
            PieceKind::Caman => "Caman",
            PieceKind::Silverwing => "Silverwing",
        }
    }
}

/// How a piece moves, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceDef {
    /// Platform-wide identity.
    pub kind: PieceKind,
    /// Upper-case letter in this variant's notation.
    pub letter: char,
    /// Fixed jumps (written for White).
    pub leaps: &'static [Leap],
    /// Rides (written for White).
    pub slides: &'static [Slide],
    /// A king: attacks on it are checks.
    pub royal: bool,
    /// A FIDE pawn: single steps forward, double step from its second rank, en passant,
    /// promotion on the last rank. Its leaps must be the FIDE pawn's.
    pub pawn: bool,
}

/// The eight knight leaps.
pub const KNIGHT_LEAPS: [Leap; 8] =
    [leap(1, 2), leap(2, 1), leap(2, -1), leap(1, -2), leap(-1, -2), leap(-2, -1), leap(-2, 1), leap(-1, 2)];

/// The eight king steps.
pub const KING_LEAPS: [Leap; 8] =
    [leap(0, 1), leap(1, 1), leap(1, 0), leap(1, -1), leap(0, -1), leap(-1, -1), leap(-1, 0), leap(-1, 1)];

/// The FIDE pawn's step and captures.
pub const PAWN_LEAPS: [Leap; 3] = [leap_move(0, 1), leap_capture(-1, 1), leap_capture(1, 1)];

/// The four rook slides.
pub const ROOK_SLIDES: [Slide; 4] = [slide(Dir::N), slide(Dir::S), slide(Dir::E), slide(Dir::W)];

/// The four bishop slides.
pub const BISHOP_SLIDES: [Slide; 4] = [slide(Dir::NE), slide(Dir::NW), slide(Dir::SE), slide(Dir::SW)];

/// The eight queen slides.
pub const QUEEN_SLIDES: [Slide; 8] = [
    slide(Dir::N),
    slide(Dir::S),
    slide(Dir::E),
    slide(Dir::W),
    slide(Dir::NE),
    slide(Dir::NW),
    slide(Dir::SE),
    slide(Dir::SW),
];

/// FIDE pawn.
pub const PAWN: PieceDef =
    PieceDef { kind: PieceKind::Pawn, letter: 'P', leaps: &PAWN_LEAPS, slides: &[], royal: false, pawn: true };
/// FIDE knight.
pub const KNIGHT: PieceDef =
    PieceDef { kind: PieceKind::Knight, letter: 'N', leaps: &KNIGHT_LEAPS, slides: &[], royal: false, pawn: false };
/// FIDE bishop.
pub const BISHOP: PieceDef =
    PieceDef { kind: PieceKind::Bishop, letter: 'B', leaps: &[], slides: &BISHOP_SLIDES, royal: false, pawn: false };
/// FIDE rook.
pub const ROOK: PieceDef =
    PieceDef { kind: PieceKind::Rook, letter: 'R', leaps: &[], slides: &ROOK_SLIDES, royal: false, pawn: false };
/// FIDE queen.
pub const QUEEN: PieceDef =
    PieceDef { kind: PieceKind::Queen, letter: 'Q', leaps: &[], slides: &QUEEN_SLIDES, royal: false, pawn: false };
/// FIDE king.
pub const KING: PieceDef =
    PieceDef { kind: PieceKind::King, letter: 'K', leaps: &KING_LEAPS, slides: &[], royal: true, pawn: false };

/// Grunt Chess's grunt: steps straight forward or backward without capturing, captures one
/// step diagonally in any direction.
pub const GRUNT: PieceDef = PieceDef {
    kind: PieceKind::Grunt,
    letter: 'G',
    leaps: &[
        leap_move(0, 1),
        leap_move(0, -1),
        leap_capture(1, 1),
        leap_capture(-1, 1),
        leap_capture(1, -1),
        leap_capture(-1, -1),
    ],
    slides: &[],
    royal: false,
    pawn: false,
};

/// The FIDE piece set in role order P N B R Q K.
pub const FIDE_PIECES: [PieceDef; 6] = [PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING];

/// A role: an index into a variant's piece table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Role(pub u8);

impl Role {
    /// The index as `usize`.
    #[inline(always)]
    pub const fn idx(self) -> usize {
        self.0 as usize
    }
}

/// A piece on the board: colour and role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Role in the variant's piece table.
    pub role: Role,
}

/// Slide summary of one line family (orthogonal or diagonal) for a role: direction bit masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SlideInfo {
    /// Directions (bit per direction within the family) usable to move.
    pub moves: u8,
    /// Directions usable to capture.
    pub captures: u8,
}

impl SlideInfo {
    /// Slides in all four directions of the family, moving and capturing.
    #[inline(always)]
    pub const fn full(self) -> bool {
        self.moves == 0xF && self.captures == 0xF
    }
    /// Has any slide in this family.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.moves | self.captures != 0
    }
}

/// What kinds of movement a role has, known at compile time so hot loops fold away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RoleInfo {
    /// The role exists in the variant.
    pub exists: bool,
    /// Has leaps usable to move.
    pub leap_moves: bool,
    /// Has leaps usable to capture.
    pub leap_captures: bool,
    /// Orthogonal slides.
    pub orth: SlideInfo,
    /// Diagonal slides.
    pub diag: SlideInfo,
    /// Every leap and slide both moves and captures.
    pub symmetric: bool,
    /// A FIDE pawn.
    pub pawn: bool,
    /// A king.
    pub royal: bool,
}

impl RoleInfo {
    /// Summarises a piece definition.
    pub const fn of(def: &PieceDef) -> RoleInfo {
        let mut info = RoleInfo {
            exists: true,
            leap_moves: false,
            leap_captures: false,
            orth: SlideInfo { moves: 0, captures: 0 },
            diag: SlideInfo { moves: 0, captures: 0 },
            symmetric: true,
            pawn: def.pawn,
            royal: def.royal,
        };
        let mut i = 0;
        while i < def.leaps.len() {
            let l = def.leaps[i];
            info.leap_moves |= l.reach.moves();
            info.leap_captures |= l.reach.captures();
            info.symmetric &= matches!(l.reach, Reach::Both);
            i += 1;
        }
        let mut j = 0;
        while j < def.slides.len() {
            let s = def.slides[j];
            info.symmetric &= matches!(s.reach, Reach::Both);
            let d = s.dir as u8;
            if d < 4 {
                if s.reach.moves() {
                    info.orth.moves |= 1 << d;
                }
                if s.reach.captures() {
                    info.orth.captures |= 1 << d;
                }
            } else {
                if s.reach.moves() {
                    info.diag.moves |= 1 << (d - 4);
                }
                if s.reach.captures() {
                    info.diag.captures |= 1 << (d - 4);
                }
            }
            j += 1;
        }
        info
    }

    /// Summaries of a whole piece table (unused roles have `exists == false`).
    pub const fn table(defs: &[PieceDef]) -> [RoleInfo; MAX_ROLES] {
        let empty = RoleInfo {
            exists: false,
            leap_moves: false,
            leap_captures: false,
            orth: SlideInfo { moves: 0, captures: 0 },
            diag: SlideInfo { moves: 0, captures: 0 },
            symmetric: true,
            pawn: false,
            royal: false,
        };
        let mut out = [empty; MAX_ROLES];
        let mut i = 0;
        while i < defs.len() && i < MAX_ROLES {
            out[i] = RoleInfo::of(&defs[i]);
            i += 1;
        }
        out
    }
}

/// The index of the first role with the given property, or `MAX_ROLES`.
pub const fn find_role(defs: &[PieceDef], royal: bool, pawn: bool) -> usize {
    let mut i = 0;
    while i < defs.len() {
        if (royal && defs[i].royal) || (pawn && defs[i].pawn) {
            return i;
        }
        i += 1;
    }
    MAX_ROLES
}

/// Per colour and square tables of one role.
#[derive(Debug)]
struct RoleTables<B> {
    leap_move: Box<[B]>,
    leap_capture: Box<[B]>,
    rev_leap_capture: Box<[B]>,
    orth_move: Box<[B]>,
    orth_capture: Box<[B]>,
    diag_move: Box<[B]>,
    diag_capture: Box<[B]>,
    rev_orth_capture: Box<[B]>,
    rev_diag_capture: Box<[B]>,
}

/// Precomputed reach of every role of a variant on its board.
#[derive(Debug)]
pub struct PieceTables<B> {
    n: usize,
    roles: Vec<RoleTables<B>>,
}

macro_rules! lookup {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(&self, role: usize, color: Color, sq: Square) -> B {
            self.roles[role].$name[color.index() * self.n + sq.idx()]
        }
    };
}

impl<B: BitBoard> PieceTables<B> {
    /// Builds the tables of `defs` on board `G`.
    pub fn build<G: Geometry<Bb = B>>(defs: &[PieceDef]) -> PieceTables<B> {
        let t: &GeoTables<B> = G::tables();
        let n = G::SQUARES;
        let roles = defs
            .iter()
            .map(|def| {
                let mut rt = RoleTables {
                    leap_move: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    leap_capture: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    rev_leap_capture: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    orth_move: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    orth_capture: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    diag_move: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    diag_capture: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    rev_orth_capture: vec![B::ZERO; 2 * n].into_boxed_slice(),
                    rev_diag_capture: vec![B::ZERO; 2 * n].into_boxed_slice(),
                };
                for color in Color::ALL {
                    let white = color == Color::White;
                    for sq in 0..n {
                        let s = Square::new(sq as u8);
                        let (f, r) = (G::file_of(s) as i32, G::rank_of(s) as i32);
                        let i = color.index() * n + sq;
                        for l in def.leaps {
                            let dy = if white { i32::from(l.dy) } else { -i32::from(l.dy) };
                            if let Some(to) = G::square(f + i32::from(l.dx), r + dy) {
                                if l.reach.moves() {
                                    rt.leap_move[i] |= B::from_square(to);
                                }
                                if l.reach.captures() {
                                    rt.leap_capture[i] |= B::from_square(to);
                                    rt.rev_leap_capture[color.index() * n + to.idx()] |= B::from_square(s);
                                }
                            }
                        }
                        for sl in def.slides {
                            let dir = if white { sl.dir } else { sl.dir.flip_vertical() };
                            let ray = t.ray(dir, s);
                            let back = t.ray(dir.opposite(), s);
                            let (mv, cap, rev) = if dir.is_orthogonal() {
                                (&mut rt.orth_move, &mut rt.orth_capture, &mut rt.rev_orth_capture)
                            } else {
                                (&mut rt.diag_move, &mut rt.diag_capture, &mut rt.rev_diag_capture)
                            };
                            if sl.reach.moves() {
                                mv[i] |= ray;
                            }
                            if sl.reach.captures() {
                                cap[i] |= ray;
                                rev[i] |= back;
                            }
                        }
                    }
                }
                rt
            })
            .collect();
        PieceTables { n, roles }
    }

    lookup!(
        /// Squares a leap of the role reaches to move (empty board).
        leap_move
    );
    lookup!(
        /// Squares a leap of the role reaches to capture.
        leap_capture
    );
    lookup!(
        /// Squares from which a piece of this role and colour captures `sq` by a leap.
        rev_leap_capture
    );
    lookup!(
        /// Orthogonal rays the role may move along (empty board).
        orth_move
    );
    lookup!(
        /// Orthogonal rays the role may capture along (empty board).
        orth_capture
    );
    lookup!(
        /// Diagonal rays the role may move along (empty board).
        diag_move
    );
    lookup!(
        /// Diagonal rays the role may capture along (empty board).
        diag_capture
    );
    lookup!(
        /// Squares on orthogonal lines from which the role could capture `sq` by sliding.
        rev_orth_capture
    );
    lookup!(
        /// Squares on diagonal lines from which the role could capture `sq` by sliding.
        rev_diag_capture
    );
}
