//! The moderation pages: a player's report and block forms (on profiles and game pages), the
//! account's block list, and the moderators' pages under `/mod` (the report queue, the search,
//! a user's mod view with its action forms, the global mod log). Every `/mod` handler takes
//! [`Moderator`] or [`Admin`]; the actions call `crate::moderation`, which writes the mod log and
//! closes the reports they answer. `docs/moderation.md` says what a moderator does.

use actix_session::Session;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, web};
use askama::Template;
use serde::Deserialize;
use time::OffsetDateTime;

use super::profile::{date_text, rating_text, variant_name};
use super::{PageCtx, render, render_status};
use crate::auth::csrf::CsrfForm;
use crate::auth::current_user;
use crate::auth::roles::{Admin, AdminForm, ModForm, Moderator};
use crate::db;
use crate::db::sessions::Seen;
use crate::domain::Role;
use crate::error::PageError;
use crate::game::GameId;
use crate::moderation::blocks::{self, BlockError};
use crate::moderation::closure;
use crate::moderation::lookup::{self, Prefix};
use crate::moderation::marks::{self, Mark, Marked};
use crate::moderation::reports::{self, NewReport, ReportError, ReportReason, ReportText};
use crate::moderation::roles::{self, RoleError};
use crate::moderation::sanctions::{self, SanctionError, SanctionKind};
use crate::moderation::{Reason, log};
use crate::startup::AppState;

/// How many rows of the mod log the global page shows.
const LOG_PAGE: i64 = 200;

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, to.to_string())).finish()
}

fn login_first(next: &str) -> HttpResponse {
    let query = serde_urlencoded::to_string([("next", next)]).unwrap_or_default();
    see_other(&format!("/login?{query}"))
}

/// "2026-12-02 14:05 UTC".
pub(crate) fn time_text(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!("{} {:02}:{:02} UTC", at.date(), at.hour(), at.minute())
}

/// "3 h", "2 d": how long ago.
fn age_text(at: OffsetDateTime) -> String {
    let secs = (OffsetDateTime::now_utc() - at).whole_seconds().max(0);
    match secs {
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 86400 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86400),
    }
}

// ---- Reports (players) ----

/// The report form of a profile or a game page.
#[derive(Debug, Deserialize)]
pub struct ReportForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    text: String,
    /// The game it came from (the game page's form).
    #[serde(default)]
    game: Option<String>,
}

crate::csrf_field!(ReportForm);

/// The page a reporter sees after a report.
#[derive(Debug, Template)]
#[template(path = "moderation/received.html")]
pub struct ReceivedPage {
    /// Layout.
    pub ctx: PageCtx,
    /// Whom they reported.
    pub username: String,
}

/// A signed-in player reports `username`: "received", whatever becomes of it.
#[tracing::instrument(skip_all)]
pub(crate) async fn report(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    form: CsrfForm<ReportForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first(&format!("/@/{path}"))) };
    let target = db::users::find_by_name(&state.pool, &path).await?.ok_or(PageError::NotFound)?;
    let reason = ReportReason::parse(&form.reason).map_err(PageError::BadRequest)?;
    let text = ReportText::parse(&form.text).map_err(PageError::BadRequest)?;
    let game = match form.game.as_deref().map(str::trim).filter(|g| !g.is_empty()) {
        None => None,
        Some(g) => Some(GameId::parse(g).ok_or_else(|| PageError::BadRequest(format!("no game '{g}'")))?),
    };
    let new = NewReport { reporter: user.id, target: target.id, reason, text, game };
    match reports::submit(&state.pool, &new).await {
        Ok(_) => render(&ReceivedPage { ctx: PageCtx::new(&session)?, username: target.username }),
        Err(ReportError::RateLimited { retry_after_secs }) => {
            Err(PageError::TooManyRequests { retry_after: u64::try_from(retry_after_secs.max(1)).unwrap_or(1) })
        }
        Err(e @ (ReportError::Yourself | ReportError::NoSuchGame)) => Err(PageError::BadRequest(e.to_string())),
        Err(ReportError::NoSuchUser) => Err(PageError::NotFound),
        Err(ReportError::Other(e)) => Err(PageError::Internal(e)),
    }
}

