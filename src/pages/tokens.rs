//! `/account/tokens`: a logged-in player creates personal API tokens (with a description and
//! scopes; the token is shown once) and revokes them.

use actix_session::Session;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, web};
use askama::Template;
use serde::Deserialize;
use time::OffsetDateTime;
use uuid::Uuid;

use super::profile::date_text;
use super::{PageCtx, render, render_status};
use crate::api::auth::{SCOPES, new_token};
use crate::auth::csrf::CsrfForm;
use crate::auth::current_user;
use crate::db;
use crate::db::tokens::TokenRow;
use crate::error::PageError;
use crate::startup::AppState;

/// A token line of the page.
#[derive(Debug, Clone)]
pub struct TokenLine {
    /// Key (for the revoke form).
    pub id: String,
    /// Description.
    pub description: String,
    /// Scopes, comma separated.
    pub scopes: String,
    /// Creation date.
    pub created: String,
    /// Last use, or `never`.
    pub used: String,
}

/// The token page.
#[derive(Debug, Template)]
#[template(path = "account/tokens.html")]
pub struct TokensPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The account's tokens.
    pub tokens: Vec<TokenLine>,
    /// The scopes offered: (key, explanation).
    pub scopes: Vec<(&'static str, &'static str)>,
    /// A token just created, shown once.
    pub created: Option<String>,
    /// What is wrong with the form.
    pub error: Option<String>,
}

fn line(t: TokenRow) -> TokenLine {
    TokenLine {
        id: t.id.to_string(),
        description: t.description,
        scopes: t.scopes.join(", "),
        created: date_text(t.created_at),
        used: t.last_used_at.map_or_else(|| "never".to_string(), |at: OffsetDateTime| date_text(at)),
    }
}

fn login_first() -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, "/login?next=/account/tokens")).finish()
}

async fn page(
    state: &AppState,
    session: &Session,
    user: Uuid,
    created: Option<String>,
    error: Option<String>,
) -> Result<TokensPage, PageError> {
    let tokens = db::tokens::of_user(&state.pool, user).await?.into_iter().map(line).collect();
    Ok(TokensPage { ctx: PageCtx::new(session)?, tokens, scopes: SCOPES.to_vec(), created, error })
}

#[tracing::instrument(skip_all)]
pub(crate) async fn list(state: web::Data<AppState>, session: Session) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first()) };
    render(&page(&state, &session, user.id, None, None).await?)
}

/// The creation form: a description and one checkbox per scope.
#[derive(Debug, Deserialize)]
pub struct CreateForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    description: String,
    #[serde(default, rename = "board:play")]
    board_play: Option<String>,
    #[serde(default, rename = "challenge:read")]
    challenge_read: Option<String>,
    #[serde(default, rename = "challenge:write")]
    challenge_write: Option<String>,
    #[serde(default, rename = "follow:write")]
    follow_write: Option<String>,
}

crate::csrf_field!(CreateForm);

#[tracing::instrument(skip_all)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<CreateForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first()) };
    let description = form.description.trim();
    if description.is_empty() || description.chars().count() > 100 {
        let p =
            page(&state, &session, user.id, None, Some("Describe the token in 1 to 100 characters.".into())).await?;
        return render_status(&p, StatusCode::UNPROCESSABLE_ENTITY);
    }
    let scopes: Vec<String> = [
        ("board:play", &form.board_play),
        ("challenge:read", &form.challenge_read),
        ("challenge:write", &form.challenge_write),
        ("follow:write", &form.follow_write),
    ]
    .into_iter()
    .filter(|(_, v)| v.is_some())
    .map(|(k, _)| k.to_string())
    .collect();
    let (token, hash) = new_token()?;
    db::tokens::insert(&state.pool, user.id, description, &scopes, &hash).await?;
    tracing::info!(user.id = %user.id, "API token created");
    render(&page(&state, &session, user.id, Some(token), None).await?)
}

#[tracing::instrument(skip_all)]
pub(crate) async fn revoke(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    _checked: CsrfForm<crate::game::http::TokenForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first()) };
    let id = Uuid::parse_str(&path).map_err(|_| PageError::NotFound)?;
    if !db::tokens::revoke(&state.pool, user.id, id).await? {
        return Err(PageError::NotFound);
    }
    Ok(HttpResponse::SeeOther().insert_header((header::LOCATION, "/account/tokens")).finish())
}
