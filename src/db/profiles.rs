//! Reading an account's games and ratings for its profile, and the leaderboards.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// A rating of an account in one variant.
#[derive(Debug, Clone)]
pub struct PerfRow {
    /// Variant id.
    pub variant: String,
    /// Elo.
    pub rating: i32,
    /// Rated games played in the variant.
    pub games: i32,
}

/// An account's game counts. A game counts once both seats were taken; results count games
/// that ended with one (not aborted, not unstarted).
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordRow {
    /// Games started.
    pub total: i64,
    /// Rated games with a result.
    pub rated: i64,
    /// Won.
    pub wins: i64,
    /// Drawn.
    pub draws: i64,
    /// Lost.
    pub losses: i64,
    /// Started against a bot.
    pub ai: i64,
    /// Won against people.
    pub wins_h: i64,
    /// Drawn against people.
    pub draws_h: i64,
    /// Lost against people.
    pub losses_h: i64,
    /// Being played now.
    pub playing: i64,
}

/// One game of an account's list, seen from the account's seat.
#[derive(Debug, Clone)]
pub struct UserGameRow {
    /// Game id.
    pub id: String,
    /// Variant id.
    pub variant: String,
    /// Rated.
    pub rated: bool,
    /// Centiseconds.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
    /// Status id.
    pub status: i16,
    /// `white` / `black`.
    pub winner: Option<String>,
    /// Creation.
    pub created_at: OffsetDateTime,
    /// The account's colour.
    pub color: String,
    /// The account's rating before the game (rated games).
    pub rating_before: Option<i32>,
    /// The account's rating after the game (finished rated games).
    pub rating_after: Option<i32>,
    /// The opponent's account name; `None` for a guest.
    pub opponent: Option<String>,
    /// The opponent's rating before the game (rated games; a bot's level rating).
    pub opponent_rating: Option<i32>,
    /// The opponent's bot level, when the opponent was the computer.
    pub opponent_bot: Option<i16>,
}

/// A point of a rating history.
#[derive(Debug, Clone)]
pub struct RatingPoint {
    /// Variant id.
    pub variant: String,
    /// The rating after the game.
    pub rating: i32,
    /// When the game ended.
    pub at: OffsetDateTime,
}

/// A leaderboard line.
#[derive(Debug, Clone)]
pub struct LeaderRow {
    /// Account name.
    pub username: String,
    /// Elo.
    pub rating: i32,
    /// Rated games played in the variant.
    pub games: i32,
}

/// Every rating of an account, by variant id.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn perfs(db: impl PgExecutor<'_>, user_id: Uuid) -> anyhow::Result<Vec<PerfRow>> {
    sqlx::query_as!(
        PerfRow,
        "SELECT variant, rating, games FROM user_ratings WHERE user_id = $1 ORDER BY variant",
        user_id
    )
    .fetch_all(db)
    .await
    .context("reading an account's ratings")
}

/// An account's game counts.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn record(db: impl PgExecutor<'_>, user_id: Uuid) -> anyhow::Result<RecordRow> {
    // Statuses with a result: everything but created (10), started (20), aborted (25) and
    // no_start (37).
    sqlx::query_as!(
        RecordRow,
        r#"SELECT
            count(*) FILTER (WHERE g.started_at IS NOT NULL) AS "total!",
            count(*) FILTER (WHERE g.rated AND g.status NOT IN (10, 20, 25, 37)) AS "rated!",
            count(*) FILTER (WHERE g.status NOT IN (10, 20, 25, 37) AND g.winner = p.color) AS "wins!",
            count(*) FILTER (WHERE g.status NOT IN (10, 20, 25, 37) AND g.winner IS NULL) AS "draws!",
            count(*) FILTER (WHERE g.status NOT IN (10, 20, 25, 37) AND g.winner <> p.color) AS "losses!",
            count(*) FILTER (WHERE g.started_at IS NOT NULL AND o.bot_level IS NOT NULL) AS "ai!",
            count(*) FILTER (WHERE g.status NOT IN (10, 20, 25, 37) AND g.winner = p.color AND o.bot_level IS NULL) AS "wins_h!",
            count(*) FILTER (WHERE g.status NOT IN (10, 20, 25, 37) AND g.winner IS NULL AND o.bot_level IS NULL) AS "draws_h!",
            count(*) FILTER (WHERE g.status NOT IN (10, 20, 25, 37) AND g.winner <> p.color AND o.bot_level IS NULL) AS "losses_h!",
            count(*) FILTER (WHERE g.status = 20) AS "playing!"
         FROM game_players p JOIN games g ON g.id = p.game_id
         LEFT JOIN game_players o ON o.game_id = p.game_id AND o.color <> p.color
         WHERE p.user_id = $1"#,
        user_id
    )
    .fetch_one(db)
    .await
    .context("counting an account's games")
}

