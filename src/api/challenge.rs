//! Lichess's challenge API: `POST /api/challenge/{username}`, `/api/challenge/open`,
//! `/api/challenge/{id}/accept`, `/decline`, `/cancel`, and `GET /api/challenge`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::auth::{ChallengeAnswer, ChallengeRead, ChallengeWrite, Scoped};
use super::lichess::{self, internal, parse_body};
use crate::db;
use crate::error::ApiError;
use crate::game::{PlayerRef, TimeControl};
use crate::lobby::challenge::{self, ChallengeError, Dest, Terms, challenge_json};
use crate::startup::AppState;

impl From<ChallengeError> for ApiError {
    fn from(e: ChallengeError) -> Self {
        match e {
            ChallengeError::NotFound(m) => ApiError::new(StatusCode::NOT_FOUND, "not_found", m),
            ChallengeError::Forbidden(m) => ApiError::new(StatusCode::FORBIDDEN, "forbidden", m),
            ChallengeError::Invalid(m) => ApiError::bad_request("invalid_challenge", m),
            // The game cannot start now (accepting): 409, as the lobby answers, with the caller's
            // own game when it is theirs that stands in the way.
            ChallengeError::Busy { busy, yours, message } => {
                let e = ApiError::new(StatusCode::CONFLICT, "already_playing", message);
                if yours { e.with_game(busy.game) } else { e }
            }
            ChallengeError::Other(e) => internal(&e),
        }
    }
}

/// A challenge refused when it is sent answers 400, as lichess's `POST /api/challenge/{username}`
/// does (`{"error": "..."}`; our `code` beside it).
fn refused_at_creation(e: ChallengeError) -> ApiError {
    let busy = matches!(e, ChallengeError::Busy { .. });
    let mut api = ApiError::from(e);
    if busy {
        api.status = StatusCode::BAD_REQUEST;
    }
    api
}

/// A boolean sent as JSON `true` or as form text `true`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Flag {
    Bool(bool),
    Text(String),
}

/// A number sent as JSON or as form text.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Num {
    Int(i64),
    Text(String),
}

fn num(n: Option<&Num>, name: &str) -> Result<Option<i64>, ApiError> {
    match n {
        None => Ok(None),
        Some(Num::Int(i)) => Ok(Some(*i)),
        Some(Num::Text(t)) => t
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| ApiError::bad_request("bad_number", format!("{name} is a whole number"))),
    }
}

/// The body of a new challenge (lichess's fields).
#[derive(Debug, Deserialize)]
struct ChallengeBody {
    #[serde(default)]
    rated: Option<Flag>,
    #[serde(rename = "clock.limit", default)]
    clock_limit: Option<Num>,
    #[serde(rename = "clock.increment", default)]
    clock_increment: Option<Num>,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    variant: Option<String>,
    // Lichess's terms this server cannot honour yet: refused by name, never dropped.
    #[serde(default)]
    days: Option<Num>,
    #[serde(default)]
    fen: Option<String>,
    #[serde(rename = "keepAliveStream", default)]
    keep_alive_stream: Option<Flag>,
    #[serde(default)]
    rules: Option<String>,
    #[serde(default)]
    users: Option<String>,
    #[serde(rename = "expiresAt", default)]
    expires_at: Option<Num>,
}

impl ChallengeBody {
    /// Lichess's `users` of an open challenge: two account names, `a,b` (White's, Black's);
    /// refused on any other challenge.
    fn open_users(&self, open: bool) -> Result<Option<(&str, &str)>, ApiError> {
        let Some(text) = self.users.as_deref().map(str::trim).filter(|t| !t.is_empty()) else { return Ok(None) };
        if !open {
            return Err(ApiError::bad_request(
                "unsupported_term",
                "users: only an open challenge (POST /api/challenge/open) names its two players",
            ));
        }
        match text.split(',').map(str::trim).collect::<Vec<_>>()[..] {
            [a, b] if !a.is_empty() && !b.is_empty() => Ok(Some((a, b))),
            _ => Err(ApiError::bad_request("invalid_challenge", "users is two account names: white's,black's")),
        }
    }

    /// Refuses a lichess term that cannot be honoured here (an empty one counts as absent), by
    /// name, so that a client never gets a game other than the one it asked for.
    fn refuse_unsupported(&self) -> Result<(), ApiError> {
        let given = |t: &Option<String>| t.as_deref().is_some_and(|t| !t.trim().is_empty());
        let num_given = |n: &Option<Num>| match n {
            None => false,
            Some(Num::Int(_)) => true,
            Some(Num::Text(t)) => !t.trim().is_empty(),
        };
        let refused = [
            (
                num_given(&self.days),
                "days: correspondence games are not offered yet; send clock.limit and clock.increment",
            ),
            (
                flag(self.keep_alive_stream.as_ref(), "keepAliveStream")?,
                "keepAliveStream: the challenge is answered at once; follow it on /api/stream/event",
            ),
            (given(&self.rules), "rules: no extra rules are offered"),
            (num_given(&self.expires_at), "expiresAt: a challenge waits 20 minutes"),
        ];
        lichess::refuse_terms(refused)
    }
}

