//! The one path of a change: committed to PostgreSQL under the game's version check, then told
//! to this instance's sockets, announced on the broker to the other instances' rounds, and told
//! to the players' accounts.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{Applied, Round, RoundCtx};
use crate::broker::Broker;
use crate::game::GameId;
use crate::game::model::{Game, Refusal, Step};
use crate::game::protocol::{self, Room};
use crate::game::store::{self, CommitError};
use crate::game::view::{self, ChatLine, Event};

/// The broker channel of a game.
pub fn channel(id: &GameId) -> String {
    format!("game:{id}")
}

/// A notice on a game's broker channel, for the rounds of the game on every instance:
/// `{"kind": "event", "v": 7}`, `{"kind": "chat", "room": "player", "line": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// The game changed: a round behind version `v` reloads it.
    Event {
        /// The room version after the change.
        v: i32,
    },
    /// A chat line was stored.
    Chat {
        /// Its room.
        room: Room,
        /// The line.
        line: ChatLine,
        /// The author's account: the line is not shown to those who block it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        author: Option<uuid::Uuid>,
        /// A shadow-muted author's line: only the author and shadow-muted players see it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        shadow: bool,
    },
}

impl Notice {
    /// The notice's text on the channel.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Tells every instance's rounds that a game changed (after a commit).
pub async fn announce(broker: &dyn Broker, id: &GameId, v: i32) {
    let notice = Notice::Event { v }.encode();
    if let Err(e) = broker.publish(&channel(id), &notice).await {
        tracing::warn!(game.id = %id, error = %e, "could not announce a game change");
    }
}

/// Commits what the sweeper or an HTTP handler did to a game outside any round, and announces it.
///
/// # Errors
/// A conflict (someone else changed the game first) or an infrastructure failure.
pub async fn commit_and_announce(ctx: &RoundCtx, live: &mut Game, step: &mut Step) -> Result<(), CommitError> {
    commit_and_tell(ctx, live, step, |_, _| {}).await
}

/// The one way a change is made: commits the step of `live` (applied to it in memory), then
/// `tell_here` gives the committed events to this instance's sockets, then the other instances'
/// rounds are told through the broker and the players' accounts hear what the step did (a start,
/// an end, a rematch). Nothing is told when the commit fails.
///
/// # Errors
/// A conflict (someone else changed the game first) or an infrastructure failure.
async fn commit_and_tell(
    ctx: &RoundCtx,
    live: &mut Game,
    step: &mut Step,
    tell_here: impl FnOnce(&Game, &[(i32, Event)]),
) -> Result<(), CommitError> {
    let events = store::commit(&ctx.pool, live, step, &ctx.cfg).await?;
    tell_here(live, &events);
    announce(ctx.broker.as_ref(), &live.id, live.version).await;
    crate::notify::after_step(ctx.broker.as_ref(), live, step).await;
    Ok(())
}

impl Round {
    /// Runs an operation on a copy of the game and commits it through the one path; once
    /// committed, acknowledges `ack` (connection, id) when given and sends the events to this
    /// instance's sockets, then announces them and tells the players' accounts. The round's game
    /// is replaced by the copy only once committed.
    pub(super) async fn commit_op(
        &mut self,
        ack: Option<(u64, u64)>,
        op: impl FnOnce(&mut Game) -> Result<Step, Refusal>,
    ) -> Applied {
        // After an outage, the outage is given back to the clocks before anything is judged.
        if self.ctx.health.is_down() {
            let threshold = crate::game::sweeper::downtime_threshold(&self.ctx);
            if let Err(e) = self.ctx.health.recover(&self.ctx.pool, threshold).await {
                tracing::warn!(game.id = %self.live.id, error = format!("{e:#}"), "the database is still unavailable");
                return Applied::Failed;
            }
            self.reload().await;
        }
        let mut next = self.live.clone();
        let acknowledge = |round: &mut Round| {
            if let Some((conn, a)) = ack {
                round.send(conn, protocol::ack(a));
            }
        };
        match op(&mut next) {
            Err(Refusal::Duplicate) => {
                acknowledge(self);
                Applied::Done
            }
            Err(Refusal::Code(code, message)) => Applied::Refused(code, message),
            Ok(step) if step.events.is_empty() => {
                acknowledge(self);
                Applied::Done
            }
            Ok(mut step) => {
                let ctx = self.ctx.clone();
                let told = commit_and_tell(&ctx, &mut next, &mut step, |game, events| {
                    acknowledge(self);
                    self.publish_local(game, events);
                })
                .await;
                match told {
                    Ok(()) => {
                        self.live = next;
                        Applied::Done
                    }
                    // A step of a running game never starts one, so `Busy` means as little as
                    // a conflict: nothing was written.
                    Err(CommitError::Conflict | CommitError::Busy(_)) => {
                        self.reload().await;
                        Applied::Conflict
                    }
                    Err(CommitError::Other(e)) => {
                        tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "commit failed");
                        self.ctx.health.failed();
                        Applied::Failed
                    }
                }
            }
        }
    }

    /// Sends freshly committed events of `game` to this instance's sockets: a `move` or
    /// `takeback` as a patch of the state they hold when the round knows it.
    fn publish_local(&mut self, game: &Game, events: &[(i32, Event)]) {
        let state = view::value(&game.snapshot());
        let held = self.told.take().filter(|_| events.first().is_some_and(|(v, _)| *v == self.forwarded + 1));
        let mut base = held.as_ref();
        for (v, ev) in events {
            let text = protocol::event(ev.kind().name(), *v, &ev.sent_data(&state, base));
            if ev.kind().carries_state() {
                base = Some(&state);
            }
            self.send_all(&text, None);
        }
        self.forwarded = game.version;
        self.told = Some(state);
    }

    /// Ends the game when its deadline has passed (first move overdue, a flag).
    pub(super) async fn on_deadline(&mut self) {
        // Nobody could move during an outage: no flag before it is given back.
        if self.ctx.health.is_down() {
            return;
        }
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        let applied = self.commit_op(None, |live| Ok(live.tick(now, &cfg).unwrap_or_default())).await;
        if matches!(applied, Applied::Failed) {
            // Not too soon again: the deadline has passed, so the loop would retry at once.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_notices_keep_their_text_and_read_back() {
        assert_eq!(Notice::Event { v: 7 }.encode(), r#"{"kind":"event","v":7}"#);
        let line = ChatLine {
            author: "alice".into(),
            color: Some("white".into()),
            text: "gg".into(),
            at: "2026-11-29T17:02:03Z".into(),
        };
        let chat = Notice::Chat { room: Room::Player, line, author: None, shadow: false };
        assert_eq!(
            chat.encode(),
            r#"{"kind":"chat","room":"player","line":{"author":"alice","color":"white","text":"gg","at":"2026-11-29T17:02:03Z"}}"#
        );
        assert_eq!(serde_json::from_str::<Notice>(&chat.encode()).unwrap(), chat);
        assert_eq!(serde_json::from_str::<Notice>(r#"{"kind":"event","v":3}"#).unwrap(), Notice::Event { v: 3 });
        assert!(serde_json::from_str::<Notice>(r#"{"kind":"seek","v":3}"#).is_err(), "not a round's notice");
    }
}
