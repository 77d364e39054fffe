//! Background work of live games on every instance: the heartbeat that tells downtime, and the
//! sweeper that ends games whose first move is overdue or whose clock ran out, even when nobody
//! is connected. Several instances may sweep the same game: the version check of the commit lets
//! only one end it.

use std::time::Duration;

use time::OffsetDateTime;

use super::GameId;
use super::round::{RoundCtx, commit_and_announce};
use super::store::{self, CommitError};
use crate::db;

/// Gives the downtime since the last heartbeat back to running games (at start-up).
///
/// # Errors
/// Database failures.
pub async fn forgive_downtime(ctx: &RoundCtx) -> anyhow::Result<()> {
    let given = db::games::forgive_downtime(&ctx.pool, downtime_threshold(ctx)).await?;
    if given > 0 {
        tracing::info!(downtime_ms = given, "downtime given back to running games");
    }
    Ok(())
}

/// A gap between heartbeats longer than this (milliseconds) is downtime given back to clocks.
pub fn downtime_threshold(ctx: &RoundCtx) -> i64 {
    (ctx.cfg.heartbeat_interval_ms * 3).max(2000) as i64
}

/// The time-keeping of an instance, forever: gives downtime back first when start-up could not
/// (the database was unreachable then; retried until it answers), then the heartbeat and the
/// sweeper side by side.
pub async fn keep_time(ctx: RoundCtx, forgiven: bool) {
    if !forgiven {
        let pause = Duration::from_millis(ctx.cfg.heartbeat_interval_ms.max(100));
        while let Err(e) = forgive_downtime(&ctx).await {
            tracing::warn!(error = format!("{e:#}"), "giving downtime back failed, retrying");
            tokio::time::sleep(pause).await;
        }
    }
    tokio::join!(heartbeat(ctx.clone()), sweep_forever(ctx));
}

/// Records that this instance is alive, forever. A failed heartbeat marks the database down;
/// while it is down, each tick tries to recover (giving the outage back to running clocks).
pub async fn heartbeat(ctx: RoundCtx) {
    let mut tick = tokio::time::interval(Duration::from_millis(ctx.cfg.heartbeat_interval_ms.max(100)));
    loop {
        tick.tick().await;
        if ctx.health.is_down() {
            if let Err(e) = ctx.health.recover(&ctx.pool, downtime_threshold(&ctx)).await {
                tracing::warn!(error = format!("{e:#}"), "the database is still unavailable");
            }
        } else if let Err(e) = db::games::heartbeat(&ctx.pool).await {
            tracing::warn!(error = format!("{e:#}"), "heartbeat failed");
            ctx.health.failed();
        }
    }
}

/// Ends due games, forever.
pub async fn sweep_forever(ctx: RoundCtx) {
    let mut tick = tokio::time::interval(Duration::from_millis(ctx.cfg.sweeper_interval_ms.max(100)));
    loop {
        tick.tick().await;
        if let Err(e) = sweep_once(&ctx).await {
            tracing::warn!(error = format!("{e:#}"), "sweep failed");
        }
    }
}

/// One pass: ends every game that is due. Returns how many this instance ended.
///
/// # Errors
/// Database failures while listing.
pub async fn sweep_once(ctx: &RoundCtx) -> anyhow::Result<usize> {
    // During an outage nobody could move: no flag until the outage is given back.
    if ctx.health.is_down() {
        return Ok(0);
    }
    let ids = db::games::due_games(&ctx.pool, ctx.cfg.first_move_cs()).await?;
    let mut ended = 0;
    for id in ids {
        let Some(id) = GameId::parse(&id) else { continue };
        let Some(mut live) = store::load(&ctx.pool, &id).await? else { continue };
        let Some(mut step) = live.tick(OffsetDateTime::now_utc(), &ctx.cfg) else { continue };
        match commit_and_announce(ctx, &mut live, &mut step).await {
            Ok(()) => {
                ended += 1;
                tracing::info!(game.id = %id, status = live.status.name(), "sweeper ended a game");
            }
            // A round or another sweeper got there first (an ending step never starts a game).
            Err(CommitError::Conflict | CommitError::Busy(_)) => {}
            Err(CommitError::Other(e)) => {
                tracing::warn!(game.id = %id, error = format!("{e:#}"), "sweeper commit failed");
                ctx.health.failed();
            }
        }
    }
    Ok(ended)
}
