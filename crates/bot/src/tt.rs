//! The transposition table: search results keyed by [`Position::hash`](chessgold_engine::Position::hash).

use chessgold_engine::Move;

/// What a stored score says about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Bound {
    /// Nothing stored.
    #[default]
    None,
    /// The true score.
    Exact,
    /// The true score is at least this (a cut-off).
    Lower,
    /// The true score is at most this (every move failed low).
    Upper,
}

/// One stored result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Entry {
    /// The full hash of the position.
    pub key: u64,
    /// The best move found, if any.
    pub mv: Option<Move>,
    /// The score, with mate scores relative to this node.
    pub score: i32,
    /// The depth searched.
    pub depth: i16,
    /// How to read the score.
    pub bound: Bound,
}

/// A fixed-size, always-replace-unless-deeper table.
#[derive(Debug)]
pub struct Tt {
    entries: Vec<Entry>,
    mask: usize,
}

impl Tt {
    /// A table of about `megabytes` MB (a power of two of entries, at least 1024).
    pub fn new(megabytes: usize) -> Tt {
        let wanted = (megabytes.max(1) << 20) / core::mem::size_of::<Entry>();
        let mut n = 1024usize;
        while n * 2 <= wanted {
            n *= 2;
        }
        Tt { entries: vec![Entry::default(); n], mask: n - 1 }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[key as usize & self.mask];
        (e.key == key && e.bound != Bound::None).then_some(e)
    }

    /// Stores a result, keeping a deeper result of the same position.
    #[inline]
    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let slot = &mut self.entries[key as usize & self.mask];
        if slot.key == key && slot.bound != Bound::None && i32::from(slot.depth) > depth + 2 && bound != Bound::Exact {
            return;
        }
        let mv = if mv.is_none() && slot.key == key { slot.mv } else { mv };
        *slot = Entry { key, mv, score, depth: depth.clamp(-1, 127) as i16, bound };
    }
}
