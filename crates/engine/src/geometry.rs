//! Board geometry: sizes, square names, rays and sliding attacks for every board.
//!
//! Each board shape is a zero-sized type implementing [`Geometry`]; its tables (rays, lines,
//! magic sliding-attack tables) are built once, on first use, from its size alone.

use core::fmt::{self, Debug};
use core::hash::Hash;
use std::sync::OnceLock;

use crate::bitboard::BitBoard;
use crate::magics;
use crate::square::Square;

/// The eight line directions as `(file step, rank step)`: four orthogonal, then four diagonal.
pub const DIRECTIONS: [(i32, i32); 8] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)];

/// One of the eight line directions, an index into [`DIRECTIONS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Dir {
    /// Towards higher ranks.
    N = 0,
    /// Towards lower ranks.
    S = 1,
    /// Towards higher files.
    E = 2,
    /// Towards lower files.
    W = 3,
    /// Up and right.
    NE = 4,
    /// Up and left.
    NW = 5,
    /// Down and right.
    SE = 6,
    /// Down and left.
    SW = 7,
}

impl Dir {
    /// All eight directions in table order.
    pub const ALL: [Dir; 8] = [Dir::N, Dir::S, Dir::E, Dir::W, Dir::NE, Dir::NW, Dir::SE, Dir::SW];

    /// The `(file step, rank step)` of this direction.
    pub const fn delta(self) -> (i32, i32) {
        DIRECTIONS[self as usize]
    }

    /// Whether the direction is along a file or a rank.
    pub const fn is_orthogonal(self) -> bool {
        (self as u8) < 4
    }

    /// The direction as seen by Black (rank steps reversed).
    pub const fn flip_vertical(self) -> Dir {
        match self {
            Dir::N => Dir::S,
            Dir::S => Dir::N,
            Dir::NE => Dir::SE,
            Dir::NW => Dir::SW,
            Dir::SE => Dir::NE,
            Dir::SW => Dir::NW,
            d => d,
        }
    }

    /// The direction pointing the other way.
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::N => Dir::S,
            Dir::S => Dir::N,
            Dir::E => Dir::W,
            Dir::W => Dir::E,
            Dir::NE => Dir::SW,
            Dir::SW => Dir::NE,
            Dir::NW => Dir::SE,
            Dir::SE => Dir::NW,
        }
    }
}

/// A board shape. Implemented by [`Board8x8`], [`Board9x9`] and [`Board8x4`].
pub trait Geometry: 'static + Copy + Debug + Default + Send + Sync + Eq + Hash {
    /// The bitboard type wide enough for this board.
    type Bb: BitBoard;
    /// Number of files (columns), at most 9.
    const FILES: u32;
    /// Number of ranks (rows), at most 9.
    const RANKS: u32;
    /// Number of squares.
    const SQUARES: usize = (Self::FILES * Self::RANKS) as usize;

    /// The board's tables, built on first use.
    fn tables() -> &'static GeoTables<Self::Bb>;

    /// The file (0 = a) of a square.
    #[inline(always)]
    fn file_of(sq: Square) -> u32 {
        u32::from(sq.index()) % Self::FILES
    }

    /// The rank (0 = rank 1) of a square.
    #[inline(always)]
    fn rank_of(sq: Square) -> u32 {
        u32::from(sq.index()) / Self::FILES
    }

    /// The square at `file`, `rank` (both from 0), if it is on the board.
    #[inline(always)]
    fn square(file: i32, rank: i32) -> Option<Square> {
        if file < 0 || rank < 0 || file >= Self::FILES as i32 || rank >= Self::RANKS as i32 {
            None
        } else {
            Some(Square::new((rank as u32 * Self::FILES + file as u32) as u8))
        }
    }

    /// The rank as seen by `white`: 0 is the player's own first rank.
    #[inline(always)]
    fn relative_rank(sq: Square, white: bool) -> u32 {
        let r = Self::rank_of(sq);
        if white { r } else { Self::RANKS - 1 - r }
    }

    /// The square's name, such as `e4` or `i9`.
    fn name(sq: Square) -> SquareName {
        SquareName { file: Self::file_of(sq) as u8, rank: Self::rank_of(sq) as u8 }
    }

    /// Parses a square name such as `e4`; `None` if it is not a square of this board.
    fn parse_square(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = i32::from(bytes[0]) - i32::from(b'a');
        let rank = i32::from(bytes[1]) - i32::from(b'1');
        Self::square(file, rank)
    }
}

/// The printable name of a square.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SquareName {
    file: u8,
    rank: u8,
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.file), self.rank + 1)
    }
}

