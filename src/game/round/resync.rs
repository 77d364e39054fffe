//! Bringing a client up to date: the events it missed, replayed with the state after each
//! `move`, or the whole game (`full`) when replaying cannot be trusted (a gap, a takeback among
//! several events, too many missed).

use chessgold_engine::Color;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::Round;
use super::chat::{CHAT_HISTORY, chat_line};
use crate::db;
use crate::db::games::EventRow;
use crate::game::live::replay;
use crate::game::protocol;
use crate::game::store;

impl Round {
    pub(super) fn full(&self, seat: Option<Color>) -> String {
        let d = self.live.full_view(seat, OffsetDateTime::now_utc(), self.cfg());
        protocol::event("full", self.live.version, &d)
    }

    pub(super) fn send_full_to_all(&mut self) {
        let ids: Vec<(u64, Option<Color>)> = self.conns.iter().map(|(id, c)| (*id, c.seat)).collect();
        for (id, seat) in ids {
            let text = self.full(seat);
            self.send(id, text);
        }
    }

    /// Renders stored events for clients, with the state after each `move`; `None` when a full
    /// resync is needed instead (a gap, or a takeback among several events).
    pub(super) fn render(&self, since: i32, events: &[EventRow]) -> Option<Vec<String>> {
        let Some(last) = events.last() else { return Some(Vec::new()) };
        if last.v - since != events.len() as i32 || last.v != self.live.version {
            return None;
        }
        if events.len() > 1 && events.iter().any(|e| e.t == "takeback") {
            return None;
        }
        let mut replayed: Option<(Box<dyn chessgold_engine::AnyGame>, usize)> = None;
        let mut out = Vec::with_capacity(events.len());
        for e in events {
            let mut d = e.d.clone();
            if e.t == "move" || e.t == "takeback" {
                let plies = if e.t == "move" {
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
                        replayed = Some((replay(self.live.info, self.live.seed, &[]).ok()?.0, 0));
                    }
                    let (game, at) = replayed.as_mut()?;
                    while *at < plies {
                        game.play(&self.live.actions[*at].action).ok()?;
                        *at += 1;
                    }
                    game.snapshot()
                };
                if let Some(obj) = d.as_object_mut() {
                    obj.insert("state".into(), serde_json::to_value(state).ok()?);
                }
            }
            out.push(protocol::event(&e.t, e.v, &d));
        }
        Some(out)
    }

    /// Brings a joining client up to date: missed events or a full resync, then its chat room,
    /// the connection state and the clocks.
    pub(super) async fn sync(&mut self, conn: u64, since: Option<i32>) {
        let Some(seat_room) = self.conns.get(&conn).map(|c| (c.seat, c.room())) else { return };
        let (seat, room) = seat_room;
        let v = self.live.version;
        let max = self.cfg().max_replay_events;
        match since {
            Some(s) if s == v => {}
            Some(s) if s >= 1 && s < v && v - s <= max => {
                let rendered = match db::games::events_since(&self.ctx.pool, self.live.id.as_str(), s).await {
                    Ok(events) => self.render(s, &events),
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
                        let clocks = self.live.clocks_view(OffsetDateTime::now_utc(), self.cfg());
                        self.send(conn, protocol::msg("clocks", clocks));
                    }
                    None => {
                        let full = self.full(seat);
                        self.send(conn, full);
                    }
                }
            }
            _ => {
                let full = self.full(seat);
                self.send(conn, full);
            }
        }
        match db::games::recent_chat(&self.ctx.pool, self.live.id.as_str(), room.as_str(), CHAT_HISTORY).await {
            Ok(lines) => {
                let lines: Vec<Value> = lines.iter().map(chat_line).collect();
                self.send(conn, protocol::msg("chat_history", json!({"room": room.as_str(), "lines": lines})));
            }
            Err(e) => tracing::warn!(error = format!("{e:#}"), "loading chat"),
        }
        let crowd = self.crowd_view();
        self.send(conn, protocol::msg("crowd", crowd));
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
        let rendered = match db::games::events_since(&self.ctx.pool, self.live.id.as_str(), since).await {
            Ok(events) => self.render(since, &events),
            Err(_) => None,
        };
        match rendered {
            Some(list) => {
                for text in list {
                    self.send_all(&text, None);
                }
            }
            None => self.send_full_to_all(),
        }
        self.forwarded = self.live.version;
    }
}