// ---- Blocks (players) ----

/// A form with only the CSRF token and where to go back to.
#[derive(Debug, Deserialize)]
pub struct BlockForm {
    #[serde(default)]
    csrf_token: String,
    /// `account`: back to the block list; otherwise the profile.
    #[serde(default)]
    back: Option<String>,
}

crate::csrf_field!(BlockForm);

fn back_from(form: &BlockForm, name: &str) -> String {
    if form.back.as_deref() == Some("account") { "/account/blocks".into() } else { format!("/@/{name}") }
}

/// The signed-in player blocks `username`.
#[tracing::instrument(skip_all)]
pub(crate) async fn block(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    form: CsrfForm<BlockForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first(&format!("/@/{path}"))) };
    let target = db::users::find_by_name(&state.pool, &path).await?.ok_or(PageError::NotFound)?;
    match blocks::block(&state.pool, user.id, target.id).await {
        Ok(_) => Ok(see_other(&back_from(&form, &target.username))),
        Err(e @ (BlockError::Yourself | BlockError::TooMany)) => Err(PageError::Conflict(e.to_string())),
        Err(BlockError::NoSuchUser) => Err(PageError::NotFound),
        Err(BlockError::Other(e)) => Err(PageError::Internal(e)),
    }
}

/// The signed-in player unblocks `username`.
#[tracing::instrument(skip_all)]
pub(crate) async fn unblock(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    form: CsrfForm<BlockForm>,
) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first(&format!("/@/{path}"))) };
    let target = db::users::find_by_name(&state.pool, &path).await?.ok_or(PageError::NotFound)?;
    blocks::unblock(&state.pool, user.id, target.id).await?;
    Ok(see_other(&back_from(&form, &target.username)))
}

/// `/account/blocks`.
#[derive(Debug, Template)]
#[template(path = "account/blocks.html")]
pub struct BlocksPage {
    /// Layout.
    pub ctx: PageCtx,
    /// (name, since).
    pub blocked: Vec<(String, String)>,
}

/// The accounts the signed-in player blocks, each with an undo.
#[tracing::instrument(skip_all)]
pub(crate) async fn blocks_list(state: web::Data<AppState>, session: Session) -> Result<HttpResponse, PageError> {
    let Some(user) = current_user(&session) else { return Ok(login_first("/account/blocks")) };
    let blocked = blocks::list(&state.pool, user.id).await?.into_iter().map(|b| (b.name, date_text(b.since))).collect();
    render(&BlocksPage { ctx: PageCtx::new(&session)?, blocked })
}

// ---- /mod ----

/// A report of the queue.
#[derive(Debug, Clone)]
pub struct QueueLine {
    /// Who reported.
    pub reporter: String,
    /// Whom.
    pub target: String,
    /// Opened (UTC).
    pub opened: String,
    /// Age of the report.
    pub age: String,
    /// Notes it holds.
    pub notes: i64,
}

/// A reason's room of the queue.
#[derive(Debug, Clone)]
pub struct RoomView {
    /// Key.
    pub key: &'static str,
    /// Label.
    pub label: &'static str,
    /// Open reports.
    pub count: usize,
    /// Age of the oldest.
    pub oldest: String,
    /// Oldest first.
    pub reports: Vec<QueueLine>,
}

/// `/mod`: the report queue.
#[derive(Debug, Template)]
#[template(path = "moderation/queue.html")]
pub struct QueuePage {
    /// Layout.
    pub ctx: PageCtx,
    /// The rooms, in the order of the reasons.
    pub rooms: Vec<RoomView>,
    /// The moderator is an admin.
    pub admin: bool,
}

