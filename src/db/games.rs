//! The tables of live games: `games`, `game_players`, `game_actions`, `game_events`,
//! `game_chat`, `server_heartbeat`.

use anyhow::Context;
use sqlx::{PgConnection, PgExecutor};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::game::{Reason, Source};

/// A stored game.
#[derive(Debug, Clone)]
pub struct GameRow {
    /// Id.
    pub id: String,
    /// Variant id.
    pub variant: String,
    /// Seed of a random variant.
    pub seed: Option<i64>,
    /// 32-byte salt.
    pub salt: Option<Vec<u8>>,
    /// Hex SHA-256 commitment.
    pub commitment: Option<String>,
    /// Centiseconds.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
    /// Rated.
    pub rated: bool,
    /// How the game came to be.
    pub source: Source,
    /// The position text it starts from; `None`: the variant's start.
    pub initial_fen: Option<String>,
    /// Status id.
    pub status: i16,
    /// `white` / `black`.
    pub winner: Option<String>,
    /// Why it ended.
    pub reason: Option<Reason>,
    /// Room version.
    pub version: i32,
    /// Actions.
    pub plies: i32,
    /// Turns completed.
    pub turns: i32,
    /// Remaining as of `turn_at`.
    pub white_clock: Option<i32>,
    /// Remaining as of `turn_at`.
    pub black_clock: Option<i32>,
    /// Start of the current turn.
    pub turn_at: Option<OffsetDateTime>,
    /// Offer.
    pub draw_offer: Option<String>,
    /// Offer.
    pub takeback_offer: Option<String>,
    /// Offer.
    pub rematch_offer: Option<String>,
    /// The rematch.
    pub rematch_id: Option<String>,
    /// Creation.
    pub created_at: OffsetDateTime,
    /// Start.
    pub started_at: Option<OffsetDateTime>,
    /// End.
    pub finished_at: Option<OffsetDateTime>,
}

/// A stored seat, with the account's name.
#[derive(Debug, Clone)]
pub struct PlayerRow {
    /// `white` / `black`.
    pub color: String,
    /// Seat secret.
    pub player_id: String,
    /// Account.
    pub user_id: Option<Uuid>,
    /// Account name.
    pub username: Option<String>,
    /// The account is a BOT (read with the seat; not stored in it).
    pub account_bot: bool,
    /// Guest id.
    pub guest_id: Option<String>,
    /// Bot level (1 to 8), for a bot's seat.
    pub bot_level: Option<i16>,
    /// Rating before.
    pub rating_before: Option<i32>,
    /// Rating after.
    pub rating_after: Option<i32>,
    /// Provisional rating.
    pub provisional: bool,
    /// Lag credit left.
    pub lag_quota: i32,
    /// Last sign of life.
    pub last_seen: Option<OffsetDateTime>,
}

/// A stored action.
#[derive(Debug, Clone)]
pub struct ActionRow {
    /// 1-based.
    pub seq: i32,
    /// Notation.
    pub action: String,
    /// Who played it.
    pub color: String,
    /// Clock after it.
    pub white_clock: Option<i32>,
    /// Clock after it.
    pub black_clock: Option<i32>,
}

/// A stored room event.
#[derive(Debug, Clone)]
pub struct EventRow {
    /// Version.
    pub v: i32,
    /// Type.
    pub t: String,
    /// Data.
    pub d: serde_json::Value,
}

/// A chat line.
#[derive(Debug, Clone)]
pub struct ChatRow {
    /// `player` / `spectator`.
    pub room: String,
    /// Name shown.
    pub author: String,
    /// The writer's seat, for players.
    pub color: Option<String>,
    /// Raw text.
    pub text: String,
    /// When.
    pub at: OffsetDateTime,
}

/// Inserts a game row.
///
/// # Errors
/// Database failures (a duplicate id included).
#[tracing::instrument(skip_all, fields(game.id = %g.id))]
pub async fn insert_game(db: &mut PgConnection, g: &GameRow) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO games (id, variant, seed, salt, commitment, clock_limit, clock_increment, rated, status,
            version, white_clock, black_clock, turn_at, created_at, started_at, source, initial_fen)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
        g.id,
        g.variant,
        g.seed,
        g.salt,
        g.commitment,
        g.clock_limit,
        g.clock_increment,
        g.rated,
        g.status,
        g.version,
        g.white_clock,
        g.black_clock,
        g.turn_at,
        g.created_at,
        g.started_at,
        g.source as Source,
        g.initial_fen
    )
    .execute(db)
    .await
    .context("inserting a game")?;
    Ok(())
}

