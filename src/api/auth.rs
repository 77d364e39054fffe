//! Who calls the API: a personal token (`Authorization: Bearer ...`) with its scopes, or the
//! site's logged-in session (all scopes; the origin check and SameSite cookies keep other sites
//! out). Tokens are random, shown once, and stored as their SHA-256.

use actix_session::Session;
use actix_web::HttpRequest;
use actix_web::http::{StatusCode, header};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::db;
use crate::error::ApiError;
use crate::game::model::hex;
use crate::startup::AppState;

/// The scopes a token can have, with what they allow: lichess's list, so that a client asking
/// for any of them gets its token. Those of features this site does not have yet allow nothing.
pub const SCOPES: [(&str, &str); 22] = [
    ("board:play", "Play games with the board API, seek opponents"),
    ("bot:play", "Play games as a BOT account with the BOT API, and upgrade an account to a BOT"),
    ("challenge:read", "Read incoming challenges and the event stream"),
    ("challenge:write", "Send, accept, decline and cancel challenges"),
    ("challenge:bulk", "Create many games at once for other players (allows nothing here)"),
    ("follow:read", "Read who you follow (allows nothing yet)"),
    ("follow:write", "Block and unblock players"),
    ("preference:read", "Read your preferences (allows nothing yet)"),
    ("preference:write", "Write your preferences (allows nothing yet)"),
    ("email:read", "Read your email address (this site keeps none)"),
    ("engine:read", "Read your external engines (allows nothing here)"),
    ("engine:write", "Create and update external engines (allows nothing here)"),
    ("msg:write", "Send private messages (allows nothing yet)"),
    ("study:read", "Read private studies (allows nothing here)"),
    ("study:write", "Create and change studies (allows nothing here)"),
    ("tournament:write", "Create and join tournaments (allows nothing yet)"),
    ("racer:write", "Create and join puzzle races (allows nothing here)"),
    ("puzzle:read", "Read puzzle activity (allows nothing here)"),
    ("puzzle:write", "Record puzzle activity (allows nothing here)"),
    ("team:read", "Read private team information (allows nothing here)"),
    ("team:write", "Join and leave teams (allows nothing here)"),
    ("team:lead", "Manage teams you lead (allows nothing here)"),
];

/// Prefix of every token, so leaked ones are easy to recognise.
const TOKEN_PREFIX: &str = "cgp_";

/// A new random token (shown once) and its hash (stored).
///
/// # Errors
/// No randomness is available.
pub fn new_token() -> anyhow::Result<(String, String)> {
    let token = format!("{TOKEN_PREFIX}{}", crate::game::random_base62(32)?);
    let hash = hash_token(&token);
    Ok((token, hash))
}

/// The stored form of a token: hex SHA-256.
pub fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Parses a scope list (`board:play,challenge:read` or space separated).
///
/// # Errors
/// A sentence naming the unknown scope.
pub fn parse_scopes(text: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for s in text.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()) {
        if !SCOPES.iter().any(|(k, _)| *k == s) {
            let known: Vec<&str> = SCOPES.iter().map(|(k, _)| *k).collect();
            return Err(format!(
                "unknown scope '{}' (known: {})",
                s.chars().take(40).collect::<String>(),
                known.join(", ")
            ));
        }
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    Ok(out)
}

/// An authenticated API caller.
#[derive(Debug, Clone)]
pub struct ApiUser {
    /// The account.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// Granted scopes; `None` for the site's own session (everything).
    pub scopes: Option<Vec<String>>,
    /// The site's session it came with (its public id); `None` for a token.
    pub session: Option<Uuid>,
    /// Whether the account is a BOT (it plays with the BOT API only).
    pub bot: bool,
    /// The token it came with (its id); `None` for the site's session.
    pub token: Option<Uuid>,
}

impl ApiUser {
    /// Whether the caller holds one of `scopes`.
    pub fn has_any(&self, scopes: &[&str]) -> bool {
        match &self.scopes {
            None => true,
            Some(held) => scopes.is_empty() || scopes.iter().any(|s| held.iter().any(|h| h == s)),
        }
    }
}

