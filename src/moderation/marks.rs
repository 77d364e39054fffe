//! Engine and booster marks (lichess's "engine" and "boost" marks). A marked account is left out
//! of the leaderboards ([`crate::db::profiles::leaders`]) and paired, in the pools and when a
//! seek is accepted, only with other marked accounts ([`super::blocks::pairs_among`],
//! [`may_meet`]). An engine mark also gives back, once, the rating points that the account's
//! recent rated opponents lost to it (lichess's RatingRefund): [`REFUND_DAYS`] days and at most
//! [`REFUND_GAMES`] games, each (game, opponent) recorded in `rating_refunds` so that a second
//! mark (after an undo) never pays it again. The undo is [`super::sanctions::lift`] with
//! [`SanctionKind::EngineMark`] or [`SanctionKind::BoosterMark`]; a refund stays paid.

use std::collections::HashSet;

use anyhow::Context;
use serde_json::json;
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

use super::log::{self, Entry, LogId, Reason};
use super::reports::{self, ReportReason};
use super::sanctions::{self, SanctionError, SanctionKind};

/// How far back an engine mark's refund looks, in days.
pub const REFUND_DAYS: i32 = 30;
/// How many of the marked account's latest rated games the refund looks at.
pub const REFUND_GAMES: i64 = 100;

/// A mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// Played with engine help.
    Engine,
    /// Boosted another account or sandbagged.
    Booster,
}

impl Mark {
    /// The sanction that stores it.
    pub const fn kind(self) -> SanctionKind {
        match self {
            Mark::Engine => SanctionKind::EngineMark,
            Mark::Booster => SanctionKind::BoosterMark,
        }
    }

    const fn answers(self) -> ReportReason {
        match self {
            Mark::Engine => ReportReason::Cheat,
            Mark::Booster => ReportReason::Boost,
        }
    }
}

/// Rating points given back to one opponent for one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    /// The game the points were lost in.
    pub game: String,
    /// The opponent who lost them.
    pub user: Uuid,
    /// The variant id of the rating.
    pub variant: String,
    /// The points given back (more than 0).
    pub points: i32,
}

/// A mark given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The mod-log row.
    pub log: LogId,
    /// The reports it closed (cheating for an engine mark, boosting for a booster mark).
    pub closed_reports: usize,
    /// The refunds it paid (none for a booster mark).
    pub refunds: Vec<Refund>,
}

/// Marks `target`; an engine mark refunds its recent opponents. One transaction, one mod-log row
/// (its details list the refunds), closing the open reports of the mark's reason.
///
/// # Errors
/// [`SanctionError`]: not a moderator, no such account, marked so already; database failures.
pub async fn mark(
    pool: &PgPool,
    moderator: Uuid,
    target: Uuid,
    mark: Mark,
    reason: &Reason,
) -> Result<Marked, SanctionError> {
    let mut tx = pool.begin().await.context("starting a mark")?;
    sanctions::check(&mut tx, moderator, target).await?;
    if sanctions::in_force(&mut *tx, target, mark.kind()).await? {
        return Err(SanctionError::Conflict("this account has that mark already"));
    }
    let refunds = match mark {
        Mark::Engine => owed(&mut *tx, target).await?,
        Mark::Booster => Vec::new(),
    };
    let listed: Vec<_> = refunds
        .iter()
        .map(|r| json!({"game": r.game, "user": r.user, "variant": r.variant, "points": r.points}))
        .collect();
    let log = log::append(
        &mut *tx,
        &Entry {
            moderator: Some(moderator),
            target: Some(target),
            action: mark.kind().given(),
            reason,
            details: json!({"refunds": listed}),
        },
    )
    .await?;
    sanctions::insert(&mut tx, target, mark.kind(), None, log).await?;
    for r in &refunds {
        pay(&mut tx, r, log).await?;
    }
    let closed = reports::close_open(&mut *tx, target, Some(&[mark.answers()]), Some(moderator), log).await?;
    tx.commit().await.context("committing a mark")?;
    Ok(Marked { log, closed_reports: closed.len(), refunds })
}

