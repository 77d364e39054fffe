//! The rooms' chat: a line is checked, stored, and travels on the broker to every instance's
//! sockets of its room.

use chessgold_engine::Color;
use time::OffsetDateTime;

use super::{ApiRefusal, Notice, Round, channel};
use crate::db;
use crate::db::games::ChatRow;
use crate::game::protocol::{self, Room};
use crate::game::refusal::RefusalCode;
use crate::game::view::ChatLine;

/// Chat lines sent to a joining client.
pub(super) const CHAT_HISTORY: i64 = 50;

impl Round {
    pub(super) async fn chat(&mut self, conn: u64, room: Room, text: &str, ack: Option<u64>) {
        let Some(c) = self.conns.get(&conn) else { return };
        if c.room() != room {
            let why = if room == Room::Player {
                "only players write in the players' chat"
            } else {
                "players do not write in the spectators' chat"
            };
            return self.send(conn, protocol::error(RefusalCode::WrongChatRoom, why, ack));
        }
        let (seat, name, user_id) = (c.seat, c.name.clone(), c.user_id);
        match self.chat_line(room, seat, name, user_id, text).await {
            Ok(()) => {
                if let Some(a) = ack {
                    self.send(conn, protocol::ack(a));
                }
            }
            Err(e) => self.send(conn, protocol::error(e.code, &e.message, ack)),
        }
    }

    /// Checks, stores and announces a chat line of a room's member.
    pub(super) async fn chat_line(
        &mut self,
        room: Room,
        seat: Option<Color>,
        name: String,
        user_id: Option<uuid::Uuid>,
        text: &str,
    ) -> Result<(), ApiRefusal> {
        let clean: String = text.chars().filter(|ch| !ch.is_control()).collect::<String>().trim().to_string();
        if clean.is_empty() {
            return Err(ApiRefusal::new(RefusalCode::ChatEmpty, "the line is empty"));
        }
        let max = self.cfg().chat_max_chars;
        if clean.chars().count() > max {
            return Err(ApiRefusal::new(RefusalCode::ChatTooLong, format!("a line has at most {max} characters")));
        }
        let line = ChatRow {
            room: room.as_str().to_string(),
            author: name,
            color: seat.map(|s| s.name().to_string()),
            text: clean,
            at: OffsetDateTime::now_utc(),
        };
        if let Err(e) = db::games::insert_chat(&self.ctx.pool, self.live.id.as_str(), &line, user_id).await {
            tracing::error!(error = format!("{e:#}"), "storing a chat line");
            return Err(ApiRefusal::new(RefusalCode::Unavailable, "the line could not be saved"));
        }
        let notice = Notice::Chat { room, line: ChatLine::from(&line) };
        if self.ctx.broker.publish(&channel(&self.live.id), &notice.encode()).await.is_err() {
            // Without the broker at least this instance's sockets hear it.
            self.on_notice(notice).await;
        }
        Ok(())
    }
}
