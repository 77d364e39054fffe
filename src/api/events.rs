//! `GET /api/stream/event`: an account's events as NDJSON, lichess's shape: at connection the
//! games being played (`gameStart`) and pending challenges (`challenge`), then `gameStart`,
//! `gameFinish`, `challenge`, `challengeCanceled`, `challengeDeclined` as they happen, on any
//! instance (the broker channel `users`), and a newline every few seconds to keep it open.
//! The site's pages read it too (with the session) for their challenge notifications. After a
//! gap in the news (a broker outage, a stream that fell behind) the stream sends what changed
//! meanwhile, read from the database.

use std::collections::HashSet;
use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};
use chessgold_engine::Color;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::auth::{EventStream, Scoped};
use super::board::KEEP_ALIVE;
use super::lichess::{self, internal, line, ndjson};
use crate::db;
use crate::error::ApiError;
use crate::game::{GameId, PlayerRef, store};
use crate::lobby::challenge::challenge_json;
use crate::notify::{self, UserMsg};
use crate::startup::AppState;

/// `GET /api/stream/event`.
#[tracing::instrument(skip_all)]
pub async fn stream(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: Scoped<EventStream>,
) -> Result<HttpResponse, ApiError> {
    // Listen before reading the current games and challenges, so nothing falls between.
    let sub = state.users.listen();
    let base = lichess::base_url(&req);
    let mut sent = Sent::default();
    let first = sent.catch_up(&state, user.id, &base).await.map_err(|e| internal(&e))?;
    // One event stream per token, as on lichess: this one closes the token's others, on every
    // instance (they hear it on the broker; this stream skips its own notice).
    let me = Opened { token: user.token, stream: Uuid::now_v7() };
    if let Some(token) = me.token {
        notify::send(state.broker.as_ref(), user.id, &UserMsg::StreamOpened { token, stream: me.stream }).await;
    }
    let (tx, rx) = mpsc::channel::<String>(256);
    let who = Who { user: user.id, session: user.session, bot: user.bot, opened: me };
    tokio::spawn(follow(state.into_inner(), who, base, first, sent, sub, tx));
    Ok(ndjson(rx))
}

/// A stream's token and its own id (for [`UserMsg::StreamOpened`]).
#[derive(Debug, Clone, Copy)]
struct Opened {
    token: Option<Uuid>,
    stream: Uuid,
}

/// Whose stream it is.
#[derive(Debug, Clone, Copy)]
struct Who {
    user: Uuid,
    /// The site's session it was opened with (it ends when that session does).
    session: Option<Uuid>,
    /// A BOT account: the stream shows it online.
    bot: bool,
    opened: Opened,
}

/// What a stream has told its client: the games started and not finished, the challenges that
/// were pending. After a gap in the news ([`UserMsg::Resync`]) the stream compares it with the
/// database and sends only what changed meanwhile.
#[derive(Debug, Default)]
struct Sent {
    games: HashSet<String>,
    challenges: HashSet<String>,
}

impl Sent {
    /// The lines that bring the client from what it was told to the database's state: at
    /// connection, every game being played and every pending challenge.
    async fn catch_up(&mut self, state: &AppState, user: Uuid, base: &str) -> anyhow::Result<Vec<Value>> {
        let mut out = Vec::new();
        let games: HashSet<String> = db::games::ongoing_of_user(&state.pool, user).await?.into_iter().collect();
        let mut ended: Vec<&String> = self.games.difference(&games).collect();
        ended.sort();
        for g in ended {
            out.extend(game_event(state, user, "gameFinish", g).await);
        }
        let mut started: Vec<&String> = games.difference(&self.games).collect();
        started.sort();
        for g in started {
            out.extend(game_event(state, user, "gameStart", g).await);
        }
        let pending = db::challenges::pending_of(&state.pool, user).await?;
        let now: HashSet<String> = pending.iter().map(|c| c.id.clone()).collect();
        let mut gone: Vec<&String> = self.challenges.difference(&now).collect();
        gone.sort();
        for id in gone {
            // Answered meanwhile: canceled or declined say so; an accepted one is its gameStart.
            if let Some(c) = db::challenges::find(&state.pool, id).await? {
                let t = match c.status.as_str() {
                    "declined" => "challengeDeclined",
                    "accepted" => continue,
                    _ => "challengeCanceled",
                };
                out.push(json!({"type": t, "challenge": challenge_json(&c, base, Some(user))}));
            }
        }
        for c in pending.iter().filter(|c| !self.challenges.contains(&c.id)) {
            out.push(json!({"type": "challenge", "challenge": challenge_json(c, base, Some(user))}));
        }
        self.games = games;
        self.challenges = now;
        Ok(out)
    }

