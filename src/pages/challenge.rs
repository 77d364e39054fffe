//! Challenge pages: the challenge form of a profile (`POST /@/{username}/challenge`), an open
//! challenge link (`POST /challenge/open`), and `/challenge/{id}` where the challenged player (or,
//! for an open link, anyone) accepts or declines and the challenger waits or cancels. A challenge
//! made for two others (`POST /api/challenge/open`) offers its seats there: `?color=white` or
//! `?color=black` (its `urlWhite` and `urlBlack`) offers that one.

use actix_session::Session;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde::Deserialize;
use time::OffsetDateTime;

use super::{PageCtx, render, render_status};
use crate::auth::csrf::CsrfForm;
use crate::auth::current_user;
use crate::db;
use crate::error::PageError;
use crate::game::TimeControl;
use crate::game::identity::Identity;
use crate::lobby::challenge::{self, Accepted, ChallengeError, DECLINE_REASONS, Dest, Terms, decline_text};
use crate::startup::AppState;

impl From<ChallengeError> for PageError {
    fn from(e: ChallengeError) -> Self {
        match e {
            ChallengeError::NotFound(_) => PageError::NotFound,
            ChallengeError::Forbidden(m) | ChallengeError::Invalid(m) => PageError::BadRequest(m),
            ChallengeError::Busy { message, .. } => PageError::Conflict(message),
            ChallengeError::Other(e) => PageError::Internal(e),
        }
    }
}

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, to.to_string())).finish()
}

/// The challenge form (as the friend form: `variant`, `time`, `mode`, `color`).
#[derive(Debug, Deserialize)]
pub struct ChallengeForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    variant: String,
    #[serde(default)]
    time: String,
    #[serde(default)]
    mode: String,
    #[serde(default)]
    color: String,
}

fn terms(form: &ChallengeForm) -> Result<Terms, ChallengeError> {
    let clock = TimeControl::parse_offer(&form.time).map_err(ChallengeError::Invalid)?;
    Ok(Terms {
        variant: form.variant.clone(),
        clock,
        rated: form.mode == "rated",
        color: if form.color.is_empty() { "random".into() } else { form.color.clone() },
        initial_fen: None,
    })
}

#[tracing::instrument(skip_all)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    form: CsrfForm<ChallengeForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(see_other(&format!("/login?next=/@/{path}"))) };
    let sent = match terms(&form) {
        Ok(terms) => challenge::create(&state.lobby_ctx(), user.id, Dest::User(&path), &terms).await,
        Err(e) => Err(e),
    };
    match sent {
        Ok(c) => Ok(see_other(&format!("/challenge/{}", c.id))),
        Err(e) => refused(&state, &session, &path, e).await,
    }
}

#[tracing::instrument(skip_all)]
pub(crate) async fn create_open(
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<ChallengeForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(see_other("/login")) };
    let sent = match terms(&form) {
        Ok(terms) => challenge::create(&state.lobby_ctx(), user.id, Dest::Anyone, &terms).await,
        Err(e) => Err(e),
    };
    match sent {
        Ok(c) => Ok(see_other(&format!("/challenge/{}", c.id))),
        Err(e) => refused(&state, &session, &user.name, e).await,
    }
}

/// A challenge refused when it is sent: the profile it was sent from again, its form open with
/// the reason (409 when a running game stands in the way, 422 for terms that cannot be played).
async fn refused(
    state: &AppState,
    session: &Session,
    profile: &str,
    e: ChallengeError,
) -> Result<HttpResponse, PageError> {
    let (status, message, busy_game) = match e {
        ChallengeError::Busy { busy, yours, message } => {
            (StatusCode::CONFLICT, message, yours.then(|| busy.game.to_string()))
        }
        ChallengeError::Invalid(m) => (StatusCode::UNPROCESSABLE_ENTITY, capitalised(&m), None),
        other => return Err(other.into()),
    };
    let mut page = super::profile::profile_page(state, session, profile, 1).await?;
    page.challenge_error = Some(message);
    page.busy_game = busy_game;
    render_status(&page, status)
}

/// A sentence from a short reason: capital first letter, final full stop.
fn capitalised(reason: &str) -> String {
    let mut chars = reason.chars();
    let mut out: String = chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
    out.push_str(chars.as_str());
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// The challenge page.
#[derive(Debug, Template)]
#[template(path = "challenge/show.html")]
pub struct ChallengePage {
    /// Layout.
    pub ctx: PageCtx,
    /// Id.
    pub id: String,
    /// The link to share.
    pub url: String,
    /// Challenger's name.
    pub challenger: String,
    /// Challenged account, or `None` for an open link.
    pub dest: Option<String>,
    /// Variant name.
    pub variant: String,
    /// `5+3` or `Unlimited`.
    pub time: String,
    /// Rated.
    pub rated: bool,
    /// The challenger's colour choice.
    pub color: String,
    /// `created`, `declined`, `canceled` (or lapsed).
    pub status: String,
    /// The decline sentence.
    pub reason: Option<String>,
    /// The viewer sent it.
    pub mine: bool,
    /// The viewer may accept it.
    pub can_accept: bool,
    /// The viewer may decline it.
    pub can_decline: bool,
    /// Made for two others, nobody seated yet: the seats it offers (`white`, `black`).
    pub seats: Vec<&'static str>,
    /// Decline reasons: (key, sentence).
    pub reasons: Vec<(&'static str, &'static str)>,
    /// Why accepting did not start the game (the challenge stays open).
    pub refusal: Option<String>,
    /// The viewer's running game, when that is what stands in the way.
    pub busy_game: Option<String>,
}

/// The query of a challenge page: the seat a link offers.
#[derive(Debug, Deserialize)]
pub(crate) struct SeatQuery {
    #[serde(default)]
    color: Option<String>,
}

#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    query: web::Query<SeatQuery>,
) -> Result<HttpResponse, PageError> {
    let seat =
        crate::game::parse_optional_color(query.color.as_deref()).map_err(|why| PageError::BadRequest(why.into()))?;
    match challenge_page(&req, &state, &session, &path, seat).await? {
        Some(page) => render(&page),
        None => Ok(see_other(&format!("/{path}"))),
    }
}

