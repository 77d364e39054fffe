//! The rooms' chat: a line is checked, stored, and travels on the broker to every instance's
//! sockets of its room. A timed-out player's line is refused, saying until when; a shadow-muted
//! player's line reaches only themself and other shadow-muted players; a line is not shown to
//! those who block its author (`docs/moderation.md`). Both are read from the database for each
//! line, so a sanction or a block holds on every instance at once.

use chessgold_engine::Color;
use time::OffsetDateTime;

use super::{ApiRefusal, Notice, Round, channel};
use crate::db;
use crate::db::games::ChatRow;
use crate::game::protocol::{self, Room};
use crate::game::refusal::RefusalCode;
use crate::game::view::{self, ChatLine};
use crate::moderation::blocks;
use crate::moderation::sanctions::{self, ChatStanding};

/// Chat lines sent to a joining client.
pub(super) const CHAT_HISTORY: i64 = 50;

/// The most chat lines an author says in [`CHAT_WINDOW_SECS`] seconds (over every socket).
pub const CHAT_LINES_PER_WINDOW: i64 = 8;
/// The window of [`CHAT_LINES_PER_WINDOW`].
pub const CHAT_WINDOW_SECS: i64 = 10;

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
        let standing = match user_id {
            Some(u) => match sanctions::chat_standing(&self.ctx.pool, u).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(error = format!("{e:#}"), "reading a chat standing");
                    return Err(ApiRefusal::new(RefusalCode::Unavailable, "the line could not be saved"));
                }
            },
            None => ChatStanding::default(),
        };
        if let Some(until) = standing.timed_out_until {
            let at = until
                .to_offset(time::UtcOffset::UTC)
                .format(&time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC"))
                .unwrap_or_default();
            return Err(ApiRefusal::new(
                RefusalCode::ChatTimedOut,
                format!("you are timed out of the chat until {at}"),
            ));
        }
        // The flood limit holds per author, whatever the sockets and instances they write from:
        // the stored lines are counted (an account's in every game, a guest seat's in this one).
        let said = db::games::recent_chat_count(
            &self.ctx.pool,
            self.live.id.as_str(),
            user_id,
            seat.map(Color::name),
            CHAT_WINDOW_SECS,
        )
        .await;
        match said {
            Ok(n) if n >= CHAT_LINES_PER_WINDOW => {
                return Err(ApiRefusal::new(
                    RefusalCode::RateLimited,
                    format!("at most {CHAT_LINES_PER_WINDOW} lines in {CHAT_WINDOW_SECS} seconds: slow down"),
                ));
            }
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = format!("{e:#}"), "counting chat lines");
                return Err(ApiRefusal::new(RefusalCode::Unavailable, "the line could not be saved"));
            }
        }
        let line = ChatRow {
            room: room.as_str().to_string(),
            author: name,
            color: seat.map(|s| s.name().to_string()),
            text: clean,
            at: OffsetDateTime::now_utc(),
        };
        if let Err(e) =
            db::games::insert_chat(&self.ctx.pool, self.live.id.as_str(), &line, user_id, standing.shadow_muted).await
        {
            tracing::error!(error = format!("{e:#}"), "storing a chat line");
            return Err(ApiRefusal::new(RefusalCode::Unavailable, "the line could not be saved"));
        }
        let notice = Notice::Chat { room, line: ChatLine::from(&line), author: user_id, shadow: standing.shadow_muted };
        if self.ctx.broker.publish(&channel(&self.live.id), &notice.encode()).await.is_err() {
            // Without the broker at least this instance's sockets hear it.
            self.on_notice(notice).await;
        }
        Ok(())
    }

    /// Sends a chat line to this instance's sockets of its room that may read it: not those who
    /// block its author, and for a shadow-muted line only the author and shadow-muted readers.
    pub(super) async fn deliver_chat(&mut self, room: Room, line: &ChatLine, author: Option<uuid::Uuid>, shadow: bool) {
        let readers: Vec<uuid::Uuid> =
            self.conns.values().filter(|c| c.room() == room).filter_map(|c| c.user_id).collect();
        let hidden_from = match author {
            Some(a) => blocks::blockers_among(&self.ctx.pool, a, &readers).await,
            None => Ok(Default::default()),
        };
        let muted =
            if shadow { sanctions::shadow_muted_among(&self.ctx.pool, &readers).await } else { Ok(Default::default()) };
        let (hidden_from, muted) = match (hidden_from, muted) {
            (Ok(h), Ok(m)) => (h, m),
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!(error = format!("{e:#}"), "reading who may read a chat line");
                // Without them: a line reaches everyone, a shadow line only its author.
                (Default::default(), Default::default())
            }
        };
        let out = protocol::msg("chat", view::value(&view::Chat { room, line }));
        let slow: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| c.room() == room)
            .filter(|(_, c)| match c.user_id {
                Some(u) if Some(u) == author => true,
                Some(u) => !hidden_from.contains(&u) && (!shadow || muted.contains(&u)),
                None => !shadow,
            })
            .filter(|(_, c)| c.tx.try_send(out.clone()).is_err())
            .map(|(id, _)| *id)
            .collect();
        for id in slow {
            self.conns.remove(&id);
        }
    }
}