/// The report queue by reason, oldest first.
#[tracing::instrument(skip_all)]
pub(crate) async fn queue(
    state: web::Data<AppState>,
    session: Session,
    me: Moderator,
) -> Result<HttpResponse, PageError> {
    let rooms = reports::queue(&state.pool)
        .await?
        .into_iter()
        .map(|r| RoomView {
            key: r.reason.as_str(),
            label: r.reason.label(),
            count: r.count,
            oldest: r.oldest.map(age_text).unwrap_or_default(),
            reports: r
                .reports
                .into_iter()
                .map(|o| QueueLine {
                    reporter: o.reporter.1,
                    target: o.target.1,
                    opened: time_text(o.created_at),
                    age: age_text(o.created_at),
                    notes: o.notes,
                })
                .collect(),
        })
        .collect();
    render(&QueuePage { ctx: PageCtx::new(&session)?, rooms, admin: me.role == Role::Admin })
}

/// `?q=` of the search.
#[derive(Debug, Deserialize)]
pub struct SearchQuery {
    #[serde(default)]
    q: Option<String>,
}

/// `/mod/search`.
#[derive(Debug, Template)]
#[template(path = "moderation/search.html")]
pub struct SearchPage {
    /// Layout.
    pub ctx: PageCtx,
    /// What was typed.
    pub q: String,
    /// (name, role, since).
    pub found: Vec<(String, &'static str, String)>,
    /// Whether a search by name was made.
    pub searched: bool,
    /// Whether the search was by address or session.
    pub by_seen: bool,
    /// The sign-ups and log-ins it found.
    pub seen: Vec<SeenLine>,
    /// The accounts among them, once each.
    pub seen_names: Vec<String>,
    /// What is wrong with the query.
    pub error: Option<String>,
}

/// The search by name prefix.
#[tracing::instrument(skip_all)]
pub(crate) async fn search(
    state: web::Data<AppState>,
    session: Session,
    query: web::Query<SearchQuery>,
    _me: Moderator,
) -> Result<HttpResponse, PageError> {
    let q = query.q.clone().unwrap_or_default();
    let mut page = SearchPage {
        ctx: PageCtx::new(&session)?,
        q: q.clone(),
        found: Vec::new(),
        searched: false,
        by_seen: false,
        seen: Vec::new(),
        seen_names: Vec::new(),
        error: None,
    };
    if q.trim().is_empty() {
        return render(&page);
    }
    if let Some(seen) = Seen::parse(&q) {
        page.seen =
            db::sessions::events_from(&state.pool, &seen, SEEN_LIMIT).await?.into_iter().map(seen_line).collect();
        for l in &page.seen {
            if !page.seen_names.contains(&l.name) {
                page.seen_names.push(l.name.clone());
            }
        }
        page.by_seen = true;
        return render(&page);
    }
    match Prefix::parse(&q) {
        Err(e) => {
            page.error = Some(e);
            render_status(&page, StatusCode::UNPROCESSABLE_ENTITY)
        }
        Ok(prefix) => {
            page.found = lookup::search(&state.pool, &prefix)
                .await?
                .into_iter()
                .map(|f| (f.name, f.role.as_str(), date_text(f.created_at)))
                .collect();
            page.searched = true;
            render(&page)
        }
    }
}

/// How many sign-ups and log-ins a search or a mod view shows.
const SEEN_LIMIT: i64 = 100;

/// A sign-up or log-in as the mod pages show it.
#[derive(Debug, Clone)]
pub struct SeenLine {
    /// When.
    pub at: String,
    /// The account.
    pub name: String,
    /// `signup`, `login` or `password`.
    pub kind: String,
    /// The address.
    pub ip: String,
    /// The session id.
    pub sid: String,
    /// Its first eight characters.
    pub short_sid: String,
    /// The browser in words.
    pub browser: String,
    /// The user agent.
    pub agent: String,
}

fn seen_line(e: db::sessions::AuthEvent) -> SeenLine {
    let sid = e.sid.to_string();
    SeenLine {
        at: time_text(e.at),
        name: e.username,
        kind: e.kind,
        ip: e.ip,
        short_sid: sid.chars().take(8).collect(),
        sid,
        browser: super::sessions::browser_name(&e.user_agent),
        agent: e.user_agent,
    }
}

/// A mod-log row as the pages show it.
#[derive(Debug, Clone)]
pub struct LogLine {
    /// When.
    pub at: String,
    /// Moderator, or `command line`.
    pub moderator: String,
    /// Account acted on.
    pub target: Option<String>,
    /// Action key.
    pub action: &'static str,
    /// Why.
    pub reason: String,
    /// Details (JSON).
    pub details: String,
}

fn log_line(r: log::LogRow) -> LogLine {
    LogLine {
        at: time_text(r.at),
        moderator: r.moderator.map_or_else(|| "command line".to_string(), |m| m.1),
        target: r.target.map(|t| t.1),
        action: r.action.as_str(),
        reason: r.reason,
        details: if r.details.as_object().is_some_and(serde_json::Map::is_empty) {
            String::new()
        } else {
            r.details.to_string()
        },
    }
}

/// `/mod/log`.
#[derive(Debug, Template)]
#[template(path = "moderation/log.html")]
pub struct LogPage {
    /// Layout.
    pub ctx: PageCtx,
    /// Newest first.
    pub rows: Vec<LogLine>,
}

/// The global mod log, newest first.
#[tracing::instrument(skip_all)]
pub(crate) async fn mod_log(
    state: web::Data<AppState>,
    session: Session,
    _me: Moderator,
) -> Result<HttpResponse, PageError> {
    let rows = log::recent(&state.pool, LOG_PAGE).await?.into_iter().map(log_line).collect();
    render(&LogPage { ctx: PageCtx::new(&session)?, rows })
}

/// A report about or by the account, on its mod view.
#[derive(Debug, Clone)]
pub struct ReportLine {
    /// Reason label.
    pub reason: &'static str,
    /// The other account (reporter or target).
    pub other: String,
    /// Opened.
    pub opened: String,
    /// Still open.
    pub open: bool,
}

/// A chat line of the mod view.
#[derive(Debug, Clone)]
pub struct ChatView {
    /// Game id.
    pub game: String,
    /// Room.
    pub room: String,
    /// Text.
    pub text: String,
    /// Said shadow-muted.
    pub shadow: bool,
    /// When.
    pub at: String,
}

/// `/mod/@/{username}`: a user's mod view.
#[derive(Debug, Template)]
#[template(path = "moderation/user.html")]
pub struct UserPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The account's name.
    pub username: String,
    /// Its role.
    pub role: &'static str,
    /// Signed up.
    pub since: String,
    /// (variant, rating).
    pub ratings: Vec<(String, String)>,
    /// Recent games.
    pub games: Vec<super::profile::GameLine>,
    /// Open and closed reports against them.
    pub against: Vec<ReportLine>,
    /// Reports they made.
    pub by: Vec<ReportLine>,
    /// Sanctions in force: (kind, label, until).
    pub in_force: Vec<(&'static str, &'static str, String)>,
    /// The account is closed (the reopen form instead of the close form).
    pub closed: bool,
    /// What the lift form offers: the sanctions in force but the closure (key, label).
    pub liftable: Vec<(&'static str, &'static str)>,
    /// Their mod log (the sanction history), newest first.
    pub rows: Vec<LogLine>,
    /// Recent chat lines.
    pub chat: Vec<ChatView>,
    /// Their sign-ups and log-ins.
    pub seen: Vec<SeenLine>,
    /// The viewer is an admin (the role form).
    pub admin: bool,
    /// The roles an admin can give.
    pub roles: Vec<&'static str>,
    /// The reasons of reports (the dismiss form).
    pub reasons: Vec<(&'static str, &'static str)>,
    /// What the last action did or why it was refused.
    pub notice: Option<String>,
    /// The notice is a refusal.
    pub refused: bool,
}

