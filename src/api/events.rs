//! `GET /api/stream/event`: an account's events as NDJSON, lichess's shape: at connection the
//! games being played (`gameStart`) and pending challenges (`challenge`), then `gameStart`,
//! `gameFinish`, `challenge`, `challengeCanceled`, `challengeDeclined` as they happen, on any
//! instance (the broker channel `users`), and a newline every few seconds to keep it open.
//! The site's pages read it too (with the session) for their challenge notifications.

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
    let mut first = Vec::new();
    let games = db::games::ongoing_of_user(&state.pool, user.id).await.map_err(|e| internal(&e))?;
    for g in games {
        if let Some(v) = game_event(&state, user.id, "gameStart", &g).await {
            first.push(v);
        }
    }
    let challenges = db::challenges::pending_of(&state.pool, user.id).await.map_err(|e| internal(&e))?;
    for c in challenges {
        first.push(json!({"type": "challenge", "challenge": challenge_json(&c, &base, Some(user.id))}));
    }
    let (tx, rx) = mpsc::channel::<String>(256);
    tokio::spawn(follow(state.into_inner(), user.id, base, first, sub, tx));
    Ok(ndjson(rx))
}

async fn follow(
    state: Arc<AppState>,
    user: Uuid,
    base: String,
    first: Vec<Value>,
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
    loop {
        tokio::select! {
            msg = notify::next_for(&mut sub, user) => {
                let Some(msg) = msg else { break };
                // A moderator closed the account: the stream ends.
                if msg == UserMsg::AccountClosed { break }
                let Some(v) = render(&state, user, &base, &msg).await else { continue };
                if out.send(line(&v)).await.is_err() { break }
            }
            _ = keep_alive.tick() => if out.send("\n".to_string()).await.is_err() { break },
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
        UserMsg::AccountClosed => None,
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
