//! Engine analysis of a game for moderators (issue 15): the game is replayed with the bot's
//! search at level 8 and, for each player, the share of their actions that matched the search's
//! first choice and their average loss in centipawns are computed. Any variant the bot plays.
//!
//! [`analyse_game`] is the computation, blocking; [`analyse_game_on`] runs it on the bot's search
//! slots, one position at a time, so live games are not starved; [`analyse_user`] does it for a
//! user's latest rated games, for their mod view.

use chessgold_bot::{Level, Limits};
use chessgold_engine::{AnyGame, Color};

use crate::bots::Thinkers;

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

/// The positions of a game, replayed: (the position, its mover, the action played in it).
type Replayed = Vec<(Box<dyn AnyGame>, Color, String)>;

fn replay(start: &dyn AnyGame, actions: &[String]) -> Result<Replayed, AnalysisError> {
    let mut game = start.boxed_clone();
    let mut out = Vec::with_capacity(actions.len());
    for (ply, action) in actions.iter().enumerate() {
        if game.outcome().is_some() {
            break;
        }
        let mover = game.turn();
        let before = game.boxed_clone();
        game.play(action).map_err(|_| AnalysisError::Illegal { ply, action: action.clone() })?;
        out.push((before, mover, action.clone()));
    }
    Ok(out)
}

fn search(game: &dyn AnyGame, nodes: u64, ply: usize) -> Option<chessgold_bot::Analysis> {
    let level = Level::new(8).unwrap_or_else(|| unreachable!("level 8 exists"));
    chessgold_bot::analyse(game, level, Limits::nodes(nodes), ply as u64)
}

/// The figures from each position's mover, action played and search answer (in order).
fn figures(
    start: &dyn AnyGame,
    moves: &[(Color, String, Option<chessgold_bot::Analysis>)],
) -> Result<GameFigures, AnalysisError> {
    let mut out = GameFigures::default();
    let mut totals = [(0i64, 0u32); 2];
    for (i, (mover, action, answer)) in moves.iter().enumerate() {
        let Some(answer) = answer else { return Err(AnalysisError::NoBot(start.info().name)) };
        let (f, t) = match mover {
            Color::White => (&mut out.white, &mut totals[0]),
            Color::Black => (&mut out.black, &mut totals[1]),
        };
        f.moves += 1;
        f.top_matches += u32::from(answer.action == *action);
        // The mover's loss: their best score minus what they got (the next position's score,
        // negated); none for the last action.
        if let Some((_, _, Some(next))) = moves.get(i + 1) {
            t.0 += i64::from((answer.score + next.score).clamp(0, LOSS_CAP_CP));
            t.1 += 1;
        }
    }
    for (f, (sum, n)) in [(&mut out.white, totals[0]), (&mut out.black, totals[1])] {
        f.avg_loss_cp = if n == 0 { 0.0 } else { sum as f64 / f64::from(n) };
    }
    Ok(out)
}

/// Replays `actions` from `start` (the game's first position, seeded for random variants) and
/// analyses each position with level 8's search on `nodes` nodes per position: an action matches
/// when it is the search's choice, and its loss is the search's score of the position minus the
/// score the position after it has for the mover (the next position's search, negated), never
/// below 0 and at most [`LOSS_CAP_CP`]. The last action has no next search and counts only for
/// the match. The answer depends only on the game and `nodes`. Blocking: see
/// [`analyse_game_on`] for the service.
///
/// # Errors
/// [`AnalysisError`]: a variant without a bot, an illegal stored action.
pub fn analyse_game(start: &dyn AnyGame, actions: &[String], nodes: u64) -> Result<GameFigures, AnalysisError> {
    let moves: Vec<_> = replay(start, actions)?
        .into_iter()
        .enumerate()
        .map(|(ply, (pos, mover, action))| (mover, action, search(pos.as_ref(), nodes, ply)))
        .collect();
    figures(start, &moves)
}

