//! Engine analysis of a game for moderators (issue 15): the game is replayed with the bot's
//! search at level 8 and, for each player, the share of their actions that matched the search's
//! first choice and their average loss in centipawns are computed. Any variant the bot plays.
//!
//! [`analyse_game`] is the computation, blocking; [`analyse_game_on`] runs it on the bot's search
//! slots, one position at a time, so live games are not starved; [`analyse_user`] does it for a
//! user's latest rated games, for their mod view. [`reference_figures`] gives the same figures
//! for a bot level, from games it plays against itself, to read a user's figures against.
//! `crate::moderation::analysis_jobs` runs all this in the background for the mod pages.

use chessgold_bot::{Level, Limits};
use chessgold_engine::{AnyGame, Color};

use crate::bots::Thinkers;

/// A loss is counted at most this much (a mate score would swamp the average).
pub const LOSS_CAP_CP: i32 = 1000;

/// One player's figures in one game (or in several, added up).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct PlayerFigures {
    /// Their actions analysed.
    pub moves: u32,
    /// Of those, how many were the search's first choice.
    pub top_matches: u32,
    /// Their average loss, centipawns (each loss capped at [`LOSS_CAP_CP`]).
    pub avg_loss_cp: f64,
    /// The actions the average loss is over (a game's last action has no loss).
    #[serde(default)]
    pub losses: u32,
}

impl PlayerFigures {
    /// The share of their actions that matched the first choice, 0 to 1.
    pub fn top_share(&self) -> f64 {
        if self.moves == 0 { 0.0 } else { f64::from(self.top_matches) / f64::from(self.moves) }
    }

    /// Adds another game's figures: the matches add up, the average loss is over both.
    pub fn add(&mut self, other: &PlayerFigures) {
        let losses = self.losses + other.losses;
        self.avg_loss_cp = if losses == 0 {
            0.0
        } else {
            (self.avg_loss_cp * f64::from(self.losses) + other.avg_loss_cp * f64::from(other.losses))
                / f64::from(losses)
        };
        self.losses = losses;
        self.moves += other.moves;
        self.top_matches += other.top_matches;
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
        f.losses = n;
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

/// One of a user's finished rated games, to analyse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedGame {
    /// The game.
    pub game: String,
    /// Its variant id (one the bot plays).
    pub variant: &'static str,
    /// Its seed, for random variants.
    pub seed: Option<u64>,
    /// The user's colour.
    pub color: Color,
}

/// `user`'s latest `limit` finished rated games in variants the bot plays (the others are left
/// out), newest first.
///
/// # Errors
/// Database failures; a stored seed out of range.
pub async fn rated_games(pool: &sqlx::PgPool, user: uuid::Uuid, limit: i64) -> anyhow::Result<Vec<RatedGame>> {
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
        let seed = g.seed.map(u64::try_from).transpose().context("a stored seed")?;
        let color = if g.color == "white" { Color::White } else { Color::Black };
        out.push(RatedGame { game: g.id, variant: info.id, seed, color });
    }
    Ok(out)
}

/// Analyses one of a user's games ([`rated_games`]) from their side, on the bot's search slots.
///
/// # Errors
/// Database failures; a stored game that does not replay.
pub async fn analyse_rated_game(
    pool: &sqlx::PgPool,
    thinkers: &Thinkers,
    g: &RatedGame,
    nodes: u64,
) -> anyhow::Result<UserGame> {
    use anyhow::Context;
    let info = chessgold_engine::registry::variant(g.variant).context("a registered variant")?;
    let start = match g.seed {
        Some(seed) => info.new_seeded_game(seed),
        None => info.new_game(),
    };
    let actions: Vec<String> = crate::db::games::actions(pool, &g.game).await?.into_iter().map(|a| a.action).collect();
    let f = analyse_game_on(thinkers, start.as_ref(), &actions, nodes).await.with_context(|| g.game.clone())?;
    let (mine, theirs) = match g.color {
        Color::White => (f.white, f.black),
        Color::Black => (f.black, f.white),
    };
    Ok(UserGame {
        game: g.game.clone(),
        variant: g.variant.to_string(),
        color: g.color,
        figures: mine,
        opponent: theirs,
    })
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
    let mut out = Vec::new();
    for g in rated_games(pool, user, limit).await? {
        out.push(analyse_rated_game(pool, thinkers, &g, nodes).await?);
    }
    Ok(out)
}

/// How the reference games of a bot level are played and analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReferenceSetup {
    /// Nodes of the analysis per position (as for the users' games).
    pub nodes: u64,
    /// Nodes per move of the playing bots: fewer than `nodes`, as a person sees less than the
    /// analysis does (a level caps it further with its own node cap).
    pub play_nodes: u64,
    /// Games per level.
    pub games: u32,
    /// Bot moves per game, at most.
    pub plies: u32,
    /// Random legal actions opening each game: the bots' searches with a node budget are
    /// deterministic (level 8's has no noise at all), so the games differ by their openings.
    pub opening_plies: u32,
}

impl ReferenceSetup {
    /// The set-up of the settings.
    pub fn from_settings(s: &crate::settings::AnalysisSettings) -> ReferenceSetup {
        ReferenceSetup {
            nodes: s.nodes,
            play_nodes: s.reference_nodes,
            games: s.reference_games,
            plies: s.reference_plies,
            opening_plies: s.opening_plies,
        }
    }
}

