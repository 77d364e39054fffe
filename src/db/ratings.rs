//! The `user_ratings` table: one Elo rating per account and variant.

use anyhow::Context;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::rating::{Perf, START};

/// A player's rating in a variant (the start rating when they have none yet).
///
/// # Errors
/// Database failures.
pub async fn perf(db: impl PgExecutor<'_>, user_id: Uuid, variant: &str) -> anyhow::Result<Perf> {
    let row =
        sqlx::query!("SELECT rating, games FROM user_ratings WHERE user_id = $1 AND variant = $2", user_id, variant)
            .fetch_optional(db)
            .await
            .context("reading a rating")?;
    Ok(row.map_or(Perf { rating: START, games: 0 }, |r| Perf { rating: r.rating, games: r.games }))
}

/// Locks the ratings of two players in a variant (creating them at the start rating) and returns
/// them in the order asked. Rows are locked in id order, so concurrent games do not deadlock.
///
/// # Errors
/// Database failures.
pub async fn lock_pair(db: &mut PgConnection, a: Uuid, b: Uuid, variant: &str) -> anyhow::Result<(Perf, Perf)> {
    sqlx::query!(
        "INSERT INTO user_ratings (user_id, variant, rating, games) VALUES ($1, $3, $4, 0), ($2, $3, $4, 0)
         ON CONFLICT (user_id, variant) DO NOTHING",
        a,
        b,
        variant,
        START
    )
    .execute(&mut *db)
    .await
    .context("creating ratings")?;
    let rows = sqlx::query!(
        "SELECT user_id, rating, games FROM user_ratings WHERE variant = $3 AND user_id IN ($1, $2)
         ORDER BY user_id FOR UPDATE",
        a,
        b,
        variant
    )
    .fetch_all(&mut *db)
    .await
    .context("locking ratings")?;
    let get = |id: Uuid| {
        rows.iter()
            .find(|r| r.user_id == id)
            .map(|r| Perf { rating: r.rating, games: r.games })
            .ok_or_else(|| anyhow::anyhow!("a rating row is missing"))
    };
    Ok((get(a)?, get(b)?))
}

/// Stores a rating after one more rated game.
///
/// # Errors
/// Database failures.
pub async fn record_game(db: &mut PgConnection, user_id: Uuid, variant: &str, rating: i32) -> anyhow::Result<()> {
    sqlx::query!(
        "UPDATE user_ratings SET rating = $3, games = games + 1 WHERE user_id = $1 AND variant = $2",
        user_id,
        variant,
        rating
    )
    .execute(db)
    .await
    .context("storing a rating")?;
    Ok(())
}
