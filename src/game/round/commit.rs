//! The one path of a change: committed to PostgreSQL under the game's version check, then told
//! to this instance's sockets, announced on the broker to the other instances' rounds, and told
//! to the players' accounts.

use std::time::Duration;

use serde_json::{Value, json};
use time::OffsetDateTime;

use super::{Applied, Round, RoundCtx};
use crate::broker::Broker;
use crate::game::GameId;
use crate::game::model::{Event, Game, Refusal, Step};
use crate::game::protocol;
use crate::game::store::{self, CommitError};

/// The broker channel of a game.
pub fn channel(id: &GameId) -> String {
    format!("game:{id}")
}

/// Tells every instance's rounds that a game changed (after a commit).
pub async fn announce(broker: &dyn Broker, id: &GameId, v: i32) {
    let notice = json!({"kind": "event", "v": v}).to_string();
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
                        Applied::Failed
                    }
                }
            }
        }
    }

    /// Sends freshly committed events of `game` to this instance's sockets.
    fn publish_local(&mut self, game: &Game, events: &[(i32, Event)]) {
        let state = serde_json::to_value(game.snapshot()).unwrap_or(Value::Null);
        for (v, ev) in events {
            let mut d = ev.d.clone();
            if (ev.t == "move" || ev.t == "takeback")
                && let Some(obj) = d.as_object_mut()
            {
                obj.insert("state".into(), state.clone());
            }
            let text = protocol::event(ev.t, *v, &d);
            self.send_all(&text, None);
        }
        self.forwarded = game.version;
    }

    /// Ends the game when its deadline has passed (first move overdue, a flag).
    pub(super) async fn on_deadline(&mut self) {
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        let applied = self.commit_op(None, |live| Ok(live.tick(now, &cfg).unwrap_or_default())).await;
        if matches!(applied, Applied::Failed) {
            // Not too soon again: the deadline has passed, so the loop would retry at once.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}
