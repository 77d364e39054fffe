//! Messages to one account wherever it is connected: the broker channel `user:{id}` carries
//! game starts and ends and challenge news to the account's event streams on every instance
//! (`GET /api/stream/event`, which the site's pages read too).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::broker::Broker;
use crate::game::live::{Live, PlayerRef, Step};

/// The broker channel of an account.
pub fn channel(user: Uuid) -> String {
    format!("user:{user}")
}

/// What happened; the event stream reads the details from the database.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "camelCase")]
pub enum UserMsg {
    /// A game of the account started.
    GameStart {
        /// Game id.
        game: String,
    },
    /// A game of the account ended.
    GameFinish {
        /// Game id.
        game: String,
    },
    /// A challenge to or from the account was created.
    Challenge {
        /// Challenge id.
        id: String,
    },
    /// A challenge was cancelled by its sender (or lapsed).
    ChallengeCanceled {
        /// Challenge id.
        id: String,
    },
    /// A challenge was declined.
    ChallengeDeclined {
        /// Challenge id.
        id: String,
    },
}

/// Tells an account (every instance).
pub async fn send(broker: &dyn Broker, user: Uuid, msg: &UserMsg) {
    let Ok(text) = serde_json::to_string(msg) else { return };
    if let Err(e) = broker.publish(&channel(user), &text).await {
        tracing::warn!(user.id = %user, error = %e, "could not notify an account");
    }
}

/// Tells the accounts among `players`.
pub async fn send_players(broker: &dyn Broker, players: &[PlayerRef], msg: &UserMsg) {
    for p in players {
        if let PlayerRef::User(u) = p {
            send(broker, *u, msg).await;
        }
    }
}

/// Tells a game's accounts what a committed step did: the game started, ended, or a rematch
/// began.
pub async fn after_step(broker: &dyn Broker, live: &Live, step: &Step) {
    let players: Vec<PlayerRef> = live.seats.iter().flatten().filter_map(|s| s.player()).collect();
    let game = live.id.to_string();
    if step.events.iter().any(|e| e.t == "start") {
        send_players(broker, &players, &UserMsg::GameStart { game: game.clone() }).await;
    }
    if step.finished {
        send_players(broker, &players, &UserMsg::GameFinish { game }).await;
    }
    if let Some((id, req)) = &step.rematch {
        let both: Vec<PlayerRef> = [Some(req.creator.clone()), req.opponent.clone()].into_iter().flatten().collect();
        send_players(broker, &both, &UserMsg::GameStart { game: id.to_string() }).await;
    }
}
