//! `POST /api/board/seek`: wait in the lobby's quick-pairing pool of (variant, time control,
//! rated) for as long as the request stays open, like lichess's real-time seek. The response is
//! a stream of keep-alive newlines that ends once the matcher has started a game for the caller
//! (its `gameStart` arrives on `/api/stream/event`); closing it leaves the pool.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use tokio::sync::mpsc;

use super::auth::{BoardPlay, Scoped};
use super::lichess::{internal, ndjson, parse_body};
use crate::db;
use crate::error::ApiError;
use crate::game::{GameId, PlayerRef, TIME_CONTROLS, TimeControl, random_base62};
use crate::lobby::player_key;
use crate::lobby::pools::{PoolEntry, PoolKey};
use crate::notify::{self, UserMsg};
use crate::startup::AppState;

/// How often a waiting seek refreshes its pool entry.
const REFRESH: Duration = Duration::from_secs(5);

#[derive(Debug, Deserialize)]
struct SeekBody {
    #[serde(default)]
    rated: Option<String>,
    #[serde(default)]
    time: Option<String>,
    #[serde(default)]
    increment: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    color: Option<String>,
}

/// Reads JSON values of any type as text, so both body encodings share one shape.
fn textual(req: &HttpRequest, body: &web::Bytes) -> Result<SeekBody, ApiError> {
    let is_json = req
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"));
    if is_json && !body.is_empty() {
        let v: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request("bad_json", format!("the body is not valid: {e}")))?;
        let get = |k: &str| {
            v.get(k).and_then(|x| match x {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            })
        };
        Ok(SeekBody {
            rated: get("rated"),
            time: get("time"),
            increment: get("increment"),
            variant: get("variant"),
            color: get("color"),
        })
    } else {
        parse_body(req, body)
    }
}

/// `POST /api/board/seek` with `time` (minutes), `increment` (seconds), `variant`, `rated`,
/// `color` (pools pick colours at random).
#[tracing::instrument(skip_all)]
pub async fn seek(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
    user: Scoped<BoardPlay>,
) -> Result<HttpResponse, ApiError> {
    let b = textual(&req, &body)?;
    let bad = |m: &str| ApiError::bad_request("invalid_seek", m.to_string());
    let variant = b.variant.filter(|v| !v.is_empty()).unwrap_or_else(|| "standard".into());
    let info = chessgold_engine::registry::variant(&variant).ok_or_else(|| bad("unknown variant"))?;
    let minutes: i32 = b
        .time
        .as_deref()
        .ok_or_else(|| bad("time (minutes) is required: unlimited seeks are not offered"))?
        .trim()
        .parse()
        .map_err(|_| bad("time is a whole number of minutes"))?;
    let seconds: i32 = b
        .increment
        .as_deref()
        .unwrap_or("0")
        .trim()
        .parse()
        .map_err(|_| bad("increment is a whole number of seconds"))?;
    if !TIME_CONTROLS.contains(&(minutes, seconds)) {
        let offered: Vec<String> = TIME_CONTROLS.iter().map(|(m, s)| format!("{m}+{s}")).collect();
        return Err(bad(&format!("the pools offer {}", offered.join(", "))));
    }
    let rated = matches!(b.rated.as_deref(), Some("true" | "1"));
    if let Some(c) = b.color.as_deref()
        && !matches!(c, "random" | "")
    {
        // A pool pairs two players and draws the colours; a chosen colour would silently
        // not hold, so it is refused.
        return Err(bad("the pools draw colours at random: send color=random or no color"));
    }
    let clock = TimeControl::new(minutes * 6000, seconds * 100).ok_or_else(|| bad("bad time control"))?;
    let key = PoolKey { variant: info.id.to_string(), time: clock.show(), rated };
    // As the lobby's pools: a game with a clock comes first (else the matcher pairs someone with
    // a player who cannot start).
    crate::lobby::http::free_to_pair(&state, &PlayerRef::User(user.id)).await?;
    let perf = db::ratings::perf(&state.pool, user.id, info.id).await.map_err(|e| internal(&e))?;
    let sub = state.users.listen();
    let conn = format!("api{}", random_base62(16).map_err(|e| internal(&e))?);
    let now = crate::lobby::now_ms();
    let entry = PoolEntry {
        player: player_key(&PlayerRef::User(user.id)),
        conn: conn.clone(),
        user_id: Some(user.id),
        guest_id: None,
        rating: perf.rating,
        pool: key.clone(),
        joined_ms: now,
        seen_ms: now,
    };
    state.lobby.pools.join(entry).await.map_err(|e| internal(&e))?;
    tracing::info!(pool = ?key, "board API seek");
    let (tx, rx) = mpsc::channel::<String>(16);
    tokio::spawn(wait(state.into_inner(), user.id, conn, sub, tx));
    Ok(ndjson(rx))
}

async fn wait(
    state: Arc<AppState>,
    user: uuid::Uuid,
    conn: String,
    mut sub: tokio::sync::broadcast::Receiver<notify::Envelope>,
    out: mpsc::Sender<String>,
) {
    let mut refresh = tokio::time::interval(REFRESH);
    refresh.tick().await;
    let mut keep_alive = tokio::time::interval(super::board::KEEP_ALIVE);
    keep_alive.tick().await;
    let _ = out.send("\n".to_string()).await;
    loop {
        tokio::select! {
            msg = notify::next_for(&mut sub, user) => match msg {
                Some(UserMsg::GameStart { game }) if GameId::parse(&game).is_some() => break,
                // The pairing's news may have been missed: a game started means it was paired.
                Some(UserMsg::Resync) => {
                    if matches!(store_busy(&state, user).await, Some(true)) { break }
                }
                Some(_) => {}
                None => break,
            },
            _ = refresh.tick() => {
                if let Err(e) = state.lobby.pools.refresh(&conn, crate::lobby::now_ms()).await {
                    tracing::warn!(error = format!("{e:#}"), "refreshing a seek failed");
                }
            }
            _ = keep_alive.tick() => if out.send("\n".to_string()).await.is_err() { break },
            () = out.closed() => break,
        }
    }
    if let Err(e) = state.lobby.pools.leave_conn(&conn).await {
        tracing::warn!(error = format!("{e:#}"), "leaving the pool failed");
    }
}

/// Whether the account is in a started clocked game (`None` when the database cannot say).
async fn store_busy(state: &AppState, user: uuid::Uuid) -> Option<bool> {
    crate::game::store::busy(&state.pool, &[PlayerRef::User(user)]).await.ok().map(|b| b.is_some())
}