/// Reads `true`/`false`.
fn flag(f: Option<&Flag>, name: &str) -> Result<bool, ApiError> {
    match f {
        None => Ok(false),
        Some(Flag::Bool(b)) => Ok(*b),
        Some(Flag::Text(t)) => lichess::flag(Some(t), name, false),
    }
}

/// A time control of `limit` seconds + `increment` seconds, or unlimited without either.
///
/// # Errors
/// 400 for values out of range.
pub fn clock_of(limit: Option<i64>, increment: Option<i64>) -> Result<Option<TimeControl>, ApiError> {
    match (limit, increment) {
        (None, None) => Ok(None),
        (Some(l), i) => {
            let i = i.unwrap_or(0);
            if !(1..=10_800).contains(&l) || !(0..=180).contains(&i) {
                return Err(ApiError::bad_request(
                    "bad_clock",
                    "clock.limit is 1 to 10800 seconds and clock.increment 0 to 180 seconds",
                ));
            }
            Ok(TimeControl::new((l * 100) as i32, (i * 100) as i32))
        }
        (None, Some(_)) => Err(ApiError::bad_request("bad_clock", "clock.increment needs clock.limit")),
    }
}

fn terms(b: &ChallengeBody) -> Result<Terms, ApiError> {
    b.refuse_unsupported()?;
    Ok(Terms {
        variant: b.variant.clone().filter(|v| !v.is_empty()).unwrap_or_else(|| "standard".into()),
        clock: clock_of(
            num(b.clock_limit.as_ref(), "clock.limit")?,
            num(b.clock_increment.as_ref(), "clock.increment")?,
        )?,
        rated: flag(b.rated.as_ref(), "rated")?,
        color: b.color.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| "random".into()),
        initial_fen: b.fen.as_deref().map(str::trim).filter(|f| !f.is_empty()).map(str::to_string),
    })
}

/// `POST /api/challenge/{username}`.
#[tracing::instrument(skip_all)]
pub(crate) async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
    user: Scoped<ChallengeWrite>,
) -> Result<HttpResponse, ApiError> {
    let b: ChallengeBody = parse_body(&req, &body)?;
    b.open_users(false)?;
    let t = terms(&b)?;
    let c = challenge::create(&state.lobby_ctx(), user.id, Dest::User(&path), &t).await.map_err(refused_at_creation)?;
    Ok(HttpResponse::Ok().json(challenge_json(&c, &lichess::base_url(&req), Some(user.id))))
}

/// `POST /api/challenge/open`: lichess's open challenge, for two others, who take White and
/// Black by its `urlWhite` and `urlBlack` (or accept it with `color`).
#[tracing::instrument(skip_all)]
pub(crate) async fn open(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
    user: Scoped<ChallengeWrite>,
) -> Result<HttpResponse, ApiError> {
    let b: ChallengeBody = parse_body(&req, &body)?;
    let t = terms(&b)?;
    let dest = Dest::TwoOthers(b.open_users(true)?);
    let c = challenge::create(&state.lobby_ctx(), user.id, dest, &t).await.map_err(refused_at_creation)?;
    Ok(HttpResponse::Ok().json(challenge_json(&c, &lichess::base_url(&req), Some(user.id))))
}

/// The body of `POST /api/challenge/ai`: lichess's terms and the computer's `level`.
#[derive(Debug, Deserialize)]
struct AiBody {
    #[serde(default)]
    level: Option<Num>,
    #[serde(flatten)]
    terms: ChallengeBody,
}