    /// Notes a message as told.
    fn told(&mut self, msg: &UserMsg) {
        match msg {
            UserMsg::GameStart { game } => {
                self.games.insert(game.clone());
            }
            UserMsg::GameFinish { game } => {
                self.games.remove(game);
            }
            UserMsg::Challenge { id } => {
                self.challenges.insert(id.clone());
            }
            UserMsg::ChallengeCanceled { id } | UserMsg::ChallengeDeclined { id } => {
                self.challenges.remove(id);
            }
            UserMsg::AccountClosed | UserMsg::Resync | UserMsg::SignedOut { .. } | UserMsg::StreamOpened { .. } => {}
        }
    }
}

async fn follow(
    state: Arc<AppState>,
    Who { user, session, bot, opened }: Who,
    base: String,
    first: Vec<Value>,
    mut sent: Sent,
    mut sub: tokio::sync::broadcast::Receiver<notify::Envelope>,
    out: mpsc::Sender<String>,
) {
    for v in first {
        if out.send(line(&v)).await.is_err() {
            return;
        }
    }
    // An empty line at once: the client knows the stream is open.
    if out.send("\n".to_string()).await.is_err() {
        return;
    }
    let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
    keep_alive.tick().await;
    // A BOT is online while its event stream is open (`GET /api/bot/online`); the first tick is
    // at once.
    let mut seen = tokio::time::interval(super::bot::SEEN_EVERY);
    loop {
        tokio::select! {
            msg = notify::next_for(&mut sub, user) => {
                let Some(msg) = msg else { break };
                // A moderator closed the account, or the session the stream was opened with
                // ended (a token's stream goes on): the stream ends.
                if msg == UserMsg::AccountClosed { break }
                if let UserMsg::SignedOut { sessions } = &msg && session.is_some_and(|s| sessions.contains(&s)) { break }
                // A newer stream opened with the same token (ids are time-ordered UUIDv7s: an
                // older stream's notice that arrives late closes nothing).
                if let UserMsg::StreamOpened { token, stream } = &msg
                    && opened.token == Some(*token) && *stream > opened.stream { break }
                let lines = if msg == UserMsg::Resync {
                    match sent.catch_up(&state, user, &base).await {
                        Ok(lines) => lines,
                        Err(e) => {
                            // The client would miss what changed: the stream ends, and a client
                            // that opens it again gets the whole list.
                            tracing::warn!(error = format!("{e:#}"), "an event stream could not catch up");
                            break;
                        }
                    }
                } else {
                    sent.told(&msg);
                    render(&state, user, &base, &msg).await.into_iter().collect()
                };
                let mut closed = false;
                for v in lines {
                    if out.send(line(&v)).await.is_err() { closed = true; break }
                }
                if closed { break }
            }
            _ = keep_alive.tick() => if out.send("\n".to_string()).await.is_err() { break },
            _ = seen.tick(), if bot => if let Err(e) = db::users::bot_seen(&state.pool, user).await {
                tracing::warn!(error = format!("{e:#}"), "noting a BOT online");
            },
            () = out.closed() => break,
        }
    }
}

async fn render(state: &AppState, user: Uuid, base: &str, msg: &UserMsg) -> Option<Value> {
    match msg {
        UserMsg::GameStart { game } => game_event(state, user, "gameStart", game).await,
        UserMsg::GameFinish { game } => game_event(state, user, "gameFinish", game).await,
        UserMsg::Challenge { id } => challenge_event(state, user, base, "challenge", id).await,
        UserMsg::ChallengeCanceled { id } => challenge_event(state, user, base, "challengeCanceled", id).await,
        UserMsg::ChallengeDeclined { id } => challenge_event(state, user, base, "challengeDeclined", id).await,
        UserMsg::AccountClosed | UserMsg::Resync | UserMsg::SignedOut { .. } | UserMsg::StreamOpened { .. } => None,
    }
}

async fn challenge_event(state: &AppState, user: Uuid, base: &str, t: &str, id: &str) -> Option<Value> {
    let c = db::challenges::find(&state.pool, id).await.ok()??;
    Some(json!({"type": t, "challenge": challenge_json(&c, base, Some(user))}))
}

async fn game_event(state: &AppState, user: Uuid, t: &str, id: &str) -> Option<Value> {
    let id = GameId::parse(id)?;
    let live = match store::load(&state.pool, &id).await {
        Ok(Some(l)) => l,
        Ok(None) => return None,
        Err(e) => {
            tracing::warn!(game.id = %id, error = format!("{e:#}"), "event stream: loading a game");
            return None;
        }
    };
    let color: Color = live.seat_of(&PlayerRef::User(user))?;
    Some(json!({"type": t, "game": lichess::event_game(&live, color, OffsetDateTime::now_utc())}))
}