/// Inserts or updates a seat.
///
/// # Errors
/// Database failures.
pub async fn upsert_player(db: &mut PgConnection, game_id: &str, p: &PlayerRow) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO game_players (game_id, color, player_id, user_id, guest_id, bot_level, rating_before,
            rating_after, provisional, lag_quota, last_seen)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (game_id, color) DO UPDATE SET rating_before = EXCLUDED.rating_before,
            rating_after = EXCLUDED.rating_after, provisional = EXCLUDED.provisional,
            lag_quota = EXCLUDED.lag_quota",
        game_id,
        p.color,
        p.player_id,
        p.user_id,
        p.guest_id,
        p.bot_level,
        p.rating_before,
        p.rating_after,
        p.provisional,
        p.lag_quota,
        p.last_seen
    )
    .execute(db)
    .await
    .context("storing a seat")?;
    Ok(())
}

/// The game with this id.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn find(db: impl PgExecutor<'_>, id: &str) -> anyhow::Result<Option<GameRow>> {
    sqlx::query_as!(
        GameRow,
        r#"SELECT id, variant, seed, salt, commitment, clock_limit, clock_increment, rated,
            source AS "source: Source", initial_fen, status, winner,
            reason AS "reason: Reason", version, plies, turns, white_clock, black_clock, turn_at, draw_offer,
            takeback_offer, rematch_offer, rematch_id, created_at, started_at, finished_at
         FROM games WHERE id = $1"#,
        id
    )
    .fetch_optional(db)
    .await
    .context("loading a game")
}

/// The seats of a game.
///
/// # Errors
/// Database failures.
pub async fn players(db: impl PgExecutor<'_>, id: &str) -> anyhow::Result<Vec<PlayerRow>> {
    sqlx::query_as!(
        PlayerRow,
        r#"SELECT p.color, p.player_id, p.user_id, u.username AS "username?", COALESCE(u.bot, false) AS "account_bot!",
            p.guest_id, p.bot_level, p.rating_before,
            p.rating_after, p.provisional, p.lag_quota, p.last_seen
         FROM game_players p LEFT JOIN users u ON u.id = p.user_id
         WHERE p.game_id = $1 ORDER BY p.color DESC"#,
        id
    )
    .fetch_all(db)
    .await
    .context("loading the seats of a game")
}

/// The actions of a game in order.
///
/// # Errors
/// Database failures.
pub async fn actions(db: impl PgExecutor<'_>, id: &str) -> anyhow::Result<Vec<ActionRow>> {
    sqlx::query_as!(
        ActionRow,
        "SELECT seq, action, color, white_clock, black_clock FROM game_actions WHERE game_id = $1 ORDER BY seq",
        id
    )
    .fetch_all(db)
    .await
    .context("loading the actions of a game")
}

/// A step's game write in one statement (a plain move's whole commit, one round trip): the game's
/// changing columns if its version is still `old_version`, then, only if it was, the new action
/// and the room events `(v, t, d)`. Returns whether the game was updated (false: someone else
/// changed it first, and nothing was written).
///
/// # Errors
/// Database failures; a second action at the same `seq` fails (unique key) and writes nothing.
pub async fn commit_move(
    db: impl PgExecutor<'_>,
    g: &GameRow,
    old_version: i32,
    action: Option<&ActionRow>,
    events: &[(i32, &str, serde_json::Value)],
) -> Result<bool, sqlx::Error> {
    let (vs, ts, ds): (Vec<i32>, Vec<String>, Vec<serde_json::Value>) =
        events.iter().map(|(v, t, d)| (*v, (*t).to_string(), d.clone())).collect();
    let updated = sqlx::query_scalar!(
        r#"WITH updated AS (
             UPDATE games SET status = $3, winner = $4, reason = $5, version = $6, plies = $7, turns = $8,
                 white_clock = $9, black_clock = $10, turn_at = $11, draw_offer = $12, takeback_offer = $13,
                 rematch_offer = $14, rematch_id = $15, started_at = $16, finished_at = $17
             WHERE id = $1 AND version = $2
             RETURNING id
           ), action AS (
             INSERT INTO game_actions (game_id, seq, action, color, white_clock, black_clock)
             SELECT id, $18, $19, $20, $21, $22 FROM updated WHERE $18::int IS NOT NULL
             RETURNING 1
           ), events AS (
             INSERT INTO game_events (game_id, v, t, d)
             SELECT updated.id, e.v, e.t, e.d
             FROM updated, UNNEST($23::int[], $24::text[], $25::jsonb[]) AS e(v, t, d)
             RETURNING 1
           )
           SELECT count(*) AS "updated!" FROM updated"#,
        g.id,
        old_version,
        g.status,
        g.winner,
        g.reason as Option<Reason>,
        g.version,
        g.plies,
        g.turns,
        g.white_clock,
        g.black_clock,
        g.turn_at,
        g.draw_offer,
        g.takeback_offer,
        g.rematch_offer,
        g.rematch_id,
        g.started_at,
        g.finished_at,
        action.map(|a| a.seq),
        action.map(|a| a.action.as_str()),
        action.map(|a| a.color.as_str()),
        action.and_then(|a| a.white_clock),
        action.and_then(|a| a.black_clock),
        &vs,
        &ts,
        &ds
    )
    .fetch_one(db)
    .await?;
    Ok(updated == 1)
}