impl Debug for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

macro_rules! geometry {
    ($(#[$doc:meta])* $name:ident, $bb:ty, $files:expr, $ranks:expr, $rook:expr, $bishop:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Geometry for $name {
            type Bb = $bb;
            const FILES: u32 = $files;
            const RANKS: u32 = $ranks;

            #[inline(always)]
            fn tables() -> &'static GeoTables<$bb> {
                static TABLES: OnceLock<GeoTables<$bb>> = OnceLock::new();
                TABLES.get_or_init(|| GeoTables::build($files, $ranks, &$rook, &$bishop))
            }
        }
    };
}

geometry!(
    /// The 8x8 board of FIDE chess and most variants.
    Board8x8, u64, 8, 8, magics::ROOK_8X8, magics::BISHOP_8X8
);
geometry!(
    /// The 9x9 board of Electrum Chess.
    Board9x9, u128, 9, 9, magics::ROOK_9X9, magics::BISHOP_9X9
);
geometry!(
    /// The 8-file, 4-rank board of Class Warfare Chess.
    Board8x4, u32, 8, 4, magics::ROOK_8X4, magics::BISHOP_8X4
);

/// One square's entry of a magic sliding-attack table.
#[derive(Clone, Copy, Debug)]
struct Magic<B> {
    mask: B,
    magic: B,
    shift: u32,
    offset: usize,
}

/// Sliding attacks for one family of directions (rook or bishop), by magic multiplication.
#[derive(Debug)]
struct Sliders<B> {
    entries: Box<[Magic<B>]>,
    attacks: Box<[B]>,
}

impl<B: BitBoard> Sliders<B> {
    #[inline(always)]
    fn get(&self, sq: Square, occupied: B) -> B {
        let m = &self.entries[sq.idx()];
        self.attacks[m.offset + (occupied & m.mask).magic_index(m.magic, m.shift)]
    }
}

/// Precomputed tables of one board shape.
#[derive(Debug)]
pub struct GeoTables<B> {
    /// Number of files.
    pub files: u32,
    /// Number of ranks.
    pub ranks: u32,
    /// Every square of the board.
    pub all: B,
    /// The squares of each file, `file[0]` is the a-file.
    pub file: [B; 9],
    /// The squares of each rank, `rank[0]` is rank 1.
    pub rank: [B; 9],
    rook: Sliders<B>,
    bishop: Sliders<B>,
    rays: Box<[B]>,
    between: Box<[B]>,
    line: Box<[B]>,
}

/// Walks from `sq` in each of `dirs` until the edge or the first occupied square (included).
fn slide(files: u32, ranks: u32, sq: usize, occupied: u128, dirs: &[(i32, i32)]) -> u128 {
    let (f0, r0) = ((sq as u32 % files) as i32, (sq as u32 / files) as i32);
    let mut out = 0u128;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while f >= 0 && r >= 0 && (f as u32) < files && (r as u32) < ranks {
            let bit = 1u128 << (r as u32 * files + f as u32);
            out |= bit;
            if occupied & bit != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    out
}

/// The relevant-occupancy mask: the empty-board slide without each ray's last square.
fn relevant_mask(files: u32, ranks: u32, sq: usize, dirs: &[(i32, i32)]) -> u128 {
    let (f0, r0) = ((sq as u32 % files) as i32, (sq as u32 / files) as i32);
    let mut out = 0u128;
    for &(df, dr) in dirs {
        let (mut f, mut r) = (f0 + df, r0 + dr);
        loop {
            let (nf, nr) = (f + df, r + dr);
            let inside = |f: i32, r: i32| f >= 0 && r >= 0 && (f as u32) < files && (r as u32) < ranks;
            if !inside(f, r) || !inside(nf, nr) {
                break;
            }
            out |= 1u128 << (r as u32 * files + f as u32);
            f = nf;
            r = nr;
        }
    }
    out
}

/// Every subset of `mask` (carry-rippler enumeration).
fn subsets(mask: u128) -> Vec<u128> {
    let mut out = Vec::with_capacity(1 << mask.count_ones());
    let mut sub = 0u128;
    loop {
        out.push(sub);
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
    }
    out
}

/// A small deterministic generator for the magic search (never used for game randomness).
struct SearchRng(u64);

impl SearchRng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn sparse128(&mut self) -> u128 {
        let mut v = 0u128;
        for _ in 0..2 {
            v = (v << 64) | u128::from(self.next() & self.next() & self.next());
        }
        v
    }
}

/// The occupancies of one square with their attacks, and scratch space for testing magics.
struct MagicSearch<B> {
    shift: u32,
    occupancies: Vec<(B, B)>,
    table: Vec<B>,
    stamp: Vec<u32>,
    epoch: u32,
}

