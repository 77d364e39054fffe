//! `GET /socket/lobby?sri=ID`: the home page's lobby socket. It sends the seeks the viewer may
//! see, then every change; it tells the page when a game starts for it (`redirect`); its pings
//! keep its seeks and pool entries alive, and when it closes they go (`docs/api.md`, Lobby).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::{CloseCode, CloseReason};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::http::valid_sri;
use super::{HubMsg, Seek, Viewer};
use crate::db;
use crate::error::PageError;
use crate::game::identity::Identity;
use crate::game::protocol;
use crate::game::refusal::RefusalCode;
use crate::game::socket::{Bucket, Incoming, incoming};
use crate::middleware::origin_allowed_headers;
use crate::startup::AppState;

/// The query of the socket URL.
#[derive(Debug, Deserialize)]
pub struct LobbyQuery {
    sri: String,
}

/// Opens a lobby socket.
///
/// # Errors
/// 400 for a malformed `sri` or a request that is not a WebSocket upgrade, 403 for another
/// site's page.
#[tracing::instrument(skip_all)]
pub async fn open(
    req: HttpRequest,
    body: web::Payload,
    query: web::Query<LobbyQuery>,
    state: web::Data<AppState>,
    identity: Identity,
) -> Result<HttpResponse, actix_web::Error> {
    if !valid_sri(&query.sri) {
        return Err(PageError::BadRequest("sri must be 8 to 24 letters or digits".into()).into());
    }
    if !origin_allowed_headers(&req, &state.public_origins) {
        return Err(PageError::CrossOrigin.into());
    }
    let slot = state.sockets.take(&req, state.trust_forwarded_for).await?;
    let (response, ws, stream) = actix_ws::handle(&req, body)?;
    let stream = stream.max_frame_size(state.game.max_frame_bytes);
    let serving = serve(state.into_inner(), query.into_inner().sri, identity, ws, stream);
    actix_web::rt::spawn(async move {
        serving.await;
        drop(slot);
    });
    Ok(response)
}

/// The seek list the viewer may see, and the ids of the seeks this socket holds.
async fn seeks_view(state: &AppState, viewer: &Viewer) -> anyhow::Result<(Value, HashSet<String>)> {
    let rows = db::lobby::live(&state.pool).await?;
    let mut seeks: Vec<Seek> = rows.iter().map(Seek::from_row).collect();
    super::mark_owners(&state.pool, &mut seeks).await?;
    let held = seeks.iter().filter(|s| s.sri == viewer.sri).map(|s| s.id.clone()).collect();
    Ok((Value::Array(seeks.iter().filter(|s| s.visible_to(viewer)).map(|s| s.view(viewer)).collect()), held))
}