/// Removes the actions after `plies` (a takeback).
///
/// # Errors
/// Database failures.
pub async fn delete_actions_after(db: &mut PgConnection, game_id: &str, plies: i32) -> anyhow::Result<()> {
    sqlx::query!("DELETE FROM game_actions WHERE game_id = $1 AND seq > $2", game_id, plies)
        .execute(db)
        .await
        .context("taking back actions")?;
    Ok(())
}

/// The events after version `since`, in order.
///
/// # Errors
/// Database failures.
pub async fn events_since(db: impl PgExecutor<'_>, game_id: &str, since: i32) -> anyhow::Result<Vec<EventRow>> {
    sqlx::query_as!(
        EventRow,
        "SELECT v, t, d FROM game_events WHERE game_id = $1 AND v > $2 ORDER BY v",
        game_id,
        since
    )
    .fetch_all(db)
    .await
    .context("loading room events")
}

/// The ids of the games being played (status 20) that have a bot in a seat: clocked ones, and
/// unlimited ones with a move in the last day (older unlimited games are left until someone opens
/// them).
///
/// # Errors
/// Database failures.
pub async fn live_bot_games(db: impl PgExecutor<'_>) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar!(
        "SELECT DISTINCT g.id FROM games g JOIN game_players p ON p.game_id = g.id
         WHERE g.status = 20 AND p.bot_level IS NOT NULL
           AND (g.clock_limit IS NOT NULL OR g.turn_at > now() - interval '1 day')"
    )
    .fetch_all(db)
    .await
    .context("listing the live bot games")
}

/// Records that the sockets of these seats are alive, and returns every seat's last sign of life
/// (one statement: a round asks this every two seconds).
///
/// # Errors
/// Database failures.
pub async fn touch_seats(
    db: &sqlx::PgPool,
    game_id: &str,
    alive: &[String],
) -> anyhow::Result<Vec<(String, Option<OffsetDateTime>)>> {
    let rows = sqlx::query!(
        r#"WITH touched AS (
             UPDATE game_players SET last_seen = now() WHERE game_id = $1 AND color = ANY($2)
             RETURNING color, last_seen
           )
           SELECT color AS "color!", last_seen FROM touched
           UNION ALL
           SELECT color, last_seen FROM game_players WHERE game_id = $1 AND NOT (color = ANY($2))"#,
        game_id,
        alive
    )
    .fetch_all(db)
    .await
    .context("recording and reading seats' signs of life")?;
    Ok(rows.into_iter().map(|r| (r.color, r.last_seen)).collect())
}

/// Ids of games that may be due to end by themselves: being played and past a first-move
/// deadline (games with a bot have none) or possibly out of time (the caller checks exactly).
///
/// # Errors
/// Database failures.
pub async fn due_games(db: impl PgExecutor<'_>, first_move_cs: i64) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar!(
        "SELECT id FROM games
         WHERE status = 20 AND turn_at IS NOT NULL AND (
            (turns < 2 AND turn_at + make_interval(secs => $1::bigint / 100.0) <= now()
                AND NOT EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = games.id AND p.bot_level IS NOT NULL))
            OR (turns >= 2 AND clock_limit IS NOT NULL
                AND turn_at + make_interval(secs => LEAST(white_clock, black_clock) / 100.0) <= now()))
         ORDER BY turn_at LIMIT 500",
        first_move_cs
    )
    .fetch_all(db)
    .await
    .context("listing games due to end")
}

