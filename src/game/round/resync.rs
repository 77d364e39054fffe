//! Bringing a client up to date: the events it missed, replayed with the state after each
//! `move`, or the whole game (`full`) when replaying cannot be trusted (a gap, a takeback among
//! several events, too many missed).

use chessgold_engine::Color;
use serde_json::Value;
use time::OffsetDateTime;

use super::Round;
use super::chat::CHAT_HISTORY;
use crate::db;
use crate::db::games::EventRow;
use crate::game::model::replay;
use crate::game::patch;
use crate::game::protocol::{self, Room};
use crate::game::store;
use crate::game::view::{self, ChatLine, EventKind};

/// How a joining client is brought up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CatchUp {
    /// It has the current version.
    Nothing,
    /// It gets the events after this version, when they can be replayed (else a `full`).
    Replay(i32),
    /// It gets the whole game.
    Full,
}

/// How a client that has room version `since` (none, or what its page or last socket saw) is
/// brought to version `now`: nothing to do, the missed events when there are at most `max`, or
/// the whole game (no version, an unknown one, one ahead of the room, or too far behind).
pub(super) fn catch_up(since: Option<i32>, now: i32, max: i32) -> CatchUp {
    match since {
        Some(s) if s == now => CatchUp::Nothing,
        Some(s) if s >= 1 && s < now && now - s <= max => CatchUp::Replay(s),
        _ => CatchUp::Full,
    }
}

/// Whether the stored `events` read after version `since` can be replayed to bring a client to
/// version `now`. A gap (an event missing, or the events stopping short of `now`) or a takeback
/// among several events means a full resync instead: a takeback rewrites the position the
/// events before it were played in.
pub(super) fn replayable(since: i32, now: i32, events: &[EventRow]) -> bool {
    let Some(last) = events.last() else { return true };
    if last.v - since != events.len() as i32 || last.v != now {
        return false;
    }
    !(events.len() > 1 && events.iter().any(|e| EventKind::parse(&e.t) == Some(EventKind::Takeback)))
}

impl Round {
    pub(super) fn full(&self, seat: Option<Color>) -> String {
        let d = view::full(&self.live, seat, OffsetDateTime::now_utc(), self.cfg());
        protocol::event("full", self.live.version, &view::value(&d))
    }

    pub(super) fn send_full_to_all(&mut self) {
        let ids: Vec<(u64, Option<Color>)> = self.conns.iter().map(|(id, c)| (*id, c.seat)).collect();
        for (id, seat) in ids {
            let text = self.full(seat);
            self.send(id, text);
        }
    }

    /// Renders stored events for clients, with the state after each `move` or `takeback`: as a
    /// patch of the state before it when the client holds that (`base`, the state at version
    /// `since`, when known), else whole. Returns the texts and the state they leave the client
    /// with (when known); `None` when a full resync is needed instead (a gap, or a takeback
    /// among several events).
    pub(super) fn render(
        &self,
        since: i32,
        events: &[EventRow],
        base: Option<Value>,
    ) -> Option<(Vec<String>, Option<Value>)> {
        if !replayable(since, self.live.version, events) {
            return None;
        }
        let mut replayed: Option<(Box<dyn chessgold_engine::AnyGame>, usize)> = None;
        let mut held = base;
        let mut out = Vec::with_capacity(events.len());
        for e in events {
            let mut d = e.d.clone();
            let kind = EventKind::parse(&e.t);
            if kind.is_some_and(EventKind::carries_state) {
                let plies = if kind == Some(EventKind::Move) {
                    let seq = d.get("seq").and_then(Value::as_u64)? as usize;
                    let stored = self.live.actions.get(seq.checked_sub(1)?)?;
                    if d.get("action").and_then(Value::as_str) != Some(stored.action.as_str()) {
                        return None;
                    }
                    seq
                } else {
                    self.live.actions.len()
                };
                let state = if plies == self.live.actions.len() {
                    self.live.snapshot()
                } else {
                    if replayed.is_none() {
                        replayed = Some((
                            replay(self.live.info, self.live.seed, self.live.initial_fen.as_deref(), &[]).ok()?.0,
                            0,
                        ));
                    }
                    let (game, at) = replayed.as_mut()?;
                    while *at < plies {
                        game.play(&self.live.actions[*at].action).ok()?;
                        *at += 1;
                    }
                    game.snapshot()
                };
                let state = serde_json::to_value(state).ok()?;
                if let Some(obj) = d.as_object_mut() {
                    match &held {
                        Some(before) => obj.insert("patch".into(), Value::Array(patch::diff(before, &state))),
                        None => obj.insert("state".into(), state.clone()),
                    };
                }
                held = Some(state);
            }
            out.push(protocol::event(&e.t, e.v, &d));
        }
        Some((out, held))
    }