/// 401 with lichess's wording.
pub fn unauthorized(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
}

/// The bearer token of a request: `Ok(None)` without an `Authorization` header.
pub(crate) fn bearer(req: &HttpRequest) -> Result<Option<&str>, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else { return Ok(None) };
    let text = value.to_str().map_err(|_| unauthorized("No such token"))?;
    match text.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => {
            Ok(Some(token.trim()))
        }
        _ => Err(unauthorized("Authorization must be 'Bearer <token>'")),
    }
}

/// The caller, when there is one: a valid token, else the session's account. A token that is
/// wrong or revoked is refused even when a session is there. Each authenticated request counts
/// against the caller's rate limit.
///
/// # Errors
/// 401 for a bad token, 429 over the rate limit, 500 when the database fails.
pub async fn caller(req: &HttpRequest, state: &AppState, session: &Session) -> Result<Option<ApiUser>, ApiError> {
    let user = match bearer(req)? {
        Some(token) => {
            let owner = db::tokens::owner_of(&state.pool, &hash_token(token))
                .await
                .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "unavailable", format!("{e:#}")))?
                .ok_or_else(|| unauthorized("No such token"))?;
            limit(state, owner.token_id)?;
            ApiUser {
                id: owner.user_id,
                name: owner.username,
                scopes: Some(owner.scopes),
                session: None,
                bot: owner.bot,
                token: Some(owner.token_id),
            }
        }
        None => match crate::auth::current_user(session) {
            Some(u) => {
                limit(state, u.id)?;
                let bot = db::users::is_bot(&state.pool, u.id)
                    .await
                    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "unavailable", format!("{e:#}")))?;
                ApiUser {
                    id: u.id,
                    name: u.name,
                    scopes: None,
                    session: crate::auth::current_session_id(session),
                    bot,
                    token: None,
                }
            }
            None => {
                crate::auth::rate_limit::limit_ip(req, state)?;
                return Ok(None);
            }
        },
    };
    Ok(Some(user))
}

fn limit(state: &AppState, key: Uuid) -> Result<(), ApiError> {
    state.limiters.api(key).map_err(|wait| {
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many requests with this token; wait {wait} s"),
        );
        e.retry_after = Some(wait);
        e
    })
}

/// The caller, who must hold one of `scopes` (any token when empty).
///
/// # Errors
/// 401 without a valid token or session, 403 without the scope, 429 over the rate limit.
pub async fn require(
    req: &HttpRequest,
    state: &AppState,
    session: &Session,
    scopes: &[&str],
) -> Result<ApiUser, ApiError> {
    let user = caller(req, state, session).await?.ok_or_else(|| unauthorized("No such token"))?;
    if !user.has_any(scopes) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "missing_scope",
            format!("Missing scope: this needs {}", scopes.join(" or ")),
        ));
    }
    Ok(user)
}

/// Which accounts a route serves: lichess keeps its BOT API for BOT accounts and its board API
/// (and the pairing a human does) for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accounts {
    /// Any account.
    Any,
    /// Accounts that are not BOTs.
    Humans,
    /// BOT accounts.
    Bots,
}

impl Accounts {
    /// Refuses an account of the other kind, in lichess's words.
    ///
    /// # Errors
    /// 400 `bot_only` or `not_for_bots`.
    pub fn check(self, user: &ApiUser) -> Result<(), ApiError> {
        match (self, user.bot) {
            (Accounts::Humans, true) => Err(ApiError::bad_request(
                "not_for_bots",
                "This endpoint cannot be used with a Bot account: use the BOT API (/api/bot/...).",
            )),
            (Accounts::Bots, false) => Err(ApiError::bad_request(
                "bot_only",
                "This endpoint can only be used with a Bot account (POST /api/bot/account/upgrade makes one).",
            )),
            _ => Ok(()),
        }
    }
}

/// The scopes a route accepts, as a type: a handler takes [`Scoped<S>`] and is reached only by a
/// caller holding one of `S::SCOPES` (the site's session holds all), whose account is of the
/// kind `S::ACCOUNTS`.
pub trait Scope {
    /// The scopes of which the caller needs one (any token when empty).
    const SCOPES: &'static [&'static str];
    /// The accounts served.
    const ACCOUNTS: Accounts;
}

