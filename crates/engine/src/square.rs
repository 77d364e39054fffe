//! Colours and squares.

use core::ops::Not;

/// A side of the game. White moves up the board (towards higher ranks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Color {
    /// The side that starts at rank 1.
    White = 0,
    /// The side that starts at the last rank.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `'w'` or `'b'`, as in position text.
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Picks `white` or `black` by colour.
    #[inline(always)]
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Color {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Not for Color {
    type Output = Color;

    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// A square, as its bit index on its board (`rank * files + file`).
///
/// A square alone does not know its board's width; names and coordinates come from the
/// board's [`Geometry`](crate::geometry::Geometry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square with bit index `index`.
    #[inline(always)]
    pub const fn new(index: u8) -> Square {
        Square(index)
    }

    /// The bit index.
    #[inline(always)]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The bit index as `usize`, for table lookups.
    #[inline(always)]
    pub const fn idx(self) -> usize {
        self.0 as usize
    }
}