async fn user_page(
    state: &AppState,
    session: &Session,
    me: &Moderator,
    name: &str,
    notice: Option<(String, bool)>,
) -> Result<UserPage, PageError> {
    let pool = &state.pool;
    let user = lookup::account(pool, name).await?.ok_or(PageError::NotFound)?;
    let ratings = db::profiles::perfs(pool, user.id)
        .await?
        .into_iter()
        .map(|p| (p.variant, rating_text(p.rating, p.games)))
        .collect();
    let games = db::profiles::games(pool, user.id, 15, 0).await?.into_iter().map(super::profile::game_line).collect();
    let against = reports::of_user(pool, user.id, true, 50).await?;
    let by = reports::of_user(pool, user.id, false, 50).await?;
    let ids: Vec<_> = against.iter().map(|r| r.reporter).chain(by.iter().map(|r| r.target)).collect();
    let names = lookup::names(pool, &ids).await?;
    let name_of = |id| names.get(&id).cloned().unwrap_or_default();
    let line = |r: &reports::ReportSummary, other| ReportLine {
        reason: r.reason.label(),
        other,
        opened: time_text(r.created_at),
        open: r.closed_by_log.is_none(),
    };
    let against = against.iter().map(|r| line(r, name_of(r.reporter))).collect();
    let by = by.iter().map(|r| line(r, name_of(r.target))).collect();
    let in_force: Vec<_> = lookup::in_force(pool, user.id)
        .await?
        .into_iter()
        .filter_map(|(k, until)| {
            let kind = SanctionKind::parse(&k).ok()?;
            let until = until.map_or_else(|| "until lifted".to_string(), |u| format!("until {}", time_text(u)));
            Some((kind.as_str(), kind.label(), until))
        })
        .collect();
    let closed = in_force.iter().any(|(k, _, _)| *k == SanctionKind::AccountClosed.as_str());
    let liftable = in_force
        .iter()
        .filter(|(k, _, _)| *k != SanctionKind::AccountClosed.as_str())
        .map(|(k, l, _)| (*k, *l))
        .collect();
    let rows = log::of_target(pool, user.id, 100).await?.into_iter().map(log_line).collect();
    let chat = lookup::chat_lines(pool, user.id, 30)
        .await?
        .into_iter()
        .map(|c| ChatView { game: c.game, room: c.room, text: c.text, shadow: c.shadow, at: time_text(c.at) })
        .collect();
    let seen = db::sessions::events_of(pool, user.id, SEEN_LIMIT).await?.into_iter().map(seen_line).collect();
    let (notice, refused) = notice.map_or((None, false), |(n, r)| (Some(n), r));
    Ok(UserPage {
        ctx: PageCtx::new(session)?,
        username: user.name,
        role: user.role.as_str(),
        since: date_text(user.created_at),
        ratings,
        games,
        against,
        by,
        in_force,
        closed,
        liftable,
        rows,
        chat,
        seen,
        admin: me.role == Role::Admin,
        roles: Role::ALL.iter().map(|r| r.as_str()).collect(),
        reasons: ReportReason::ALL.iter().map(|r| (r.as_str(), r.label())).collect(),
        notice,
        refused,
    })
}