/// `POST /api/challenge/ai`: a game against the site's computer at `level` 1-8 (casual, as every
/// game against it), started at once; `201` with the game, which the caller then plays on the
/// board API (or the BOT API) as any other.
#[tracing::instrument(skip_all)]
pub(crate) async fn ai(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
    user: Scoped<ChallengeWrite>,
) -> Result<HttpResponse, ApiError> {
    let b: AiBody = parse_body(&req, &body)?;
    let level = num(b.level.as_ref(), "level")?
        .and_then(|n| u8::try_from(n).ok())
        .and_then(chessgold_bot::Level::new)
        .ok_or_else(|| ApiError::bad_request("bad_level", "level is a whole number from 1 to 8"))?;
    b.terms.open_users(false)?;
    let t = terms(&b.terms)?;
    if t.rated {
        return Err(ApiError::bad_request("invalid_challenge", "games against the computer are casual"));
    }
    challenge::check_terms(&t)?;
    if !crate::bots::plays(&t.variant) {
        return Err(ApiError::bad_request(
            "invalid_challenge",
            format!("the computer does not play {} yet", t.variant),
        ));
    }
    let creator_color = match crate::game::parse_color(&t.color) {
        Some(c) => c,
        None => crate::lobby::random_color().map_err(|e| internal(&e))?,
    };
    let player = PlayerRef::User(user.id);
    let started = crate::bots::http::start_game(&state, player, &t, level, creator_color);
    let id = match started.await {
        Ok(id) => id,
        Err(crate::game::store::CreateError::Invalid(m)) => return Err(ApiError::bad_request("invalid_challenge", m)),
        Err(crate::game::store::CreateError::Busy(busy)) => {
            return Err(ApiError::bad_request(
                "already_playing",
                "You are playing a game with a clock: finish it before you start another one with a clock.",
            )
            .with_game(busy.game));
        }
        Err(crate::game::store::CreateError::Other(e)) => return Err(internal(&e)),
    };
    let live = crate::game::store::load(&state.pool, &id)
        .await
        .map_err(|e| internal(&e))?
        .ok_or_else(|| internal(&anyhow::anyhow!("game {id} vanished")))?;
    Ok(HttpResponse::Created().json(lichess::ai_game(&live, creator_color)))
}

/// The query of `POST /api/challenge/{id}/accept`.
#[derive(Debug, Deserialize)]
pub(crate) struct AcceptQuery {
    #[serde(default)]
    color: Option<String>,
}

/// `POST /api/challenge/{id}/accept`, with lichess's `color` for an open challenge's seat.
#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn accept(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<AcceptQuery>,
    user: Scoped<ChallengeAnswer>,
) -> Result<HttpResponse, ApiError> {
    let color = crate::game::parse_optional_color(query.color.as_deref())
        .map_err(|why| ApiError::bad_request("invalid_challenge", why))?;
    challenge::accept(&state.lobby_ctx(), &path, PlayerRef::User(user.id), color).await?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}

#[derive(Debug, Deserialize)]
struct DeclineBody {
    #[serde(default)]
    reason: Option<String>,
}

/// `POST /api/challenge/{id}/decline` with an optional `reason`.
#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn decline(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
    user: Scoped<ChallengeAnswer>,
) -> Result<HttpResponse, ApiError> {
    let b: DeclineBody = parse_body(&req, &body)?;
    challenge::decline(&state.lobby_ctx(), &path, user.id, b.reason.as_deref()).await?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}

/// `POST /api/challenge/{id}/cancel`.
#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn cancel(
    state: web::Data<AppState>,
    path: web::Path<String>,
    user: Scoped<ChallengeAnswer>,
) -> Result<HttpResponse, ApiError> {
    challenge::cancel(&state.lobby_ctx(), &path, user.id).await?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}

/// `GET /api/challenge/{id}/show`: one challenge, in any state, to its two accounts (an open
/// challenge to anyone with a token: its link is shared).
#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    user: Scoped<ChallengeRead>,
) -> Result<HttpResponse, ApiError> {
    let not_found = || lichess::not_found("No such challenge");
    if crate::game::GameId::parse(&path).is_none() {
        return Err(not_found());
    }
    let c = db::challenges::find(&state.pool, &path).await.map_err(|e| internal(&e))?.ok_or_else(not_found)?;
    if c.challenger_id != user.id && c.dest_id.is_some_and(|d| d != user.id) {
        return Err(not_found());
    }
    Ok(HttpResponse::Ok().json(challenge_json(&c, &lichess::base_url(&req), Some(user.id))))
}

/// `GET /api/challenge`: pending challenges, `{"in": [...], "out": [...]}`.
pub(crate) async fn list(
    req: HttpRequest,
    state: web::Data<AppState>,
    user: Scoped<ChallengeRead>,
) -> Result<HttpResponse, ApiError> {
    let rows = db::challenges::pending_of(&state.pool, user.id).await.map_err(|e| internal(&e))?;
    let base = lichess::base_url(&req);
    let (out, inc): (Vec<_>, Vec<_>) = rows.iter().partition(|c| c.challenger_id == user.id);
    let view = |v: Vec<&crate::db::challenges::ChallengeRow>| {
        v.into_iter().map(|c| challenge_json(c, &base, Some(user.id))).collect::<Vec<_>>()
    };
    Ok(HttpResponse::Ok().json(json!({"in": view(inc), "out": view(out)})))
}
