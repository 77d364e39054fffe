//! Lichess's BOT accounts: `POST /api/bot/account/upgrade` makes an account with no games a BOT
//! for good, and `GET /api/bot/online` lists the BOTs whose event stream is open. A BOT plays
//! with the BOT API (`/api/bot/game/...`, the board API's calls in [`super::board`]), is
//! challenged like anyone, and stays out of the lobby's seeks and pools.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::auth::{BotUpgrade, Caller, Scoped};
use super::lichess::{internal, line};
use crate::db;
use crate::db::users::UpgradeError;
use crate::error::ApiError;
use crate::startup::AppState;

/// A BOT whose event stream was seen within this many seconds is online (the stream notes it
/// when it opens and every [`SEEN_EVERY`] while open).
pub const ONLINE_WITHIN_SECS: i32 = 120;
/// How often an open event stream of a BOT notes it online.
pub const SEEN_EVERY: std::time::Duration = std::time::Duration::from_secs(60);
/// Most BOTs `GET /api/bot/online` lists.
const MAX_ONLINE: i64 = 300;

/// `POST /api/bot/account/upgrade`.
#[tracing::instrument(skip_all)]
pub(crate) async fn upgrade(state: web::Data<AppState>, user: Scoped<BotUpgrade>) -> Result<HttpResponse, ApiError> {
    match db::users::upgrade_to_bot(&state.pool, user.id).await {
        Ok(()) => {
            tracing::info!(user.id = %user.id, "an account became a BOT");
            // What it waited for as a person goes: its seeks and its places in the pools.
            let me = [crate::game::PlayerRef::User(user.id)];
            if let Err(e) = crate::lobby::players_started(&state.lobby_ctx(), &me).await {
                tracing::warn!(error = format!("{e:#}"), "clearing a new BOT's seeks failed");
            }
            Ok(HttpResponse::Ok().json(json!({"ok": true})))
        }
        Err(e @ (UpgradeError::AlreadyBot | UpgradeError::HasGames)) => {
            Err(ApiError::bad_request("bot_upgrade_refused", e.to_string()))
        }
        Err(UpgradeError::NotFound) => Err(super::lichess::not_found("No such account")),
        Err(UpgradeError::Other(e)) => Err(internal(&e)),
    }
}

/// The query of `GET /api/bot/online`.
#[derive(Debug, Deserialize)]
pub(crate) struct OnlineQuery {
    /// How many BOTs at most (lichess's `nb`).
    nb: Option<i64>,
}

/// `GET /api/bot/online[?nb=N]`: the BOTs online, most recently seen first, as NDJSON of
/// lichess's user objects.
#[tracing::instrument(skip_all)]
pub(crate) async fn online(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<OnlineQuery>,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let nb = query.nb.unwrap_or(MAX_ONLINE).clamp(1, MAX_ONLINE);
    let bots = db::users::bots_online(&state.pool, ONLINE_WITHIN_SECS, nb).await.map_err(|e| internal(&e))?;
    let mut body = String::new();
    for (id, name) in bots {
        body.push_str(&line(&super::users::user_json(&state, &req, id, &name, true).await?));
    }
    Ok(HttpResponse::Ok().content_type("application/x-ndjson").body(body))
}

/// Why the lobby, the pools and the site's game forms refuse a BOT account.
pub const PEOPLE_ONLY: &str = "A BOT account plays only through the BOT API: it sends and accepts challenges. The \
                               lobby, the pools and the site's game forms are for people.";

/// Whether `who` is a BOT account (which pairs only by challenges).
///
/// # Errors
/// Database failures.
pub async fn is_bot_account(state: &AppState, who: &crate::game::PlayerRef) -> anyhow::Result<bool> {
    match who {
        crate::game::PlayerRef::User(id) => db::users::is_bot(&state.pool, *id).await,
        crate::game::PlayerRef::Guest(_) | crate::game::PlayerRef::Bot(_) => Ok(false),
    }
}