/// [`analyse_game`] on the bot's search slots ([`Thinkers`]): each position's search waits for a
/// free slot, one at a time, so the live games' bots (which queue on the same slots, first come
/// first served) wait at most one position's search (`nodes` nodes) behind an analysis.
///
/// # Errors
/// [`AnalysisError`]: a variant without a bot, an illegal stored action.
pub async fn analyse_game_on(
    thinkers: &Thinkers,
    start: &dyn AnyGame,
    actions: &[String],
    nodes: u64,
) -> Result<GameFigures, AnalysisError> {
    let mut moves = Vec::with_capacity(actions.len());
    for (ply, (pos, mover, action)) in replay(start, actions)?.into_iter().enumerate() {
        let answer = thinkers.run(move || search(pos.as_ref(), nodes, ply)).await.flatten();
        moves.push((mover, action, answer));
    }
    figures(start, &moves)
}

/// One of a user's games analysed, from their side.
#[derive(Debug, Clone, PartialEq)]
pub struct UserGame {
    /// The game.
    pub game: String,
    /// Its variant id.
    pub variant: String,
    /// The user's colour.
    pub color: Color,
    /// The user's figures.
    pub figures: PlayerFigures,
    /// Their opponent's, for comparison.
    pub opponent: PlayerFigures,
}

/// Analyses `user`'s latest `limit` finished rated games (any variant the bot plays; the others
/// are left out) on the bot's search slots, newest first.
///
/// # Errors
/// Database failures; a stored game that does not replay.
pub async fn analyse_user(
    pool: &sqlx::PgPool,
    thinkers: &Thinkers,
    user: uuid::Uuid,
    limit: i64,
    nodes: u64,
) -> anyhow::Result<Vec<UserGame>> {
    use anyhow::Context;
    let games = sqlx::query!(
        r#"SELECT g.id, g.variant, g.seed, p.color FROM game_players p JOIN games g ON g.id = p.game_id
           WHERE p.user_id = $1 AND g.rated AND g.finished_at IS NOT NULL
           ORDER BY g.finished_at DESC, g.id LIMIT $2"#,
        user,
        limit
    )
    .fetch_all(pool)
    .await
    .context("reading a user's rated games")?;
    let mut out = Vec::with_capacity(games.len());
    for g in games {
        let Some(info) = chessgold_engine::registry::variant(&g.variant) else { continue };
        if !crate::bots::plays(info.id) {
            continue;
        }
        let start = match g.seed {
            Some(seed) => info.new_seeded_game(u64::try_from(seed).context("a stored seed")?),
            None => info.new_game(),
        };
        let actions: Vec<String> =
            crate::db::games::actions(pool, &g.id).await?.into_iter().map(|a| a.action).collect();
        let f = analyse_game_on(thinkers, start.as_ref(), &actions, nodes).await.with_context(|| g.id.clone())?;
        let color = if g.color == "white" { Color::White } else { Color::Black };
        let (mine, theirs) = match color {
            Color::White => (f.white, f.black),
            Color::Black => (f.black, f.white),
        };
        out.push(UserGame { game: g.id, variant: g.variant, color, figures: mine, opponent: theirs });
    }
    Ok(out)
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

    #[tokio::test]
    async fn on_the_search_slots_the_figures_are_the_same() {
        let start = variant("standard").expect("registered").new_game();
        let actions = bot_game(5, 3, 12);
        let direct = analyse_game(start.as_ref(), &actions, 1_000).expect("analysed");
        let queued = analyse_game_on(&Thinkers::new(1), start.as_ref(), &actions, 1_000).await.expect("analysed");
        assert_eq!(direct, queued);
        assert_eq!(direct.white.moves + direct.black.moves, 12);
    }

    #[test]
    fn an_illegal_stored_action_is_named() {
        let start = variant("standard").expect("registered").new_game();
        let e = analyse_game(start.as_ref(), &["e2e4".into(), "e2e4".into()], 500).unwrap_err();
        assert_eq!(e, AnalysisError::Illegal { ply: 1, action: "e2e4".into() });
    }
}
