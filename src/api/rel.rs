//! Lichess's block endpoints: `POST /api/rel/block/{username}` and
//! `POST /api/rel/unblock/{username}` (scope `follow:write`), over `moderation::blocks`.

use actix_web::{HttpResponse, web};
use serde_json::json;

use super::auth::{FollowWrite, Scoped};
use super::lichess::{internal, not_found};
use crate::db;
use crate::error::ApiError;
use crate::moderation::blocks::{self, BlockError};
use crate::startup::AppState;

/// The caller blocks `username`: `{"ok": true}` (blocking twice changes nothing).
#[tracing::instrument(skip_all)]
pub(crate) async fn block(
    state: web::Data<AppState>,
    path: web::Path<String>,
    caller: Scoped<FollowWrite>,
) -> Result<HttpResponse, ApiError> {
    let target = db::users::find_by_name(&state.pool, &path).await.map_err(|e| internal(&e))?;
    let target = target.ok_or_else(|| not_found("no such user"))?;
    match blocks::block(&state.pool, caller.id, target.id).await {
        Ok(_) => Ok(HttpResponse::Ok().json(json!({"ok": true}))),
        Err(e @ (BlockError::Yourself | BlockError::TooMany)) => {
            Err(ApiError::bad_request("block_refused", e.to_string()))
        }
        Err(BlockError::NoSuchUser) => Err(not_found("no such user")),
        Err(BlockError::Other(e)) => Err(internal(&e)),
    }
}

/// The caller unblocks `username`: `{"ok": true}` (also when it was not blocked).
#[tracing::instrument(skip_all)]
pub(crate) async fn unblock(
    state: web::Data<AppState>,
    path: web::Path<String>,
    caller: Scoped<FollowWrite>,
) -> Result<HttpResponse, ApiError> {
    let target = db::users::find_by_name(&state.pool, &path).await.map_err(|e| internal(&e))?;
    let target = target.ok_or_else(|| not_found("no such user"))?;
    blocks::unblock(&state.pool, caller.id, target.id).await.map_err(|e| internal(&e))?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}