/// The page of a challenge, `None` once it was accepted (its game is the page then); `seat` is
/// the seat a link offers, of a challenge for two.
async fn challenge_page(
    req: &HttpRequest,
    state: &AppState,
    session: &Session,
    id: &str,
    seat: Option<chessgold_engine::Color>,
) -> Result<Option<ChallengePage>, PageError> {
    if crate::game::GameId::parse(id).is_none() {
        return Err(PageError::NotFound);
    }
    let c = db::challenges::find(&state.pool, id).await?.ok_or(PageError::NotFound)?;
    if c.status == "accepted" {
        return Ok(None);
    }
    let viewer = current_user(session).map(|u| u.id);
    let lapsed = c.status == "created" && c.expires_at <= OffsetDateTime::now_utc();
    let open = c.status == "created" && !lapsed;
    let mine = viewer == Some(c.challenger_id);
    let can_accept = open
        && !mine
        && !c.for_two
        && match c.dest_id {
            Some(d) => viewer == Some(d),
            None => viewer.is_some() || !c.rated,
        };
    let clock = match (c.clock_limit, c.clock_increment) {
        (Some(l), Some(i)) => TimeControl::new(l, i),
        _ => None,
    };
    let info = chessgold_engine::registry::variant(&c.variant);
    Ok(Some(ChallengePage {
        ctx: PageCtx::new(session)?,
        url: format!("{}/challenge/{}", crate::api::lichess::base_url(req), c.id),
        id: c.id.clone(),
        challenger: c.challenger_name.clone(),
        dest: c.dest_name.clone(),
        variant: info.map_or(c.variant.clone(), |i| i.name.to_string()),
        time: clock.map_or_else(|| "Unlimited".to_string(), |tc| tc.show()),
        rated: c.rated,
        color: c.color.clone(),
        status: if lapsed { "canceled".into() } else { c.status.clone() },
        reason: c.decline_reason.as_deref().map(|r| decline_text(r).to_string()),
        mine,
        can_accept,
        can_decline: open && c.dest_id.is_some() && viewer == c.dest_id,
        seats: if open && c.for_two {
            chessgold_engine::Color::ALL
                .into_iter()
                .filter(|s| seat.is_none_or(|x| x == *s))
                .map(|s| s.name())
                .collect()
        } else {
            Vec::new()
        },
        reasons: DECLINE_REASONS.iter().map(|k| (*k, decline_text(k))).collect(),
        refusal: None,
        busy_game: None,
    }))
}

/// The accept form: the seat asked for, if any (`white`, `black`).
#[derive(Debug, Deserialize)]
pub struct AcceptForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    color: String,
}

#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn accept(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    form: CsrfForm<AcceptForm>,
    identity: Identity,
) -> Result<HttpResponse, PageError> {
    let color =
        crate::game::parse_optional_color(Some(&form.color)).map_err(|why| PageError::BadRequest(why.into()))?;
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies)?;
    let game = match challenge::accept(&state.lobby_ctx(), &path, player, color).await {
        // The first seat of a challenge for two: its page, where the taker now waits.
        Ok(Accepted::Seated) => return Ok(see_other(&format!("/challenge/{path}"))),
        Ok(Accepted::Started(game)) => game,
        // A running game stands in the way: the challenge page again, saying so, with the
        // challenge still open.
        Err(ChallengeError::Busy { busy, yours, message }) => {
            let Some(mut page) = challenge_page(&req, &state, &session, &path, color).await? else {
                return Ok(see_other(&format!("/{path}")));
            };
            page.refusal = Some(message);
            page.busy_game = yours.then(|| busy.game.to_string());
            return render_status(&page, StatusCode::CONFLICT);
        }
        Err(e) => return Err(e.into()),
    };
    let mut resp = see_other(&format!("/{game}"));
    if let Some(c) = cookie {
        resp.add_cookie(&c).map_err(|e| anyhow::anyhow!("setting the guest cookie: {e}"))?;
    }
    Ok(resp)
}

/// The decline form.
#[derive(Debug, Deserialize)]
pub struct DeclineForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    reason: String,
}

crate::csrf_field!(ChallengeForm, DeclineForm, AcceptForm);

#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn decline(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    form: CsrfForm<DeclineForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Err(PageError::NotFound) };
    challenge::decline(&state.lobby_ctx(), &path, user.id, Some(&form.reason)).await?;
    Ok(see_other(&format!("/challenge/{path}")))
}

#[tracing::instrument(skip_all, fields(challenge.id = %path))]
pub(crate) async fn cancel(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    _checked: CsrfForm<crate::game::http::TokenForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Err(PageError::NotFound) };
    challenge::cancel(&state.lobby_ctx(), &path, user.id).await?;
    Ok(see_other(&format!("/challenge/{path}")))
}
