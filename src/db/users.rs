//! The `users` table.

use anyhow::Context;
use sqlx::PgExecutor;
use uuid::Uuid;

use crate::domain::{Role, UserName};

/// A stored account.
#[derive(Debug, Clone)]
pub struct UserRow {
    /// Key.
    pub id: Uuid,
    /// Name as typed at sign-up.
    pub username: String,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// `user` or `admin`.
    pub role: String,
    /// A BOT account (lichess's BOT API): it plays only through `/api/bot/...`.
    pub bot: bool,
}

/// Why an insert failed.
#[derive(Debug, thiserror::Error)]
pub enum InsertUserError {
    /// The name is taken, in any letter case.
    #[error("the name is taken")]
    NameTaken,
    /// Anything else.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Stores a new account and returns its id.
///
/// # Errors
/// [`InsertUserError::NameTaken`] when the name exists in any case; other database failures.
#[tracing::instrument(skip(db, password_hash), fields(user.name = %name))]
pub async fn insert(
    db: impl PgExecutor<'_>,
    name: &UserName,
    password_hash: &str,
    role: Role,
) -> Result<Uuid, InsertUserError> {
    let id = Uuid::now_v7();
    let result = sqlx::query!(
        "INSERT INTO users (id, username, password_hash, role) VALUES ($1, $2, $3, $4)",
        id,
        name.as_str(),
        password_hash,
        role.as_str()
    )
    .execute(db)
    .await;
    match result {
        Ok(_) => Ok(id),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(InsertUserError::NameTaken),
        Err(e) => Err(InsertUserError::Other(anyhow::Error::new(e).context("inserting a user"))),
    }
}

/// The open account with this name, ignoring case: a closed account (`moderation::closure`) is
/// not found, so it cannot log in, be challenged or be looked up.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn find_by_name(db: impl PgExecutor<'_>, name: &str) -> anyhow::Result<Option<UserRow>> {
    sqlx::query_as!(
        UserRow,
        "SELECT id, username, password_hash, role, bot FROM users u WHERE lower(username) = lower($1)
         AND NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.user_id = u.id AND s.kind = 'account_closed'
                         AND s.lifted_at IS NULL)",
        name
    )
    .fetch_optional(db)
    .await
    .context("looking up a user by name")
}

/// The account with this id.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %id))]
pub async fn find_by_id(db: impl PgExecutor<'_>, id: Uuid) -> anyhow::Result<Option<UserRow>> {
    sqlx::query_as!(UserRow, "SELECT id, username, password_hash, role, bot FROM users WHERE id = $1", id)
        .fetch_optional(db)
        .await
        .context("looking up a user by id")
}

/// Replaces an account's password hash.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db, password_hash), fields(user.id = %id))]
pub async fn set_password_hash(db: impl PgExecutor<'_>, id: Uuid, password_hash: &str) -> anyhow::Result<()> {
    sqlx::query!("UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1", id, password_hash)
        .execute(db)
        .await
        .context("updating a password")?;
    Ok(())
}

/// Number of accounts.
///
/// # Errors
/// Database failures.
pub async fn count(db: impl PgExecutor<'_>) -> anyhow::Result<i64> {
    sqlx::query_scalar!("SELECT count(*) AS \"n!\" FROM users").fetch_one(db).await.context("counting users")
}

/// When an account was created.
///
/// # Errors
/// Database failures.
pub async fn created_at(db: impl PgExecutor<'_>, id: Uuid) -> anyhow::Result<Option<time::OffsetDateTime>> {
    sqlx::query_scalar!("SELECT created_at FROM users WHERE id = $1", id)
        .fetch_optional(db)
        .await
        .context("reading an account's creation date")
}

/// Why an account could not become a BOT.
#[derive(Debug, thiserror::Error)]
pub enum UpgradeError {
    /// It is one already.
    #[error("this account is already a BOT")]
    AlreadyBot,
    /// It has played (or is playing) a game: lichess upgrades only fresh accounts.
    #[error("this account has played games: only an account with no games can become a BOT")]
    HasGames,
    /// No such account.
    #[error("no such account")]
    NotFound,
    /// Anything else.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Makes an account a BOT, for good: only one that has no game (checked and changed in one
/// statement, with the account's row locked).
///
/// # Errors
/// [`UpgradeError`].
#[tracing::instrument(skip(db), fields(user.id = %id))]
pub async fn upgrade_to_bot(db: impl PgExecutor<'_>, id: Uuid) -> Result<(), UpgradeError> {
    let row = sqlx::query!(
        r#"WITH u AS (SELECT id, bot, EXISTS (SELECT 1 FROM game_players p WHERE p.user_id = users.id) AS played
                      FROM users WHERE id = $1 FOR UPDATE),
                up AS (UPDATE users SET bot = true, updated_at = now()
                       FROM u WHERE users.id = u.id AND NOT u.bot AND NOT u.played RETURNING users.id)
           SELECT u.bot, u.played AS "played!", EXISTS (SELECT 1 FROM up) AS "upgraded!" FROM u"#,
        id
    )
    .fetch_optional(db)
    .await
    .context("upgrading an account to a BOT")?;
    match row {
        None => Err(UpgradeError::NotFound),
        Some(r) if r.upgraded => Ok(()),
        Some(r) if r.bot => Err(UpgradeError::AlreadyBot),
        Some(_) => Err(UpgradeError::HasGames),
    }
}