/// A user's mod view.
#[tracing::instrument(skip_all)]
pub(crate) async fn user(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    me: Moderator,
) -> Result<HttpResponse, PageError> {
    render(&user_page(&state, &session, &me, &path, None).await?)
}

/// A mod action's form: a reason, and what the action needs.
#[derive(Debug, Deserialize)]
pub struct ActionForm {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    reason: String,
    /// Chat timeout: minutes.
    #[serde(default)]
    minutes: Option<String>,
    /// Lift: the sanction ([`SanctionKind::as_str`]); mark: `engine` or `booster`.
    #[serde(default)]
    kind: Option<String>,
    /// Dismiss: one report reason, or empty for all.
    #[serde(default)]
    reports: Option<String>,
    /// Role: the new role.
    #[serde(default)]
    role: Option<String>,
}

crate::csrf_field!(ActionForm);

/// What an action did (a sentence), or why it was refused.
type Outcome = Result<String, String>;

async fn answer(
    state: &AppState,
    session: &Session,
    me: &Moderator,
    name: &str,
    outcome: Outcome,
) -> Result<HttpResponse, PageError> {
    let (status, notice) = match outcome {
        Ok(done) => (StatusCode::OK, (done, false)),
        Err(why) => (StatusCode::UNPROCESSABLE_ENTITY, (why, true)),
    };
    render_status(&user_page(state, session, me, name, Some(notice)).await?, status)
}

