//! Errors that know their audience: pages get the site's error page, the API gets
//! `{"error": "..."}` with the right status.

use actix_session::SessionExt;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

use crate::game::GameId;
use crate::pages::{ErrorPage, PageCtx};

/// The failure of a page request.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// No such page.
    #[error("not found")]
    NotFound,
    /// The request could not be read.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The request is right but cannot be done now (the state of a game or a challenge stands
    /// in the way), with a sentence saying why.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The form's CSRF token is missing or wrong.
    #[error("the form's security token is missing or out of date")]
    Csrf,
    /// The signed-in account lacks the role the page needs (the `/mod` pages).
    #[error("forbidden")]
    Forbidden,
    /// The request came from another site.
    #[error("cross-origin request refused")]
    CrossOrigin,
    /// The body is too large.
    #[error("request too large")]
    TooLarge,
    /// Too many attempts.
    #[error("too many attempts")]
    TooManyRequests {
        /// Seconds until the next attempt is allowed.
        retry_after: u64,
    },
    /// A bug or an infrastructure failure; details go to the log only.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl PageError {
    fn title_and_message(&self) -> (&'static str, String) {
        match self {
            PageError::NotFound => (
                "Page not found",
                "There is no page at this address. It may have moved, or the link has a typo.".into(),
            ),
            PageError::BadRequest(what) => ("Bad request", format!("The request could not be read: {what}.")),
            PageError::Conflict(why) => ("Not possible right now", why.clone()),
            PageError::Csrf => (
                "Form expired",
                "This form's security token is missing or out of date (perhaps the form was open for a long time, \
                 or cookies are blocked). Go back, reload the page and send the form again."
                    .into(),
            ),
            PageError::Forbidden => {
                ("Not allowed", "This page is for moderators. Your account does not have that role.".into())
            }
            PageError::CrossOrigin => (
                "Request refused",
                "This request came from another site, so it was refused. Use the forms of this site.".into(),
            ),
            PageError::TooLarge => ("Request too large", "The form sent more data than the site accepts.".into()),
            PageError::TooManyRequests { retry_after } => (
                "Too many attempts",
                format!(
                    "You have tried this too often in a short time. Wait {} and try again.",
                    seconds_text(*retry_after)
                ),
            ),
            PageError::Internal(_) => ("Something went wrong", failure_sentence()),
        }
    }
}

/// What a 500 says, page or API: that something failed and under which request id it is in the
/// log (the response's `x-request-id`), never what failed.
fn failure_sentence() -> String {
    match crate::middleware::current_request_id() {
        Some(id) if !id.is_empty() => format!(
            "The server failed to answer this request. It is in the log as request {id}; please try again in a moment."
        ),
        _ => "The server failed to answer this request. It has been logged; please try again in a moment.".into(),
    }
}

/// "1 second" / "N seconds".
pub fn seconds_text(n: u64) -> String {
    if n == 1 { "1 second".into() } else { format!("{n} seconds") }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            PageError::NotFound => StatusCode::NOT_FOUND,
            PageError::BadRequest(_) => StatusCode::BAD_REQUEST,
            PageError::Conflict(_) => StatusCode::CONFLICT,
            PageError::Csrf | PageError::Forbidden | PageError::CrossOrigin => StatusCode::FORBIDDEN,
            PageError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            PageError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            PageError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let PageError::Internal(e) = self {
            tracing::error!(error = format!("{e:#}"), "request failed");
        }
        // Without the request there is no session here: [`page_context`] renders the page again
        // with the visitor's header once the response passes it.
        let mut resp = HttpResponse::build(self.status_code());
        resp.content_type(ContentType::html());
        if let PageError::TooManyRequests { retry_after } = self {
            resp.insert_header((header::RETRY_AFTER, retry_after.to_string()));
        }
        resp.body(self.page_html(PageCtx::anonymous()))
    }
}

impl PageError {
    /// The error page's HTML with the given layout (the signed-in header, or the anonymous one).
    pub fn page_html(&self, ctx: PageCtx) -> String {
        let status = self.status_code();
        let (title, message) = self.title_and_message();
        let page = ErrorPage { ctx, status: status.as_u16(), title, message };
        page.render().unwrap_or_else(|_| format!("{} {title}: {}", status.as_u16(), page.message))
    }
}

/// Middleware (inside the session middleware): an error page shown to a signed-in player is
/// rendered again with their page context, so the header keeps their menu and the log-out form
/// its token. It covers every [`PageError`], whoever raised it: handlers, extractors (form and
/// query errors), the default 404 service and the origin check. API paths are left alone (their
/// errors are JSON), and so is an anonymous visitor, whose page is already right.
///
/// # Errors
/// None of its own; the inner service's.
pub async fn page_context(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, String>>, actix_web::Error> {
    if req.path().starts_with("/api/") {
        return next.call(req).await.map(ServiceResponse::map_into_left_body);
    }
    // The session, not the request: routing needs the only handle on the request.
    let session = req.get_session();
    // Handlers' and extractors' errors come back as responses carrying their error; an `Err`
    // from further in (no service there returns one) goes on as it is.
    let res = next.call(req).await?;
    let Some(err) = res.response().error().and_then(|e| e.as_error::<PageError>()) else {
        return Ok(res.map_into_left_body());
    };
    let ctx = match PageCtx::reading(&session) {
        Ok(ctx) if ctx.user.is_some() => ctx,
        Ok(_) => return Ok(res.map_into_left_body()),
        Err(e) => {
            tracing::warn!(error = %e, "the session could not give the error page its context");
            return Ok(res.map_into_left_body());
        }
    };
    let html = err.page_html(ctx);
    let (req, resp) = res.into_parts();
    // The status, the headers (Retry-After) and the error (for the request log) stay.
    Ok(ServiceResponse::new(req, resp.set_body(html)).map_into_right_body())
}

/// The failure of an API request: a status, a stable code and a sentence.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable snake_case code.
    pub code: &'static str,
    /// What is wrong, for people.
    pub message: String,
    /// The index of the offending action, when there is one.
    pub index: Option<usize>,
    /// Seconds to wait, sent as `Retry-After` (429).
    pub retry_after: Option<u64>,
    /// The game that stands in the way (the caller's running game, for `already_playing`):
    /// sent as `game` and `url` so a page can link to it.
    pub game: Option<GameId>,
}

impl ApiError {
    /// An error with a status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), index: None, retry_after: None, game: None }
    }

    /// 400 with a message.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 422 with a message.
    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// The error with the game that stands in the way.
    pub fn with_game(mut self, game: GameId) -> ApiError {
        self.game = Some(game);
        self
    }
}

#[derive(serde::Serialize)]
struct ApiErrorBody<'a> {
    error: &'a str,
    code: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    game: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        if self.status.is_server_error() {
            tracing::error!(error = %self.message, code = self.code, "api request failed");
        }
        // A 500's own text is for the log: the answer only says that it failed, and where in the
        // log to look.
        let failure;
        let message = if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            failure = failure_sentence();
            &failure
        } else {
            &self.message
        };
        let mut resp = HttpResponse::build(self.status);
        if let Some(wait) = self.retry_after {
            resp.insert_header((header::RETRY_AFTER, wait.to_string()));
        }
        resp.json(ApiErrorBody {
            error: message,
            code: self.code,
            index: self.index,
            game: self.game.as_ref().map(GameId::as_str),
            url: self.game.as_ref().map(|g| format!("/{g}")),
        })
    }
}
