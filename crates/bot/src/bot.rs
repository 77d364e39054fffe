//! A bot player of one variant: a searcher kept through a game, the level's weaknesses and the
//! clock.

use std::time::Instant;

use chessgold_engine::{Game, Move, MoveKind, Position};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::eval::BotVariant;
use crate::levels::{Level, Limits, plan};
use crate::search::{SearchOptions, SearchResult, Searcher, mix64};

/// The repetition keys of every position a game went through before the current one.
pub fn game_history<V: BotVariant>(game: &Game<V>) -> Vec<u64> {
    let mut pos: Position<V> = game.start_position().clone();
    let mut out = Vec::with_capacity(game.actions().len());
    for &m in game.actions() {
        if m.kind == MoveKind::Equip {
            // Equips do not end the turn; the game records a position only per turn.
            V::apply_equip(&mut pos, m);
        } else {
            out.push(pos.hash());
            pos.play_unchecked(m);
        }
    }
    out
}

/// A uniform pick below `n` (n > 0) from a ChaCha20 stream, without modulo bias.
fn uniform(rng: &mut ChaCha20Rng, n: u32) -> u32 {
    let zone = u32::MAX - (u32::MAX % n);
    loop {
        let x = rng.next_u32();
        if x < zone {
            return x % n;
        }
    }
}

/// A ChaCha20 stream keyed by a seed and a position (so a game's moves draw independently).
fn rng_for(seed: u64, key: u64) -> ChaCha20Rng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(&key.to_le_bytes());
    ChaCha20Rng::from_seed(bytes)
}

/// A bot for variant `V`: reuse one through a game so that its table carries over.
#[derive(Debug)]
pub struct Bot<V: BotVariant> {
    searcher: Searcher<V>,
}

impl<V: BotVariant> Bot<V> {
    /// A bot sized for `level`.
    pub fn new(level: Level) -> Bot<V> {
        Bot::with_table(level.spec().tt_megabytes)
    }

    /// A bot with a transposition table of about `megabytes` MB.
    pub fn with_table(megabytes: usize) -> Bot<V> {
        Bot { searcher: Searcher::new(megabytes) }
    }

    /// Forgets what it learnt in an earlier game.
    pub fn new_game(&mut self) {
        self.searcher.clear();
    }

    /// Chooses the action of the side to move of `game`; `None` when the game is over.
    ///
    /// With a node budget and no clock, the choice depends only on the game, the level and
    /// the seed.
    pub fn think(&mut self, game: &Game<V>, level: Level, limits: Limits, seed: u64) -> Option<SearchResult> {
        if game.outcome().is_some() || game.legal().is_empty() {
            return None;
        }
        let start = Instant::now();
        let spec = level.spec();
        let pos = game.position();
        let history = game_history(game);
        let seed = mix64(seed ^ 0x6368_6573_7367_6f6c);
        let mut rng = rng_for(seed, pos.hash() ^ history.len() as u64);
        if spec.blunder_permille > 0 && uniform(&mut rng, 1000) < spec.blunder_permille {
            let legal = game.legal();
            let m = legal[uniform(&mut rng, legal.len() as u32) as usize];
            return Some(SearchResult { best: Some(m), score: 0, depth: 0, nodes: 0, pv: vec![m] });
        }
        let budget = plan(limits, spec);
        let opts = SearchOptions {
            max_depth: spec.max_depth,
            nodes: budget.nodes,
            deadline: budget.hard.map(|d| start + d),
            soft_deadline: budget.soft.map(|d| start + d),
            noise_cp: spec.noise_cp,
            seed,
        };
        let result = self.searcher.search(pos, &history, opts);
        Some(result)
    }

    /// The best action by the full engine within `limits` (no level weaknesses).
    pub fn best_move(&mut self, game: &Game<V>, limits: Limits) -> Option<Move> {
        self.think(game, Level::MAX, limits, 0).and_then(|r| r.best)
    }
}