fn sanction_outcome<T>(r: Result<T, SanctionError>, done: impl FnOnce(T) -> String) -> Result<Outcome, PageError> {
    match r {
        Ok(v) => Ok(Ok(done(v))),
        Err(SanctionError::NoSuchUser) => Err(PageError::NotFound),
        Err(SanctionError::Other(e)) => Err(PageError::Internal(e)),
        Err(e) => Ok(Err(e.to_string())),
    }
}

/// The account and the reason of an action, or the refusal to show.
async fn target_and_reason(
    state: &AppState,
    name: &str,
    form: &ActionForm,
) -> Result<Result<(uuid::Uuid, Reason), String>, PageError> {
    let user = lookup::account(&state.pool, name).await?.ok_or(PageError::NotFound)?;
    Ok(Reason::parse(&form.reason).map(|r| (user.id, r)).map_err(|e| format!("Reason: {e}")))
}

/// The one shape of a moderator's action on an account: the account and the reason read (and
/// `extra`, the form's other field, already parsed), `run` does the action, and the account's
/// mod view is shown again with what it did or why it was refused.
async fn act<E>(
    state: &AppState,
    session: &Session,
    me: &Moderator,
    name: &str,
    form: &ActionForm,
    extra: Result<E, String>,
    run: impl AsyncFnOnce(uuid::Uuid, Reason, E) -> Result<Outcome, PageError>,
) -> Result<HttpResponse, PageError> {
    let outcome = match (target_and_reason(state, name, form).await?, extra) {
        (Err(why), _) | (_, Err(why)) => Err(why),
        (Ok((target, reason)), Ok(extra)) => run(target, reason, extra).await?,
    };
    answer(state, session, me, name, outcome).await
}

/// A chat timeout of 10 minutes to 24 hours.
#[tracing::instrument(skip_all)]
pub(crate) async fn timeout(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: ModForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let ModForm { by: me, form } = posted;
    let minutes = form
        .minutes
        .as_deref()
        .map(str::trim)
        .unwrap_or("")
        .parse::<i64>()
        .map_err(|_| "Minutes: a whole number from 10 to 1440".to_string());
    act(&state, &session, &me, &path, &form, minutes, async |target, reason, minutes| {
        sanction_outcome(sanctions::chat_timeout(&state.pool, me.id, target, minutes, &reason).await, |g| {
            format!(
                "Chat timeout until {}; {} report(s) closed.",
                g.until.map(time_text).unwrap_or_default(),
                g.closed_reports
            )
        })
    })
    .await
}

/// A shadow-mute.
#[tracing::instrument(skip_all)]
pub(crate) async fn shadow_mute(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: ModForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let ModForm { by: me, form } = posted;
    act(&state, &session, &me, &path, &form, Ok(()), async |target, reason, ()| {
        sanction_outcome(sanctions::shadow_mute(&state.pool, me.id, target, &reason).await, |g| {
            format!("Shadow-muted; {} report(s) closed.", g.closed_reports)
        })
    })
    .await
}

/// Lifts a sanction in force: a chat timeout, a shadow-mute, a mark; for a closed account, this
/// is the reopening.
#[tracing::instrument(skip_all)]
pub(crate) async fn lift(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: ModForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let ModForm { by: me, form } = posted;
    let kind = SanctionKind::parse(form.kind.as_deref().unwrap_or("")).map_err(|e| format!("Sanction: {e}"));
    act(&state, &session, &me, &path, &form, kind, async |target, reason, kind| {
        sanction_outcome(sanctions::lift(&state.pool, me.id, target, kind, &reason).await, |_| match kind {
            SanctionKind::AccountClosed => {
                "Account reopened: logging in works again (revoked tokens and resigned games stay so).".into()
            }
            _ => format!("Lifted: {}.", kind.label().to_lowercase()),
        })
    })
    .await
}

