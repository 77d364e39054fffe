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
use crate::lobby::challenge::{self, ChallengeError, Terms, challenge_json};
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
}

/// Reads `true`/`false`.
fn flag(f: Option<&Flag>, name: &str) -> Result<bool, ApiError> {
    match f {
        None => Ok(false),
        Some(Flag::Bool(b)) => Ok(*b),
        Some(Flag::Text(t)) => match t.as_str() {
            "true" | "1" | "on" => Ok(true),
            "false" | "0" | "" => Ok(false),
            _ => Err(ApiError::bad_request("bad_flag", format!("{name} is true or false"))),
        },
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
    Ok(Terms {
        variant: b.variant.clone().filter(|v| !v.is_empty()).unwrap_or_else(|| "standard".into()),
        clock: clock_of(
            num(b.clock_limit.as_ref(), "clock.limit")?,
            num(b.clock_increment.as_ref(), "clock.increment")?,
        )?,
        rated: flag(b.rated.as_ref(), "rated")?,
        color: b.color.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| "random".into()),
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
    let t = terms(&parse_body(&req, &body)?)?;
    let c = challenge::create(&state.lobby_ctx(), user.id, Some(&path), &t).await.map_err(refused_at_creation)?;
    Ok(HttpResponse::Ok().json(challenge_json(&c, &lichess::base_url(&req), Some(user.id))))
}

/// `POST /api/challenge/open`: a challenge whoever opens its `url` first may accept.
#[tracing::instrument(skip_all)]
pub(crate) async fn open(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
    user: Scoped<ChallengeWrite>,
) -> Result<HttpResponse, ApiError> {
    let t = terms(&parse_body(&req, &body)?)?;
    let c = challenge::create(&state.lobby_ctx(), user.id, None, &t).await.map_err(refused_at_creation)?;
    Ok(HttpResponse::Ok().json(challenge_json(&c, &lichess::base_url(&req), Some(user.id))))
}

/// `POST /api/challenge/{id}/accept`.
#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn accept(
    state: web::Data<AppState>,
    path: web::Path<String>,
    user: Scoped<ChallengeAnswer>,
) -> Result<HttpResponse, ApiError> {
    challenge::accept(&state.lobby_ctx(), &path, PlayerRef::User(user.id)).await?;
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
