//! Messages to one account wherever it is connected: game starts and ends and challenge news,
//! for the account's event streams on every instance (`GET /api/stream/event`, which the site's
//! pages read too). They travel on one broker channel, `users`, which each instance subscribes to
//! once ([`UserHub`]) and fans out to its own streams: a stream costs no broker connection.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use uuid::Uuid;

use crate::broker::{Broker, Delivery, Feed};
use crate::game::model::{Game, PlayerRef, Step};
use crate::game::view::Event;

/// The broker channel of account news.
pub const CHANNEL: &str = "users";

/// One message on [`CHANNEL`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The account it is for.
    pub user: Uuid,
    /// What happened.
    pub msg: UserMsg,
}

/// This instance's end of [`CHANNEL`].
#[derive(Debug)]
pub struct UserHub {
    local: broadcast::Sender<Envelope>,
}

impl UserHub {
    /// Subscribes to the channel (again, with backoff, whenever the subscription ends) and fans
    /// its messages out.
    pub fn start(broker: Arc<dyn Broker>) -> Arc<UserHub> {
        let (local, _) = broadcast::channel(1024);
        let hub = Arc::new(UserHub { local: local.clone() });
        tokio::spawn(async move {
            let mut feed = Feed::open(broker, CHANNEL).await;
            loop {
                match feed.next().await {
                    Delivery::Message(text) => match serde_json::from_str::<Envelope>(&text) {
                        Ok(e) => {
                            let _ = local.send(e);
                        }
                        Err(e) => tracing::warn!(error = %e, "an account message could not be read"),
                    },
                    // News published meanwhile is lost: every listener catches up from the
                    // database (the event streams list what changed, `UserMsg::Resync`).
                    Delivery::Resumed => {
                        tracing::warn!("account news may have been missed during a broker outage: listeners catch up");
                        let _ = local.send(Envelope { user: Uuid::nil(), msg: UserMsg::Resync });
                    }
                }
            }
        });
        hub
    }

    /// How many listeners this instance has: its open event streams (each page of a signed-in
    /// player holds one while it is open).
    pub fn listeners(&self) -> usize {
        self.local.receiver_count()
    }

    /// Receives every account's news from now on (filter by [`Envelope::user`]).
    pub fn listen(&self) -> broadcast::Receiver<Envelope> {
        self.local.subscribe()
    }
}

/// Resolves once the socket's account is signed out there: a moderator closed it (every
/// instance hears it through the broker), or its session `session` ended; or once the hub is
/// gone. Never for a guest (`user` is `None`). The game and lobby sockets close when it does.
pub async fn signed_out(
    rx: &mut broadcast::Receiver<Envelope>,
    user: Option<Uuid>,
    session: Option<Uuid>,
) -> &'static str {
    let Some(user) = user else { return std::future::pending().await };
    while let Some(msg) = next_for(rx, user).await {
        match msg {
            UserMsg::AccountClosed => return "account closed",
            UserMsg::SignedOut { sessions } if session.is_some_and(|s| sessions.contains(&s)) => return "signed out",
            _ => {}
        }
    }
    "server stopping"
}

/// The next message for `user`, or `None` once the hub is gone. [`UserMsg::Resync`] when news
/// may have been missed (the broker subscription was lost, or this listener fell behind): the
/// listener catches up from the database.
pub async fn next_for(rx: &mut broadcast::Receiver<Envelope>, user: Uuid) -> Option<UserMsg> {
    loop {
        match rx.recv().await {
            Ok(e) if e.user == user || e.msg == UserMsg::Resync => return Some(e.msg),
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!(user.id = %user, missed = n, "an event stream fell behind");
                return Some(UserMsg::Resync);
            }
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
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
    /// A moderator closed the account: its sockets and streams are to close.
    AccountClosed,
    /// These sessions of the account ended (log-out elsewhere, a password change, the sessions
    /// page): the sockets they opened close.
    SignedOut {
        /// The sessions' public ids.
        sessions: Vec<Uuid>,
    },
    /// An event stream was opened with this token: the token's other event streams close, as
    /// on lichess (one event stream per token).
    StreamOpened {
        /// The token's id.
        token: Uuid,
        /// The new stream's id.
        stream: Uuid,
    },
    /// News may have been missed (to every listener of this instance, never sent on the
    /// broker): catch up from the database.
    Resync,
}

/// Tells an account (every instance).
pub async fn send(broker: &dyn Broker, user: Uuid, msg: &UserMsg) {
    let Ok(text) = serde_json::to_string(&Envelope { user, msg: msg.clone() }) else { return };
    if let Err(e) = broker.publish(CHANNEL, &text).await {
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
pub async fn after_step(broker: &dyn Broker, live: &Game, step: &Step) {
    let players: Vec<PlayerRef> = live.seats.iter().flatten().filter_map(|s| s.player()).collect();
    let game = live.id.to_string();
    if step.events.iter().any(|e| matches!(e, Event::Start(_))) {
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
