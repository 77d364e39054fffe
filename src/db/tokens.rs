//! The `api_tokens` table: personal API tokens, stored as hashes.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// A token as the settings page lists it (never the token itself).
#[derive(Debug, Clone)]
pub struct TokenRow {
    /// Key.
    pub id: Uuid,
    /// What the owner called it.
    pub description: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Creation.
    pub created_at: OffsetDateTime,
    /// Last request made with it.
    pub last_used_at: Option<OffsetDateTime>,
}

/// The owner of a live token.
#[derive(Debug, Clone)]
pub struct TokenOwner {
    /// The token's key.
    pub token_id: Uuid,
    /// The account.
    pub user_id: Uuid,
    /// The account's name.
    pub username: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// Whether the account is a BOT.
    pub bot: bool,
}

/// Stores a new token's hash and returns its id.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db, hash), fields(user.id = %user_id))]
pub async fn insert(
    db: impl PgExecutor<'_>,
    user_id: Uuid,
    description: &str,
    scopes: &[String],
    hash: &str,
) -> anyhow::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query!(
        "INSERT INTO api_tokens (id, user_id, description, scopes, hash) VALUES ($1, $2, $3, $4, $5)",
        id,
        user_id,
        description,
        scopes,
        hash
    )
    .execute(db)
    .await
    .context("inserting an API token")?;
    Ok(id)
}

/// The owner of the unrevoked token with this hash; records the use.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip_all)]
pub async fn owner_of(db: impl PgExecutor<'_>, hash: &str) -> anyhow::Result<Option<TokenOwner>> {
    sqlx::query_as!(
        TokenOwner,
        r#"UPDATE api_tokens t SET last_used_at = now()
           FROM users u
           WHERE t.hash = $1 AND t.revoked_at IS NULL AND u.id = t.user_id
           RETURNING t.id AS token_id, t.user_id, u.username, t.scopes, u.bot"#,
        hash
    )
    .fetch_optional(db)
    .await
    .context("looking up an API token")
}

/// The unrevoked tokens of an account, newest first.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn of_user(db: impl PgExecutor<'_>, user_id: Uuid) -> anyhow::Result<Vec<TokenRow>> {
    sqlx::query_as!(
        TokenRow,
        r#"SELECT id, description, scopes, created_at, last_used_at FROM api_tokens
           WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id"#,
        user_id
    )
    .fetch_all(db)
    .await
    .context("listing API tokens")
}

/// Revokes a token of an account; whether there was one to revoke.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn revoke(db: impl PgExecutor<'_>, user_id: Uuid, id: Uuid) -> anyhow::Result<bool> {
    let done = sqlx::query!(
        "UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL",
        id,
        user_id
    )
    .execute(db)
    .await
    .context("revoking an API token")?;
    Ok(done.rows_affected() == 1)
}

/// What a token test shows of a live token.
#[derive(Debug, Clone)]
pub struct TokenInfo {
    /// The token's hash.
    pub hash: String,
    /// The account's name.
    pub username: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
}

/// The unrevoked tokens among these hashes (without recording a use).
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip_all, fields(tokens = hashes.len()))]
pub async fn test(db: impl PgExecutor<'_>, hashes: &[String]) -> anyhow::Result<Vec<TokenInfo>> {
    sqlx::query_as!(
        TokenInfo,
        r#"SELECT t.hash, u.username, t.scopes FROM api_tokens t JOIN users u ON u.id = t.user_id
           WHERE t.hash = ANY($1) AND t.revoked_at IS NULL"#,
        hashes
    )
    .fetch_all(db)
    .await
    .context("testing API tokens")
}
