//! Accounts as lichess's API shows them: `GET /api/account`, `GET /api/user/{username}` (with
//! `perfs` per variant) and `GET /api/games/user/{username}` (NDJSON games, newest first).

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::auth::{AnyToken, Caller, Scoped};
use super::lichess::{self, internal, not_found};
use crate::db;
use crate::error::ApiError;
use crate::game::{GameId, store};
use crate::startup::AppState;

/// Rated games under which a rating is provisional.
const PROVISIONAL_UNDER: i32 = 30;
/// Most games `GET /api/games/user` writes.
const MAX_GAMES: i64 = 300;

/// Lichess's user object of an account (`bot`: a BOT account, titled `BOT`).
pub(crate) async fn user_json(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
    name: &str,
    bot: bool,
) -> Result<Value, ApiError> {
    let perfs = db::profiles::perfs(&state.pool, id).await.map_err(|e| internal(&e))?;
    let record = db::profiles::record(&state.pool, id).await.map_err(|e| internal(&e))?;
    let created = db::users::created_at(&state.pool, id)
        .await
        .map_err(|e| internal(&e))?
        .ok_or_else(|| not_found("No such user"))?;
    let mut perf_map = Map::new();
    for p in perfs {
        perf_map.insert(
            p.variant.clone(),
            // Elo has no deviation; lichess clients read `rd` as a number and treat a large one
            // as provisional, so a provisional rating shows 150 and a settled one 60.
            json!({"games": p.games, "rating": p.rating, "rd": if p.games < PROVISIONAL_UNDER { 150 } else { 60 },
                   "prog": 0, "prov": p.games < PROVISIONAL_UNDER}),
        );
    }
    let mut user = json!({
        "id": name.to_lowercase(),
        "username": name,
        "perfs": perf_map,
        "createdAt": lichess::ms(created),
        "seenAt": lichess::ms(created),
        "url": format!("{}/@/{name}", lichess::base_url(req)),
        "count": {
            "all": record.total, "rated": record.rated, "ai": record.ai,
            "draw": record.draws, "drawH": record.draws_h, "loss": record.losses, "lossH": record.losses_h,
            "win": record.wins, "winH": record.wins_h,
            "bookmark": 0, "playing": record.playing, "import": 0, "me": 0,
        },
    });
    if bot && let Some(obj) = user.as_object_mut() {
        obj.insert("title".into(), Value::from(crate::domain::BOT_TITLE));
    }
    Ok(user)
}

/// `GET /api/account`: the caller's account.
#[tracing::instrument(skip_all)]
pub(crate) async fn account(
    req: HttpRequest,
    state: web::Data<AppState>,
    me: Scoped<AnyToken>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(user_json(&state, &req, me.id, &me.name, me.bot).await?))
}

/// `GET /api/account/playing`: the caller's games being played, `{"nowPlaying": [game, ...]}`
/// with the `game` objects of `gameStart` events.
#[tracing::instrument(skip_all)]
pub(crate) async fn playing(state: web::Data<AppState>, me: Scoped<AnyToken>) -> Result<HttpResponse, ApiError> {
    let ids = db::games::ongoing_of_user(&state.pool, me.id).await.map_err(|e| internal(&e))?;
    let now = time::OffsetDateTime::now_utc();
    let mut games = Vec::new();
    for id in ids.iter().filter_map(|i| GameId::parse(i)) {
        if let Some(live) = store::load(&state.pool, &id).await.map_err(|e| internal(&e))?
            && let Some(color) = live.seat_of(&crate::game::PlayerRef::User(me.id))
        {
            games.push(lichess::event_game(&live, color, now));
        }
    }
    Ok(HttpResponse::Ok().json(json!({"nowPlaying": games})))
}

async fn find_user(state: &AppState, name: &str) -> Result<db::users::UserRow, ApiError> {
    if name.len() > 40 {
        return Err(not_found("No such user"));
    }
    db::users::find_by_name(&state.pool, name).await.map_err(|e| internal(&e))?.ok_or_else(|| not_found("No such user"))
}

/// `GET /api/user/{username}`: a public profile.
#[tracing::instrument(skip_all)]
pub(crate) async fn user(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    // A token is optional; a bad one is still refused, and a good one counts against its limit.
    let u = find_user(&state, &path).await?;
    Ok(HttpResponse::Ok().json(user_json(&state, &req, u.id, &u.username, u.bot).await?))
}

#[derive(Debug, Deserialize)]
pub(crate) struct GamesQuery {
    #[serde(default)]
    max: Option<i64>,
}

/// `GET /api/games/user/{username}?max=N`: the account's started games as NDJSON, newest first.
#[tracing::instrument(skip_all)]
pub(crate) async fn games(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<GamesQuery>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let u = find_user(&state, &path).await?;
    let max = query.max.unwrap_or(MAX_GAMES).clamp(1, MAX_GAMES);
    let rows = db::profiles::games(&state.pool, u.id, max, 0).await.map_err(|e| internal(&e))?;
    let mut body = String::new();
    for r in rows {
        let Some(id) = GameId::parse(&r.id) else { continue };
        if let Some(live) = store::load(&state.pool, &id).await.map_err(|e| internal(&e))? {
            body.push_str(&lichess::line(&crate::game::view::game_json(&live)));
        }
    }
    Ok(HttpResponse::Ok().content_type("application/x-ndjson").body(body))
}
