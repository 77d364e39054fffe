//! The lobby's HTTP side (`/api/lobby/...`, JSON): create, cancel and accept seeks; join and leave
//! quick-pairing pools. Every request names the page's lobby socket (`sri`), which holds what it
//! creates. Unsafe requests pass the origin check of the middleware.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use chessgold_engine::Color;
use chessgold_engine::registry::variant;
use serde::Deserialize;
use serde_json::json;
use time::OffsetDateTime;

use super::pools::{PoolEntry, PoolKey};
use super::{
    HubMsg, MAX_SEEKS, MAX_SEEKS_PER_ADDRESS, SEEK_TTL_SECS, Seek, Viewer, player_key, random_color, start_game,
};
use crate::auth::rate_limit::IpLimited;
use crate::db;
use crate::db::lobby::SeekRow;
use crate::error::ApiError;
use crate::game::identity::Identity;
use crate::game::model::{CreateGame, PlayerRef};
use crate::game::store::{self, CreateError};
use crate::game::{GameId, TimeControl, random_base62};
use crate::rating::{Perf, START};
use crate::startup::AppState;

/// Whether a socket id is well formed: 8 to 24 base62 characters.
pub fn valid_sri(sri: &str) -> bool {
    (8..=24).contains(&sri.len()) && sri.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn check_sri(sri: &str) -> Result<(), ApiError> {
    if valid_sri(sri) {
        Ok(())
    } else {
        Err(ApiError::bad_request("bad_sri", "sri must be 8 to 24 letters or digits (the page's lobby socket)"))
    }
}

fn internal(e: &anyhow::Error) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", format!("{e:#}"))
}

/// The body of `POST /api/lobby/seek`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekBody {
    sri: String,
    variant: String,
    /// `3+2` or `unlimited`.
    time: String,
    /// `rated` or `casual`.
    #[serde(default = "casual")]
    mode: String,
    /// `white`, `black` or `random`.
    #[serde(default = "random")]
    color: String,
    rating_min: Option<i32>,
    rating_max: Option<i32>,
}

fn casual() -> String {
    "casual".into()
}

fn random() -> String {
    "random".into()
}

/// The lowest and highest ratings a range may name.
const RANGE_LIMITS: (i32, i32) = (400, 3500);

fn with_cookie(
    mut resp: HttpResponse,
    cookie: Option<actix_web::cookie::Cookie<'static>>,
) -> Result<HttpResponse, ApiError> {
    if let Some(c) = cookie {
        resp.add_cookie(&c).map_err(|e| internal(&anyhow::anyhow!("setting the guest cookie: {e}")))?;
    }
    Ok(resp)
}

async fn perf_of(state: &AppState, who: &PlayerRef, variant_id: &str) -> Result<Option<Perf>, ApiError> {
    match who {
        PlayerRef::User(id) => {
            Ok(Some(db::ratings::perf(&state.pool, *id, variant_id).await.map_err(|e| internal(&e))?))
        }
        PlayerRef::Guest(_) | PlayerRef::Bot(_) => Ok(None),
    }
}

/// Refuses a player who may not look for a game: a play-banned account (with the time left), or
/// a player in a started game with a clock (that game comes first: the answer carries it, `game`
/// and `url`, so the page can offer the way back to it). Every pairing entry asks it: a seek, its
/// acceptance, a pool.
///
/// # Errors
/// 409 `play_banned` or `already_playing`, 403 `bot_account` for a BOT account (which pairs
/// only by challenges); database failures.
pub async fn free_to_pair(state: &AppState, who: &PlayerRef) -> Result<(), ApiError> {
    if crate::api::bot::is_bot_account(state, who).await.map_err(|e| internal(&e))? {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "bot_account", crate::api::bot::PEOPLE_ONLY));
    }
    if let PlayerRef::User(u) = who
        && let Some(ban) = crate::moderation::playban::play_ban(&state.pool, *u).await.map_err(|e| internal(&e))?
    {
        return Err(ApiError::new(StatusCode::CONFLICT, ban.code().as_str(), ban.message(OffsetDateTime::now_utc())));
    }
    match store::busy(&state.pool, std::slice::from_ref(who)).await.map_err(|e| internal(&e))? {
        Some(busy) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "already_playing",
            "You are playing a game with a clock: finish it before you look for another one.",
        )
        .with_game(busy.game)),
        None => Ok(()),
    }
}

