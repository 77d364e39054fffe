//! Engine analysis of a game for moderators (issue 15): the game is replayed with the bot's
//! search at level 8 and, for each player, the share of their actions that matched the search's
//! first choice and their average loss in centipawns are computed. Any variant the bot plays.
//!
//! This is the computation only ([`analyse_game`], blocking: run it with
//! `tokio::task::spawn_blocking` or on the bot's search threads). Reading a user's recent rated
//! games and scheduling the work next to live games are not written yet (`docs/moderation.md`).

use chessgold_bot::{Level, Limits};
use chessgold_engine::{AnyGame, Color};

/// A loss is counted at most this much (a mate score would swamp the average).
pub const LOSS_CAP_CP: i32 = 1000;

/// One player's figures in one game.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PlayerFigures {
    /// Their actions analysed.
    pub moves: u32,
    /// Of those, how many were the search's first choice.
    pub top_matches: u32,
    /// Their average loss, centipawns (each loss capped at [`LOSS_CAP_CP`]).
    pub avg_loss_cp: f64,
}

impl PlayerFigures {
    /// The share of their actions that matched the first choice, 0 to 1.
    pub fn top_share(&self) -> f64 {
        if self.moves == 0 { 0.0 } else { f64::from(self.top_matches) / f64::from(self.moves) }
    }
}

/// The figures of both players of a game.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GameFigures {
    /// White's.
    pub white: PlayerFigures,
    /// Black's.
    pub black: PlayerFigures,
}

/// Why a game could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// The bot does not play the variant.
    #[error("the computer does not analyse {0}")]
    NoBot(&'static str),
    /// A stored action is not legal (a corrupt record).
    #[error("action {ply} ('{action}') is not legal")]
    Illegal {
        /// Its index, from 0.
        ply: usize,
        /// The action.
        action: String,
    },
}

/// Replays `actions` from `start` (the game's first position, seeded for random variants) and
/// analyses each position with level 8's search on `nodes` nodes per position: an action matches
/// when it is the search's choice, and its loss is the search's score of the position minus the
/// score the position after it has for the mover (the next position's search, negated), never
/// below 0. The last action of a finished game has no next search and is counted only for the
/// match. The answer depends only on the game and `nodes`.
///
/// # Errors
/// [`AnalysisError`]: a variant without a bot, an illegal stored action.
pub fn analyse_game(start: &dyn AnyGame, actions: &[String], nodes: u64) -> Result<GameFigures, AnalysisError> {
    let level = Level::new(8).unwrap_or_else(|| unreachable!("level 8 exists"));
    let mut game = start.boxed_clone();
    // (mover, matched, the search's score of the position before the action)
    let mut seen: Vec<(Color, bool, i32)> = Vec::with_capacity(actions.len());
    let mut losses: Vec<Option<i32>> = Vec::with_capacity(actions.len());
    for (ply, action) in actions.iter().enumerate() {
        let Some(a) = chessgold_bot::analyse(game.as_ref(), level, Limits::nodes(nodes), ply as u64) else {
            if game.outcome().is_some() {
                break;
            }
            return Err(AnalysisError::NoBot(start.info().name));
        };
        if let Some(prev) = seen.last() {
            // The previous mover's loss: their best score minus what they got (this score, negated).
            losses.push(Some((prev.2 + a.score).clamp(0, LOSS_CAP_CP)));
        }
        let mover = game.turn();
        seen.push((mover, a.action == *action, a.score));
        game.play(action).map_err(|_| AnalysisError::Illegal { ply, action: action.clone() })?;
    }
    losses.resize(seen.len(), None);
    let mut figures = GameFigures::default();
    let mut totals = [(0i64, 0u32); 2];
    for ((mover, matched, _), loss) in seen.iter().zip(&losses) {
        let (f, t) = match mover {
            Color::White => (&mut figures.white, &mut totals[0]),
            Color::Black => (&mut figures.black, &mut totals[1]),
        };
        f.moves += 1;
        f.top_matches += u32::from(*matched);
        if let Some(l) = loss {
            t.0 += i64::from(*l);
            t.1 += 1;
        }
    }
    for (f, (sum, n)) in [(&mut figures.white, totals[0]), (&mut figures.black, totals[1])] {
        f.avg_loss_cp = if n == 0 { 0.0 } else { sum as f64 / f64::from(n) };
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variant;

    use super::*;

    /// A game between two bots of `level`, `plies` long at most.
    fn bot_game(level: u8, seed: u64, plies: usize) -> Vec<String> {
        let mut game = variant("standard").expect("registered").new_game();
        let mut actions = Vec::new();
        let level = Level::new(level).expect("1 to 8");
        for ply in 0..plies {
            let Some(a) = chessgold_bot::choose_action(game.as_ref(), level, Limits::nodes(4_000), seed + ply as u64)
            else {
                break;
            };
            game.play(&a).expect("the bot plays legal actions");
            actions.push(a);
        }
        actions
    }

    #[test]
    fn level_8_matches_the_first_choice_clearly_more_than_level_3() {
        let start = variant("standard").expect("registered").new_game();
        let share = |level: u8| {
            let (mut moves, mut matches) = (0u32, 0u32);
            for seed in [11, 23] {
                let f = analyse_game(start.as_ref(), &bot_game(level, seed, 40), 4_000).expect("analysed");
                for p in [f.white, f.black] {
                    moves += p.moves;
                    matches += p.top_matches;
                }
            }
            f64::from(matches) / f64::from(moves)
        };
        let (strong, weak) = (share(8), share(3));
        assert!(strong > weak + 0.15, "level 8 {strong:.2}, level 3 {weak:.2}");
    }

    #[test]
    fn an_illegal_stored_action_is_named() {
        let start = variant("standard").expect("registered").new_game();
        let e = analyse_game(start.as_ref(), &["e2e4".into(), "e2e4".into()], 500).unwrap_err();
        assert_eq!(e, AnalysisError::Illegal { ply: 1, action: "e2e4".into() });
    }
}
