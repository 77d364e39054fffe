//! Closing an account, and reopening it. Closing, in one transaction with one mod-log row
//! (`close_account`, closing every open report against the account): the account is marked
//! closed (a sanction until lifted), its signed-in sessions ended (a copy of the cookie loads
//! nothing), its API tokens are revoked, its seeks removed and its pending
//! challenges cancelled. After the commit: its pool places are left, its running games resigned
//! through the round's own resign path (so both players are told, on every instance), and
//! [`UserMsg::AccountClosed`] goes through the broker to every instance, where the event stream
//! of the account ends. Logging in is refused from then on ([`crate::db::users::find_by_name`]
//! leaves closed accounts out), and [`is_closed`] is what a request's identity is checked with.
//!
//! Reopening ([`reopen`], `reopen_account`) lifts the closure: logging in works again. Revoked
//! tokens, cancelled challenges and resigned games stay so.

use anyhow::Context;
use serde_json::json;
use sqlx::PgExecutor;
use uuid::Uuid;

use super::log::{self, Entry, LogId, Reason};
use super::reports;
use super::sanctions::{self, SanctionError, SanctionKind};
use crate::db;
use crate::game::round::{ApiOp, Rounds};
use crate::game::{GameId, PlayerRef, protocol::Command};
use crate::lobby::{LobbyCtx, player_key};
use crate::notify::{self, UserMsg};

/// What a closure ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed {
    /// The mod-log row.
    pub log: LogId,
    /// Signed-in sessions ended.
    pub sessions: u64,
    /// API tokens revoked.
    pub tokens: u64,
    /// Pending challenges cancelled.
    pub challenges: usize,
    /// Seeks removed.
    pub seeks: usize,
    /// Running games resigned.
    pub games: Vec<GameId>,
    /// Reports closed.
    pub closed_reports: usize,
}

/// Closes `target`'s account. See the module documentation.
///
/// # Errors
/// [`SanctionError`]: not a moderator, no such account, closed already; database failures.
pub async fn close(
    ctx: &LobbyCtx,
    rounds: &std::sync::Arc<Rounds>,
    moderator: Uuid,
    target: Uuid,
    reason: &Reason,
) -> Result<Closed, SanctionError> {
    let mut tx = ctx.pool.begin().await.context("starting to close an account")?;
    sanctions::check(&mut tx, moderator, target).await?;
    if sanctions::in_force(&mut *tx, target, SanctionKind::AccountClosed).await? {
        return Err(SanctionError::Conflict("this account is closed already"));
    }
    let tokens =
        sqlx::query!("UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL", target)
            .execute(&mut *tx)
            .await
            .context("revoking an account's tokens")?
            .rows_affected();
    let sessions = db::sessions::end_all_but(&mut *tx, target, None).await?.len() as u64;
    let challenges = sqlx::query_scalar!(
        "UPDATE challenges SET status = 'canceled' WHERE status = 'created' AND (challenger_id = $1 OR dest_id = $1)
         RETURNING id",
        target
    )
    .fetch_all(&mut *tx)
    .await
    .context("cancelling an account's challenges")?;
    let challengers = sqlx::query!(r#"SELECT challenger_id, dest_id FROM challenges WHERE id = ANY($1)"#, &challenges)
        .fetch_all(&mut *tx)
        .await
        .context("reading the cancelled challenges")?;
    let seeks = db::lobby::remove_of_players(&mut *tx, &[target], &[]).await?;
    let log = log::append(
        &mut *tx,
        &Entry {
            moderator: Some(moderator),
            target: Some(target),
            action: SanctionKind::AccountClosed.given(),
            reason,
            details: json!({"sessions": sessions, "tokens": tokens, "challenges": challenges.len(), "seeks": seeks.len()}),
        },
    )
    .await?;
    sanctions::insert(&mut tx, target, SanctionKind::AccountClosed, None, log).await?;
    let closed = reports::close_open(&mut *tx, target, None, Some(moderator), log).await?;
    tx.commit().await.context("committing a closed account")?;

    // What is not in the database, after the commit: the lobby, the games, the sockets.
    let (n_challenges, n_seeks) = (challenges.len(), seeks.len());
    ctx.lobby.removed(seeks).await;
    let me = PlayerRef::User(target);
    if let Err(e) = ctx.lobby.pools.leave_player(&player_key(&me)).await {
        tracing::warn!(error = format!("{e:#}"), "a closed account's pool place stays");
    }
    for (id, c) in challenges.iter().zip(&challengers) {
        let msg = UserMsg::ChallengeCanceled { id: id.clone() };
        for u in [Some(c.challenger_id), c.dest_id].into_iter().flatten() {
            notify::send(ctx.lobby.broker(), u, &msg).await;
        }
    }
    let name = db::users::find_by_id(&ctx.pool, target).await?.map(|u| u.username).unwrap_or_default();
    let mut games = Vec::new();
    for id in running_games(&ctx.pool, target).await? {
        let Some(game) = GameId::parse(&id) else { continue };
        match rounds.api(&game, vec![me.clone()], name.clone(), Some(target), ApiOp::Command(Command::Resign)).await {
            Ok(()) => games.push(game),
            Err(e) => tracing::warn!(game.id = %game, code = %e.code, "a closed account's game was not resigned"),
        }
    }
    notify::send(ctx.lobby.broker(), target, &UserMsg::AccountClosed).await;
    Ok(Closed { log, sessions, tokens, challenges: n_challenges, seeks: n_seeks, games, closed_reports: closed.len() })
}

async fn running_games(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar!(
        "SELECT g.id FROM games g JOIN game_players p ON p.game_id = g.id WHERE p.user_id = $1 AND g.status = 20
         ORDER BY g.id",
        user
    )
    .fetch_all(db)
    .await
    .context("reading an account's running games")
}

/// Reopens a closed account: logging in works again.
///
/// # Errors
/// [`SanctionError`]: not a moderator, no such account, not closed; database failures.
pub async fn reopen(
    pool: &sqlx::PgPool,
    moderator: Uuid,
    target: Uuid,
    reason: &Reason,
) -> Result<LogId, SanctionError> {
    sanctions::lift(pool, moderator, target, SanctionKind::AccountClosed, reason).await
}

/// Whether the account is closed now.
///
/// # Errors
/// Database failures.
pub async fn is_closed(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<bool> {
    sanctions::in_force(db, user, SanctionKind::AccountClosed).await
}