#[tracing::instrument(skip_all)]
pub(crate) async fn create_seek(
    req: actix_web::HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<SeekBody>,
    _limited: IpLimited,
    identity: Identity,
) -> Result<HttpResponse, ApiError> {
    let b = body.into_inner();
    check_sri(&b.sri)?;
    let bad = |m: String| ApiError::unprocessable("invalid_seek", m);
    let info = variant(&b.variant)
        .ok_or_else(|| bad(format!("unknown variant '{}'", b.variant.chars().take(30).collect::<String>())))?;
    let clock = TimeControl::parse_offer(&b.time).map_err(bad)?;
    let rated = match b.mode.as_str() {
        "rated" => true,
        "casual" => false,
        _ => return Err(bad("mode is rated or casual".into())),
    };
    if !matches!(b.color.as_str(), "white" | "black" | "random") {
        return Err(bad("color is white, black or random".into()));
    }
    let range = match (b.rating_min, b.rating_max) {
        (None, None) => None,
        (Some(lo), Some(hi)) if lo <= hi && lo >= RANGE_LIMITS.0 && hi <= RANGE_LIMITS.1 => Some((lo, hi)),
        _ => {
            return Err(bad(format!(
                "a rating range needs both ends, lowest first, within {}-{}",
                RANGE_LIMITS.0, RANGE_LIMITS.1
            )));
        }
    };
    if rated && identity.user.is_none() {
        return Err(bad("rated games are for registered players: sign in, or seek a casual game".into()));
    }
    if rated && clock.is_none() {
        return Err(bad("rated games need a time control; unlimited games are casual".into()));
    }
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies).map_err(|e| internal(&e))?;
    free_to_pair(&state, &player).await?;
    let (user_id, guest_id) = match &player {
        PlayerRef::User(u) => (Some(*u), None),
        PlayerRef::Guest(g) => (None, Some(g.clone())),
        PlayerRef::Bot(_) => (None, None),
    };
    let held = db::lobby::count_of(&state.pool, user_id, guest_id.as_deref()).await.map_err(|e| internal(&e))?;
    if held >= MAX_SEEKS {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_seeks",
            format!("you have {held} open seeks; cancel one first"),
        ));
    }
    let ip = crate::startup::client_ip(&req, state.trust_forwarded_for).to_string();
    if db::lobby::count_from(&state.pool, &ip).await.map_err(|e| internal(&e))? >= MAX_SEEKS_PER_ADDRESS {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_seeks",
            format!("{MAX_SEEKS_PER_ADDRESS} seeks are open from your address already; cancel one first"),
        ));
    }
    let perf = perf_of(&state, &player, info.id).await?;
    let now = OffsetDateTime::now_utc();
    let row = SeekRow {
        id: random_base62(8).map_err(|e| internal(&e))?,
        user_id,
        guest_id,
        name: identity.user.as_ref().map_or_else(|| "Anonymous".to_string(), |u| u.name.clone()),
        rating: perf.map(|p| p.rating),
        provisional: perf.is_some_and(Perf::provisional),
        variant: info.id.to_string(),
        clock_limit: clock.map(|c| c.limit),
        clock_increment: clock.map(|c| c.increment),
        rated,
        color: b.color,
        rating_min: range.map(|r| r.0),
        rating_max: range.map(|r| r.1),
        conn: b.sri,
        expires_at: now + time::Duration::seconds(SEEK_TTL_SECS),
        created_at: now,
        ip: Some(ip),
    };
    db::lobby::insert(&state.pool, &row).await.map_err(|e| internal(&e))?;
    let mut seek = [Seek::from_row(&row)];
    super::mark_owners(&state.pool, &mut seek).await.map_err(|e| internal(&e))?;
    let [seek] = seek;
    state.lobby.publish(&HubMsg::SeekAdd(seek.clone())).await;
    tracing::info!(seek.id = %row.id, variant = %row.variant, rated, "seek created");
    let viewer = Viewer { sri: row.conn.clone(), user_id, guest_id: row.guest_id.clone(), ..Viewer::default() };
    with_cookie(HttpResponse::Created().json(seek.view(&viewer)), cookie)
}