    /// Brings a joining client up to date: missed events or a full resync, then its chat room,
    /// the connection state and the clocks.
    pub(super) async fn sync(&mut self, conn: u64, since: Option<i32>) {
        let Some(seat_room) = self.conns.get(&conn).map(|c| (c.seat, c.room(), c.user_id)) else { return };
        let (seat, room, reader) = seat_room;
        let v = self.live.version;
        let max = self.cfg().max_replay_events;
        match catch_up(since, v, max) {
            // The client has every event, but its clocks may be old (a restart's downtime was
            // given back meanwhile): it gets them as of now.
            CatchUp::Nothing => {
                let clocks = view::clocks(&self.live, OffsetDateTime::now_utc(), self.cfg());
                self.send(conn, protocol::msg("clocks", view::value(&clocks)));
            }
            CatchUp::Replay(s) => {
                let rendered = match db::games::events_since(&self.ctx.pool, self.live.id.as_str(), s).await {
                    Ok(events) => self.render(s, &events, None).map(|(texts, _)| texts),
                    Err(e) => {
                        tracing::warn!(error = format!("{e:#}"), "loading missed events");
                        None
                    }
                };
                match rendered {
                    Some(list) => {
                        for text in list {
                            self.send(conn, text);
                        }
                        let clocks = view::clocks(&self.live, OffsetDateTime::now_utc(), self.cfg());
                        self.send(conn, protocol::msg("clocks", view::value(&clocks)));
                    }
                    None => {
                        let full = self.full(seat);
                        self.send(conn, full);
                    }
                }
            }
            CatchUp::Full => {
                let full = self.full(seat);
                self.send(conn, full);
            }
        }
        self.send_chat_history(conn, room, reader).await;
        let crowd = self.crowd_view();
        self.send(conn, protocol::msg("crowd", view::value(&crowd)));
    }

    /// After the broker subscription was lost and restored: the notices of other instances
    /// published meanwhile were not heard, so the game is reloaded (its missed events
    /// forwarded) and every socket gets its chat room's history again.
    pub(super) async fn catch_up_after_gap(&mut self) {
        self.reload().await;
        let readers: Vec<_> = self.conns.iter().map(|(id, c)| (*id, c.room(), c.user_id)).collect();
        for (conn, room, reader) in readers {
            self.send_chat_history(conn, room, reader).await;
        }
    }

    /// Sends a socket its room's chat history as its reader sees it: without the lines of the
    /// accounts the reader blocks, and with the reader's own shadow-muted lines (so the mute
    /// stays unnoticed).
    async fn send_chat_history(&mut self, conn: u64, room: Room, reader: Option<uuid::Uuid>) {
        let (pool, id) = (&self.ctx.pool, self.live.id.as_str());
        let lines = match reader {
            Some(u) => db::games::recent_chat_for(pool, id, room.as_str(), CHAT_HISTORY, u).await,
            None => db::games::recent_chat(pool, id, room.as_str(), CHAT_HISTORY).await,
        };
        match lines {
            Ok(lines) => {
                let history = view::ChatHistory { room, lines: lines.iter().map(ChatLine::from).collect() };
                self.send(conn, protocol::msg("chat_history", view::value(&history)));
            }
            Err(e) => tracing::warn!(error = format!("{e:#}"), "loading chat"),
        }
    }

    /// Reloads the game from the database and forwards what this instance's sockets missed.
    pub(super) async fn reload(&mut self) {
        match store::load(&self.ctx.pool, &self.live.id).await {
            Ok(Some(live)) => self.live = live,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "reload failed");
                return;
            }
        }
        if self.live.version <= self.forwarded {
            return;
        }
        let since = self.forwarded;
        let held = self.told.take();
        let rendered = match db::games::events_since(&self.ctx.pool, self.live.id.as_str(), since).await {
            Ok(events) => self.render(since, &events, held),
            Err(_) => None,
        };
        match rendered {
            Some((list, held)) => {
                for text in list {
                    self.send_all(&text, None);
                }
                self.told = held;
            }
            None => self.send_full_to_all(),
        }
        self.forwarded = self.live.version;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn events(list: &[(i32, &str)]) -> Vec<EventRow> {
        list.iter().map(|(v, t)| EventRow { v: *v, t: (*t).to_string(), d: Value::Null }).collect()
    }

    #[test]
    fn a_client_is_caught_up_by_events_only_from_a_known_version_not_too_far_behind() {
        assert_eq!(catch_up(Some(7), 7, 50), CatchUp::Nothing);
        assert_eq!(catch_up(Some(3), 7, 50), CatchUp::Replay(3));
        assert_eq!(catch_up(Some(1), 51, 50), CatchUp::Replay(1));
        assert_eq!(catch_up(Some(1), 52, 50), CatchUp::Full, "more than `max` events behind");
        assert_eq!(catch_up(None, 7, 50), CatchUp::Full, "no version");
        assert_eq!(catch_up(Some(0), 7, 50), CatchUp::Full, "no room has version 0");
        assert_eq!(catch_up(Some(-2), 7, 50), CatchUp::Full);
        assert_eq!(catch_up(Some(9), 7, 50), CatchUp::Full, "ahead of the room");
    }

    #[test]
    fn every_missed_event_in_order_is_replayed() {
        assert!(replayable(3, 4, &events(&[(4, "move")])));
        assert!(replayable(3, 6, &events(&[(4, "move"), (5, "offers"), (6, "end")])));
        assert!(replayable(3, 4, &events(&[(4, "takeback")])), "a takeback alone is replayed");
    }

    #[test]
    fn a_gap_means_a_full_resync() {
        assert!(!replayable(3, 6, &events(&[(4, "move"), (6, "move")])), "version 5 is missing");
        assert!(!replayable(3, 6, &events(&[(5, "move"), (6, "move")])), "version 4 is missing");
        assert!(!replayable(3, 6, &events(&[(4, "move"), (5, "move")])), "the events stop short of the room");
        assert!(!replayable(3, 5, &events(&[(4, "move"), (5, "move"), (6, "move")])), "events beyond the room");
    }

    #[test]
    fn a_takeback_among_several_events_means_a_full_resync() {
        assert!(!replayable(3, 5, &events(&[(4, "takeback"), (5, "offers")])));
        assert!(!replayable(3, 5, &events(&[(4, "move"), (5, "takeback")])));
        assert!(!replayable(3, 6, &events(&[(4, "move"), (5, "takeback"), (6, "offers")])));
    }
}