async fn serve(
    state: std::sync::Arc<AppState>,
    sri: String,
    identity: Identity,
    mut ws: actix_ws::Session,
    mut stream: actix_ws::MessageStream,
) {
    let cfg = state.game.clone();
    let session = identity.session;
    let opened = time::OffsetDateTime::now_utc();
    let mut viewer = Viewer {
        sri: sri.clone(),
        user_id: identity.user.as_ref().map(|u| u.id),
        guest_id: identity.guest,
        ..Viewer::default()
    };
    if let Err(e) = viewer.read_standing(&state.pool).await {
        // The seeks it should not see are refused when accepted (`accept_seek` reads them again).
        tracing::warn!(error = format!("{e:#}"), "reading the viewer's blocks and marks failed");
    }
    if let Some(u) = viewer.user_id {
        match db::profiles::perfs(&state.pool, u).await {
            Ok(r) => viewer.ratings = r.into_iter().map(|p| (p.variant, p.rating)).collect(),
            Err(e) => tracing::warn!(error = format!("{e:#}"), "reading the viewer's ratings failed"),
        }
    }
    // Listen first, so nothing said while the list is read is missed.
    let mut hub = state.lobby.listen();
    let mut close: Option<CloseReason> = None;
    // The seeks this socket holds (every instance hears of every seek): only while it holds
    // one does a ping renew them in the database, so an idle socket writes nothing.
    let mut held: HashSet<String>;
    match seeks_view(&state, &viewer).await {
        Ok((list, mine)) => {
            held = mine;
            if ws.text(protocol::msg("seeks", list)).await.is_err() {
                return;
            }
        }
        Err(e) => {
            tracing::warn!(error = format!("{e:#}"), "listing seeks failed");
            let _ =
                ws.text(protocol::error(RefusalCode::Unavailable, "the lobby is not available; reconnect", None)).await;
            let _ = ws.close(Some(CloseReason { code: CloseCode::Again, description: None })).await;
            return;
        }
    }
    let mut limiter = Bucket::new(cfg.messages_per_second, cfg.messages_burst);
    let idle = Duration::from_secs(cfg.socket_idle_secs);
    let mut last_heard = Instant::now();
    let mut check = tokio::time::interval(Duration::from_secs(1));
    let mut news = state.users.listen();
    loop {
        tokio::select! {
            why = crate::notify::signed_out(&mut news, viewer.user_id, session) => {
                close = Some(CloseReason { code: CloseCode::Policy, description: Some(why.into()) });
                break;
            }
            said = hub.recv() => {
                let out = match said {
                    Ok(HubMsg::SeekAdd(s)) => {
                        if s.sri == sri {
                            held.insert(s.id.clone());
                        }
                        s.visible_to(&viewer).then(|| protocol::msg("seek_add", s.view(&viewer)))
                    }
                    Ok(HubMsg::SeekRemove(ids)) => {
                        for id in &ids {
                            held.remove(id);
                        }
                        Some(protocol::msg("seek_remove", json!(ids)))
                    }
                    Ok(HubMsg::Redirect { sris, game }) => sris.contains(&sri).then(|| {
                        protocol::msg("redirect", json!({"id": game, "url": format!("/{game}")}))
                    }),
                    Ok(HubMsg::Resync) | Err(RecvError::Lagged(_)) => {
                        // A redirect said meanwhile may be lost: a game of the viewer's that
                        // started since the socket opened is where the page goes.
                        let started = db::games::newest_since(&state.pool, viewer.user_id, viewer.guest_id.as_deref(), opened)
                            .await
                            .ok()
                            .flatten();
                        match started {
                            Some(game) => Some(protocol::msg("redirect", json!({"id": game, "url": format!("/{game}")}))),
                            None => seeks_view(&state, &viewer).await.ok().map(|(list, mine)| {
                                held = mine;
                                protocol::msg("seeks", list)
                            }),
                        }
                    }
                    Err(RecvError::Closed) => { close = Some(CloseReason { code: CloseCode::Again, description: None }); break }
                };
                if let Some(text) = out && ws.text(text).await.is_err() { break }
            }
            frame = stream.recv() => match incoming(&mut ws, frame, &mut last_heard).await {
                Incoming::End(reason) => { close = reason; break }
                Incoming::Handled => {}
                Incoming::Text(text) => {
                    if !limiter.take() {
                        if ws.text(protocol::error(RefusalCode::RateLimited, "too many messages; slow down", None)).await.is_err() { break }
                        continue;
                    }
                    let reply = match serde_json::from_str::<Value>(&text) {
                        Ok(v) if v.get("t").and_then(Value::as_str) == Some("ping") && v.as_object().is_some_and(|o| o.keys().all(|k| k == "t" || k == "d")) => {
                            keep_alive(&state, &sri, !held.is_empty()).await;
                            protocol::msg("pong", Value::Null)
                        }
                        Ok(v) if v.get("t").is_some_and(Value::is_string) => protocol::error(
                            RefusalCode::UnknownType,
                            "the lobby socket only takes pings; seeks and pools go through /api/lobby",
                            None,
                        ),
                        _ => protocol::error(RefusalCode::Malformed, "send JSON such as {\"t\": \"ping\"}", None),
                    };
                    if ws.text(reply).await.is_err() { break }
                }
            },
            _ = check.tick() => {
                if last_heard.elapsed() >= idle {
                    close = Some(CloseReason { code: CloseCode::Away, description: Some("idle".into()) });
                    break;
                }
            }
        }
    }
    leave(&state, &sri).await;
    let _ = ws.close(close).await;
}

/// A ping: the socket's seeks and pool entries live on.
async fn keep_alive(state: &AppState, sri: &str, holds_seeks: bool) {
    if holds_seeks {
        let until = time::OffsetDateTime::now_utc() + time::Duration::seconds(super::SEEK_TTL_SECS);
        if let Err(e) = db::lobby::renew(&state.pool, sri, until).await {
            tracing::warn!(error = format!("{e:#}"), "renewing seeks failed");
        }
    }
    if let Err(e) = state.lobby.pools.refresh(sri, super::now_ms()).await {
        tracing::warn!(error = format!("{e:#}"), "refreshing pool entries failed");
    }
}

/// The socket closed: its seeks and pool entries go.
async fn leave(state: &AppState, sri: &str) {
    match db::lobby::remove_of_conn(&state.pool, sri).await {
        Ok(ids) => state.lobby.removed(ids).await,
        Err(e) => tracing::warn!(error = format!("{e:#}"), "removing a socket's seeks failed"),
    }
    if let Err(e) = state.lobby.pools.leave_conn(sri).await {
        tracing::warn!(error = format!("{e:#}"), "leaving the pools failed");
    }
}
