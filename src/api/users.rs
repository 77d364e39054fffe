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
use crate::game::{GameId, TimeControl, store};
use crate::startup::AppState;

/// Rated games under which a rating is provisional.
const PROVISIONAL_UNDER: i32 = 30;

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
        // Elo has no deviation; lichess clients read `rd` as a number and treat a large one
        // as provisional, so a provisional rating shows 150 and a settled one 60.
        let perf = json!({"games": p.games, "rating": p.rating, "rd": if p.games < PROVISIONAL_UNDER { 150 } else { 60 },
                          "prog": 0, "prov": p.games < PROVISIONAL_UNDER});
        // Lichess rates standard chess per speed; the rule book keeps one Elo for it, shown
        // under every speed's key as well (`docs/api.md`, Speeds).
        if p.variant == "standard" {
            for speed in crate::game::Speed::ALL {
                perf_map.insert(speed.key().to_string(), perf.clone());
            }
        }
        perf_map.insert(p.variant.clone(), perf);
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

/// The query of `GET /api/games/user/{username}` and `POST /api/games/export/_ids`: lichess's
/// filters and output options, as text (`true`/`false`, milliseconds, names).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GamesQuery {
    max: Option<String>,
    since: Option<String>,
    until: Option<String>,
    vs: Option<String>,
    rated: Option<String>,
    perf_type: Option<String>,
    color: Option<String>,
    ongoing: Option<String>,
    finished: Option<String>,
    sort: Option<String>,
    moves: Option<String>,
    tags: Option<String>,
    clocks: Option<String>,
    pgn_in_json: Option<String>,
    // Lichess's options this server cannot honour yet: refused when asked for, never dropped.
    opening: Option<String>,
    evals: Option<String>,
    accuracy: Option<String>,
    literate: Option<String>,
    analysed: Option<String>,
    division: Option<String>,
    players: Option<String>,
}

impl GamesQuery {
    /// Refuses an export option asked for that cannot be honoured, by name (`false` or empty
    /// asks for nothing).
    fn refuse_unsupported(&self) -> Result<(), ApiError> {
        let asked = |v: &Option<String>, name: &str| flag(v.as_deref(), name, false);
        let refused = [
            (asked(&self.opening, "opening")?, "opening: opening names come with the notation work"),
            (asked(&self.evals, "evals")?, "evals: games have no analysis here yet"),
            (asked(&self.accuracy, "accuracy")?, "accuracy: games have no analysis here yet"),
            (asked(&self.analysed, "analysed")?, "analysed: games have no analysis here yet"),
            (asked(&self.division, "division")?, "division: the phases of a game are not computed"),
            (asked(&self.literate, "literate")?, "literate: PGN comments are not written"),
            (
                self.players.as_deref().is_some_and(|p| !p.trim().is_empty()),
                "players: real names from a file are not read",
            ),
        ];
        lichess::refuse_terms(refused)
    }
}

use super::lichess::flag;

/// Milliseconds since the epoch.
fn instant(v: Option<&str>, name: &str) -> Result<Option<time::OffsetDateTime>, ApiError> {
    let Some(t) = v.map(str::trim).filter(|t| !t.is_empty()) else { return Ok(None) };
    let bad = || ApiError::bad_request("bad_query", format!("{name} is a time in milliseconds since 1970"));
    let ms: i64 = t.parse().map_err(|_| bad())?;
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).map(Some).map_err(|_| bad())
}

/// How the games are written.
#[derive(Debug, Clone, Copy)]
struct Output {
    pgn: bool,
    moves: bool,
    tags: bool,
    clocks: bool,
    pgn_in_json: bool,
}