/// A small seeded generator (splitmix64), for the reference games' openings.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A game of `level` against itself in `info`'s variant, on the search slots: `opening_plies`
/// random legal actions chosen from `seed`, then at most `plies` of the bot's actions. Returns
/// the position after the opening and the bot's actions from there; `None` when the opening
/// ended the game.
pub async fn reference_game(
    thinkers: &Thinkers,
    info: &'static chessgold_engine::registry::VariantInfo,
    level: Level,
    setup: &ReferenceSetup,
    seed: u64,
) -> Option<(Box<dyn AnyGame>, Vec<String>)> {
    let mut random = seed;
    let mut game = if info.seeded { info.new_seeded_game(next_random(&mut random)) } else { info.new_game() };
    for _ in 0..setup.opening_plies {
        let legal = game.legal_actions();
        if legal.is_empty() || game.outcome().is_some() {
            return None;
        }
        let pick = usize::try_from(next_random(&mut random) % legal.len() as u64).unwrap_or(0);
        game.play(&legal[pick]).ok()?;
    }
    if game.outcome().is_some() {
        return None;
    }
    let start = game.boxed_clone();
    let mut actions = Vec::new();
    let limits = Limits::nodes(setup.play_nodes);
    for ply in 0..setup.plies {
        if game.outcome().is_some() {
            break;
        }
        // The bot's view (a random variant's future hidden), as in a live game.
        let view = crate::bots::bot_view(game.as_ref(), next_random(&mut random)).ok()?;
        let move_seed = seed.wrapping_add(u64::from(ply));
        let Some(Some(action)) =
            thinkers.run(move || chessgold_bot::choose_action(view.as_ref(), level, limits, move_seed)).await
        else {
            break;
        };
        if game.play(&action).is_err() {
            break;
        }
        actions.push(action);
    }
    Some((start, actions))
}

/// The figures of `level` in `info`'s variant: `setup.games` games of the level against itself
/// ([`reference_game`], seeds 1, 2, ...), analysed as a user's games are, both sides added up.
/// The answer depends only on the variant, the level and the set-up.
///
/// # Errors
/// [`AnalysisError`] (a variant without a bot).
pub async fn reference_figures(
    thinkers: &Thinkers,
    info: &'static chessgold_engine::registry::VariantInfo,
    level: Level,
    setup: &ReferenceSetup,
) -> Result<PlayerFigures, AnalysisError> {
    let mut total = PlayerFigures::default();
    for game in 0..setup.games {
        let seed = u64::from(game) + 1;
        let Some((start, actions)) = reference_game(thinkers, info, level, setup, seed).await else { continue };
        let f = analyse_game_on(thinkers, start.as_ref(), &actions, setup.nodes).await?;
        total.add(&f.white);
        total.add(&f.black);
    }
    Ok(total)
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
            let Some(a) = chessgold_bot::choose_action(game.as_ref(), level, Limits::nodes(1_000), seed + ply as u64)
            else {
                break;
            };
            game.play(&a).expect("the bot plays legal actions");
            actions.push(a);
        }
        actions
    }

    /// The honest check of the figures: the games are played by the bots on the search slots
    /// with a smaller budget than the analysis has, each opened by random actions, then analysed
    /// as a user's are. Level 8 plays the analysis's first choice far more often than level 3.
    #[tokio::test]
    async fn level_8_games_match_the_first_choice_clearly_more_than_level_3_games() {
        let thinkers = Thinkers::new(2);
        let info = variant("standard").expect("registered");
        let setup = ReferenceSetup { nodes: 6_000, play_nodes: 2_000, games: 4, plies: 30, opening_plies: 4 };
        let level = |n| Level::new(n).expect("1 to 8");
        let strong = reference_figures(&thinkers, info, level(8), &setup).await.expect("analysed");
        let weak = reference_figures(&thinkers, info, level(3), &setup).await.expect("analysed");
        assert!(strong.moves >= 100 && weak.moves >= 100, "{strong:?} {weak:?}");
        let (s, w) = (strong.top_share(), weak.top_share());
        assert!(s > w + 0.15, "level 8 {s:.2}, level 3 {w:.2}");
        assert!(strong.avg_loss_cp < weak.avg_loss_cp, "{strong:?} {weak:?}");
        // The openings differ by seed: two seeds, two games.
        let a = reference_game(&thinkers, info, level(8), &setup, 1).await.expect("a game");
        let b = reference_game(&thinkers, info, level(8), &setup, 2).await.expect("a game");
        assert_ne!(a.0.fen(), b.0.fen());
    }

    #[tokio::test]
    async fn every_variant_the_bot_plays_has_reference_figures() {
        let thinkers = Thinkers::new(2);
        let setup = ReferenceSetup { nodes: 300, play_nodes: 200, games: 2, plies: 6, opening_plies: 2 };
        let infos: Vec<_> =
            chessgold_engine::registry::variants().iter().filter(|v| crate::bots::plays(v.id)).collect();
        assert!(infos.len() > 1, "more than chess");
        for info in infos {
            let f = reference_figures(&thinkers, info, Level::MAX, &setup).await.expect("analysed");
            assert!(f.moves > 0 && f.moves <= 12, "{}: {f:?}", info.id);
        }
    }

    #[test]
    fn figures_add_up_with_the_loss_averaged_over_both() {
        let mut a = PlayerFigures { moves: 3, top_matches: 2, avg_loss_cp: 10.0, losses: 2 };
        a.add(&PlayerFigures { moves: 5, top_matches: 1, avg_loss_cp: 40.0, losses: 4 });
        assert_eq!(a, PlayerFigures { moves: 8, top_matches: 3, avg_loss_cp: 30.0, losses: 6 });
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
