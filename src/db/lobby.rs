//! The `seeks` table: the lobby's open offers.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// A stored seek.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekRow {
    /// 8 base62 characters.
    pub id: String,
    /// The creator's account.
    pub user_id: Option<Uuid>,
    /// The creator's guest id.
    pub guest_id: Option<String>,
    /// The name shown.
    pub name: String,
    /// The creator's rating in the variant.
    pub rating: Option<i32>,
    /// Whether that rating is provisional.
    pub provisional: bool,
    /// Variant id.
    pub variant: String,
    /// Centiseconds.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
    /// Rated or casual.
    pub rated: bool,
    /// `white`, `black` or `random`: the creator's colour.
    pub color: String,
    /// The lowest rating that may accept.
    pub rating_min: Option<i32>,
    /// The highest rating that may accept.
    pub rating_max: Option<i32>,
    /// The lobby socket holding it.
    pub conn: String,
    /// Until when it lives without renewal.
    pub expires_at: OffsetDateTime,
    /// When it was made.
    pub created_at: OffsetDateTime,
    /// The address it came from.
    pub ip: Option<String>,
}

/// Stores a new seek.
///
/// # Errors
/// Database failures.
pub async fn insert(db: impl PgExecutor<'_>, s: &SeekRow) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO seeks (id, user_id, guest_id, name, rating, provisional, variant, clock_limit, clock_increment,
                            rated, color, rating_min, rating_max, conn, expires_at, created_at, ip)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
        s.id,
        s.user_id,
        s.guest_id,
        s.name,
        s.rating,
        s.provisional,
        s.variant,
        s.clock_limit,
        s.clock_increment,
        s.rated,
        s.color,
        s.rating_min,
        s.rating_max,
        s.conn,
        s.expires_at,
        s.created_at,
        s.ip
    )
    .execute(db)
    .await
    .context("storing a seek")?;
    Ok(())
}

/// The seeks alive now, oldest first.
///
/// # Errors
/// Database failures.
pub async fn live(db: impl PgExecutor<'_>) -> anyhow::Result<Vec<SeekRow>> {
    sqlx::query_as!(SeekRow, "SELECT * FROM seeks WHERE expires_at > now() ORDER BY created_at, id")
        .fetch_all(db)
        .await
        .context("listing seeks")
}

/// How many live seeks a player holds.
///
/// # Errors
/// Database failures.
pub async fn count_of(db: impl PgExecutor<'_>, user_id: Option<Uuid>, guest_id: Option<&str>) -> anyhow::Result<i64> {
    sqlx::query_scalar!(
        r#"SELECT count(*) AS "n!" FROM seeks WHERE expires_at > now()
           AND (user_id = $1 OR guest_id = $2)"#,
        user_id,
        guest_id
    )
    .fetch_one(db)
    .await
    .context("counting seeks")
}

/// How many live seeks came from an address.
///
/// # Errors
/// Database failures.
pub async fn count_from(db: impl PgExecutor<'_>, ip: &str) -> anyhow::Result<i64> {
    sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM seeks WHERE expires_at > now() AND ip = $1"#, ip)
        .fetch_one(db)
        .await
        .context("counting an address's seeks")
}

/// Takes a live seek away (the one accepting it wins); `None` when it is gone.
///
/// # Errors
/// Database failures.
pub async fn take(db: impl PgExecutor<'_>, id: &str) -> anyhow::Result<Option<SeekRow>> {
    sqlx::query_as!(SeekRow, "DELETE FROM seeks WHERE id = $1 AND expires_at > now() RETURNING *", id)
        .fetch_optional(db)
        .await
        .context("taking a seek")
}

/// Removes a seek of this player; returns whether there was one.
///
/// # Errors
/// Database failures.
pub async fn cancel(
    db: impl PgExecutor<'_>,
    id: &str,
    user_id: Option<Uuid>,
    guest_id: Option<&str>,
) -> anyhow::Result<bool> {
    let n = sqlx::query!("DELETE FROM seeks WHERE id = $1 AND (user_id = $2 OR guest_id = $3)", id, user_id, guest_id)
        .execute(db)
        .await
        .context("cancelling a seek")?
        .rows_affected();
    Ok(n > 0)
}

/// Removes every seek of the players given (they joined a game); returns their ids.
///
/// # Errors
/// Database failures.
pub async fn remove_of_players(
    db: impl PgExecutor<'_>,
    user_ids: &[Uuid],
    guest_ids: &[String],
) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar!(
        "DELETE FROM seeks WHERE user_id = ANY($1) OR guest_id = ANY($2) RETURNING id",
        user_ids,
        guest_ids
    )
    .fetch_all(db)
    .await
    .context("removing a player's seeks")
}

/// Removes every seek held by a lobby socket (it closed); returns their ids.
///
/// # Errors
/// Database failures.
pub async fn remove_of_conn(db: impl PgExecutor<'_>, conn: &str) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar!("DELETE FROM seeks WHERE conn = $1 RETURNING id", conn)
        .fetch_all(db)
        .await
        .context("removing a socket's seeks")
}

/// Renews the seeks of a lobby socket until `until`.
///
/// # Errors
/// Database failures.
pub async fn renew(db: impl PgExecutor<'_>, conn: &str, until: OffsetDateTime) -> anyhow::Result<()> {
    sqlx::query!("UPDATE seeks SET expires_at = $2 WHERE conn = $1", conn, until)
        .execute(db)
        .await
        .context("renewing seeks")?;
    Ok(())
}

/// Removes expired seeks (their socket's instance died); returns their ids.
///
/// # Errors
/// Database failures.
pub async fn purge_expired(db: impl PgExecutor<'_>) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar!("DELETE FROM seeks WHERE expires_at <= now() RETURNING id")
        .fetch_all(db)
        .await
        .context("removing expired seeks")
}