/// Declares scope kinds, with the accounts they serve (`Any` unless named).
macro_rules! scopes {
    ($( $(#[$doc:meta])* $name:ident = [$($scope:literal),*] $(for $who:ident)?; )*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name;

        impl Scope for $name {
            const SCOPES: &'static [&'static str] = &[$($scope),*];
            const ACCOUNTS: Accounts = scopes!(@who $($who)?);
        }
    )*};
    (@who) => { Accounts::Any };
    (@who $who:ident) => { Accounts::$who };
}

scopes! {
    /// Any valid token or the session (the account endpoints).
    AnyToken = [];
    /// `board:play`: the board API and seeks, for accounts that are not BOTs.
    BoardPlay = ["board:play"] for Humans;
    /// `bot:play`: the BOT API, for BOT accounts.
    BotPlay = ["bot:play"] for Bots;
    /// `bot:play`, any account: the upgrade to a BOT.
    BotUpgrade = ["bot:play"];
    /// `challenge:write` (or `bot:play`, as lichess lets a BOT's token): sending challenges.
    ChallengeWrite = ["challenge:write", "bot:play"];
    /// `challenge:write`, `board:play` or `bot:play`: answering challenges.
    ChallengeAnswer = ["challenge:write", "board:play", "bot:play"];
    /// `challenge:read`, `challenge:write` or `bot:play`: listing challenges.
    ChallengeRead = ["challenge:read", "challenge:write", "bot:play"];
    /// `follow:write`: blocking and unblocking players.
    FollowWrite = ["follow:write"];
    /// Any of the game scopes: the event stream.
    EventStream = ["challenge:read", "board:play", "challenge:write", "bot:play"];
}

/// An extractor: the API caller, who holds one of `S`'s scopes. Rejects with 401 without a
/// valid token or session, 403 without the scope, 429 over the rate limit (see [`require`]).
#[derive(Debug, Clone)]
pub struct Scoped<S> {
    /// The caller.
    pub user: ApiUser,
    scope: std::marker::PhantomData<S>,
}

impl<S> std::ops::Deref for Scoped<S> {
    type Target = ApiUser;

    fn deref(&self) -> &ApiUser {
        &self.user
    }
}

/// The application state of a request, as an API error when it is missing (a bug of start-up).
fn state_of(req: &HttpRequest) -> Result<actix_web::web::Data<AppState>, ApiError> {
    req.app_data::<actix_web::web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "unavailable", "no application state"))
}

impl<S: Scope> actix_web::FromRequest for Scoped<S> {
    type Error = ApiError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = state_of(&req)?;
            let session = actix_session::SessionExt::get_session(&req);
            let user = require(&req, &state, &session, S::SCOPES).await?;
            S::ACCOUNTS.check(&user)?;
            Ok(Scoped { user, scope: std::marker::PhantomData })
        })
    }
}

/// An extractor: the API caller when there is one (see [`caller`]), for the public endpoints,
/// whose requests still count against the caller's (or the address's) rate limit.
#[derive(Debug, Clone)]
pub struct Caller(pub Option<ApiUser>);

impl actix_web::FromRequest for Caller {
    type Error = ApiError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = state_of(&req)?;
            let session = actix_session::SessionExt::get_session(&req);
            Ok(Caller(caller(&req, &state, &session).await?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_parse_and_unknown_ones_are_refused() {
        assert_eq!(
            parse_scopes("board:play, challenge:read board:play").unwrap(),
            vec!["board:play", "challenge:read"]
        );
        assert!(parse_scopes("board:play,admin").is_err());
        assert!(parse_scopes("").unwrap().is_empty());
    }

    #[test]
    fn tokens_are_random_and_hashed() {
        let (a, ha) = new_token().unwrap();
        let (b, _) = new_token().unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("cgp_") && a.len() == 36);
        assert_eq!(ha, hash_token(&a));
        assert_eq!(ha.len(), 64);
    }
}