impl Output {
    /// The output a request asks for: PGN with `Accept: application/x-chess-pgn`, JSON with
    /// `Accept: application/json`, else `pgn_by_default` decides (lichess lists games as NDJSON
    /// and exports one game as PGN).
    fn of(req: &HttpRequest, q: &GamesQuery, pgn_by_default: bool) -> Result<Output, ApiError> {
        q.refuse_unsupported()?;
        let accept = req.headers().get(actix_web::http::header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
        let pgn = if accept.contains("application/x-chess-pgn") {
            true
        } else if accept.contains("application/json") || accept.contains("application/x-ndjson") {
            false
        } else {
            pgn_by_default
        };
        Ok(Output {
            pgn,
            moves: flag(q.moves.as_deref(), "moves", true)?,
            tags: flag(q.tags.as_deref(), "tags", true)?,
            clocks: flag(q.clocks.as_deref(), "clocks", false)?,
            pgn_in_json: flag(q.pgn_in_json.as_deref(), "pgnInJson", false)?,
        })
    }

    /// One game as written: a PGN (and two blank lines after it, as lichess separates its games)
    /// or an NDJSON line.
    fn write(self, live: &crate::game::model::Game, site_base: &str) -> String {
        let site = format!("{site_base}/{}", live.id);
        let pgn = || {
            let whole = crate::game::export::pgn(live, &site);
            let (tags, moves) = whole.split_once("\n\n").unwrap_or((whole.as_str(), ""));
            match (self.tags, self.moves) {
                (true, true) => whole.clone(),
                (true, false) => format!("{tags}\n"),
                (false, true) => moves.to_string(),
                (false, false) => String::new(),
            }
        };
        if self.pgn {
            return format!("{}\n\n", pgn());
        }
        let mut v = crate::game::view::game_json(live);
        if let Some(obj) = v.as_object_mut() {
            if !self.moves {
                obj.remove("moves");
            }
            if self.clocks && live.clock.is_some() {
                // The mover's clock after each action, in centiseconds, as lichess lists them.
                let clocks: Vec<i32> =
                    live.actions.iter().filter_map(|a| a.clocks.map(|c| c[a.color.index()])).collect();
                obj.insert("clocks".into(), Value::from(clocks));
            }
            if self.pgn_in_json {
                obj.insert("pgn".into(), Value::from(pgn()));
            }
        }
        lichess::line(&v)
    }

    fn respond(self, rx: tokio::sync::mpsc::Receiver<String>) -> HttpResponse {
        if self.pgn { lichess::streamed(rx, "application/x-chess-pgn") } else { lichess::ndjson(rx) }
    }
}

/// `GET /api/games/user/{username}`: the account's started games, newest first, streamed as
/// NDJSON (or PGN with `Accept: application/x-chess-pgn`), with lichess's filters: `max`,
/// `since`/`until` (ms), `vs`, `rated`, `perfType` (variant ids, and for standard chess the
/// speeds), `color`, `ongoing` (default false), `finished` (default true), `sort`
/// (`dateDesc`/`dateAsc`); and output options `moves`, `tags`, `clocks`, `pgnInJson`.
#[tracing::instrument(skip_all)]
pub(crate) async fn games(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<GamesQuery>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let u = find_user(&state, &path).await?;
    let out = Output::of(&req, &q, false)?;
    let max = match q.max.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
        None => None,
        Some(m) => Some(
            m.parse::<usize>()
                .ok()
                .filter(|m| *m >= 1)
                .ok_or_else(|| ApiError::bad_request("bad_query", "max is a whole number from 1"))?,
        ),
    };
    let vs = match q.vs.as_deref().filter(|v| !v.is_empty()) {
        Some(name) => Some(find_user(&state, name).await?.id),
        None => None,
    };
    let color = match q.color.as_deref() {
        None | Some("") => None,
        Some(c @ ("white" | "black")) => Some(c.to_string()),
        Some(_) => return Err(ApiError::bad_request("bad_query", "color is white or black")),
    };
    let oldest_first = match q.sort.as_deref() {
        None | Some("" | "dateDesc") => false,
        Some("dateAsc") => true,
        Some(_) => return Err(ApiError::bad_request("bad_query", "sort is dateDesc or dateAsc")),
    };
    let rated = match q.rated.as_deref() {
        None | Some("") => None,
        r => Some(flag(r, "rated", false)?),
    };
    let perfs: Vec<String> = q
        .perf_type
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    // A perf is a variant id or a speed of standard chess; anything else would quietly match
    // nothing.
    if let Some(bad) = perfs
        .iter()
        .find(|p| chessgold_engine::registry::variant(p).is_none() && crate::game::Speed::from_key(p).is_none())
    {
        return Err(ApiError::bad_request(
            "bad_query",
            format!("perfType '{}' is neither a variant nor a speed", bad.chars().take(30).collect::<String>()),
        ));
    }
    let filter = db::games::UserGamesFilter {
        since: instant(q.since.as_deref(), "since")?,
        until: instant(q.until.as_deref(), "until")?,
        vs,
        rated,
        color,
        ongoing: flag(q.ongoing.as_deref(), "ongoing", false)?,
        finished: flag(q.finished.as_deref(), "finished", true)?,
        oldest_first,
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(16);
    let state = state.into_inner();
    let base = lichess::base_url(&req);
    tokio::spawn(async move {
        /// Games read from the database at a time.
        const PAGE: i64 = 100;
        let mut written = 0;
        let mut offset = 0;
        'pages: loop {
            let rows = match db::games::user_games(&state.pool, u.id, &filter, PAGE, offset).await {
                Ok(rows) => rows,
                Err(e) => {
                    // The status is sent: the stream just ends early, and the log says why.
                    tracing::warn!(error = format!("{e:#}"), "listing an account's games");
                    break;
                }
            };
            let last_page = rows.len() < usize::try_from(PAGE).unwrap_or(usize::MAX);
            offset += PAGE;
            for row in rows {
                let clock = match (row.clock_limit, row.clock_increment) {
                    (Some(l), Some(i)) => TimeControl::new(l, i),
                    _ => None,
                };
                let key = chessgold_engine::registry::variant(&row.variant).map(|v| crate::game::perf_key(v.id, clock));
                if !perfs.is_empty() && !key.is_some_and(|k| perfs.iter().any(|p| p == k || *p == row.variant)) {
                    continue;
                }
                let Some(id) = GameId::parse(&row.id) else { continue };
                let live = match store::load(&state.pool, &id).await {
                    Ok(Some(l)) => l,
                    Ok(None) => continue,
                    Err(e) => {
                        tracing::warn!(game.id = %id, error = format!("{e:#}"), "loading a listed game");
                        break 'pages;
                    }
                };
                if tx.send(out.write(&live, &base)).await.is_err() {
                    break 'pages;
                }
                written += 1;
                if max.is_some_and(|m| written >= m) {
                    break 'pages;
                }
            }
            if last_page {
                break;
            }
        }
    });
    Ok(out.respond(rx))
}

