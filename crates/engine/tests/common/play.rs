//! Test support shared by the rule tests: games from a position text and a move list.

use chessgold_engine::registry::variant;
use chessgold_engine::{AnyGame, Snapshot};

/// A game of `id` from `fen` (or the start) after `moves` (space-separated actions).
pub fn game(id: &str, fen: Option<&str>, moves: &str) -> Box<dyn AnyGame> {
    let info = variant(id).unwrap_or_else(|| panic!("{id} is not registered"));
    let mut g = match fen {
        Some(f) => info.game_from_fen(f).unwrap_or_else(|e| panic!("{f}: {e}")),
        None => info.new_game(),
    };
    for m in moves.split_whitespace() {
        g.play(m).unwrap_or_else(|e| panic!("{id}: {m}: {e}"));
    }
    g
}

/// The snapshot of a game.
pub fn snap(g: &dyn AnyGame) -> Snapshot {
    g.snapshot()
}

/// Whether an action is legal now.
pub fn has(g: &dyn AnyGame, action: &str) -> bool {
    g.legal_actions().iter().any(|a| a == action)
}