impl<B: BitBoard> MagicSearch<B> {
    /// Tests a magic number; on success `table` holds the attacks it indexes.
    fn try_magic(&mut self, magic: B) -> bool {
        self.epoch += 1;
        for &(occ, att) in &self.occupancies {
            let i = occ.magic_index(magic, self.shift);
            if self.stamp[i] == self.epoch {
                if self.table[i] != att {
                    return false;
                }
            } else {
                self.stamp[i] = self.epoch;
                self.table[i] = att;
            }
        }
        true
    }

    /// Finds a magic multiplier, trying `hint` first.
    fn find(&mut self, hint: Option<u128>, mask: B, rng: &mut SearchRng) -> B {
        if let Some(h) = hint
            && self.try_magic(B::from_u128(h))
        {
            return B::from_u128(h);
        }
        loop {
            let candidate = B::from_u128(rng.sparse128());
            // Cheap filter: the top bits of mask * magic must be well populated.
            let spread = mask.magic_index(candidate, B::BITS - 8) as u32;
            if spread.count_ones() < 6 {
                continue;
            }
            if self.try_magic(candidate) {
                return candidate;
            }
        }
    }
}

fn build_sliders<B: BitBoard>(files: u32, ranks: u32, dirs: &[(i32, i32)], hints: &[u128]) -> Sliders<B> {
    let n = (files * ranks) as usize;
    let mut entries = Vec::with_capacity(n);
    let mut attacks: Vec<B> = Vec::new();
    let mut rng = SearchRng(0x9E37_79B9_7F4A_7C15 ^ (u64::from(files) << 8) ^ u64::from(ranks));
    for sq in 0..n {
        let mask128 = relevant_mask(files, ranks, sq, dirs);
        let bits = mask128.count_ones();
        let shift = B::BITS - bits;
        let occupancies: Vec<(B, B)> = subsets(mask128)
            .into_iter()
            .map(|occ| (B::from_u128(occ), B::from_u128(slide(files, ranks, sq, occ, dirs))))
            .collect();
        let size = 1usize << bits;
        let mut search =
            MagicSearch { shift, occupancies, table: vec![B::ZERO; size], stamp: vec![0u32; size], epoch: 0 };
        let magic = search.find(hints.get(sq).copied(), B::from_u128(mask128), &mut rng);
        entries.push(Magic { mask: B::from_u128(mask128), magic, shift, offset: attacks.len() });
        attacks.extend_from_slice(&search.table);
    }
    Sliders { entries: entries.into_boxed_slice(), attacks: attacks.into_boxed_slice() }
}

impl<B: BitBoard> GeoTables<B> {
    fn build(files: u32, ranks: u32, rook_hints: &[u128], bishop_hints: &[u128]) -> GeoTables<B> {
        let n = (files * ranks) as usize;
        let mut file = [B::ZERO; 9];
        let mut rank = [B::ZERO; 9];
        let mut all = B::ZERO;
        for sq in 0..n {
            let bit = B::bit(sq as u32);
            file[sq % files as usize] |= bit;
            rank[sq / files as usize] |= bit;
            all |= bit;
        }
        let mut rays = vec![B::ZERO; 8 * n];
        for (d, dir) in DIRECTIONS.iter().enumerate() {
            for sq in 0..n {
                rays[d * n + sq] = B::from_u128(slide(files, ranks, sq, 0, &[*dir]));
            }
        }
        let mut between = vec![B::ZERO; n * n];
        let mut line = vec![B::ZERO; n * n];
        for a in 0..n {
            for (d, dir) in DIRECTIONS.iter().enumerate() {
                let ray = rays[d * n + a];
                let back = rays[Dir::ALL[d].opposite() as usize * n + a];
                for b in ray.squares() {
                    let beyond = B::from_u128(slide(files, ranks, b.idx(), 0, &[*dir]));
                    between[a * n + b.idx()] = ray & !beyond & !B::bit(b.index().into());
                    line[a * n + b.idx()] = ray | back | B::bit(a as u32);
                }
            }
        }
        let rook_dirs = &DIRECTIONS[..4];
        let bishop_dirs = &DIRECTIONS[4..];
        GeoTables {
            files,
            ranks,
            all,
            file,
            rank,
            rook: build_sliders(files, ranks, rook_dirs, rook_hints),
            bishop: build_sliders(files, ranks, bishop_dirs, bishop_hints),
            rays: rays.into_boxed_slice(),
            between: between.into_boxed_slice(),
            line: line.into_boxed_slice(),
        }
    }