/// Stores a chat line (`shadow`: a shadow-muted player's, kept out of every history).
///
/// # Errors
/// Database failures.
pub async fn insert_chat(
    db: impl PgExecutor<'_>,
    game_id: &str,
    line: &ChatRow,
    user_id: Option<Uuid>,
    shadow: bool,
) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO game_chat (game_id, room, author, user_id, color, text, at, shadow) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        game_id,
        line.room,
        line.author,
        user_id,
        line.color,
        line.text,
        line.at,
        shadow
    )
    .execute(db)
    .await
    .context("storing a chat line")?;
    Ok(())
}

/// The last `limit` lines of a chat room, oldest first, without shadow-muted lines.
///
/// # Errors
/// Database failures.
pub async fn recent_chat(
    db: impl PgExecutor<'_>,
    game_id: &str,
    room: &str,
    limit: i64,
) -> anyhow::Result<Vec<ChatRow>> {
    let mut rows = sqlx::query_as!(
        ChatRow,
        "SELECT room, author, color, text, at FROM game_chat WHERE game_id = $1 AND room = $2 AND NOT shadow \
         ORDER BY id DESC LIMIT $3",
        game_id,
        room,
        limit
    )
    .fetch_all(db)
    .await
    .context("loading chat lines")?;
    rows.reverse();
    Ok(rows)
}

/// The newest started game of a player (an account or a guest) made after `since`: a
/// lobby socket's catch-up after a broker gap (the redirect to it may have been missed).
///
/// # Errors
/// Database failures.
pub async fn newest_since(
    db: impl PgExecutor<'_>,
    user: Option<Uuid>,
    guest: Option<&str>,
    since: OffsetDateTime,
) -> anyhow::Result<Option<String>> {
    sqlx::query_scalar!(
        "SELECT g.id FROM games g JOIN game_players p ON p.game_id = g.id
         WHERE (p.user_id = $1 OR p.guest_id = $2) AND g.created_at > $3 AND g.status = 20
         ORDER BY g.created_at DESC, g.id LIMIT 1",
        user,
        guest,
        since
    )
    .fetch_optional(db)
    .await
    .context("reading a player's newest game")
}

/// How many chat lines an author said in the last `secs` seconds: an account's in every game, a
/// guest's (no account) as the seat `color` of this game; 0 for a guest spectator.
///
/// # Errors
/// Database failures.
pub async fn recent_chat_count(
    db: impl PgExecutor<'_>,
    game_id: &str,
    user: Option<Uuid>,
    color: Option<&str>,
    secs: i64,
) -> anyhow::Result<i64> {
    if user.is_none() && color.is_none() {
        return Ok(0);
    }
    sqlx::query_scalar!(
        r#"SELECT count(*) AS "n!" FROM game_chat WHERE at > now() - make_interval(secs => $4)
           AND (user_id = $1 OR ($1::uuid IS NULL AND user_id IS NULL AND game_id = $2 AND color = $3))"#,
        user,
        game_id,
        color,
        secs as f64
    )
    .fetch_one(db)
    .await
    .context("counting chat lines")
}

/// [`recent_chat`] as `reader` sees it: without the lines of the accounts they block, with their
/// own shadow-muted lines.
///
/// # Errors
/// Database failures.
pub async fn recent_chat_for(
    db: impl PgExecutor<'_>,
    game_id: &str,
    room: &str,
    limit: i64,
    reader: Uuid,
) -> anyhow::Result<Vec<ChatRow>> {
    let mut rows = sqlx::query_as!(
        ChatRow,
        "SELECT room, author, color, text, at FROM game_chat c WHERE game_id = $1 AND room = $2 \
         AND (NOT shadow OR c.user_id = $4) AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = $4 AND b.blocked_id = c.user_id) \
         ORDER BY id DESC LIMIT $3",
        game_id,
        room,
        limit,
        reader
    )
    .fetch_all(db)
    .await
    .context("loading chat lines")?;
    rows.reverse();
    Ok(rows)
}

/// Locks a player (by key) until the transaction ends.
///
/// # Errors
/// Database failures.
pub async fn lock_player(db: &mut PgConnection, key: &str) -> anyhow::Result<()> {
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", key)
        .execute(db)
        .await
        .context("locking a player")?;
    Ok(())
}

