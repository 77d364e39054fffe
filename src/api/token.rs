//! Lichess's token endpoints: `POST /api/token/test` says what the tokens in its body are, and
//! `DELETE /api/token` revokes the token the request is made with.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::auth::{Caller, bearer, hash_token, unauthorized};
use super::lichess::internal;
use crate::db;
use crate::error::ApiError;
use crate::startup::AppState;

/// Most tokens tested in one request (lichess's limit).
pub const MAX_TESTED: usize = 1000;

/// The tokens of a test's body: text, separated by commas.
///
/// # Errors
/// 400 for a body that is not text, holds no token, or more than [`MAX_TESTED`].
fn tested(body: &[u8]) -> Result<Vec<&str>, ApiError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::bad_request("bad_body", "the body is the tokens as text, separated by commas"))?;
    let tokens: Vec<&str> = text.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
    if tokens.is_empty() {
        return Err(ApiError::bad_request("bad_body", "no token to test: send them as text, separated by commas"));
    }
    if tokens.len() > MAX_TESTED {
        return Err(ApiError::bad_request("bad_body", format!("at most {MAX_TESTED} tokens at once")));
    }
    Ok(tokens)
}

/// `POST /api/token/test`: for each token of the body, its scopes, its account and when it
/// expires (never), or `null` for one that is unknown or revoked.
#[tracing::instrument(skip_all)]
pub(crate) async fn test(
    state: web::Data<AppState>,
    body: web::Bytes,
    _caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let tokens = tested(&body)?;
    let hashes: Vec<String> = tokens.iter().map(|t| hash_token(t)).collect();
    let live = db::tokens::test(&state.pool, &hashes).await.map_err(|e| internal(&e))?;
    let mut out = Map::new();
    for (token, hash) in tokens.iter().zip(&hashes) {
        let info = live.iter().find(|t| &t.hash == hash).map_or(
            Value::Null,
            |t| json!({"scopes": t.scopes.join(","), "userId": t.username.to_lowercase(), "expires": null}),
        );
        out.insert((*token).to_string(), info);
    }
    Ok(HttpResponse::Ok().json(out))
}

/// `DELETE /api/token`: revokes the token of the request (204); only a token can do this.
#[tracing::instrument(skip_all)]
pub(crate) async fn revoke(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?.ok_or_else(|| unauthorized("Send the token to revoke: Authorization: Bearer <token>"))?;
    let owner = db::tokens::owner_of(&state.pool, &hash_token(token))
        .await
        .map_err(|e| internal(&e))?
        .ok_or_else(|| unauthorized("No such token"))?;
    db::tokens::revoke(&state.pool, owner.user_id, owner.token_id).await.map_err(|e| internal(&e))?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_body_is_tokens_separated_by_commas() {
        assert_eq!(tested(b"cgp_a, cgp_b,,cgp_c ").unwrap(), ["cgp_a", "cgp_b", "cgp_c"]);
        assert_eq!(tested(b"").unwrap_err().code, "bad_body");
        assert_eq!(tested(b" , ").unwrap_err().code, "bad_body");
        assert_eq!(tested(&[0xff, 0xfe]).unwrap_err().code, "bad_body");
        let many = vec!["t"; MAX_TESTED + 1].join(",");
        assert!(tested(many.as_bytes()).unwrap_err().message.contains("at most 1000"));
    }
}