/// A page of an account's started games, newest first.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn games(
    db: impl PgExecutor<'_>,
    user_id: Uuid,
    limit: i64,
    offset: i64,
) -> anyhow::Result<Vec<UserGameRow>> {
    sqlx::query_as!(
        UserGameRow,
        r#"SELECT g.id, g.variant, g.rated, g.clock_limit, g.clock_increment, g.status, g.winner, g.created_at,
            p.color, p.rating_before, p.rating_after,
            u.username AS "opponent?", o.rating_before AS "opponent_rating?", o.bot_level AS "opponent_bot?"
         FROM game_players p
         JOIN games g ON g.id = p.game_id
         LEFT JOIN game_players o ON o.game_id = p.game_id AND o.color <> p.color
         LEFT JOIN users u ON u.id = o.user_id
         WHERE p.user_id = $1 AND g.started_at IS NOT NULL
         ORDER BY g.created_at DESC, g.id
         LIMIT $2 OFFSET $3"#,
        user_id,
        limit,
        offset
    )
    .fetch_all(db)
    .await
    .context("listing an account's games")
}

/// The ratings after each finished rated game of an account, oldest first.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn rating_history(db: impl PgExecutor<'_>, user_id: Uuid) -> anyhow::Result<Vec<RatingPoint>> {
    sqlx::query_as!(
        RatingPoint,
        r#"SELECT g.variant, p.rating_after AS "rating!", g.finished_at AS "at!"
         FROM game_players p JOIN games g ON g.id = p.game_id
         WHERE p.user_id = $1 AND g.rated AND p.rating_after IS NOT NULL AND g.finished_at IS NOT NULL
         ORDER BY g.finished_at, g.id"#,
        user_id
    )
    .fetch_all(db)
    .await
    .context("reading an account's rating history")
}

/// The best `limit` ratings of a variant among accounts with at least `min_games` rated games,
/// leaving out engine- and booster-marked accounts (`moderation::marks`).
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn leaders(
    db: impl PgExecutor<'_>,
    variant: &str,
    min_games: i32,
    limit: i64,
) -> anyhow::Result<Vec<LeaderRow>> {
    sqlx::query_as!(
        LeaderRow,
        "SELECT u.username, r.rating, r.games
         FROM user_ratings r JOIN users u ON u.id = r.user_id
         WHERE r.variant = $1 AND r.games >= $2
           AND NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.user_id = u.id
                           AND s.kind IN ('engine_mark', 'booster_mark') AND s.lifted_at IS NULL)
         ORDER BY r.rating DESC, lower(u.username)
         LIMIT $3",
        variant,
        min_games,
        limit
    )
    .fetch_all(db)
    .await
    .context("reading a leaderboard")
}

/// The results between two accounts: (`a`'s points x 2, `b`'s points x 2, games), over their
/// games with a result (a win 2, a draw 1 each: halves stay whole).
///
/// # Errors
/// Database failures.
pub async fn crosstable(db: impl PgExecutor<'_>, a: Uuid, b: Uuid) -> anyhow::Result<(i64, i64, i64)> {
    let r = sqlx::query!(
        r#"SELECT
            coalesce(sum(CASE WHEN g.winner = pa.color THEN 2 WHEN g.winner IS NULL THEN 1 ELSE 0 END), 0) AS "a!",
            coalesce(sum(CASE WHEN g.winner = pb.color THEN 2 WHEN g.winner IS NULL THEN 1 ELSE 0 END), 0) AS "b!",
            count(*) AS "games!"
         FROM games g JOIN game_players pa ON pa.game_id = g.id AND pa.user_id = $1
         JOIN game_players pb ON pb.game_id = g.id AND pb.user_id = $2
         WHERE g.status NOT IN (10, 20, 25, 37)"#,
        a,
        b
    )
    .fetch_one(db)
    .await
    .context("reading a crosstable")?;
    Ok((r.a, r.b, r.games))
}

/// An account's results in one variant (for standard chess, of one speed when `speed` is given):
/// (games with a result, rated ones, wins, draws, losses).
///
/// # Errors
/// Database failures.
pub async fn record_in(
    db: impl PgExecutor<'_>,
    user_id: Uuid,
    variant: &str,
    speed: Option<crate::game::Speed>,
) -> anyhow::Result<[i64; 5]> {
    // A speed keeps the games whose clock's estimated length is in its range (lichess's
    // reckoning: the limit plus 40 increments), or, for correspondence, those without a clock.
    let range = speed.map(|s| s.estimate_range());
    let (lo, hi) = range.flatten().map_or((None, None), |(lo, hi)| (Some(lo), Some(hi)));
    let r = sqlx::query!(
        r#"SELECT count(*) AS "all!", count(*) FILTER (WHERE g.rated) AS "rated!",
              count(*) FILTER (WHERE g.winner = p.color) AS "wins!",
              count(*) FILTER (WHERE g.winner IS NULL) AS "draws!",
              count(*) FILTER (WHERE g.winner <> p.color) AS "losses!"
           FROM game_players p JOIN games g ON g.id = p.game_id
           WHERE p.user_id = $1 AND g.variant = $2 AND g.status NOT IN (10, 20, 25, 37)
             AND (NOT $3 OR CASE WHEN g.clock_limit IS NULL THEN $4::int IS NULL
                                 ELSE g.clock_limit / 100 + 40 * (g.clock_increment / 100) >= $4
                                      AND g.clock_limit / 100 + 40 * (g.clock_increment / 100) < $5 END)"#,
        user_id,
        variant,
        range.is_some(),
        lo,
        hi
    )
    .fetch_one(db)
    .await
    .context("counting an account's results in a variant")?;
    Ok([r.all, r.rated, r.wins, r.draws, r.losses])
}