/// An engine or booster mark; an engine mark pays the rating refund.
#[tracing::instrument(skip_all)]
pub(crate) async fn mark(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: ModForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let ModForm { by: me, form } = posted;
    let which = match form.kind.as_deref().map(str::trim) {
        Some("engine") => Ok(Mark::Engine),
        Some("booster") => Ok(Mark::Booster),
        _ => Err("Mark: choose engine or booster".to_string()),
    };
    act(&state, &session, &me, &path, &form, which, async |target, reason, which| {
        let done = marks::mark(&state.pool, me.id, target, which, &reason).await;
        let names = match &done {
            Ok(m) => lookup::names(&state.pool, &m.refunds.iter().map(|r| r.user).collect::<Vec<_>>()).await?,
            Err(_) => std::collections::HashMap::new(),
        };
        sanction_outcome(done, |m| refund_sentence(which, &m, &names))
    })
    .await
}

/// "Engine mark given; 2 rating refunds paid: bob +12 standard, carol +8 gold; 1 report closed."
fn refund_sentence(which: Mark, m: &Marked, names: &std::collections::HashMap<uuid::Uuid, String>) -> String {
    let label = which.kind().label();
    let refunds = match (which, m.refunds.as_slice()) {
        (Mark::Booster, _) => String::new(),
        (Mark::Engine, []) => "; no rating to refund".to_string(),
        (Mark::Engine, paid) => {
            let each: Vec<String> = paid
                .iter()
                .map(|r| {
                    let name = names.get(&r.user).map_or("a closed account", String::as_str);
                    format!("{name} +{} {}", r.points, variant_name(&r.variant))
                })
                .collect();
            format!("; {} rating refund(s) paid: {}", paid.len(), each.join(", "))
        }
    };
    format!("{label} given{refunds}; {} report(s) closed.", m.closed_reports)
}

/// Closes the account: log-in refused, sessions and tokens ended, games resigned.
#[tracing::instrument(skip_all)]
pub(crate) async fn close(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: ModForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let ModForm { by: me, form } = posted;
    act(&state, &session, &me, &path, &form, Ok(()), async |target, reason, ()| {
        sanction_outcome(closure::close(&state.lobby_ctx(), &state.rounds, me.id, target, &reason).await, |c| {
            format!(
                "Account closed: {} session(s) ended, {} token(s) revoked, {} challenge(s) cancelled, {} seek(s) \
                 removed, {} running game(s) resigned; {} report(s) closed.",
                c.sessions,
                c.tokens,
                c.challenges,
                c.seeks,
                c.games.len(),
                c.closed_reports
            )
        })
    })
    .await
}

/// Dismisses the open reports against the account (all, or those of one reason).
#[tracing::instrument(skip_all)]
pub(crate) async fn dismiss(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: ModForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let ModForm { by: me, form } = posted;
    let which = match form.reports.as_deref().map(str::trim).unwrap_or("") {
        "" | "all" => Ok(None),
        key => ReportReason::parse(key).map(Some),
    };
    act(&state, &session, &me, &path, &form, which, async |target, reason, which| {
        let only = which.map(|r| [r]);
        let (_, closed) = reports::dismiss(&state.pool, me.id, target, only.as_ref().map(|a| &a[..]), &reason)
            .await
            .map_err(PageError::Internal)?;
        Ok(Ok(format!("{} report(s) dismissed.", closed.len())))
    })
    .await
}

/// An admin gives the account a role.
#[tracing::instrument(skip_all)]
pub(crate) async fn set_role(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    posted: AdminForm<ActionForm>,
) -> Result<HttpResponse, PageError> {
    let AdminForm { by: Admin(me), form } = posted;
    let to = Role::parse(form.role.as_deref().unwrap_or("")).map_err(|e| format!("Role: {e}"));
    act(&state, &session, &me, &path, &form, to, async |_, reason, to| {
        match roles::set_role(&state.pool, Some(me.id), &path, to, &reason).await {
            Ok(c) => Ok(Ok(format!("{} is now {} (was {}).", c.name, c.to.as_str(), c.from.as_str()))),
            Err(RoleError::NoSuchUser(_)) => Err(PageError::NotFound),
            Err(RoleError::Other(e)) => Err(PageError::Internal(e)),
            Err(e) => Ok(Err(e.to_string())),
        }
    })
    .await
}