/// Whether an account is a BOT.
///
/// # Errors
/// Database failures.
pub async fn is_bot(db: impl PgExecutor<'_>, id: Uuid) -> anyhow::Result<bool> {
    Ok(sqlx::query_scalar!("SELECT bot FROM users WHERE id = $1", id)
        .fetch_optional(db)
        .await
        .context("reading whether an account is a BOT")?
        .unwrap_or(false))
}

/// Notes that a BOT's event stream is open now (`GET /api/bot/online`).
///
/// # Errors
/// Database failures.
pub async fn bot_seen(db: impl PgExecutor<'_>, id: Uuid) -> anyhow::Result<()> {
    sqlx::query!("UPDATE users SET bot_seen_at = now() WHERE id = $1 AND bot", id)
        .execute(db)
        .await
        .context("noting a BOT online")?;
    Ok(())
}

/// The BOTs seen online within `within_secs`, most recently seen first: (id, name).
///
/// # Errors
/// Database failures.
pub async fn bots_online(db: impl PgExecutor<'_>, within_secs: i32, max: i64) -> anyhow::Result<Vec<(Uuid, String)>> {
    let rows = sqlx::query!(
        r#"SELECT id, username FROM users u
           WHERE bot AND bot_seen_at > now() - make_interval(secs => $1)
             AND NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.user_id = u.id AND s.kind = 'account_closed'
                             AND s.lifted_at IS NULL)
           ORDER BY bot_seen_at DESC LIMIT $2"#,
        f64::from(within_secs),
        max
    )
    .fetch_all(db)
    .await
    .context("listing the BOTs online")?;
    Ok(rows.into_iter().map(|r| (r.id, r.username)).collect())
}

/// What `GET /api/users/status` says of an account.
#[derive(Debug, Clone)]
pub struct StatusRow {
    /// Name as stored.
    pub username: String,
    /// A BOT account.
    pub bot: bool,
    /// Seen within [`ONLINE_MINUTES`]: a page (its session), a token's request, a BOT's open
    /// event stream.
    pub online: bool,
    /// The game being played, if any (the newest, when several are).
    pub playing: Option<String>,
}

/// How recently an account must have been seen to count as online.
pub const ONLINE_MINUTES: i32 = 5;

/// The status of the open accounts among `names` (any letter case; unknown names are left out),
/// in the order of `names`.
///
/// # Errors
/// Database failures.
pub async fn status_of(db: impl PgExecutor<'_>, names: &[String]) -> anyhow::Result<Vec<StatusRow>> {
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    sqlx::query_as!(
        StatusRow,
        r#"SELECT u.username, u.bot,
              (EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id
                         AND s.last_seen_at > now() - make_interval(mins => $2))
               OR EXISTS (SELECT 1 FROM api_tokens t WHERE t.user_id = u.id AND t.revoked_at IS NULL
                            AND t.last_used_at > now() - make_interval(mins => $2))
               OR (u.bot AND u.bot_seen_at > now() - make_interval(mins => $2))) AS "online!",
              (SELECT g.id FROM game_players p JOIN games g ON g.id = p.game_id
                WHERE p.user_id = u.id AND g.status = 20
                ORDER BY g.created_at DESC LIMIT 1) AS "playing?"
           FROM unnest($1::text[]) WITH ORDINALITY AS n(name, i)
           JOIN users u ON lower(u.username) = n.name
           WHERE NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.user_id = u.id AND s.kind = 'account_closed'
                             AND s.lifted_at IS NULL)
           ORDER BY n.i"#,
        &lower,
        ONLINE_MINUTES
    )
    .fetch_all(db)
    .await
    .context("reading accounts' status")
}

/// The open accounts among `names` (any letter case), in their order: (id, name, bot).
///
/// # Errors
/// Database failures.
pub async fn find_many(db: impl PgExecutor<'_>, names: &[String]) -> anyhow::Result<Vec<(Uuid, String, bool)>> {
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let rows = sqlx::query!(
        r#"SELECT u.id, u.username, u.bot FROM unnest($1::text[]) WITH ORDINALITY AS n(name, i)
           JOIN users u ON lower(u.username) = n.name
           WHERE NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.user_id = u.id AND s.kind = 'account_closed'
                             AND s.lifted_at IS NULL)
           ORDER BY n.i"#,
        &lower
    )
    .fetch_all(db)
    .await
    .context("reading accounts by name")?;
    Ok(rows.into_iter().map(|r| (r.id, r.username, r.bot)).collect())
}

/// Up to `limit` open accounts whose name starts with `prefix` (any letter case), shortest and
/// then alphabetical first: (name, bot).
///
/// # Errors
/// Database failures.
pub async fn autocomplete(db: impl PgExecutor<'_>, prefix: &str, limit: i64) -> anyhow::Result<Vec<(String, bool)>> {
    // `_` and `-` are name characters; LIKE's own wildcards are escaped.
    let pattern = format!("{}%", prefix.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    let rows = sqlx::query!(
        r#"SELECT u.username, u.bot FROM users u WHERE lower(u.username) LIKE $1
             AND NOT EXISTS (SELECT 1 FROM sanctions s WHERE s.user_id = u.id AND s.kind = 'account_closed'
                             AND s.lifted_at IS NULL)
           ORDER BY length(u.username), lower(u.username) LIMIT $2"#,
        pattern,
        limit
    )
    .fetch_all(db)
    .await
    .context("completing a name")?;
    Ok(rows.into_iter().map(|r| (r.username, r.bot)).collect())
}
