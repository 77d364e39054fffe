//! Whether this instance can reach PostgreSQL, as the live games see it. A failed commit or
//! heartbeat marks the database down; while it is down no deadline is enforced (nobody can move,
//! so nobody is flagged) and the rounds tell their sockets (`service`, `docs/api.md`). The
//! database is marked up again only by [`DbHealth::recover`], which first gives the time of the
//! outage back to every running game, as a restart's downtime is given back: time during which
//! the server could not accept a move is charged to nobody.

use std::sync::Arc;

use time::OffsetDateTime;
use tokio::sync::watch;

use crate::db;

/// The database as this instance last found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// Commits work.
    Up,
    /// A commit or heartbeat failed at `since`; not recovered yet.
    Down {
        /// When the first failure was seen.
        since: OffsetDateTime,
    },
}

/// The instance's view of the database, shared by its rounds, heartbeat and sweeper.
#[derive(Debug)]
pub struct DbHealth {
    tx: watch::Sender<Availability>,
}

impl DbHealth {
    /// Up.
    pub fn new() -> Arc<DbHealth> {
        Arc::new(DbHealth { tx: watch::Sender::new(Availability::Up) })
    }

    /// The current view.
    pub fn now(&self) -> Availability {
        *self.tx.borrow()
    }

    /// Whether the database is marked down.
    pub fn is_down(&self) -> bool {
        matches!(self.now(), Availability::Down { .. })
    }

    /// Follows the changes (rounds tell their sockets).
    pub fn watch(&self) -> watch::Receiver<Availability> {
        self.tx.subscribe()
    }

    /// A database operation failed: the database is down from now, unless it already was.
    pub fn failed(&self) {
        self.tx.send_if_modified(|a| {
            if *a == Availability::Up {
                tracing::error!("the database is unavailable: live games are paused");
                *a = Availability::Down { since: OffsetDateTime::now_utc() };
                true
            } else {
                false
            }
        });
    }

    /// When the database is marked down: gives the time no instance could record its heartbeat
    /// (over `threshold_ms`) back to running games, then marks it up. Does nothing when up.
    ///
    /// # Errors
    /// The database still fails (it stays down).
    pub async fn recover(&self, pool: &sqlx::PgPool, threshold_ms: i64) -> anyhow::Result<()> {
        if !self.is_down() {
            return Ok(());
        }
        let given = db::games::forgive_downtime(pool, threshold_ms).await?;
        tracing::warn!(downtime_ms = given, "the database is back: live games resume, the outage given back to clocks");
        self.tx.send_replace(Availability::Up);
        Ok(())
    }
}