/// A player found in a started game with a clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusyRow {
    /// The game they play.
    pub game_id: String,
    /// The name shown (`Anonymous` for a guest).
    pub name: String,
    /// Their account.
    pub user_id: Option<Uuid>,
    /// Their guest id.
    pub guest_id: Option<String>,
}

/// The first of these players found in a started game with a clock, with that game.
///
/// # Errors
/// Database failures.
pub async fn playing_clocked(
    db: impl PgExecutor<'_>,
    user_ids: &[Uuid],
    guest_ids: &[String],
) -> anyhow::Result<Option<BusyRow>> {
    let row = sqlx::query_as!(
        BusyRow,
        r#"SELECT p.game_id, COALESCE(u.username, 'Anonymous') AS "name!", p.user_id, p.guest_id
           FROM game_players p
           JOIN games g ON g.id = p.game_id LEFT JOIN users u ON u.id = p.user_id
           WHERE g.status = 20 AND g.clock_limit IS NOT NULL
             AND (p.user_id = ANY($1) OR p.guest_id = ANY($2))
           ORDER BY g.created_at DESC, g.id
           LIMIT 1"#,
        user_ids,
        guest_ids
    )
    .fetch_optional(db)
    .await
    .context("looking for a game in play")?;
    Ok(row)
}

/// A started game of a player, seen from their seat.
#[derive(Debug, Clone)]
pub struct OngoingRow {
    /// Game id.
    pub id: String,
    /// Variant id.
    pub variant: String,
    /// Centiseconds, `None` for an unlimited game.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
    /// Rated.
    pub rated: bool,
    /// The player's colour.
    pub color: String,
    /// The opponent's account name.
    pub opponent: Option<String>,
    /// The opponent's bot level.
    pub opponent_bot: Option<i16>,
}

/// The started games (status 20) of these players, those with a clock first, then the newest.
///
/// # Errors
/// Database failures.
pub async fn ongoing_of_players(
    db: impl PgExecutor<'_>,
    user_ids: &[Uuid],
    guest_ids: &[String],
    limit: i64,
) -> anyhow::Result<Vec<OngoingRow>> {
    sqlx::query_as!(
        OngoingRow,
        r#"SELECT g.id, g.variant, g.clock_limit, g.clock_increment, g.rated, p.color,
              u.username AS "opponent?", o.bot_level AS "opponent_bot?"
           FROM game_players p
           JOIN games g ON g.id = p.game_id
           LEFT JOIN game_players o ON o.game_id = p.game_id AND o.color <> p.color
           LEFT JOIN users u ON u.id = o.user_id
           WHERE g.status = 20 AND (p.user_id = ANY($1) OR p.guest_id = ANY($2))
           ORDER BY g.clock_limit IS NULL, g.created_at DESC, g.id
           LIMIT $3"#,
        user_ids,
        guest_ids,
        limit
    )
    .fetch_all(db)
    .await
    .context("listing a player's games in play")
}

/// Records that an instance is alive.
///
/// # Errors
/// Database failures.
pub async fn heartbeat(db: impl PgExecutor<'_>) -> anyhow::Result<()> {
    sqlx::query!("INSERT INTO server_heartbeat (id, at) VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET at = now()")
        .execute(db)
        .await
        .context("recording the heartbeat")?;
    Ok(())
}

