//! Bitboards wide enough for every board of the platform.
//!
//! A board of `files x ranks` squares numbers its squares `rank * files + file`, so bit `i` of a
//! bitboard stands for square `i`. 8x4 boards fit in a `u32`, 8x8 in a `u64` and 9x9 in a `u128`;
//! the move generator is generic over this trait and is compiled once per board.

use core::fmt::Debug;
use core::hash::Hash;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

use crate::square::Square;

/// An unsigned integer used as a set of squares.
pub trait BitBoard:
    Copy
    + Eq
    + Default
    + Debug
    + Hash
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// The empty set.
    const ZERO: Self;
    /// Width of the integer in bits.
    const BITS: u32;

    /// The set holding only bit `index`.
    fn bit(index: u32) -> Self;
    /// Whether bit `index` is set.
    fn has(self, index: u32) -> bool;
    /// Whether no bit is set.
    fn is_zero(self) -> bool;
    /// Number of set bits.
    fn count(self) -> u32;
    /// Index of the lowest set bit (`BITS` when empty).
    fn lsb(self) -> u32;
    /// Index of the highest set bit (undefined result when empty).
    fn msb(self) -> u32;
    /// The set without its lowest bit.
    fn without_lsb(self) -> Self;
    /// Index into a magic attack table: `(self * magic) >> shift`, wrapping.
    fn magic_index(self, magic: Self, shift: u32) -> usize;
    /// Truncating conversion from `u128`.
    fn from_u128(value: u128) -> Self;
    /// Widening conversion to `u128`.
    fn to_u128(self) -> u128;

    /// Whether at least one bit is set.
    #[inline(always)]
    fn any(self) -> bool {
        !self.is_zero()
    }
    /// Whether two or more bits are set.
    #[inline(always)]
    fn more_than_one(self) -> bool {
        self.without_lsb().any()
    }
    /// Whether square `sq` is in the set.
    #[inline(always)]
    fn contains(self, sq: Square) -> bool {
        self.has(u32::from(sq.index()))
    }
    /// The set holding only `sq`.
    #[inline(always)]
    fn from_square(sq: Square) -> Self {
        Self::bit(u32::from(sq.index()))
    }
    /// The lowest square of the set, if any.
    #[inline(always)]
    fn first(self) -> Option<Square> {
        if self.is_zero() { None } else { Some(Square::new(self.lsb() as u8)) }
    }
    /// The squares of the set, lowest first.
    #[inline(always)]
    fn squares(self) -> Squares<Self> {
        Squares(self)
    }
    /// The set with `sq` added.
    #[inline(always)]
    fn with(self, sq: Square) -> Self {
        self | Self::from_square(sq)
    }
    /// The set with `sq` removed.
    #[inline(always)]
    fn without(self, sq: Square) -> Self {
        self & !Self::from_square(sq)
    }
}

macro_rules! impl_bitboard {
    ($t:ty) => {
        impl BitBoard for $t {
            const ZERO: Self = 0;
            const BITS: u32 = <$t>::BITS;

            #[inline(always)]
            fn bit(index: u32) -> Self {
                1 << index
            }
            #[inline(always)]
            fn has(self, index: u32) -> bool {
                (self >> index) & 1 != 0
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lsb(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline(always)]
            fn msb(self) -> u32 {
                <$t>::BITS - 1 - self.leading_zeros()
            }
            #[inline(always)]
            fn without_lsb(self) -> Self {
                self & self.wrapping_sub(1)
            }
            #[inline(always)]
            fn magic_index(self, magic: Self, shift: u32) -> usize {
                (self.wrapping_mul(magic) >> shift) as usize
            }
            #[inline(always)]
            fn from_u128(value: u128) -> Self {
                value as $t
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
        }
    };
}

impl_bitboard!(u32);
impl_bitboard!(u64);
impl_bitboard!(u128);

/// Iterator over the squares of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares<B>(pub B);

impl<B: BitBoard> Iterator for Squares<B> {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0.is_zero() {
            return None;
        }
        let sq = self.0.lsb();
        self.0 = self.0.without_lsb();
        Some(Square::new(sq as u8))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

impl<B: BitBoard> ExactSizeIterator for Squares<B> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip<B: BitBoard>() {
        let set = B::bit(3) | B::bit(B::BITS - 1);
        assert_eq!(set.count(), 2);
        assert_eq!(set.lsb(), 3);
        assert_eq!(set.msb(), B::BITS - 1);
        assert!(set.more_than_one());
        assert!(!B::bit(5).more_than_one());
        let squares: Vec<u8> = set.squares().map(|s| s.index()).collect();
        assert_eq!(squares, vec![3, (B::BITS - 1) as u8]);
        assert_eq!(B::from_u128(set.to_u128()), set);
    }

    #[test]
    fn every_width_behaves_alike() {
        roundtrip::<u32>();
        roundtrip::<u64>();
        roundtrip::<u128>();
    }
}