#[tracing::instrument(skip_all, fields(seek.id = %path))]
pub(crate) async fn cancel_seek(
    state: web::Data<AppState>,
    path: web::Path<String>,
    _limited: IpLimited,
    identity: Identity,
) -> Result<HttpResponse, ApiError> {
    let user_id = identity.user.as_ref().map(|u| u.id);
    let gone =
        db::lobby::cancel(&state.pool, &path, user_id, identity.guest.as_deref()).await.map_err(|e| internal(&e))?;
    if !gone {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", "you have no such seek"));
    }
    state.lobby.removed(vec![path.into_inner()]).await;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}

/// The body naming the page's socket.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SriBody {
    sri: String,
}

#[tracing::instrument(skip_all, fields(seek.id = %path))]
pub(crate) async fn accept_seek(
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Json<SriBody>,
    _limited: IpLimited,
    identity: Identity,
) -> Result<HttpResponse, ApiError> {
    check_sri(&body.sri)?;
    let gone = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "this seek is gone (taken, cancelled or expired)");
    let id = GameId::parse(&path).ok_or_else(gone)?;
    let rows = db::lobby::live(&state.pool).await.map_err(|e| internal(&e))?;
    let row = rows.into_iter().find(|r| r.id == id.as_str()).ok_or_else(gone)?;
    let mut seek = [Seek::from_row(&row)];
    super::mark_owners(&state.pool, &mut seek).await.map_err(|e| internal(&e))?;
    let [seek] = seek;
    let ratings = match &identity.user {
        Some(u) => {
            let p = db::ratings::perf(&state.pool, u.id, &seek.variant).await.map_err(|e| internal(&e))?;
            vec![(seek.variant.clone(), p.rating)]
        }
        None => Vec::new(),
    };
    let mut viewer = Viewer {
        sri: body.sri.clone(),
        user_id: identity.user.as_ref().map(|u| u.id),
        guest_id: identity.guest.clone(),
        ratings,
        ..Viewer::default()
    };
    viewer.read_standing(&state.pool).await.map_err(|e| internal(&e))?;
    if let Some(why) = seek.refusal(&viewer) {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "not_allowed", why));
    }
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies).map_err(|e| internal(&e))?;
    free_to_pair(&state, &player).await?;
    // The one that takes it wins; a second accept finds nothing.
    let row = db::lobby::take(&state.pool, id.as_str()).await.map_err(|e| internal(&e))?.ok_or_else(gone)?;
    state.lobby.removed(vec![row.id.clone()]).await;
    let owner = match (row.user_id, &row.guest_id) {
        (Some(u), _) => PlayerRef::User(u),
        (None, Some(g)) => PlayerRef::Guest(g.clone()),
        (None, None) => return Err(internal(&anyhow::anyhow!("a seek without an owner"))),
    };
    let creator_color = match row.color.as_str() {
        "white" => Color::White,
        "black" => Color::Black,
        _ => random_color().map_err(|e| internal(&e))?,
    };
    let clock = row.clock_limit.zip(row.clock_increment).and_then(|(l, i)| TimeControl::new(l, i));
    let request = CreateGame {
        variant: row.variant.clone(),
        clock,
        rated: row.rated,
        source: crate::game::Source::Lobby,
        initial_fen: None,
        creator: owner.clone(),
        creator_color,
        opponent: Some(player),
    };
    let game = match start_game(&state.lobby_ctx(), request, vec![row.conn.clone(), body.sri.clone()]).await {
        Ok(g) => g,
        Err(e) => {
            // No game after all (the accepter started another one meanwhile, or the database
            // failed): the seek goes back to the lobby unless its owner is the one now playing.
            if free_to_pair(&state, &owner).await.is_ok() && db::lobby::insert(&state.pool, &row).await.is_ok() {
                state.lobby.publish(&HubMsg::SeekAdd(seek.clone())).await;
            }
            return match e {
                // The accepter was checked above: the owner is the one who started a game meanwhile,
                // unless the accepter did, on another page, in the same moment.
                CreateError::Busy(busy) if busy.player == owner => Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "not_started",
                    format!(
                        "{} started another game meanwhile, so this seek cannot start. Choose another one.",
                        busy.name
                    ),
                )),
                CreateError::Busy(busy) => Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "already_playing",
                    "You have just started another game with a clock: finish it before you look for another one.",
                )
                .with_game(busy.game)),
                CreateError::Invalid(m) => Err(ApiError::new(StatusCode::CONFLICT, "not_started", m)),
                CreateError::Other(e) => Err(internal(&e)),
            };
        }
    };
    with_cookie(HttpResponse::Ok().json(json!({"game": game.as_str(), "url": format!("/{game}")})), cookie)
}

