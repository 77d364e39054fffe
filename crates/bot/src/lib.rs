//! The bots of Chess Gold: a search engine over the rules crate, eight levels, match play and
//! Elo estimates.
//!
//! The search ([`search()`], [`Searcher`]) is generic over the engine's [`Variant`] through
//! [`BotVariant`], which names the variant's evaluator. It is pure: no I/O, no clock but the
//! caller's deadline, randomness only from the caller's seed. The only I/O of the crate is the
//! UCI client ([`uci`]) used by [`play_match`] to measure strength against other engines.
//!
//! # Examples
//!
//! ```
//! use chessgold_bot::{Level, Limits, choose_action};
//! use chessgold_engine::registry::variant;
//!
//! let game = variant("gold").expect("registered").new_game();
//! let action = choose_action(game.as_ref(), Level::new(3).expect("1 to 8"), Limits::nodes(2_000), 7);
//! assert!(game.legal_actions().contains(&action.expect("a legal action")));
//! ```

pub mod bot;
pub mod dispatch;
pub mod elo;
pub mod eval;
pub mod levels;
pub mod matches;
pub mod search;
pub mod tt;
pub mod uci;

pub use bot::{Bot, game_history};
pub use dispatch::{WithVariant, dispatch};
pub use elo::{EloEstimate, elo_estimate};
pub use eval::{BotVariant, Evaluator};
pub use levels::{LEVELS, Level, LevelSpec, Limits};
pub use matches::{GameRecord, MatchConfig, MatchProgress, MatchResult, Player, play_match};
pub use search::{SearchOptions, SearchResult, Searcher, mate_in};

use chessgold_engine::game::move_text;
use chessgold_engine::{AnyGame, Game, Position, Variant};

/// A bot's answer in text form, for the service and the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The chosen action in the variant's notation.
    pub action: String,
    /// The score for the side to move, centipawns.
    pub score: i32,
    /// Moves to mate, if the score is a mate score (negative: being mated).
    pub mate: Option<i32>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The principal variation in notation.
    pub pv: Vec<String>,
}

/// Searches `pos` of variant `V` after the game positions `history` (repetition keys, oldest
/// first, see [`game_history`]) with a fresh 16 MB table. Reuse a [`Searcher`] (or a [`Bot`])
/// to keep the table from move to move.
pub fn search<V: BotVariant>(pos: &Position<V>, history: &[u64], opts: SearchOptions) -> SearchResult {
    Searcher::<V>::new(16).search(pos, history, opts)
}

/// The action `level` plays in `game` (any registered variant), or `None` when the game is
/// over or the variant has no bot. Respects the game's history for repetition draws. With a
/// node budget and no clock in `limits` the answer depends only on the game, level and seed.
pub fn choose_action(game: &dyn AnyGame, level: Level, limits: Limits, seed: u64) -> Option<String> {
    analyse(game, level, limits, seed).map(|a| a.action)
}

/// Like [`choose_action`], with the score, depth, nodes and principal variation.
pub fn analyse(game: &dyn AnyGame, level: Level, limits: Limits, seed: u64) -> Option<Analysis> {
    struct Analyse<'a> {
        game: &'a dyn AnyGame,
        level: Level,
        limits: Limits,
        seed: u64,
    }
    impl WithVariant for Analyse<'_> {
        type Output = Option<Analysis>;
        fn run<V: BotVariant>(self) -> Option<Analysis> {
            let game = self.game.as_any().downcast_ref::<Game<V>>()?;
            // A one-off answer: a table of at most 16 MB (a bot kept through a game, such as
            // a live game's, should be a `Bot` with the level's full table).
            let mb = self.level.spec().tt_megabytes.min(16);
            let r = Bot::<V>::with_table(mb).think(game, self.level, self.limits, self.seed)?;
            Some(analysis::<V>(&r))
        }
    }
    dispatch(game.info().id, Analyse { game, level, limits, seed }).flatten()
}

/// The text form of a search result.
pub fn analysis<V: Variant>(r: &SearchResult) -> Analysis {
    Analysis {
        action: r.best.map(move_text::<V>).unwrap_or_default(),
        score: r.score,
        mate: mate_in(r.score),
        depth: r.depth,
        nodes: r.nodes,
        pv: r.pv.iter().map(|m| move_text::<V>(*m)).collect(),
    }
}
