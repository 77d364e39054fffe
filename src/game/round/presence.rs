//! Who is connected: each round records the seats alive on this instance and reads everyone's,
//! tells the sockets when that changes, and measures how long a seat has been away for claims.

use std::time::{Duration, Instant};

use chessgold_engine::Color;
use time::OffsetDateTime;

use super::Round;
use crate::db;
use crate::game::clock::cs_between;
use crate::game::parse_color;
use crate::game::protocol::{self, Command};
use crate::game::view::{self, Away, Crowd};

/// How often a round records and reads signs of life.
pub(super) const PRESENCE_EVERY: Duration = Duration::from_secs(2);
/// A seat counts as connected while its last sign of life is this recent (seconds).
pub(super) const CONNECTED_WITHIN_SECS: i64 = 6;
/// Presence is kept in memory (alone on the in-process broker) or in Redis (shared by several
/// instances); a round writes it to the database (what a restart, or an outage of Redis, falls
/// back on) when a seat comes or goes, and otherwise this often.
const WRITE_THROUGH_EVERY: Duration = Duration::from_secs(30);

impl Round {
    /// Centiseconds since the seat's socket was last seen anywhere (0 while connected here).
    /// How long the opponent of `seat` has been away (centiseconds), for a claim; 0 for the
    /// other commands, which do not read it.
    pub(super) async fn away_for(&mut self, command: Command, seat: Color, now: OffsetDateTime) -> i64 {
        if matches!(command, Command::ClaimVictory | Command::ClaimDraw) { self.away_cs(!seat, now).await } else { 0 }
    }

    pub(super) async fn away_cs(&mut self, seat: Color, now: OffsetDateTime) -> i64 {
        if self.locally_alive(seat) {
            return 0;
        }
        // Another instance may have seen the seat (Redis says); alone, this round's memory is
        // the whole story once it has read the database's (a restart's) at its first tick.
        let shared = !self.ctx.broker.is_alone() && self.shared_presence(&[]).await;
        if (!self.ctx.broker.is_alone() && !shared || self.presence_written.is_none())
            && let Ok(rows) = db::games::touch_seats(&self.ctx.pool, self.live.id.as_str(), &[]).await
        {
            self.store_last_seen(rows);
        }
        let since = self.last_seen[seat.index()].or(self.live.started_at).unwrap_or(now);
        cs_between(since, now)
    }

    pub(super) fn locally_alive(&self, seat: Color) -> bool {
        // A bot is always there: no claims against it, no "away" for it.
        if self.live.seats[seat.index()].as_ref().is_some_and(|s| s.bot.is_some()) {
            return true;
        }
        let idle = Duration::from_secs(self.cfg().socket_idle_secs);
        self.conns.values().any(|c| c.seat == Some(seat) && c.last_alive.elapsed() < idle)
    }

    /// Takes the database's signs of life; a later one known already (from Redis) is kept.
    pub(super) fn store_last_seen(&mut self, rows: Vec<(String, Option<OffsetDateTime>)>) {
        for (color, at) in rows {
            if let Some(c) = parse_color(&color) {
                let known = &mut self.last_seen[c.index()];
                *known = (*known).max(at);
            }
        }
    }

    /// Records the seats `alive` here in the broker's shared presence and reads everyone's;
    /// false when the broker keeps none or did not answer (the database stands in).
    async fn shared_presence(&mut self, alive: &[&'static str]) -> bool {
        match self.ctx.broker.presence(self.live.id.as_str(), alive).await {
            Ok(Some(ago)) => {
                let now = OffsetDateTime::now_utc();
                for c in Color::ALL {
                    if let Some(ms) = ago[c.index()] {
                        let at = Some(now - time::Duration::milliseconds(ms));
                        let known = &mut self.last_seen[c.index()];
                        *known = (*known).max(at);
                    }
                }
                true
            }
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(game.id = %self.live.id, error = %e, "shared presence unavailable: the database stands in");
                false
            }
        }
    }

    pub(super) fn crowd_view(&self) -> Crowd {
        let now = OffsetDateTime::now_utc();
        let mut away = Away::default();
        let mut on = [false; 2];
        for c in Color::ALL {
            let seen_recently =
                self.last_seen[c.index()].is_some_and(|t| (now - t).whole_seconds() < CONNECTED_WITHIN_SECS);
            on[c.index()] = self.locally_alive(c) || seen_recently;
            if !on[c.index()] && self.live.seats[c.index()].is_some() {
                let since = self.last_seen[c.index()].or(self.live.started_at).unwrap_or(self.live.created_at);
                *away.of(c) = Some((now - since).whole_seconds().max(0));
            }
        }
        Crowd { white: on[0], black: on[1], away }
    }

    /// Records this instance's live seats, reads everyone's, and tells the sockets when the
    /// connection state changed.
    pub(super) async fn presence(&mut self) {
        let idle = Duration::from_secs(self.cfg().socket_idle_secs);
        if self.conns.is_empty() {
            if self.empty_since.is_none() {
                self.empty_since = Some(Instant::now());
            }
            return;
        }
        let stale: Vec<u64> =
            self.conns.iter().filter(|(_, c)| c.last_alive.elapsed() >= idle).map(|(id, _)| *id).collect();
        for id in stale {
            self.conns.remove(&id);
        }
        if !self.live.status.is_live() && self.live.offers.rematch.is_none() && self.crowd.is_some() {
            return;
        }
        let here = Color::ALL.map(|c| self.locally_alive(c));
        let names: Vec<&'static str> = Color::ALL.into_iter().filter(|c| here[c.index()]).map(Color::name).collect();
        let alive: Vec<String> = names.iter().map(|n| (*n).to_string()).collect();
        // Alone, presence is in memory; shared by several instances, it is in Redis, recorded
        // and read every tick. The database is written (and read) only when a seat came or went,
        // or every WRITE_THROUGH_EVERY, so that idle games cost it nothing; it stands in, every
        // tick, while Redis does not answer.
        let alone = self.ctx.broker.is_alone();
        let shared = !alone && self.shared_presence(&names).await;
        let write = (!alone && !shared)
            || self.presence_written.is_none_or(|(was, at)| was != here || at.elapsed() >= WRITE_THROUGH_EVERY);
        if write {
            match db::games::touch_seats(&self.ctx.pool, self.live.id.as_str(), &alive).await {
                Ok(rows) => {
                    self.store_last_seen(rows);
                    self.presence_written = Some((here, Instant::now()));
                }
                Err(e) => tracing::warn!(error = format!("{e:#}"), "recording presence"),
            }
        } else if alone {
            let now = OffsetDateTime::now_utc();
            for c in Color::ALL.into_iter().filter(|c| here[c.index()]) {
                self.last_seen[c.index()] = Some(now);
            }
        }
        let view = self.crowd_view();
        let changed = self.crowd.is_none_or(|old| (old.white, old.black) != (view.white, view.black));
        if changed || view.away.any() {
            self.send_all(&protocol::msg("crowd", view::value(&view)), None);
        }
        self.crowd = Some(view);
    }
}