/// The body of the pool requests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolBody {
    sri: String,
    variant: String,
    /// `3+2`: one of the site's time controls.
    time: String,
}

fn pool_key(b: &PoolBody, rated: bool) -> Result<PoolKey, ApiError> {
    let bad = |m: String| ApiError::unprocessable("invalid_pool", m);
    let info = variant(&b.variant)
        .ok_or_else(|| bad(format!("unknown variant '{}'", b.variant.chars().take(30).collect::<String>())))?;
    match TimeControl::parse_offer(&b.time).map_err(bad)? {
        Some(c) => Ok(PoolKey { variant: info.id.to_string(), time: c.show(), rated }),
        None => Err(bad("pools have a clock; play unlimited games through a seek".into())),
    }
}

#[tracing::instrument(skip_all)]
pub(crate) async fn join_pool(
    state: web::Data<AppState>,
    body: web::Json<PoolBody>,
    _limited: IpLimited,
    identity: Identity,
) -> Result<HttpResponse, ApiError> {
    check_sri(&body.sri)?;
    // Registered players wait in rated pools, guests in casual ones.
    let key = pool_key(&body, identity.user.is_some())?;
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies).map_err(|e| internal(&e))?;
    free_to_pair(&state, &player).await?;
    let perf = perf_of(&state, &player, &key.variant).await?;
    let now = super::now_ms();
    let entry = PoolEntry {
        player: player_key(&player),
        conn: body.sri.clone(),
        user_id: identity.user.as_ref().map(|u| u.id),
        guest_id: match &player {
            PlayerRef::Guest(g) => Some(g.clone()),
            PlayerRef::User(_) | PlayerRef::Bot(_) => None,
        },
        rating: perf.map_or(START, |p| p.rating),
        pool: key.clone(),
        joined_ms: now,
        seen_ms: now,
    };
    state.lobby.pools.join(entry).await.map_err(|e| internal(&e))?;
    tracing::info!(pool = ?key, "joined a pool");
    with_cookie(HttpResponse::Ok().json(json!({"variant": key.variant, "time": key.time, "rated": key.rated})), cookie)
}

#[tracing::instrument(skip_all)]
pub(crate) async fn leave_pool(
    state: web::Data<AppState>,
    body: web::Json<PoolBody>,
    _limited: IpLimited,
    identity: Identity,
) -> Result<HttpResponse, ApiError> {
    check_sri(&body.sri)?;
    let key = pool_key(&body, identity.user.is_some())?;
    state.lobby.pools.leave(&body.sri, &key).await.map_err(|e| internal(&e))?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}