/// What the opponents of `cheat` lost to them in their recent rated games and were not refunded.
async fn owed(db: impl PgExecutor<'_>, cheat: Uuid) -> anyhow::Result<Vec<Refund>> {
    let rows = sqlx::query!(
        r#"WITH recent AS (
               SELECT g.id, g.variant, p.color FROM game_players p JOIN games g ON g.id = p.game_id
               WHERE p.user_id = $1 AND g.rated AND g.finished_at > now() - make_interval(days => $2)
               ORDER BY g.finished_at DESC LIMIT $3)
           SELECT r.id AS game, o.user_id AS "user!", r.variant,
                  (o.rating_before - o.rating_after) AS "points!"
           FROM recent r JOIN game_players o ON o.game_id = r.id AND o.color <> r.color
           WHERE o.user_id IS NOT NULL AND o.rating_after < o.rating_before
             AND NOT EXISTS (SELECT 1 FROM rating_refunds f WHERE f.game_id = r.id AND f.user_id = o.user_id)
           ORDER BY r.id"#,
        cheat,
        REFUND_DAYS,
        REFUND_GAMES
    )
    .fetch_all(db)
    .await
    .context("reading what an engine-marked account's opponents lost")?;
    Ok(rows.into_iter().map(|r| Refund { game: r.game, user: r.user, variant: r.variant, points: r.points }).collect())
}

async fn pay(db: &mut sqlx::PgConnection, r: &Refund, log: LogId) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO rating_refunds (game_id, user_id, variant, points, log_id) VALUES ($1, $2, $3, $4, $5)",
        r.game,
        r.user,
        r.variant,
        r.points,
        log.0
    )
    .execute(&mut *db)
    .await
    .context("recording a refund")?;
    sqlx::query!(
        "UPDATE user_ratings SET rating = rating + $3 WHERE user_id = $1 AND variant = $2",
        r.user,
        r.variant,
        r.points
    )
    .execute(&mut *db)
    .await
    .context("paying a refund")?;
    Ok(())
}

/// The marks in force on an account (for its mod view).
///
/// # Errors
/// Database failures.
pub async fn of_user(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<Vec<Mark>> {
    let kinds = sqlx::query_scalar!(
        "SELECT DISTINCT kind FROM sanctions WHERE user_id = $1 AND kind IN ('engine_mark', 'booster_mark')
         AND lifted_at IS NULL ORDER BY kind",
        user
    )
    .fetch_all(db)
    .await
    .context("reading an account's marks")?;
    Ok(kinds
        .into_iter()
        .filter_map(|k| [Mark::Engine, Mark::Booster].into_iter().find(|m| m.kind().as_str() == k))
        .collect())
}

/// Who among `users` has a mark in force.
///
/// # Errors
/// Database failures.
pub async fn marked_among(db: impl PgExecutor<'_>, users: &[Uuid]) -> anyhow::Result<HashSet<Uuid>> {
    if users.is_empty() {
        return Ok(HashSet::new());
    }
    let ids = sqlx::query_scalar!(
        "SELECT DISTINCT user_id FROM sanctions WHERE user_id = ANY($1) AND kind IN ('engine_mark', 'booster_mark')
         AND lifted_at IS NULL",
        users
    )
    .fetch_all(db)
    .await
    .context("reading marks")?;
    Ok(ids.into_iter().collect())
}

/// Whether two accounts may be paired by the lobby: both marked or neither.
///
/// # Errors
/// Database failures.
pub async fn may_meet(db: impl PgExecutor<'_>, a: Uuid, b: Uuid) -> anyhow::Result<bool> {
    let marked = marked_among(db, &[a, b]).await?;
    Ok(marked.contains(&a) == marked.contains(&b))
}
