//! `GET /api/stream/game/{id}`: a game as a spectator follows it, lichess's shape: first the
//! game (`id`, `variant`, `players`, `fen`, `status`, ...), then a line per change of the
//! position (`{"fen", "lm", "wc", "bc"}`, clocks in seconds), and the game again at its end.
//! No token is needed; the stream joins the game's round as a spectator does, and reads the
//! game from the database when the round says it changed.

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use chessgold_engine::Color;
use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::mpsc;

use super::auth::Caller;
use super::board::KEEP_ALIVE;
use super::lichess::{self, internal, line, ndjson, not_found};
use crate::error::ApiError;
use crate::game::model::Game;
use crate::game::round::{JoinRequest, Msg};
use crate::game::{GameId, store};
use crate::startup::AppState;

/// `GET /api/stream/game/{id}`.
#[tracing::instrument(skip_all, fields(game.id = %path))]
pub(crate) async fn stream(
    state: web::Data<AppState>,
    path: web::Path<String>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let id = GameId::parse(&path).ok_or_else(|| not_found("No such game"))?;
    let live =
        store::load(&state.pool, &id).await.map_err(|e| internal(&e))?.ok_or_else(|| not_found("No such game"))?;
    let (tx, rx) = mpsc::channel::<String>(64);
    tokio::spawn(follow(state.into_inner(), live, tx));
    Ok(ndjson(rx))
}

/// The game as the stream's first and last lines show it.
fn summary(live: &Game) -> Value {
    let snapshot = live.snapshot();
    let mut v = json!({
        "id": live.id.as_str(),
        "variant": lichess::variant_json(live.info),
        "speed": crate::game::Speed::of(live.clock).key(),
        "perf": crate::game::perf_key(live.info.id, live.clock),
        "rated": live.rated,
        "initialFen": live.initial_fen.as_deref().unwrap_or("startpos"),
        "fen": snapshot.fen,
        "player": live.engine.turn().name(),
        "turns": live.actions.len(),
        "startedAtTurn": 0,
        "source": live.source.as_str(),
        "status": {"id": live.status.id(), "name": lichess::status_name(live.status)},
        "createdAt": lichess::ms(live.created_at),
        "lastMove": live.actions.last().map_or("", |a| a.action.as_str()),
        "players": crate::game::view::game_json(live)["players"].clone(),
    });
    if let (Some(obj), Some(w)) = (v.as_object_mut(), live.winner) {
        obj.insert("winner".into(), Value::from(w.name()));
    }
    v
}

/// A change of the position: its text, the last action, both clocks in seconds.
fn position(live: &Game, now: OffsetDateTime) -> Value {
    let clocks = live.clocks_at(now).map(|c| (c[Color::White.index()] / 100, c[Color::Black.index()] / 100));
    let mut v = json!({"fen": live.snapshot().fen, "lm": live.actions.last().map_or("", |a| a.action.as_str())});
    if let (Some(obj), Some((w, b))) = (v.as_object_mut(), clocks) {
        obj.insert("wc".into(), Value::from(w));
        obj.insert("bc".into(), Value::from(b));
    }
    v
}

/// The type of a round's message.
#[derive(Debug, Deserialize)]
struct Kind<'a> {
    t: &'a str,
}

/// Whether a round's message changes what the stream shows.
fn changes(text: &str) -> bool {
    serde_json::from_str::<Kind<'_>>(text).is_ok_and(|k| matches!(k.t, "move" | "takeback" | "start" | "end" | "full"))
}

async fn follow(state: Arc<AppState>, mut live: Game, out: mpsc::Sender<String>) {
    if out.send(line(&summary(&live))).await.is_err() || !live.status.is_live() {
        return;
    }
    let conn = state.rounds.next_id();
    let (tx, mut rx) = mpsc::channel::<String>(256);
    let request = JoinRequest { who: Vec::new(), name: String::new(), user_id: None, since: Some(live.version), tx };
    let Ok((round, _)) = state.rounds.join(&live.id, conn, request).await else { return };
    let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
    keep_alive.tick().await;
    // The actions the client has seen: a game's last move (a mate, a flag on a move) is shown as
    // a position before the game's final summary, as lichess sends it.
    let mut shown = live.actions.len();
    loop {
        tokio::select! {
            msg = rx.recv() => {
                let Some(text) = msg else { break };
                if !changes(&text) { continue }
                live = match store::load(&state.pool, &live.id).await {
                    Ok(Some(l)) => l,
                    Ok(None) => break,
                    Err(e) => {
                        tracing::warn!(game.id = %live.id, error = format!("{e:#}"), "a spectator stream could not read its game");
                        break;
                    }
                };
                let over = !live.status.is_live();
                let mut lines = Vec::with_capacity(2);
                if !over || live.actions.len() != shown {
                    lines.push(position(&live, OffsetDateTime::now_utc()));
                }
                shown = live.actions.len();
                if over {
                    lines.push(summary(&live));
                }
                let mut closed = false;
                for v in &lines {
                    if out.send(line(v)).await.is_err() { closed = true; break }
                }
                if closed || over { break }
            }
            _ = keep_alive.tick() => if out.send("\n".to_string()).await.is_err() { break },
            () = out.closed() => break,
        }
    }
    let _ = round.send(Msg::Leave { conn }).await;
}
