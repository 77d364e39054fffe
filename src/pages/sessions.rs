//! `/account/sessions`: the signed-in sessions of the account (where and in which browser each
//! started, when it was last seen), each with a button that ends it on the server, and one that
//! ends every other session (as lichess's "sessions" page does).

use actix_session::Session;
use actix_web::http::header;
use actix_web::{HttpResponse, web};
use askama::Template;
use serde::Deserialize;
use uuid::Uuid;

use super::moderation::time_text;
use super::{PageCtx, render};
use crate::auth::csrf::CsrfForm;
use crate::auth::{current_session_id, current_user};
use crate::db;
use crate::error::PageError;
use crate::startup::AppState;

/// A session of the page.
#[derive(Debug, Clone)]
pub struct SessionLine {
    /// Its public id (the end form's).
    pub sid: String,
    /// Where it started.
    pub address: String,
    /// The browser, in words ("Firefox on Linux").
    pub browser: String,
    /// Its user agent as sent.
    pub agent: String,
    /// Started.
    pub started: String,
    /// Last seen.
    pub seen: String,
    /// This is the session viewing the page.
    pub current: bool,
}

/// The sessions page.
#[derive(Debug, Template)]
#[template(path = "account/sessions.html")]
pub struct SessionsPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The open sessions, the latest seen first.
    pub sessions: Vec<SessionLine>,
}

/// "Firefox on Linux", from a user agent; "Unknown browser" when it names none of the usual.
pub fn browser_name(agent: &str) -> String {
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Chromium/", "Chromium"),
        ("Safari/", "Safari"),
        ("curl/", "curl"),
    ]
    .iter()
    .find(|(mark, _)| agent.contains(mark))
    .map(|(_, name)| *name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(mark, _)| agent.contains(mark))
    .map(|(_, name)| *name);
    match (browser, system) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b.to_string(),
        (None, Some(s)) => format!("A browser on {s}"),
        (None, None) => "Unknown browser".to_string(),
    }
}

fn login_first() -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, "/login?next=%2Faccount%2Fsessions")).finish()
}

fn back() -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, "/account/sessions")).finish()
}

/// The account's open sessions.
#[tracing::instrument(skip_all)]
pub(crate) async fn list(state: web::Data<AppState>, session: Session) -> Result<HttpResponse, PageError> {
    let Some(me) = current_user(&session) else { return Ok(login_first()) };
    let here = current_session_id(&session);
    let sessions = db::sessions::open_of(&state.pool, me.id)
        .await?
        .into_iter()
        .map(|s| {
            let agent = s.user_agent.unwrap_or_default();
            SessionLine {
                sid: s.sid.to_string(),
                address: s.ip.unwrap_or_else(|| "unknown".into()),
                browser: browser_name(&agent),
                agent,
                started: time_text(s.created_at),
                seen: time_text(s.last_seen_at),
                current: Some(s.sid) == here,
            }
        })
        .collect();
    render(&SessionsPage { ctx: PageCtx::new(&session)?, sessions })
}

/// The end form: which session.
#[derive(Debug, Deserialize)]
pub struct EndForm {
    #[serde(default)]
    csrf_token: String,
    /// A session's public id; empty or absent for "every other session".
    #[serde(default)]
    sid: String,
}

crate::csrf_field!(EndForm);

/// Ends one session of the account (this one too: that is a log-out), or every other one.
#[tracing::instrument(skip_all)]
pub(crate) async fn end(
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<EndForm>,
) -> Result<HttpResponse, PageError> {
    let Some(me) = current_user(&session) else { return Ok(login_first()) };
    let here = current_session_id(&session);
    let sid = form.sid.trim();
    if sid.is_empty() {
        let ended = db::sessions::end_all_but(&state.pool, me.id, here).await?;
        tracing::info!(user.id = %me.id, ended = ended.len(), "other sessions ended");
        signed_out(&state, me.id, ended).await;
        return Ok(back());
    }
    let sid = Uuid::parse_str(sid).map_err(|_| PageError::BadRequest(format!("no session '{sid}'")))?;
    if !db::sessions::end(&state.pool, me.id, sid).await? {
        return Err(PageError::NotFound);
    }
    signed_out(&state, me.id, vec![sid]).await;
    if Some(sid) == here {
        crate::auth::log_out(&session);
        return Ok(HttpResponse::SeeOther().insert_header((header::LOCATION, "/")).finish());
    }
    Ok(back())
}

/// Tells every instance that these sessions ended: the sockets they opened close.
async fn signed_out(state: &AppState, user: Uuid, sessions: Vec<Uuid>) {
    if !sessions.is_empty() {
        crate::notify::send(state.broker.as_ref(), user, &crate::notify::UserMsg::SignedOut { sessions }).await;
    }
}