/// At start-up: when no instance was alive for longer than `threshold_ms`, gives that downtime
/// back to every running game (turn starts and last signs of life move forward by it). Returns
/// the downtime given back, in milliseconds. Serialised by a row lock, so two instances starting
/// together give it back once.
///
/// # Errors
/// Database failures.
pub async fn forgive_downtime(pool: &sqlx::PgPool, threshold_ms: i64) -> anyhow::Result<i64> {
    let mut tx = pool.begin().await.context("starting a transaction")?;
    sqlx::query!("INSERT INTO server_heartbeat (id, at) VALUES (1, now()) ON CONFLICT (id) DO NOTHING")
        .execute(&mut *tx)
        .await
        .context("creating the heartbeat")?;
    let gap_ms = sqlx::query_scalar!(
        r#"SELECT (EXTRACT(EPOCH FROM (now() - at)) * 1000)::bigint AS "ms!" FROM server_heartbeat WHERE id = 1 FOR UPDATE"#
    )
    .fetch_one(&mut *tx)
    .await
    .context("reading the heartbeat")?;
    let mut given = 0;
    if gap_ms > threshold_ms {
        sqlx::query!(
            "UPDATE games SET turn_at = turn_at + make_interval(secs => $1::bigint / 1000.0)
             WHERE status IN (10, 20) AND turn_at IS NOT NULL",
            gap_ms
        )
        .execute(&mut *tx)
        .await
        .context("moving the running clocks")?;
        sqlx::query!(
            "UPDATE game_players SET last_seen = last_seen + make_interval(secs => $1::bigint / 1000.0)
             FROM games WHERE games.id = game_players.game_id AND games.status IN (10, 20)
               AND game_players.last_seen IS NOT NULL",
            gap_ms
        )
        .execute(&mut *tx)
        .await
        .context("moving the last signs of life")?;
        given = gap_ms;
    }
    sqlx::query!("UPDATE server_heartbeat SET at = now() WHERE id = 1")
        .execute(&mut *tx)
        .await
        .context("recording the heartbeat")?;
    tx.commit().await.context("committing the downtime")?;
    Ok(given)
}

/// The ids of the games an account is playing (started, not over), oldest first.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn ongoing_of_user(db: impl PgExecutor<'_>, user_id: uuid::Uuid) -> anyhow::Result<Vec<String>> {
    let rows = sqlx::query_scalar!(
        r#"SELECT g.id FROM games g JOIN game_players p ON p.game_id = g.id
           WHERE p.user_id = $1 AND g.status = 20 ORDER BY g.created_at, g.id"#,
        user_id
    )
    .fetch_all(db)
    .await
    .context("listing an account's ongoing games")?;
    Ok(rows)
}

/// Which of an account's games `GET /api/games/user/{username}` lists (lichess's filters that
/// the database answers; `perfType` is read by the caller from each game's variant and clock).
#[derive(Debug, Clone, Default)]
pub struct UserGamesFilter {
    /// Created at or after.
    pub since: Option<OffsetDateTime>,
    /// Created at or before.
    pub until: Option<OffsetDateTime>,
    /// Against this account only.
    pub vs: Option<Uuid>,
    /// Rated (or casual) only.
    pub rated: Option<bool>,
    /// Played with this colour only (`white` / `black`).
    pub color: Option<String>,
    /// Include games being played.
    pub ongoing: bool,
    /// Include finished games.
    pub finished: bool,
    /// Oldest first (lichess's `sort=dateAsc`).
    pub oldest_first: bool,
}

/// A game of [`user_games`]: what the caller needs to filter it by speed.
#[derive(Debug, Clone)]
pub struct UserGameId {
    /// Game id.
    pub id: String,
    /// Variant id.
    pub variant: String,
    /// Centiseconds.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
}

/// A page of an account's started games that pass `f`, newest (or oldest) first: the caller
/// reads page after page (holding no connection in between) until it has enough.
///
/// # Errors
/// Database failures.
pub async fn user_games(
    db: impl PgExecutor<'_>,
    user: Uuid,
    f: &UserGamesFilter,
    limit: i64,
    offset: i64,
) -> anyhow::Result<Vec<UserGameId>> {
    sqlx::query_as!(
        UserGameId,
        r#"SELECT g.id, g.variant, g.clock_limit, g.clock_increment
           FROM game_players p JOIN games g ON g.id = p.game_id
           LEFT JOIN game_players o ON o.game_id = g.id AND o.color <> p.color
           WHERE p.user_id = $1 AND g.started_at IS NOT NULL
             AND ($2::timestamptz IS NULL OR g.created_at >= $2)
             AND ($3::timestamptz IS NULL OR g.created_at <= $3)
             AND ($4::uuid IS NULL OR o.user_id = $4)
             AND ($5::bool IS NULL OR g.rated = $5)
             AND ($6::text IS NULL OR p.color = $6)
             AND ((g.status = 20 AND $7) OR (g.status <> 20 AND $8))
           ORDER BY CASE WHEN $9 THEN g.created_at END ASC, CASE WHEN NOT $9 THEN g.created_at END DESC, g.id
           LIMIT $10 OFFSET $11"#,
        user,
        f.since,
        f.until,
        f.vs,
        f.rated,
        f.color,
        f.ongoing,
        f.finished,
        f.oldest_first,
        limit,
        offset
    )
    .fetch_all(db)
    .await
    .context("listing an account's games")
}
