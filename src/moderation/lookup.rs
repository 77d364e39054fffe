//! What the moderators' pages read about accounts: a search by name prefix, the names of
//! accounts, and a player's recent chat lines with their game.
//!
//! The sign-up and log-in do not store the address or the session they came from, so there is
//! no search by address or session: see `docs/moderation.md`.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::Role;

/// The most accounts a search lists.
pub const SEARCH_LIMIT: i64 = 50;

/// An account found by a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The account.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// When it signed up.
    pub created_at: OffsetDateTime,
}

/// A name prefix to search: 1 to 20 letters, digits, `_` or `-` (the characters of names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix(String);

impl Prefix {
    /// Checks a typed prefix (trimmed).
    ///
    /// # Errors
    /// A sentence saying what is wrong.
    pub fn parse(text: &str) -> Result<Prefix, String> {
        let t = text.trim();
        if t.is_empty() || t.chars().count() > 20 {
            return Err("type the first 1 to 20 characters of a name".into());
        }
        if !t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err("names have only letters, digits, '_' and '-'".into());
        }
        Ok(Prefix(t.to_string()))
    }

    /// The prefix as typed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The accounts whose name starts with `prefix` (ignoring case), by name.
///
/// # Errors
/// Database failures; a stored role this build does not know.
pub async fn search(db: impl PgExecutor<'_>, prefix: &Prefix) -> anyhow::Result<Vec<Found>> {
    // `_` is a LIKE wildcard: escape it (names have no `%` or `\`).
    let pattern = format!("{}%", prefix.as_str().to_lowercase().replace('_', "\\_"));
    let rows: Vec<(Uuid, String, String, OffsetDateTime)> = sqlx::query_as(
        "SELECT id, username, role, created_at FROM users WHERE lower(username) LIKE $1 \
         ORDER BY lower(username) LIMIT $2",
    )
    .bind(pattern)
    .bind(SEARCH_LIMIT)
    .fetch_all(db)
    .await
    .context("searching accounts")?;
    rows.into_iter()
        .map(|(id, name, role, created_at)| {
            Ok(Found { id, name, role: Role::parse(&role).map_err(|e| anyhow::anyhow!(e))?, created_at })
        })
        .collect()
}

/// The account of `name` (ignoring case).
///
/// # Errors
/// Database failures; a stored role this build does not know.
pub async fn account(db: impl PgExecutor<'_>, name: &str) -> anyhow::Result<Option<Found>> {
    let row: Option<(Uuid, String, String, OffsetDateTime)> =
        sqlx::query_as("SELECT id, username, role, created_at FROM users WHERE lower(username) = lower($1)")
            .bind(name)
            .fetch_optional(db)
            .await
            .context("reading an account")?;
    row.map(|(id, name, role, created_at)| {
        Ok(Found { id, name, role: Role::parse(&role).map_err(|e| anyhow::anyhow!(e))?, created_at })
    })
    .transpose()
}

/// The names of accounts, by id (unknown ids are left out).
///
/// # Errors
/// Database failures.
pub async fn names(db: impl PgExecutor<'_>, ids: &[Uuid]) -> anyhow::Result<std::collections::HashMap<Uuid, String>> {
    let rows: Vec<(Uuid, String)> = sqlx::query_as("SELECT id, username FROM users WHERE id = ANY($1)")
        .bind(ids)
        .fetch_all(db)
        .await
        .context("reading names")?;
    Ok(rows.into_iter().collect())
}

/// A chat line of a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatLine {
    /// The game it was said in.
    pub game: String,
    /// `player` or `spectator`.
    pub room: String,
    /// What was said.
    pub text: String,
    /// Whether it was said shadow-muted (shown to nobody else).
    pub shadow: bool,
    /// When.
    pub at: OffsetDateTime,
}

/// The latest `limit` chat lines of `user`, newest first.
///
/// # Errors
/// Database failures.
pub async fn chat_lines(db: impl PgExecutor<'_>, user: Uuid, limit: i64) -> anyhow::Result<Vec<ChatLine>> {
    let rows: Vec<(String, String, String, bool, OffsetDateTime)> = sqlx::query_as(
        "SELECT game_id, room, text, shadow, at FROM game_chat WHERE user_id = $1 ORDER BY id DESC LIMIT $2",
    )
    .bind(user)
    .bind(limit)
    .fetch_all(db)
    .await
    .context("reading a player's chat lines")?;
    Ok(rows.into_iter().map(|(game, room, text, shadow, at)| ChatLine { game, room, text, shadow, at }).collect())
}

/// The sanctions in force on `user`: (kind, until; `None` for until lifted).
///
/// # Errors
/// Database failures.
pub async fn in_force(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<Vec<(String, Option<OffsetDateTime>)>> {
    sqlx::query_as(
        "SELECT kind, until FROM sanctions WHERE user_id = $1 AND lifted_at IS NULL \
         AND (until IS NULL OR until > now()) ORDER BY id",
    )
    .bind(user)
    .fetch_all(db)
    .await
    .context("reading the sanctions in force")
}
