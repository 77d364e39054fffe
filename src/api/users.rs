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

/// Most accounts one `GET /api/users/status` or `POST /api/users` reads.
const MAX_IDS: usize = 300;

/// The comma-separated names of a query or body, refused past `max`.
fn names_of(text: &str, max: usize) -> Result<Vec<String>, ApiError> {
    let names: Vec<String> = text.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
    if names.is_empty() {
        return Err(ApiError::bad_request("bad_ids", "give account names separated by commas"));
    }
    if names.len() > max {
        return Err(ApiError::bad_request("bad_ids", format!("at most {max} names at a time")));
    }
    Ok(names)
}

/// The query of `GET /api/users/status`.
#[derive(Debug, Deserialize)]
pub(crate) struct StatusQuery {
    /// Names, comma separated.
    ids: String,
}

/// `GET /api/users/status?ids=a,b`: whether each account is online (seen in the last minutes:
/// a page, a token, a BOT's event stream) and playing, in the order asked; unknown names are
/// left out. `[{"id","name","online","playing"}]`, with `title` for a BOT.
#[tracing::instrument(skip_all)]
pub(crate) async fn status(
    state: web::Data<AppState>,
    query: web::Query<StatusQuery>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let names = names_of(&query.ids, MAX_IDS)?;
    let rows = db::users::status_of(&state.pool, &names).await.map_err(|e| internal(&e))?;
    let out: Vec<Value> = rows
        .into_iter()
        .map(|r| {
            let mut v = json!({"id": r.username.to_lowercase(), "name": r.username, "online": r.online,
                               "playing": r.playing});
            if r.bot
                && let Some(o) = v.as_object_mut()
            {
                o.insert("title".into(), Value::from(crate::domain::BOT_TITLE));
            }
            v
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

/// `POST /api/users` with names separated by commas as the body: their public data, as
/// `GET /api/user/{username}` gives it, in the order asked (unknown names left out).
#[tracing::instrument(skip_all)]
pub(crate) async fn many(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let text = std::str::from_utf8(&body).map_err(|_| ApiError::bad_request("bad_ids", "the body is text"))?;
    let names = names_of(text, MAX_IDS)?;
    let mut out = Vec::new();
    for (id, name, bot) in db::users::find_many(&state.pool, &names).await.map_err(|e| internal(&e))? {
        out.push(user_json(&state, &req, id, &name, bot).await?);
    }
    Ok(HttpResponse::Ok().json(out))
}

/// `GET /api/user/{username}/rating-history`: for every variant, its rating after each rated
/// game, as lichess's `[{"name", "points": [[year, month (0-11), day, rating], ...]}]`.
#[tracing::instrument(skip_all)]
pub(crate) async fn rating_history(
    state: web::Data<AppState>,
    path: web::Path<String>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let u = find_user(&state, &path).await?;
    let points = db::profiles::rating_history(&state.pool, u.id).await.map_err(|e| internal(&e))?;
    let out: Vec<Value> = chessgold_engine::registry::variants()
        .iter()
        .map(|info| {
            let pts: Vec<Value> = points
                .iter()
                .filter(|p| p.variant == info.id)
                .map(|p| json!([p.at.year(), u8::from(p.at.month()) - 1, p.at.day(), p.rating]))
                .collect();
            json!({"name": info.name, "points": pts})
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

/// `GET /api/user/{username}/current-game`: the account's game being played (the most recent,
/// when several), else its last game, as `GET /api/games/user` writes games; `404` without any.
#[tracing::instrument(skip_all)]
pub(crate) async fn current_game(
    state: web::Data<AppState>,
    path: web::Path<String>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let u = find_user(&state, &path).await?;
    let ongoing = db::games::ongoing_of_user(&state.pool, u.id).await.map_err(|e| internal(&e))?;
    let id = match ongoing.last() {
        Some(id) => Some(id.clone()),
        None => {
            db::profiles::games(&state.pool, u.id, 1, 0).await.map_err(|e| internal(&e))?.first().map(|g| g.id.clone())
        }
    };
    let live = match id.as_deref().and_then(GameId::parse) {
        Some(id) => store::load(&state.pool, &id).await.map_err(|e| internal(&e))?,
        None => None,
    };
    let live = live.ok_or_else(|| not_found("No current game"))?;
    Ok(HttpResponse::Ok().json(crate::game::view::game_json(&live)))
}

/// `GET /api/crosstable/{user1}/{user2}`: the two accounts' points against each other (a win
/// 1, a draw ½) and their games with a result, as lichess's `{"users": {...}, "nbGames"}`.
#[tracing::instrument(skip_all)]
pub(crate) async fn crosstable(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let (a, b) = path.into_inner();
    let (a, b) = (find_user(&state, &a).await?, find_user(&state, &b).await?);
    let (pa, pb, games) = db::profiles::crosstable(&state.pool, a.id, b.id).await.map_err(|e| internal(&e))?;
    let points = |x2: i64| if x2 % 2 == 0 { Value::from(x2 / 2) } else { Value::from(x2 as f64 / 2.0) };
    let mut users = Map::new();
    users.insert(a.username.to_lowercase(), points(pa));
    users.insert(b.username.to_lowercase(), points(pb));
    Ok(HttpResponse::Ok().json(json!({"users": users, "nbGames": games})))
}

/// The query of `GET /api/player/autocomplete`.
#[derive(Debug, Deserialize)]
pub(crate) struct AutocompleteQuery {
    /// The start of the name.
    term: String,
    /// `true`: objects (`{"result": [{"id", "name"}]}`) rather than names.
    #[serde(default)]
    object: Option<String>,
}

/// Most names `GET /api/player/autocomplete` proposes.
const MAX_COMPLETIONS: i64 = 12;

/// `GET /api/player/autocomplete?term=al[&object=true]`: accounts whose name starts so.
#[tracing::instrument(skip_all)]
pub(crate) async fn autocomplete(
    state: web::Data<AppState>,
    query: web::Query<AutocompleteQuery>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let term = query.term.trim();
    if term.chars().count() < crate::domain::USERNAME_MIN || term.chars().count() > crate::domain::USERNAME_MAX {
        return Err(ApiError::bad_request(
            "bad_term",
            format!("term has {} to {} characters", crate::domain::USERNAME_MIN, crate::domain::USERNAME_MAX),
        ));
    }
    let found = db::users::autocomplete(&state.pool, term, MAX_COMPLETIONS).await.map_err(|e| internal(&e))?;
    if query.object.as_deref().is_some_and(|o| o.eq_ignore_ascii_case("true") || o == "1") {
        let result: Vec<Value> = found
            .iter()
            .map(|(name, bot)| {
                json!({"id": name.to_lowercase(), "name": name, "title": bot.then_some(crate::domain::BOT_TITLE)})
            })
            .collect();
        return Ok(HttpResponse::Ok().json(json!({"result": result})));
    }
    Ok(HttpResponse::Ok().json(found.into_iter().map(|(n, _)| n).collect::<Vec<_>>()))
}