    /// Number of squares.
    #[inline(always)]
    pub fn len(&self) -> usize {
        (self.files * self.ranks) as usize
    }

    /// Always false: a board has squares.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Squares a rook on `sq` attacks given the occupied squares.
    #[inline(always)]
    pub fn rook(&self, sq: Square, occupied: B) -> B {
        self.rook.get(sq, occupied)
    }

    /// Squares a bishop on `sq` attacks given the occupied squares.
    #[inline(always)]
    pub fn bishop(&self, sq: Square, occupied: B) -> B {
        self.bishop.get(sq, occupied)
    }

    /// Squares a queen on `sq` attacks given the occupied squares.
    #[inline(always)]
    pub fn queen(&self, sq: Square, occupied: B) -> B {
        self.rook(sq, occupied) | self.bishop(sq, occupied)
    }

    /// The ray from `sq` in direction `dir` to the edge, `sq` excluded.
    #[inline(always)]
    pub fn ray(&self, dir: Dir, sq: Square) -> B {
        self.rays[dir as usize * self.len() + sq.idx()]
    }

    /// The squares strictly between two squares on one line; empty if not aligned.
    #[inline(always)]
    pub fn between(&self, a: Square, b: Square) -> B {
        self.between[a.idx() * self.len() + b.idx()]
    }

    /// The whole line through two aligned squares; empty if not aligned.
    #[inline(always)]
    pub fn line(&self, a: Square, b: Square) -> B {
        self.line[a.idx() * self.len() + b.idx()]
    }

    /// Whether three squares lie on one line.
    #[inline(always)]
    pub fn aligned(&self, a: Square, b: Square, c: Square) -> bool {
        self.line(a, b).contains(c)
    }

    /// The magic multipliers in use, rook then bishop, for the data file generator.
    pub fn magic_numbers(&self) -> (Vec<u128>, Vec<u128>) {
        (
            self.rook.entries.iter().map(|m| m.magic.to_u128()).collect(),
            self.bishop.entries.iter().map(|m| m.magic.to_u128()).collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_sliders<G: Geometry>() {
        let t = G::tables();
        let n = G::SQUARES;
        let mut rng = SearchRng(12345);
        for _ in 0..2000 {
            let occ = (u128::from(rng.next()) << 64 | u128::from(rng.next())) & t.all.to_u128();
            for sq in 0..n {
                let s = Square::new(sq as u8);
                let occ_b = G::Bb::from_u128(occ);
                assert_eq!(t.rook(s, occ_b).to_u128(), slide(G::FILES, G::RANKS, sq, occ, &DIRECTIONS[..4]));
                assert_eq!(t.bishop(s, occ_b).to_u128(), slide(G::FILES, G::RANKS, sq, occ, &DIRECTIONS[4..]));
            }
        }
    }

    #[test]
    fn magic_attacks_match_ray_walks_on_every_board() {
        check_sliders::<Board8x8>();
        check_sliders::<Board9x9>();
        check_sliders::<Board8x4>();
    }

    #[test]
    fn embedded_magics_are_the_ones_in_use() {
        fn same<G: Geometry>(rook: &[u128], bishop: &[u128]) {
            let (r, b) = G::tables().magic_numbers();
            assert_eq!(r, rook, "rook magics of {}x{} need regenerating", G::FILES, G::RANKS);
            assert_eq!(b, bishop, "bishop magics of {}x{} need regenerating", G::FILES, G::RANKS);
        }
        same::<Board8x8>(&magics::ROOK_8X8, &magics::BISHOP_8X8);
        same::<Board9x9>(&magics::ROOK_9X9, &magics::BISHOP_9X9);
        same::<Board8x4>(&magics::ROOK_8X4, &magics::BISHOP_8X4);
    }

    #[test]
    fn names_and_lines() {
        let e4 = Board8x8::parse_square("e4").map(Board8x8::name);
        assert_eq!(e4.map(|n| n.to_string()).as_deref(), Some("e4"));
        assert_eq!(Board9x9::parse_square("i9").map(|s| s.index()), Some(80));
        assert_eq!(Board8x4::parse_square("a5"), None);
        assert_eq!(Board8x8::parse_square("j1"), None);
        let t = Board8x8::tables();
        let sq = |s| Board8x8::parse_square(s).unwrap_or(Square::new(0));
        assert_eq!(t.between(sq("a1"), sq("d4")).count(), 2);
        assert!(t.aligned(sq("a1"), sq("h8"), sq("e5")));
        assert!(t.between(sq("a1"), sq("b3")).is_zero());
    }
}