/// Most games one `POST /api/games/export/_ids` exports.
const MAX_EXPORT_IDS: usize = 300;

/// `POST /api/games/export/_ids` with game ids separated by commas as the body: those games,
/// in that order, as `GET /api/games/user` writes them (same output options); unknown ids are
/// left out.
#[tracing::instrument(skip_all)]
pub(crate) async fn export_ids(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<GamesQuery>,
    body: web::Bytes,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let out = Output::of(&req, &query, false)?;
    let text = std::str::from_utf8(&body).map_err(|_| ApiError::bad_request("bad_ids", "the body is text"))?;
    let ids: Vec<GameId> = text.split(',').map(str::trim).filter_map(GameId::parse).collect();
    if ids.len() > MAX_EXPORT_IDS {
        return Err(ApiError::bad_request("bad_ids", format!("at most {MAX_EXPORT_IDS} games at a time")));
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(16);
    let state = state.into_inner();
    let base = lichess::base_url(&req);
    tokio::spawn(async move {
        for id in ids {
            match store::load(&state.pool, &id).await {
                Ok(Some(live)) if live.started_at.is_some() => {
                    if tx.send(out.write(&live, &base)).await.is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(game.id = %id, error = format!("{e:#}"), "exporting a game");
                    break;
                }
            }
        }
    });
    Ok(out.respond(rx))
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
    /// `true`: the id of the game each one plays, as `playingId`.
    #[serde(rename = "withGameIds")]
    with_game_ids: Option<String>,
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
    let with_game_ids = lichess::flag(query.with_game_ids.as_deref(), "withGameIds", false)?;
    let rows = db::users::status_of(&state.pool, &names).await.map_err(|e| internal(&e))?;
    let out: Vec<Value> = rows
        .into_iter()
        .map(|r| {
            let mut v = json!({"id": r.username.to_lowercase(), "name": r.username, "online": r.online,
                               "playing": r.playing.is_some()});
            if let Some(o) = v.as_object_mut() {
                if r.bot {
                    o.insert("title".into(), Value::from(crate::domain::BOT_TITLE));
                }
                if let (true, Some(game)) = (with_game_ids, r.playing) {
                    o.insert("playingId".into(), Value::from(game));
                }
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
/// when several), else its last game, as `GET /api/games/user` writes a game: PGN by default
/// as on lichess, JSON with `Accept: application/json`, with the same output options (`moves`,
/// `tags`, `clocks`, `pgnInJson`); `404` without any.
#[tracing::instrument(skip_all)]
pub(crate) async fn current_game(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<GamesQuery>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let out = Output::of(&req, &query, true)?;
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
    let text = out.write(&live, &lichess::base_url(&req));
    let content_type = if out.pgn { crate::game::export::PGN_CONTENT_TYPE } else { "application/json" };
    Ok(HttpResponse::Ok().content_type(content_type).body(text))
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
    if a.id == b.id {
        return Err(ApiError::bad_request("bad_users", "a crosstable is of two different accounts"));
    }
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
    if flag(query.object.as_deref(), "object", false)? {
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

/// `GET /api/user/{username}/perf/{perf}`: an account's rating and results in one perf (a
/// variant id, or a speed of standard chess, which shares standard's one Elo), as lichess's
/// perf statistics: `{"user", "perf": {"glicko", "nb", "progress"}, "rank", "percentile",
/// "stat": {"count", "highest", "lowest"}}`.
#[tracing::instrument(skip_all)]
pub(crate) async fn perf(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let (name, key) = path.into_inner();
    let u = find_user(&state, &name).await?;
    let speed = crate::game::Speed::from_key(&key);
    let variant = match speed {
        Some(_) => "standard",
        None => chessgold_engine::registry::variant(&key)
            .map(|v| v.id)
            .ok_or_else(|| not_found("No such perf: a variant id or a speed of standard chess"))?,
    };
    let rating = db::ratings::perf(&state.pool, u.id, variant).await.map_err(|e| internal(&e))?;
    let [all, rated, wins, draws, losses] =
        db::profiles::record_in(&state.pool, u.id, variant, speed).await.map_err(|e| internal(&e))?;
    let points: Vec<_> = db::profiles::rating_history(&state.pool, u.id)
        .await
        .map_err(|e| internal(&e))?
        .into_iter()
        .filter(|p| p.variant == variant)
        .collect();
    let extreme = |p: Option<&db::profiles::RatingPoint>| {
        p.map_or(Value::Null, |p| json!({"int": p.rating, "at": lichess::ms(p.at)}))
    };
    let provisional = rating.games < PROVISIONAL_UNDER;
    Ok(HttpResponse::Ok().json(json!({
        "user": {"name": u.username},
        "perf": {
            "glicko": {"rating": rating.rating, "deviation": if provisional { 150 } else { 60 }, "provisional": provisional},
            "nb": rating.games,
            "progress": 0,
        },
        "rank": null,
        "percentile": null,
        "stat": {
            "perfType": {"key": key, "name": chessgold_engine::registry::variant(variant).map_or(variant, |v| v.name)},
            "count": {"all": all, "rated": rated, "win": wins, "draw": draws, "loss": losses},
            "highest": extreme(points.iter().max_by_key(|p| p.rating)),
            "lowest": extreme(points.iter().min_by_key(|p| p.rating)),
        },
    })))
}
